"""``textDocument/documentSymbol``: the outline as a tree (:mod:`heredoc_lsp.navigation.outline`).

Clients with ``hierarchicalDocumentSymbolSupport`` get ``DocumentSymbol`` trees; others a flat list of
``SymbolInformation`` whose ``containerName`` names the parent. The answer is kept per document version, so an
editor asking again (outline view, breadcrumbs, sticky scroll) costs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.capabilities import get_capability

from heredoc_lsp.lsp.positions import span_to_range
from heredoc_lsp.navigation.outline import Symbol, outline

if TYPE_CHECKING:
    from pygls.workspace import PositionCodec

    from heredoc_lsp.lsp.server import HeredocLanguageServer

Result = list[types.DocumentSymbol] | list[types.SymbolInformation]


def _document_symbols(
    codec: PositionCodec, lines: Sequence[str], symbols: Sequence[Symbol]
) -> list[types.DocumentSymbol]:
    out: list[types.DocumentSymbol] = []
    kinds = types.SymbolKind
    for s in symbols:
        out.append(
            types.DocumentSymbol(
                name=s.name,
                kind=kinds[s.kind],
                range=span_to_range(codec, lines, s.span),
                selection_range=span_to_range(codec, lines, s.selection),
                detail=s.detail,
                children=_document_symbols(codec, lines, s.children) if s.children else None,
            )
        )
    return out


def _flat_symbols(
    uri: str, codec: PositionCodec, lines: Sequence[str], symbols: Sequence[Symbol], container: str | None = None
) -> list[types.SymbolInformation]:
    out: list[types.SymbolInformation] = []
    for s in symbols:
        out.append(
            types.SymbolInformation(
                name=s.name,
                kind=types.SymbolKind[s.kind],
                location=types.Location(uri=uri, range=span_to_range(codec, lines, s.span)),
                container_name=container,
            )
        )
        if s.children:
            out.extend(_flat_symbols(uri, codec, lines, s.children, s.name))
    return out


def register(server: HeredocLanguageServer) -> None:
    from heredoc_lsp.lsp.server import guarded

    cache: dict[str, tuple[int, bool, Result]] = {}

    def forget(uri: str) -> None:
        cache.pop(uri, None)

    server.hooks.closed.append(forget)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded(server)
    def document_symbol(params: types.DocumentSymbolParams) -> Result | None:
        uri = params.text_document.uri
        snap = server.analyses.get(uri)
        if snap is None:
            return None
        tree_wanted = bool(
            get_capability(
                server.client_capabilities, "text_document.document_symbol.hierarchical_document_symbol_support", False
            )
        )
        hit = cache.get(uri)
        if hit is not None and hit[0] == snap.serial and hit[1] == tree_wanted:
            return hit[2]
        symbols = outline(snap.language, snap.lines, snap.tree, snap.config.commands)
        codec = server.position_codec
        result: Result
        if tree_wanted:
            result = _document_symbols(codec, snap.lines, symbols)
        else:
            result = _flat_symbols(snap.uri, codec, snap.lines, symbols)
        cache[uri] = (snap.serial, tree_wanted, result)
        return result
