"""Hover parts from several features (heredoc_lsp.lsp.hover.collect), joined without a server."""

from __future__ import annotations

from heredoc_lsp.lsp.feature import HoverPart
from heredoc_lsp.lsp.hover import collect
from heredoc_lsp.syntax.diagnostics import Span


def test_hover_parts_are_joined_in_order() -> None:
    span = Span(0, 1, 0, 2)
    assert collect([HoverPart("first", span), None, "second", HoverPart("third", Span(1, 0, 1, 1))]) == (
        "first\n\n---\n\nsecond\n\n---\n\nthird",
        span,
    )
    assert collect([None, "", HoverPart("")]) is None
