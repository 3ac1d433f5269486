"""``textDocument/foldingRange`` (:mod:`heredoc_lsp.navigation.folds`).

Folds are whole lines, which every client supports (``lineFoldingOnly`` or not), so no columns are sent.
``collapsedText`` is added for clients that support it; a client's ``rangeLimit`` keeps the outermost folds first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.capabilities import get_capability

from heredoc_lsp.navigation.folds import folds

if TYPE_CHECKING:
    from heredoc_lsp.lsp.server import HeredocLanguageServer

_KINDS = {"region": types.FoldingRangeKind.Region, "comment": types.FoldingRangeKind.Comment}


def register(server: HeredocLanguageServer) -> None:
    from heredoc_lsp.lsp.server import guarded

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    @guarded(server)
    def folding_range(params: types.FoldingRangeParams) -> list[types.FoldingRange] | None:
        snap = server.analyses.get(params.text_document.uri)
        if snap is None:
            return None
        caps = server.client_capabilities
        collapsed = bool(get_capability(caps, "text_document.folding_range.folding_range.collapsed_text", False))
        limit = get_capability(caps, "text_document.folding_range.range_limit", None)
        found = folds(snap.language, snap.lines, snap.tree)
        if limit is not None and len(found) > limit:
            # Keep the biggest folds: a heredoc before its parameters, long ones before short ones.
            found = sorted(sorted(found, key=lambda f: f.start - f.end)[:limit], key=lambda f: (f.start, -f.end))
        return [
            types.FoldingRange(
                start_line=f.start,
                end_line=f.end,
                kind=_KINDS[f.kind],
                collapsed_text=f.label if collapsed and f.label else None,
            )
            for f in found
        ]
