"""Counts of the work the server does per feature: lines re-scanned, items rebuilt, tokens encoded...

The counts are what the guards in ``tests/lsp/test_lsp_work.py`` read: a one-character edit in the middle of a
100k-line document must cost work proportional to the edit, in every feature. They are plain integer additions,
cheap enough to stay on in production.
"""

from __future__ import annotations

from collections import Counter

# Keys: "lines_scanned" (the .cli parser after an edit), "full_parses", "diagnostics" (core diagnostics converted
# to LSP), "symbols", "folds", "lenses", "run_targets", "tokens" (semantic tokens encoded).
WORK: Counter[str] = Counter()
