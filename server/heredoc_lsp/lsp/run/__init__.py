"""The run feature (:mod:`heredoc_lsp.lsp.run.feature`), one module per role."""
