"""The contract of a language feature: one :class:`Feature` subclass per LSP method or feature.

A feature is constructed with the server, declares its LSP handlers in :meth:`Feature.register`, hears the
document lifecycle through the no-op methods it overrides, and contributes to other features through plain methods
with empty defaults: diagnostics for a document (merged by the one publisher, :mod:`heredoc_lsp.lsp.diagnostics`),
code actions for a range (:mod:`heredoc_lsp.lsp.code_actions`), hover parts for a position
(:mod:`heredoc_lsp.lsp.hover`) and code lenses (:mod:`heredoc_lsp.lsp.code_lens`). The server calls them over
``server.features``, in the order of :data:`heredoc_lsp.lsp.server.FEATURES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from heredoc_lsp.syntax.diagnostics import Diagnostic, Span

if TYPE_CHECKING:
    from heredoc_lsp.lsp.analysis import Snapshot
    from heredoc_lsp.lsp.documents import Document
    from heredoc_lsp.lsp.server import HeredocLanguageServer


@dataclass(frozen=True, slots=True)
class HoverPart:
    """Markdown for a hover, and the code-point span it is about (the hover's range)."""

    markdown: str
    span: Span | None = None


class Feature:
    """A language feature; every method is a no-op or an empty contribution until a subclass overrides it."""

    def __init__(self, server: HeredocLanguageServer) -> None:
        self.server = server

    def register(self) -> None:
        """Declare the feature's LSP handlers (``self.server.feature(...)``), before ``initialize``."""

    # -- lifecycle (pygls allows one handler per method: the server fans these out) -----------------------------
    def initialize(self, params: types.InitializeParams) -> None:
        """``initialize``: ``self.server.client`` is set; handlers may still be registered."""

    def initialized(self) -> None:
        """``initialized``."""

    def opened(self, doc: Document) -> None:
        """``didOpen``: ``doc`` is in the store."""

    def changed(self, doc: Document) -> None:
        """``didChange``: the edit was applied to ``doc``."""

    def closed(self, uri: str) -> None:
        """``didClose``: forget what is kept for ``uri``."""

    def saved(self, uri: str) -> None:
        """``didSave``."""

    def config_changed(self) -> None:
        """The effective configuration may have changed (settings, heredoc-lsp.toml): open documents need a re-check."""

    def diagnostics_changed(self, uri: str) -> None:
        """A feature's :meth:`diagnostics` for ``uri`` changed without an edit (e.g. a run ended)."""

    def shutdown(self) -> None:
        """``shutdown``."""

    # -- contributions ------------------------------------------------------------------------------------------
    async def prepare(self, snap: Snapshot) -> None:
        """Bring what this feature's contributions read up to date for ``snap``, yielding to the event loop while
        it builds (the first answer for a 100k-line script); the contributions below then find it built."""

    def diagnostics(self, snap: Snapshot) -> Sequence[Diagnostic]:
        """Diagnostics of this feature for the snapshot, published with the syntax ones (push and pull)."""
        return ()

    def code_action_kinds(self) -> Sequence[str]:
        """The code action kinds :meth:`code_actions` returns (advertised at ``initialize``)."""
        return ()

    def code_actions(
        self, params: types.CodeActionParams, snap: Snapshot
    ) -> Sequence[types.CodeAction | types.Command]:
        """Code actions for the range of ``params``."""
        return ()

    def hover(self, snap: Snapshot, position: types.Position) -> str | HoverPart | None:
        """A hover part for ``position`` (in the client's encoding), or None."""
        return None

    def code_lenses(self, snap: Snapshot) -> str | None:
        """Code lenses as one JSON array text, or None."""
        return None

    def resolve_code_lens(self, lens: types.CodeLens) -> str | None:
        """The JSON text of ``lens`` with its command when this feature made it, else None."""
        return None
