"""Per-item results that follow the document's edits: a feature pays for the items that changed.

A feature that answers with one entry per ``.cli`` item (an outline symbol, a fold, a run target, a diagnostic)
keeps its last answer as :class:`Parts`: the entries and the line each one starts on. For a newer snapshot of the
same document, :meth:`Analyses.changes_since <heredoc_lsp.lsp.analysis.Analyses.changes_since>` says which lines
changed (a :class:`~heredoc_lsp.lsp.analysis.Changed` window); the entries before the window are kept, the
window's entries are built again, and the entries after it are kept as they are when no line moved (an edit that
adds or removes lines rebuilds them: they quote absolute line numbers).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from heredoc_lsp.lsp.analysis import Changed

T = TypeVar("T")

# build(first_line, stop_line) -> (start lines, entries) of the items starting on lines [first_line, stop_line)
# (stop_line None: to the end of the document).
Build = Callable[[int, "int | None"], tuple[list[int], list[T]]]


@dataclass(frozen=True, slots=True)
class Parts(Generic[T]):
    """One feature's answer for one snapshot (``lines[i]`` is the line entry ``values[i]`` starts on)."""

    serial: int
    lines: list[int]
    values: list[T]
    rebuilt: int  # how many entries were built for this snapshot (the rest were kept)


def json_array(
    parts: Parts[str], previous: tuple[Parts[str], str] | None = None, changed: Changed | None = None
) -> str:
    """The entries (JSON texts) as one JSON array. With the ``previous`` parts and their array, and the ``changed``
    window that led from them to ``parts`` (no line moved), the old array's text is reused around the window
    (copied at memory speed instead of joined again entry by entry)."""
    if previous is None or changed is None or changed.delta or previous[0] is parts:
        return "[" + ",".join(parts.values) + "]"
    old, text = previous
    i = bisect_left(old.lines, changed.start)
    j = i + parts.rebuilt + len(old.values) - len(parts.values)
    window = parts.values[i : i + parts.rebuilt]
    start_i = 1 + sum(map(len, old.values[:i])) + i  # where entry i starts: "[" and i entries with their commas
    if j < len(old.values):
        start_j = start_i + sum(map(len, old.values[i:j])) + (j - i)
        return text[:start_i] + "".join(w + "," for w in window) + text[start_j:]
    if i == 0:
        return "[" + ",".join(window) + "]"
    return text[: start_i - 1] + "".join("," + w for w in window) + "]"


def update(previous: Parts[T] | None, serial: int, changed: Changed | None, build: Build[T]) -> Parts[T]:
    """The parts of snapshot ``serial``: ``previous`` spliced with the items of the ``changed`` window, or all
    built again when there is no usable previous answer."""
    if previous is not None and previous.serial == serial:
        return previous
    if previous is None or changed is None:
        lines, values = build(0, None)
        return Parts(serial, lines, values, len(values))
    i = bisect_left(previous.lines, changed.start)
    if changed.delta:
        lines, values = build(changed.start, None)
        return Parts(serial, previous.lines[:i] + lines, previous.values[:i] + values, len(values))
    j = bisect_left(previous.lines, changed.stop)
    lines, values = build(changed.start, changed.stop)
    return Parts(
        serial,
        previous.lines[:i] + lines + previous.lines[j:],
        previous.values[:i] + values + previous.values[j:],
        len(values),
    )
