"""The language server (pygls 2): document store, analysis cache, one module per LSP feature.

Start it with ``heredoc-lsp lsp`` (stdio) or build it in-process with :func:`heredoc_lsp.lsp.server.build_server`.
"""
