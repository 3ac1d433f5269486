"""``textDocument/foldingRange`` (:mod:`heredoc_lsp.navigation.folds`).

Folds are whole lines, which every client supports (``lineFoldingOnly`` or not), so no columns are sent.
``collapsedText`` is added for clients that support it; a client's ``rangeLimit`` keeps the outermost folds first.
The folds of a ``.cli`` script are kept per item with their JSON text (:mod:`heredoc_lsp.lsp.splice`): after an
edit only the folds of the re-parsed items are built again.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lsprotocol import types

from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.protocol import Prerendered
from heredoc_lsp.lsp.splice import Parts, View, update_sliced
from heredoc_lsp.lsp.work import WORK
from heredoc_lsp.navigation.folds import Fold, cli_folds, comment_run_bounds, folds
from heredoc_lsp.syntax.cli import CliScript

if TYPE_CHECKING:
    from heredoc_lsp.lsp.feature import Server

_KINDS = {"region": types.FoldingRangeKind.Region, "comment": types.FoldingRangeKind.Comment}


def fold_json(fold: Fold, collapsed: bool) -> str:
    """One ``FoldingRange`` as JSON text."""
    label = f',"collapsedText":{json.dumps(fold.label)}' if collapsed and fold.label else ""
    return f'{{"startLine":{fold.start},"endLine":{fold.end},"kind":"{_KINDS[fold.kind].value}"{label}}}'


def biggest(found: list[Fold], limit: int) -> list[Fold]:
    """At most ``limit`` folds, the biggest ones (a heredoc before its parameters, long before short), in order."""
    if len(found) <= limit:
        return found
    return sorted(sorted(found, key=lambda f: f.start - f.end)[:limit], key=lambda f: (f.start, -f.end))


class FoldingFeature(Feature):
    def __init__(self, server: Server) -> None:
        super().__init__(server)
        self.parts: View[Parts[tuple[Fold, str]]] = server.views.view()

    def register(self) -> None:
        server = self.server
        parts = self.parts

        async def cli_parts(snap: Snapshot, collapsed: bool) -> Parts[tuple[Fold, str]]:
            script = snap.tree
            assert isinstance(script, CliScript)
            lines = snap.lines

            def build(first: int, stop: int | None) -> tuple[list[int], list[tuple[Fold, str]]]:
                found = cli_folds(lines, script, first, stop)
                WORK["folds"] += len(found)
                return [f.start for f in found], [(f, fold_json(f, collapsed)) for f in found]

            previous, changed = parts.plan(snap)
            if changed is not None:
                first, stop = comment_run_bounds(lines, changed.start, None if changed.delta else changed.stop)
                changed = type(changed)(changed.since, first, len(lines) if stop is None else stop, changed.delta)
            done = await update_sliced(previous, snap.serial, changed, build, len(lines))
            parts.keep(snap, done)
            return done

        @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
        @guarded(server)
        async def folding_range(params: types.FoldingRangeParams) -> list[types.FoldingRange] | Prerendered | None:
            async with parts.building(params.text_document.uri):
                return await answer(params)

        async def answer(params: types.FoldingRangeParams) -> list[types.FoldingRange] | Prerendered | None:
            snap = await server.analyses.latest(params.text_document.uri)
            if snap is None:
                return None
            collapsed = server.client.folding_collapsed_text
            limit = server.client.folding_range_limit
            if isinstance(snap.tree, CliScript):
                done = await cli_parts(snap, collapsed)
                entries = done.values
                if limit is not None and len(entries) > limit:
                    texts = {id(f): text for f, text in entries}
                    kept = biggest([f for f, _ in entries], limit)
                    return Prerendered("[" + ",".join(texts[id(f)] for f in kept) + "]")
                return Prerendered("[" + ",".join(text for _, text in entries) + "]")
            found = folds(snap.language, snap.lines, snap.tree)
            WORK["folds"] += len(found)
            if limit is not None:
                found = biggest(found, limit)
            return [
                types.FoldingRange(
                    start_line=f.start,
                    end_line=f.end,
                    kind=_KINDS[f.kind],
                    collapsed_text=f.label if collapsed and f.label else None,
                )
                for f in found
            ]
