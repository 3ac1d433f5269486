-- File types of heredoc-lsp's formats (docs/formats.md: *.cli; *.inbox and **/inbox/*.txt; *.outbox and
-- **/outbox/*_seqNNNN.txt). The names have no hyphen, as Neovim file types usually do not.
if vim.fn.has('nvim-0.8') == 1 then
  vim.filetype.add({
    extension = { cli = 'cliscript', inbox = 'agentinbox', outbox = 'agentoutbox' },
    pattern = {
      -- A positive priority puts these before the `*.txt` -> text rule.
      ['.*/inbox/[^/]*%.txt'] = { 'agentinbox', { priority = 10 } },
      ['.*/outbox/[^/]*_seq%d%d%d%d%.txt'] = { 'agentoutbox', { priority = 10 } },
    },
  })
else
  -- Neovim 0.7 detects file types with autocommands; these run after the built-in `*.txt` rule, so the
  -- inbox/outbox patterns set the file type rather than `setfiletype` (which would keep `text`).
  vim.cmd([[
    augroup heredoc_lsp_ftdetect
      autocmd!
      autocmd BufRead,BufNewFile *.cli setfiletype cliscript
      autocmd BufRead,BufNewFile *.inbox setfiletype agentinbox
      autocmd BufRead,BufNewFile */inbox/*.txt set filetype=agentinbox
      autocmd BufRead,BufNewFile *.outbox setfiletype agentoutbox
      autocmd BufRead,BufNewFile */outbox/*_seq[0-9][0-9][0-9][0-9].txt set filetype=agentoutbox
    augroup END
  ]])
end
