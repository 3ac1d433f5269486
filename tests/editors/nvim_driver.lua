-- Drives a headless Neovim (0.7 to 0.12) through one scenario, vim.g.heredoc_test.scenario; the configuration
-- under test (the docs/editors.md snippet, and docs/running.md's for runs) has been loaded already. Each scenario
-- opens vim.g.heredoc_test.file, does what a user would, and records what it saw; the driver then writes it as
-- JSON to vim.g.heredoc_test.out and quits.
--   quickfix (0.7 to 0.12): waits for the server's diagnostics, applies the quick fix titled vim.g.heredoc_test.fix
--     (offered for the first diagnostic) and waits for the diagnostics to update (until vim.g.heredoc_test.left of
--     them remain, 0 by default).
--   nav (0.12): waits until the server's semantic tokens are applied, records the tokens at vim.g.heredoc_test.probes
--     and the document symbols, inserts vim.g.heredoc_test.insert at the top and waits for the tokens to move.
--   run (0.12): waits for the "▶ Run" lens on vim.g.heredoc_test.line, runs it with vim.lsp.codelens.run() (the
--     confirmation answered vim.g.heredoc_test.answer through vim.ui.select), waits for vim.g.heredoc_test.created
--     and the result lens, and hovers the command.
--   quit (0.12): starts a run as run does, waits for vim.g.heredoc_test.created (made once the command is going),
--     records Neovim's child processes (the server among them) and quits with the run still going.
--   loop (0.12): the agent loop through the :Heredoc* user commands: a session for vim.g.heredoc_test.task, its
--     outbox copied and pasted back (refused), vim.g.heredoc_test.reply pasted, previewed, applied (the confirmation
--     answered vim.g.heredoc_test.answer) until vim.g.heredoc_test.created exists, then undone; records the
--     messages (vim.notify), the buffers shown, the register and the preview's lines.
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

-- The buffer's language client (its offset encoding recorded), or nil with the error recorded.
local function attached(buf)
  local client = clients_of(buf)[1]
  if client == nil then
    out.error = 'no client attached'
  else
    out.offset_encoding = client.offset_encoding
  end
  return client
end

-- quickfix ------------------------------------------------------------------------------------------------------
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

local function quickfix(buf)
  vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  out.before = snapshot(buf)
  local client = attached(buf)
  if client == nil then
    return
  end
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
end

-- nav -----------------------------------------------------------------------------------------------------------
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

local function nav(buf)
  out.probes, out.after_edit = {}, {}
  local probe = test.probes[1]
  local ready = vim.wait(20000, function() return #tokens_at(buf, probe[1], probe[2]) > 0 end, 20)
  local client = attached(buf)
  if client == nil then
    return
  end
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
  local response = request_sync(client, 'textDocument/documentSymbol', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
  }, buf)
  out.symbols = simplify((response or {}).result)
  -- Edit: a new comment line at the top moves every token one line down.
  vim.api.nvim_buf_set_lines(buf, 0, 0, false, { test.insert })
  -- (the first probe's column lies past the end of the next line's tokens before the edit)
  local moved = vim.wait(20000, function() return #tokens_at(buf, probe[1] + 1, probe[2]) > 0 end, 20)
  out.moved = moved
  table.insert(out.after_edit, tokens_at(buf, 0, 0))
  table.insert(out.after_edit, tokens_at(buf, probe[1] + 1, probe[2]))
end

-- run -----------------------------------------------------------------------------------------------------------
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

local function before_run()
  out.progress, out.questions, out.lens_titles = {}, {}, {}
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
end

-- Runs the "▶ Run" lens on vim.g.heredoc_test.line once offered; the client, or nil with the error recorded.
local function start_run(buf)
  local attached = vim.wait(20000, function()
    return #clients_of(buf) > 0
  end, 20)
  if not attached then
    out.error = 'no client attached'
    return
  end
  local client = clients_of(buf)[1]
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
  return client
end

local function run(buf)
  local client = start_run(buf)
  if client == nil then
    return
  end
  out.created = vim.wait(30000, function()
    return vim.uv.fs_stat(test.created) ~= nil
  end, 50)
  local shown = vim.wait(20000, function()
    vim.lsp.codelens.refresh({ bufnr = buf })
    return has_title(buf, test.line, '^✓ exit 0')
  end, 200)
  out.after = titles(buf)
  out.result_lens = shown
  local hover = request_sync(client, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = test.line, character = 0 },
  }, buf)
  out.hover = hover and hover.result and hover.result.contents.value or vim.NIL
end

local function quit(buf)
  if start_run(buf) == nil then
    return
  end
  out.created = vim.wait(30000, function()
    return vim.uv.fs_stat(test.created) ~= nil
  end, 50)
  out.children = {}
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local proc = vim.api.nvim_get_proc(pid)
    table.insert(out.children, { pid = pid, name = proc and proc.name or vim.NIL })
  end
end

-- loop ----------------------------------------------------------------------------------------------------------
local function current_name()
  return vim.api.nvim_buf_get_name(vim.api.nvim_get_current_buf())
end

local function wait_message(pattern)
  return vim.wait(20000, function()
    for _, m in ipairs(out.messages) do
      if m:find(pattern) then return true end
    end
    return false
  end, 20)
end

local function loop(buf)
  out.messages = {}
  vim.notify = function(message)
    table.insert(out.messages, message)
  end
  if not vim.wait(20000, function() return #clients_of(buf) > 0 end, 20) then
    out.error = 'no client attached'
    return
  end
  vim.cmd('HeredocNewSession ' .. test.task)
  if not vim.wait(20000, function() return current_name():find('/outbox/[0-9a-f]+_seq0001%.txt$') ~= nil end, 20) then
    out.error = 'the first outbox was not shown'
    return
  end
  out.outbox = current_name()
  vim.cmd('HeredocCopyOutbox')
  wait_message('^Copied ')
  out.register = require('heredoc_lsp').register()
  out.copied = vim.fn.getreg(out.register)
  vim.cmd('HeredocPasteReply') -- the outbox itself: refused
  wait_message('not a reply')
  vim.fn.setreg(out.register, test.reply)
  vim.cmd('HeredocPasteReply')
  if not vim.wait(20000, function() return current_name():find('/inbox/[^/]*_reply%.txt$') ~= nil end, 20) then
    out.error = 'the pasted reply was not shown'
    return
  end
  out.reply = current_name()
  local reply = vim.api.nvim_get_current_buf()
  out.reply_filetype = vim.bo[reply].filetype
  vim.wait(20000, function() return #clients_of(reply) > 0 end, 20)
  vim.cmd('HeredocPreviewReply')
  vim.wait(20000, function() return current_name():find('^heredoc%-preview://') ~= nil end, 20)
  out.preview_name = current_name()
  out.preview = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd('close')
  vim.api.nvim_set_current_buf(reply)
  vim.cmd('HeredocApplyReply')
  out.created = vim.wait(30000, function() return vim.uv.fs_stat(test.created) ~= nil end, 50)
  out.next_outbox = vim.wait(20000, function()
    return current_name():find('/outbox/[0-9a-f]+_seq0002%.txt$') ~= nil
  end, 20) and current_name() or vim.NIL
  vim.cmd('HeredocUndoReply')
  out.removed = vim.wait(20000, function() return vim.uv.fs_stat(test.created) == nil end, 50)
  wait_message('Undid ')
end

local scenarios = { quickfix = quickfix, nav = nav, run = run, quit = quit, loop = loop }
local ok, err = pcall(function()
  if test.scenario == 'run' or test.scenario == 'quit' or test.scenario == 'loop' then
    before_run()
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(test.file))
  local buf = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[buf].filetype
  scenarios[test.scenario](buf)
end)
if not ok then
  out.error = tostring(err)
end
finish()
