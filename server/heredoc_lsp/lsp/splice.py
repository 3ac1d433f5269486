"""Per-item results that follow the document's edits: a feature pays for the items that changed.

A feature that answers with one entry per ``.cli`` item (an outline symbol, a fold, a lens) keeps its last answer
as :class:`Parts`: the JSON text of each entry and the line of the item it came from. For a newer snapshot of the
same document, :meth:`Analyses.changes_since <heredoc_lsp.lsp.analysis.Analyses.changes_since>` says which lines
changed (a :class:`~heredoc_lsp.lsp.analysis.Changed` window); the entries of the items before the window are
kept, the window's items are built again, and the entries after it are kept as they are when no line moved (an edit
that adds or removes lines rebuilds them: their JSON quotes absolute line numbers).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass

from heredoc_lsp.lsp.analysis import Changed

# build(first_line, stop_line) -> (item lines, JSON texts) of the items starting on lines [first_line, stop_line)
# (stop_line None: to the end of the document).
Build = Callable[[int, "int | None"], tuple[list[int], list[str]]]


@dataclass(frozen=True, slots=True)
class Parts:
    """One feature's answer for one snapshot, as JSON texts per item (``lines[i]`` is the item of ``texts[i]``)."""

    serial: int
    lines: list[int]
    texts: list[str]
    rebuilt: int  # how many entries were built for this snapshot (the rest were kept)

    def json(self) -> str:
        return "[" + ",".join(self.texts) + "]"


def update(previous: Parts | None, serial: int, changed: Changed | None, build: Build) -> Parts:
    """The parts of snapshot ``serial``: ``previous`` spliced with the items of the ``changed`` window, or all
    built again when there is no usable previous answer."""
    if previous is not None and previous.serial == serial:
        return previous
    if previous is None or changed is None:
        lines, texts = build(0, None)
        return Parts(serial, lines, texts, len(texts))
    i = bisect_left(previous.lines, changed.start)
    if changed.delta:
        lines, texts = build(changed.start, None)
        return Parts(serial, previous.lines[:i] + lines, previous.texts[:i] + texts, len(texts))
    j = bisect_left(previous.lines, changed.stop)
    lines, texts = build(changed.start, changed.stop)
    return Parts(
        serial,
        previous.lines[:i] + lines + previous.lines[j:],
        previous.texts[:i] + texts + previous.texts[j:],
        len(texts),
    )
