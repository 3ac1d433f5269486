"""``textDocument/documentHighlight``: the two ends of a pair, highlighted together.

- a heredoc marker: the opener's marker (``Write``: it declares the marker) and the terminator (``Read``);
- an inbox tag: the opener's name and its closer ``[/NAME]`` (``Text``);
- a parameter delimiter: every delimiter of the same name in the body (a duplicate shows up at once).
"""

from __future__ import annotations

from lsprotocol import types

from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.positions import from_client, span_to_range
from heredoc_lsp.navigation.locate import DelimiterTarget, MarkerTarget, TagTarget, target_at
from heredoc_lsp.navigation.markers import occurrences
from heredoc_lsp.syntax.diagnostics import Span

_K = types.DocumentHighlightKind


class HighlightFeature(Feature):
    def register(self) -> None:
        server = self.server

        @server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
        @guarded(server)
        def document_highlight(params: types.DocumentHighlightParams) -> list[types.DocumentHighlight] | None:
            snap = server.analyses.get(params.text_document.uri)
            if snap is None:
                return None
            codec = server.position_codec
            lines = snap.lines
            target = target_at(snap.language, lines, snap.tree, from_client(codec, lines, params.position))
            found: list[tuple[Span, types.DocumentHighlightKind]] = []
            if isinstance(target, MarkerTarget) and target.heredoc.marker:
                found = [(o.span, _K.Write if o.role == "opener" else _K.Read) for o in occurrences(target.heredoc)]
            elif isinstance(target, TagTarget):
                c = target.command
                found = [(c.name_span, _K.Text)]
                if c.close_span is not None:
                    found.append((c.close_span, _K.Text))
            elif isinstance(target, DelimiterTarget):
                name = target.param.name
                found = [
                    (p.name_span, _K.Text) for p in target.body.params if p.name == name and p.name_span is not None
                ]
            if not found:
                return None
            return [types.DocumentHighlight(range=span_to_range(codec, lines, s), kind=k) for s, k in found]
