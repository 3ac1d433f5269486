-- heredoc-lsp for Neovim 0.11+: `vim.lsp.enable('heredoc_lsp')` picks this file up from 'runtimepath'.
-- Settings on top of it: `vim.lsp.config('heredoc_lsp', { settings = { heredocLsp = { ... } } })`.
-- The file types come from ftdetect/heredoc_lsp.lua; the server also accepts them as language ids.
---@type vim.lsp.Config
return {
  cmd = { 'heredoc-lsp', 'lsp' },
  filetypes = { 'cliscript', 'agentinbox', 'agentoutbox' },
  root_markers = { 'heredoc-lsp.toml', '.git' },
}
