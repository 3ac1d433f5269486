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

function M.setup(opts)
  opts = opts or {}
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
