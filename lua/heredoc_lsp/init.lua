-- require('heredoc_lsp').setup(opts): starts heredoc-lsp for its file types on every Neovim from 0.7.
-- On 0.11+ it is `vim.lsp.config('heredoc_lsp', opts)` + `vim.lsp.enable('heredoc_lsp')` (lsp/heredoc_lsp.lua);
-- on 0.8-0.10 a FileType autocommand calls vim.lsp.start; on 0.7 vim.lsp.start_client + buf_attach_client.
-- opts: any client configuration field (cmd, settings, init_options, root_markers, ...).
local M = {}

local uv = vim.uv or vim.loop

--- The configuration table of lsp/heredoc_lsp.lua (the one place that defines it).
function M.default_config()
  local file = vim.api.nvim_get_runtime_file('lsp/heredoc_lsp.lua', false)[1]
  if file == nil then
    error('heredoc_lsp: lsp/heredoc_lsp.lua is not on runtimepath; add the heredoc-lsp checkout to it')
  end
  return dofile(file)
end

--- The nearest directory at or above `dir` holding one of `markers`, else nil.
function M.find_root(dir, markers)
  while dir ~= nil and dir ~= '' do
    for _, marker in ipairs(markers) do
      if uv.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return nil
    end
    dir = parent
  end
  return nil
end

local clients_by_root = {}

--- Starts (or reuses) the client for the buffer's root directory and attaches the buffer (0.7-0.10).
function M.start(buf, config)
  local file = vim.api.nvim_buf_get_name(buf)
  local dir = file ~= '' and vim.fn.fnamemodify(file, ':p:h') or vim.fn.getcwd()
  local root = M.find_root(dir, config.root_markers or {}) or dir
  local client_config = vim.tbl_extend('force', config, {
    name = 'heredoc_lsp',
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
  })
  client_config.filetypes = nil
  client_config.root_markers = nil
  if vim.lsp.start then
    return vim.lsp.start(client_config, { bufnr = buf })
  end
  local id = clients_by_root[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client(client_config)
    clients_by_root[root] = id
  end
  if id ~= nil then
    vim.lsp.buf_attach_client(buf, id)
  end
  return id
end

-- The agent loop without a mouse (docs/neovim/README.md): user commands that call the server's commands ----------
-- (docs/running.md, "The agent loop in the editor").

local function notify(message, level)
  vim.notify(message, level or vim.log.levels.INFO)
end

local function heredoc_clients()
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  local list = {}
  for _, c in pairs(all) do -- by hand: 0.7 has no filter
    if c.name == 'heredoc_lsp' then
      table.insert(list, c)
    end
  end
  return list
end

--- The heredoc-lsp client for `buf` (one attached to it, else any running one; on 0.11+ one is started for the
--- current directory's workspace when none runs), or nil and why.
function M.client(buf)
  local list = heredoc_clients()
  for _, c in ipairs(list) do
    if vim.lsp.buf_is_attached(buf, c.id) then
      return c
    end
  end
  if list[1] ~= nil then
    return list[1]
  end
  if vim.fn.has('nvim-0.11') == 1 and vim.lsp.config.heredoc_lsp ~= nil then
    local config = vim.lsp.config.heredoc_lsp
    local root = M.find_root(vim.fn.getcwd(), config.root_markers or {}) or vim.fn.getcwd()
    local id = vim.lsp.start(vim.tbl_extend('force', config, { name = 'heredoc_lsp', root_dir = root }), {
      bufnr = buf,
      attach = false,
    })
    local client = id and vim.lsp.get_client_by_id(id)
    if client ~= nil then
      vim.wait(10000, function() return client.initialized end, 20)
      return client
    end
  end
  return nil, 'heredoc-lsp: no heredoc-lsp server is running; open a .cli file or an inbox reply first'
end

--- The URI a command names: the buffer's file, else the client's workspace folder.
local function here(buf, client)
  local name = vim.api.nvim_buf_get_name(buf)
  if name ~= '' and vim.bo[buf].buftype == '' then
    return vim.uri_from_fname(vim.fn.fnamemodify(name, ':p'))
  end
  return vim.uri_from_fname(client.config.root_dir or vim.fn.getcwd())
end

--- Sends `workspace/executeCommand` `command` with the one argument `argument(buf, client)`; `done(result)` gets
--- the answer unless it is a refusal (the server shows those itself).
function M.execute(command, argument, done)
  local buf = vim.api.nvim_get_current_buf()
  local client, why = M.client(buf)
  if client == nil then
    notify(why, vim.log.levels.WARN)
    return
  end
  local params = { command = command, arguments = { argument(buf, client) } }
  local function handler(err, result)
    if err ~= nil then
      notify('heredoc-lsp: ' .. command .. ' failed: ' .. tostring(err.message or err), vim.log.levels.ERROR)
    elseif type(result) == 'table' and result.status ~= 'refused' and done ~= nil then
      done(result, buf)
    end
  end
  if vim.fn.has('nvim-0.11') == 1 then
    client:request('workspace/executeCommand', params, handler, buf)
  else
    client.request('workspace/executeCommand', params, handler, buf)
  end
end

--- The register the loop copies to and pastes from: `+` (the system clipboard) when Neovim has a clipboard
--- provider, else the unnamed register.
function M.register()
  return vim.fn.has('clipboard') == 1 and '+' or '"'
end

local function file_name(uri)
  return vim.fn.fnamemodify(vim.uri_to_fname(uri), ':t')
end

local function version_of(buf)
  local versions = vim.lsp.util.buf_versions or {}
  return versions[buf] or vim.b[buf].changedtick
end

local function reply_argument(buf)
  return { uri = vim.uri_from_bufnr(buf), version = version_of(buf) }
end

local function show_preview(result, buf)
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':t')
  vim.cmd('botright new')
  local scratch = vim.api.nvim_get_current_buf()
  vim.bo[scratch].buftype = 'nofile'
  vim.bo[scratch].bufhidden = 'wipe'
  vim.bo[scratch].swapfile = false
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, vim.split(result.text, '\n', { plain = true }))
  vim.bo[scratch].modifiable = false
  vim.bo[scratch].filetype = 'diff'
  pcall(vim.api.nvim_buf_set_name, scratch, 'heredoc-preview://' .. name)
end

local USER_COMMANDS = {
  HeredocNewSession = {
    nargs = '*',
    desc = 'heredoc-lsp: start an agent session for the task (asked when not given) and open its first outbox',
    run = function(opts)
      local function start(task)
        if task == nil or task == '' then
          return
        end
        M.execute('heredoc-lsp.newSession', function(buf, client)
          return { uri = here(buf, client), task = task }
        end, function(result)
          notify(string.format('heredoc-lsp: session %s started (%d characters to copy with :HeredocCopyOutbox)',
            result.session, result.chars))
        end)
      end
      if opts.args ~= '' then
        start(opts.args)
      else
        vim.ui.input({ prompt = 'Task for the LLM: ' }, start)
      end
    end,
  },
  HeredocCopyOutbox = {
    nargs = 0,
    desc = "heredoc-lsp: copy the session's newest outbox for the LLM (register + or \")",
    run = function()
      M.execute('heredoc-lsp.outboxText', function(buf, client)
        return { uri = here(buf, client) }
      end, function(result)
        local register = M.register()
        vim.fn.setreg(register, result.text)
        notify(string.format('Copied %s for the LLM (%d characters, register %s)', file_name(result.outbox),
          result.chars, register))
      end)
    end,
  },
  HeredocPasteReply = {
    nargs = '?',
    desc = "heredoc-lsp: save the LLM's reply (register + or \", or the one named) as the next inbox file",
    run = function(opts)
      local register = opts.args ~= '' and opts.args or M.register()
      local text = vim.fn.getreg(register)
      M.execute('heredoc-lsp.pasteReply', function(buf, client)
        return { uri = here(buf, client), text = text }
      end, function(result)
        notify('heredoc-lsp: pasted the reply as ' .. file_name(result.reply))
      end)
    end,
  },
  HeredocPreviewReply = {
    nargs = 0,
    desc = 'heredoc-lsp: what applying this reply would do (a diff per file, the commands); nothing is written',
    run = function()
      M.execute('heredoc-lsp.previewReply', function(buf)
        return vim.tbl_extend('force', reply_argument(buf), { mode = 'text' })
      end, show_preview)
    end,
  },
  HeredocApplyReply = {
    nargs = 0,
    desc = 'heredoc-lsp: apply this reply (after the confirmation); the next outbox opens',
    run = function()
      M.execute('heredoc-lsp.applyReply', reply_argument, function(result)
        local level = result.status == 'completed' and vim.log.levels.INFO or vim.log.levels.WARN
        notify('heredoc-lsp: ' .. (result.message or result.summary or result.status), level)
      end)
    end,
  },
  HeredocUndoReply = {
    nargs = 0,
    desc = "heredoc-lsp: undo the last reply applied in this buffer's agent workspace",
    run = function()
      M.execute('heredoc-lsp.undoReply', function(buf, client)
        return { uri = here(buf, client) }
      end)
    end,
  },
}

--- Defines the :Heredoc* user commands of the agent loop (setup() does; call it when you configure the server
--- with vim.lsp.config/vim.lsp.enable yourself).
function M.create_commands()
  for name, spec in pairs(USER_COMMANDS) do
    vim.api.nvim_create_user_command(name, spec.run, { nargs = spec.nargs, desc = spec.desc })
  end
end

function M.setup(opts)
  opts = opts or {}
  M.create_commands()
  if vim.fn.has('nvim-0.11') == 1 then
    vim.lsp.config('heredoc_lsp', opts)
    vim.lsp.enable('heredoc_lsp')
    return
  end
  local config = vim.tbl_deep_extend('force', M.default_config(), opts)
  local group = vim.api.nvim_create_augroup('heredoc_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      M.start(args.buf, config)
    end,
  })
  -- Buffers opened before setup() ran.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(config.filetypes, vim.bo[buf].filetype) then
      M.start(buf, config)
    end
  end
end

return M
