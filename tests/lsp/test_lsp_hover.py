"""Hover parts from several providers (heredoc_lsp.lsp.hover), joined without a server."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from heredoc_lsp.lsp.hover import HoverPart, add_provider, collect
from heredoc_lsp.syntax.diagnostics import Span


def test_hover_providers_are_joined_in_order() -> None:
    server: Any = SimpleNamespace()
    span = Span(0, 1, 0, 2)
    add_provider(server, lambda snap, position: "second")
    add_provider(server, lambda snap, position: HoverPart("first", span), first=True)
    add_provider(server, lambda snap, position: None)

    def broken(snap: object, position: object) -> str:
        raise RuntimeError("a broken provider does not hide the others")

    add_provider(server, broken)
    snapshot: Any = SimpleNamespace()
    position: Any = SimpleNamespace()
    assert collect(server, snapshot, position) == ("first\n\n---\n\nsecond", span)
