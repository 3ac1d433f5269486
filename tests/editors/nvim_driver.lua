-- Drives a headless Neovim (0.7 to 0.12): the configuration under test has been loaded already (the snippet
-- from docs/editors.md). Opens the file in vim.g.heredoc_test.file, waits for the server's diagnostics, applies
-- the quick fix whose title is vim.g.heredoc_test.fix (offered for the first diagnostic), waits for the
-- diagnostics to update (until vim.g.heredoc_test.left of them remain, 0 by default), then writes what it saw as
-- JSON to vim.g.heredoc_test.out and quits.
local test = vim.g.heredoc_test
local out = {}

local function finish()
  local f = io.open(test.out, 'w')
  f:write(vim.json.encode(out))
  f:close()
  vim.cmd('qa!')
end

local function clients_of(buf)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf })
  end
  local list = {}
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    table.insert(list, c)
  end
  return list
end

local function request_sync(client, method, params, buf)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request_sync(method, params, 10000, buf)
  end
  return client.request_sync(method, params, 10000, buf)
end

local function snapshot(buf)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(list, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      message = d.message, code = lsp.code or d.code, lsp_range = lsp.range,
    })
  end
  return list
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(test.file))
  local buf = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[buf].filetype
  vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  out.before = snapshot(buf)
  local client = clients_of(buf)[1]
  if client == nil then
    out.error = 'no client attached'
    return
  end
  out.offset_encoding = client.offset_encoding
  local first = vim.diagnostic.get(buf)[1]
  if first == nil then
    out.error = 'no diagnostics'
    return
  end
  -- The cursor on the diagnostic's line, as `gra` would ask (Neovim 0.7 keeps no LSP range to echo back).
  local at = { line = first.lnum, character = 0 }
  local response = request_sync(client, 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = at, ['end'] = at },
    context = { diagnostics = {} },
  }, buf)
  out.titles = {}
  out.response = response
  local chosen = nil
  for _, action in ipairs((response or {}).result or {}) do
    table.insert(out.titles, action.title)
    if action.title == test.fix then
      chosen = action
    end
  end
  if chosen == nil then
    out.error = 'quick fix not offered'
    return
  end
  out.edit_kind = chosen.edit.documentChanges and 'documentChanges' or 'changes'
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  local left = test.left or 0
  vim.wait(20000, function() return #vim.diagnostic.get(buf) == left end, 20)
  out.after = snapshot(buf)
  out.lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end)
if not ok then
  out.error = tostring(err)
end
finish()
