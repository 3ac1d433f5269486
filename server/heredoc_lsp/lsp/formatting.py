"""``textDocument/formatting``: remove trailing blanks from structure lines only, never from body content
(:mod:`heredoc_lsp.navigation.layout_edits`). Options such as tab size do not apply: nothing is re-indented.

``formatting`` is not in the server's list of optional feature modules, so :mod:`heredoc_lsp.lsp.rename` calls
:func:`register`; registering twice is harmless (the second call does nothing).
"""

from __future__ import annotations

from lsprotocol import types

from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.positions import span_to_range
from heredoc_lsp.navigation.layout_edits import trailing_blank_deletions
from heredoc_lsp.syntax.diagnostics import Span


class FormattingFeature(Feature):
    def register(self) -> None:
        server = self.server

        if types.TEXT_DOCUMENT_FORMATTING in server.protocol.fm.features:
            return

        @server.feature(types.TEXT_DOCUMENT_FORMATTING)
        @guarded(server)
        def formatting(params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
            snap = server.analyses.get(params.text_document.uri)
            if snap is None:
                return None
            codec = server.position_codec
            return [
                types.TextEdit(range=span_to_range(codec, snap.lines, Span(line, start, line, end)), new_text="")
                for line, start, end in trailing_blank_deletions(snap.language, snap.lines, snap.tree)
            ]
