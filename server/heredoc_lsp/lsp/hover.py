"""``textDocument/hover``: Markdown joined from every feature's hover part.

pygls allows one hover handler, so features contribute through :meth:`~heredoc_lsp.lsp.feature.Feature.hover`,
called as ``feature.hover(snapshot, position)`` with the analysis snapshot and the hovered ``lsprotocol`` position
(in the client's encoding; convert it with :func:`heredoc_lsp.lsp.positions.from_client` when columns matter). It
returns None (nothing to say), a Markdown string, or a :class:`~heredoc_lsp.lsp.feature.HoverPart` (Markdown plus
the code-point span it is about). The parts are joined in ``FEATURES`` order, separated by a horizontal rule; the
hover's range is the span of the first part that has one.

This feature's own part explains heredoc openers and terminators, parameter delimiters, configured commands, inbox
tags and attributes and outbox sections (:func:`navigation_hover`, texts from :mod:`heredoc_lsp.navigation.describe`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from heredoc_lsp.lsp.feature import Feature, HoverPart
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.positions import from_client, span_to_range
from heredoc_lsp.navigation.describe import describe
from heredoc_lsp.navigation.locate import target_at
from heredoc_lsp.syntax.diagnostics import Span

if TYPE_CHECKING:
    from heredoc_lsp.lsp.analysis import Snapshot
    from heredoc_lsp.lsp.feature import Server


def navigation_hover(server: Server, snap: Snapshot, position: types.Position) -> HoverPart | None:
    """What the thing under the cursor is and means (heredocs, delimiters, schemas, tags, attributes, sections)."""
    point = from_client(server.position_codec, snap.lines, position)
    target = target_at(snap.language, snap.lines, snap.tree, point)
    if target is None:
        return None
    text = describe(target, snap.analysis.workspace, snap.config.source)
    if text is None:
        return None
    span = getattr(target, "span", None)
    return HoverPart(text, span if isinstance(span, Span) else None)


def collect(parts: Sequence[str | HoverPart | None]) -> tuple[str, Span | None] | None:
    """The joined Markdown of the parts and the span of the first part that has one."""
    texts: list[str] = []
    span: Span | None = None
    for part in parts:
        if part is None:
            continue
        if isinstance(part, HoverPart):
            if span is None:
                span = part.span
            part = part.markdown
        if part.strip():
            texts.append(part)
    if not texts:
        return None
    return "\n\n---\n\n".join(texts), span


class HoverFeature(Feature):
    def hover(self, snap: Snapshot, position: types.Position) -> HoverPart | None:
        return navigation_hover(self.server, snap, position)

    def register(self) -> None:
        server = self.server

        @server.feature(types.TEXT_DOCUMENT_HOVER)
        @guarded(server)
        def hover(params: types.HoverParams) -> types.Hover | None:
            snap = server.analyses.get(params.text_document.uri)
            if snap is None:
                return None
            codec = server.position_codec
            # one failing feature must not hide the others' parts (server.each logs it)
            found = collect(server.each(lambda f: f.hover(snap, params.position), "hover"))
            if found is None:
                return None
            text, span = found
            kind = types.MarkupKind.Markdown if server.client.hover_markdown else types.MarkupKind.PlainText
            return types.Hover(
                contents=types.MarkupContent(kind=kind, value=text),
                range=span_to_range(codec, snap.lines, span) if span is not None else None,
            )
