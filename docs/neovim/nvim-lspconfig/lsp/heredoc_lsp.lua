---@brief
---
--- https://github.com/heredoc-lsp/heredoc-lsp
---
--- Language server for `.cli` heredoc scripts, structured heredoc bodies (`---PARAM---` delimiters) and LLM
--- inbox/outbox files: diagnostics with quick fixes, outline, folding, hover, completion, semantic tokens, and code
--- lenses that run commands through a sandboxed executor.
---
--- `heredoc-lsp` can be installed via `pipx` or `uv`:
--- ```sh
--- pipx install heredoc-lsp
--- uv tool install heredoc-lsp
--- ```
---
--- Neovim does not know the file types; add them (or install the repository as a plugin, which does):
--- ```lua
--- vim.filetype.add({
---   extension = { cli = 'cliscript', inbox = 'agentinbox', outbox = 'agentoutbox' },
---   pattern = {
---     ['.*/inbox/[^/]*%.txt'] = { 'agentinbox', { priority = 10 } },
---     ['.*/outbox/[^/]*_seq%d%d%d%d%.txt'] = { 'agentoutbox', { priority = 10 } },
---   },
--- })
--- ```
---@type vim.lsp.Config
return {
  cmd = { 'heredoc-lsp', 'lsp' },
  filetypes = { 'cliscript', 'agentinbox', 'agentoutbox' },
  root_markers = { 'heredoc-lsp.toml', '.git' },
}
