"""``textDocument/documentSymbol``: the outline as a tree (:mod:`heredoc_lsp.navigation.outline`).

Clients with ``hierarchicalDocumentSymbolSupport`` get ``DocumentSymbol`` trees; others a flat list of
``SymbolInformation`` whose ``containerName`` names the parent. The answer is kept per document version, so an
editor asking again (outline view, breadcrumbs, sticky scroll) costs nothing.

Large answers (a 100k-line script has some 60k symbols, 14 MB of JSON) are sent as JSON text
(:class:`~heredoc_lsp.lsp.protocol.Prerendered`) kept per item (:mod:`heredoc_lsp.lsp.splice`): after an edit only
the symbols of the re-parsed items are built again. Other formats (inbox, outbox, bodies) are small and built whole
per version.
"""

from __future__ import annotations

from collections.abc import Sequence
from json.encoder import encode_basestring_ascii as _jstr
from typing import TYPE_CHECKING

from lsprotocol import types

from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.positions import span_to_range
from heredoc_lsp.lsp.protocol import Prerendered
from heredoc_lsp.lsp.splice import Parts, View, json_array, update_sliced
from heredoc_lsp.lsp.wire import range_text
from heredoc_lsp.lsp.work import WORK
from heredoc_lsp.navigation.outline import Symbol, cli_outline, outline
from heredoc_lsp.syntax.cli import CliScript

if TYPE_CHECKING:
    from pygls.workspace import PositionCodec

    from heredoc_lsp.lsp.feature import Server


_KINDS = {k.name: k.value for k in types.SymbolKind}


def symbol_text(codec: PositionCodec, lines: Sequence[str], s: Symbol) -> str:
    """One ``DocumentSymbol`` (with its children) as JSON text."""
    whole = range_text(codec, lines, s.span)
    selection = whole if s.selection == s.span else range_text(codec, lines, s.selection)
    detail = "" if s.detail is None else f',"detail":{_jstr(s.detail)}'
    children = (
        "" if not s.children else ',"children":[' + ",".join(symbol_text(codec, lines, c) for c in s.children) + "]"
    )
    head = f'{{"name":{_jstr(s.name)},"kind":{_KINDS[s.kind]},"range":{whole},"selectionRange":{selection}'
    return f"{head}{detail}{children}}}"


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


Result = Prerendered | list[types.SymbolInformation]


class SymbolsFeature(Feature):
    def __init__(self, server: Server) -> None:
        super().__init__(server)
        self.answers: View[Result] = server.views.view()  # per document and tree_wanted: the last answer
        self.parts: View[tuple[Parts[str], str]] = server.views.view()  # the .cli symbols and their JSON array

    def register(self) -> None:
        server = self.server
        answers = self.answers
        parts = self.parts

        async def cli_tree(snap: Snapshot) -> Prerendered:
            script = snap.tree
            assert isinstance(script, CliScript)
            codec = server.position_codec
            lines = snap.lines

            def build(first: int, stop: int | None) -> tuple[list[int], list[str]]:
                symbols = cli_outline(lines, script, first, stop)
                WORK["symbols"] += len(symbols)
                return [s.span.start_line for s in symbols], [symbol_text(codec, lines, s) for s in symbols]

            previous, changed = parts.plan(snap)
            done = await update_sliced(
                None if previous is None else previous[0], snap.serial, changed, build, len(lines)
            )
            text = json_array(done, previous, changed)
            parts.keep(snap, (done, text))
            return Prerendered(text)

        @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
        @guarded(server)
        async def document_symbol(params: types.DocumentSymbolParams) -> Result | None:
            uri = params.text_document.uri
            async with parts.building(uri):
                return await answer(uri)

        async def answer(uri: str) -> Result | None:
            snap = await server.analyses.latest(uri)
            if snap is None:
                return None
            tree_wanted = server.client.hierarchical_symbols
            hit = answers.last(snap, tree_wanted)
            if hit is not None and hit.serial == snap.serial:
                return hit.value
            result: Result
            if tree_wanted and isinstance(snap.tree, CliScript):
                result = await cli_tree(snap)
                answers.keep(snap, result, tree_wanted)
                return result
            symbols = outline(snap.language, snap.lines, snap.tree)
            WORK["symbols"] += len(symbols)
            codec = server.position_codec
            if tree_wanted:
                result = Prerendered("[" + ",".join(symbol_text(codec, snap.lines, x) for x in symbols) + "]")
            else:
                result = _flat_symbols(snap.uri, codec, snap.lines, symbols)
            answers.keep(snap, result, tree_wanted)
            return result
