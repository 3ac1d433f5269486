"""Counts of the work the server does per feature: lines re-scanned, entries rebuilt, tokens encoded...

The guards in ``tests/lsp/test_lsp_work.py`` read them (request ``heredoc-lsp/workCounts``): a one-character
edit in the middle of a 100k-line document must cost work proportional to the edit, in every feature. They are
plain integer additions, cheap enough to stay on in production.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from heredoc_lsp.analysis.bodies import STATS as BODY_STATS
from heredoc_lsp.lsp.feature import Feature

WORK_COUNTS = "heredoc-lsp/workCounts"

# Keys: "lines_scanned" (the .cli re-parse after an edit), "full_parses", "diagnostics" (converted to LSP),
# "symbols", "folds", "run_targets", "lenses" (targets whose lenses were built), "tokens" (semantic tokens encoded),
# "yields" (a big build gave the event loop a turn between two slices: lsp/splice.py in_slices); the request adds
# "bodies_checked" (heredoc bodies parsed in their own language: analysis/bodies.py, cache misses only).
WORK: Counter[str] = Counter()


class WorkCounts(Feature):
    """heredoc-lsp/workCounts."""

    def register(self) -> None:
        server = self.server

        @server.feature(WORK_COUNTS)
        def work_counts(params: Any) -> dict[str, int]:
            """Every count so far (for tests and benchmarks; harmless to any client)."""
            return {**WORK, "bodies_checked": BODY_STATS["checked"]}
