-- Drives a headless Neovim 0.12 for the navigation features: the configuration under test (the docs/editors.md
-- snippet) is loaded already. Opens vim.g.heredoc_nav.file, waits until the server's semantic tokens are applied,
-- records the tokens Neovim holds at the probe positions and the document symbols, inserts a line at the top and
-- waits for the tokens to move (a delta or full re-request), then writes what it saw as JSON and quits.
local test = vim.g.heredoc_nav
local out = { probes = {}, after_edit = {} }

local function finish()
  local f = io.open(test.out, 'w')
  f:write(vim.json.encode(out))
  f:close()
  vim.cmd('qa!')
end

local function tokens_at(buf, row, col)
  local found = {}
  for _, t in ipairs(vim.lsp.semantic_tokens.get_at_pos(buf, row, col) or {}) do
    local mods = {}
    for name, on in pairs(t.modifiers or {}) do
      if on then table.insert(mods, name) end
    end
    table.sort(mods)
    table.insert(found, { type = t.type, modifiers = mods, line = t.line, start_col = t.start_col, end_col = t.end_col })
  end
  return found
end

local function highlight_groups(buf)
  local groups = {}
  for _, ns in pairs(vim.api.nvim_get_namespaces()) do
    for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
      local group = mark[4].hl_group
      if type(group) == 'string' and group:find('^@lsp') then groups[group] = true end
    end
  end
  local list = vim.tbl_keys(groups)
  table.sort(list)
  return list
end

local function simplify(symbols)
  local list = {}
  for _, s in ipairs(symbols or {}) do
    table.insert(list, {
      name = s.name, kind = s.kind, detail = s.detail, range = s.range, selectionRange = s.selectionRange,
      children = simplify(s.children),
    })
  end
  return list
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(test.file))
  local buf = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[buf].filetype
  local probe = test.probes[1]
  local ready = vim.wait(20000, function() return #tokens_at(buf, probe[1], probe[2]) > 0 end, 20)
  local client = vim.lsp.get_clients({ bufnr = buf })[1]
  if client == nil then
    out.error = 'no client attached'
    return
  end
  out.offset_encoding = client.offset_encoding
  out.legend = client.server_capabilities.semanticTokensProvider
    and client.server_capabilities.semanticTokensProvider.legend
  if not ready then
    out.error = 'no semantic tokens applied'
    return
  end
  for _, p in ipairs(test.probes) do
    table.insert(out.probes, tokens_at(buf, p[1], p[2]))
  end
  out.highlight_groups = highlight_groups(buf)
  local response = client:request_sync('textDocument/documentSymbol', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
  }, 10000, buf)
  out.symbols = simplify((response or {}).result)
  -- Edit: a new comment line at the top moves every token one line down.
  vim.api.nvim_buf_set_lines(buf, 0, 0, false, { test.insert })
  -- (the first probe's column lies past the end of the next line's tokens before the edit)
  local moved = vim.wait(20000, function() return #tokens_at(buf, probe[1] + 1, probe[2]) > 0 end, 20)
  out.moved = moved
  table.insert(out.after_edit, tokens_at(buf, 0, 0))
  table.insert(out.after_edit, tokens_at(buf, probe[1] + 1, probe[2]))
end)
if not ok then
  out.error = tostring(err)
end
finish()
