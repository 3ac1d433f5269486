-- Drives a headless Neovim 0.12 through a run from the editor: the configuration under test (docs/editors.md and
-- docs/running.md) has been loaded already. Opens vim.g.heredoc_test.file, waits for the "▶ Run" lens on
-- vim.g.heredoc_test.line, runs it with vim.lsp.codelens.run() (the confirmation is answered through vim.ui.select,
-- as a user would), waits for vim.g.heredoc_test.created to exist and for the result lens, hovers the command, and
-- writes what it saw as JSON to vim.g.heredoc_test.out.
local test = vim.g.heredoc_test
local out = { progress = {}, questions = {}, lens_titles = {} }

local function finish()
  local f = io.open(test.out, 'w')
  f:write(vim.json.encode(out))
  f:close()
  vim.cmd('qa!')
end

local function titles(buf)
  local list = {}
  for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
    if lens.command then
      table.insert(list, { line = lens.range.start.line, title = lens.command.title, command = lens.command.command })
    end
  end
  table.sort(list, function(a, b)
    return a.line < b.line
  end)
  return list
end

local function has_title(buf, line, pattern)
  for _, t in ipairs(titles(buf)) do
    if t.line == line and t.title:find(pattern) then
      return true
    end
  end
  return false
end

-- The user's answer to the confirmation: the first choice titled like vim.g.heredoc_test.answer.
vim.ui.select = function(items, opts, on_choice)
  local labels = {}
  local chosen = nil
  for _, item in ipairs(items) do
    local label = opts.format_item and opts.format_item(item) or tostring(item)
    table.insert(labels, label)
    if chosen == nil and label == test.answer then
      chosen = item
    end
  end
  table.insert(out.questions, { prompt = opts.prompt, choices = labels })
  on_choice(chosen)
end

vim.api.nvim_create_autocmd('LspProgress', {
  callback = function(ev)
    local value = ev.data.params.value
    table.insert(out.progress, { kind = value.kind, title = value.title, message = value.message })
  end,
})

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(test.file))
  local buf = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[buf].filetype
  local attached = vim.wait(20000, function()
    return #vim.lsp.get_clients({ bufnr = buf }) > 0
  end, 20)
  if not attached then
    out.error = 'no client attached'
    return
  end
  local client = vim.lsp.get_clients({ bufnr = buf })[1]
  out.commands = (client.server_capabilities.executeCommandProvider or {}).commands
  local offered = vim.wait(20000, function()
    vim.lsp.codelens.refresh({ bufnr = buf })
    return has_title(buf, test.line, '^▶ Run$')
  end, 200)
  out.before = titles(buf)
  if not offered then
    out.error = 'no run lens'
    return
  end
  vim.api.nvim_win_set_cursor(0, { test.line + 1, 0 })
  vim.lsp.codelens.run()
  out.created = vim.wait(30000, function()
    return vim.uv.fs_stat(test.created) ~= nil
  end, 50)
  local shown = vim.wait(20000, function()
    vim.lsp.codelens.refresh({ bufnr = buf })
    return has_title(buf, test.line, '^✓ exit 0')
  end, 200)
  out.after = titles(buf)
  out.result_lens = shown
  local hover = client:request_sync('textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = test.line, character = 0 },
  }, 10000, buf)
  out.hover = hover and hover.result and hover.result.contents.value or vim.NIL
end)
if not ok then
  out.error = tostring(err)
end
finish()
