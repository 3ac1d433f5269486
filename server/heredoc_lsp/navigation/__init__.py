"""Editor navigation and writing aids computed from a parse: outline, folds, semantic tokens, hover texts,
completion candidates, marker rename and the things under a position.

Everything here is pure and protocol-free: positions are (line, code-point column), spans are
:class:`~heredoc_lsp.syntax.diagnostics.Span`, and nothing imports pygls or lsprotocol, so it is tested without a
server. The LSP modules (``heredoc_lsp.lsp.symbols``, ``folding``, ``hover``, ``completion``, ``semantic_tokens``,
``links``, ``rename``, ``highlight``) convert the results to the client's position encoding.
"""
