"""heredoc-lsp: language server, command line and executor for heredoc command scripts."""

__version__ = "0.1.0"
