"""Counts of the work the server does per feature: lines re-scanned, entries rebuilt, tokens encoded...

The guards in ``tests/lsp/test_lsp_work.py`` read them (request ``heredoc-lsp/workCounts``, answered by
:class:`heredoc_lsp.lsp.server.WorkCounts`): a one-character edit in the middle of a 100k-line document must cost
work proportional to the edit, in every feature. They are plain integer additions, cheap enough to stay on in
production.
"""

from __future__ import annotations

from collections import Counter

WORK_COUNTS = "heredoc-lsp/workCounts"

# Keys: "lines_scanned" (the .cli re-parse after an edit), "full_parses", "diagnostics" (converted to LSP),
# "symbols", "folds", "run_targets", "lenses" (targets whose lenses were built), "tokens" (semantic tokens encoded),
# "yields" (a big build gave the event loop a turn between two slices: lsp/splice.py in_slices); the request adds
# "bodies_checked" (heredoc bodies parsed in their own language: analysis/bodies.py, cache misses only),
# "ledger_reads" and "reply_keys" (the reply ledger read, a reply's content key computed: lsp/run/agent.py).
WORK: Counter[str] = Counter()
