"""Incremental re-analysis of ``.cli`` scripts: work proportional to the edit, not to the file.

After an edit of lines ``[s, s + removed)`` into ``[s, s + inserted)`` (``delta = inserted - removed``):

1. re-scan from the nearest safe line before the edit (``CliScript.resume_line``: the start of the item covering
   it, a line outside every heredoc);
2. stop as soon as the new scan is outside every heredoc at a line ``m`` past the edit whose old counterpart
   ``m - delta`` was an item start of the old parse: from there on the lines are the same and so is the parse
   (when the scan ends inside a heredoc, the next attempt goes past the next line holding its marker);
3. splice: the old rows before the restart, the re-scanned window, the old rows from ``m - delta`` on, moved down
   by ``delta`` lines.

The scan is :func:`heredoc_lsp.syntax.cli.parse_cli` on the lines up to ``m``; this module never parses anything
itself. Splicing needs the script's row representation (``_rows``, ``_lookahead``, the cached ``starts``): the
property test in ``tests/lsp/test_lsp_incremental.py`` checks the result equals a full parse, so a change there
shows up at once. Cases that depend on text beyond the window fall back to a parse of everything from the restart
line (``reparse_cli``): lines that look ahead (``possible_heredoc``, ``invalid_marker``), and, when the edit moved
lines (``delta != 0``), old rows after the window with diagnostics or structured bodies (their messages and data
quote absolute line numbers).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heredoc_lsp.analysis.core import Analysis
from heredoc_lsp.config import Config
from heredoc_lsp.languages import Language
from heredoc_lsp.lsp.documents import Document, LineEdit
from heredoc_lsp.syntax.cli import CliScript, parse_cli, reparse_cli
from heredoc_lsp.syntax.diagnostics import Diagnostic

FIRST_WINDOW = 48  # lines scanned past the edit before the first resync attempt
DIRECTIVE_MARK = "heredoc-lsp"


@dataclass(frozen=True, slots=True)
class IncrementalStats:
    """What the last re-analysis did (for tests and the benchmark)."""

    resume: int
    stop: int  # the window end (exclusive); len(lines) when it ran to the end
    fallback: bool


last_stats: IncrementalStats | None = None


def directive_lines(lines: Sequence[str]) -> tuple[int, ...]:
    """Lines that may hold a ``# heredoc-lsp: disable=`` directive (the cheap test the core uses).

    One C-level search over the joined text instead of a Python test per line (5x faster at 100k lines); lines
    hold no terminators, so counting ``\n`` between hits gives their numbers.
    """
    joined = "\n".join(lines)
    pos = joined.find(DIRECTIVE_MARK)
    found: list[int] = []
    line = last = 0
    while pos >= 0:
        line += joined.count("\n", last, pos)
        last = pos
        if not found or found[-1] != line:
            found.append(line)
        pos = joined.find(DIRECTIVE_MARK, pos + len(DIRECTIVE_MARK))
    return tuple(found)


def update_directive_lines(old: tuple[int, ...], lines: Sequence[str], edit: LineEdit) -> tuple[int, ...]:
    """:func:`directive_lines` after ``edit``, looking only at the edited lines."""
    before = tuple(x for x in old if x < edit.start)
    fresh = tuple(i for i in range(edit.start, edit.start + edit.inserted) if DIRECTIVE_MARK in lines[i])
    after = tuple(x + edit.delta for x in old if x >= edit.start + edit.removed)
    return before + fresh + after


def _row_end(row: Any, n: int) -> int:
    """The last line an old row covers (a heredoc line's terminator; the end of file when unclosed)."""
    if isinstance(row, int):
        return row if row >= 0 else ~row
    terminator = row.terminator
    if terminator >= 0:
        return int(terminator)
    return int(row.line) if terminator == -2 else n - 1


class _HasBody(Exception):
    """A row with a structured body cannot simply be moved (its parse quotes absolute lines)."""


def _moved_heredoc_row(row: Any, delta: int) -> Any:
    if row.params is not None:
        raise _HasBody
    moved = object.__new__(type(row))
    for slot in type(row).__slots__:
        object.__setattr__(moved, slot, getattr(row, slot))
    moved.line = row.line + delta
    if row.terminator >= 0:
        moved.terminator = row.terminator + delta
    return moved


def _shift_rows(rows: Sequence[Any], delta: int) -> tuple[Any, ...]:
    """Rows moved down ``delta`` lines (plain lines are ints, comments ``~line``); raises :class:`_HasBody`."""
    return tuple(
        (r + delta if r >= 0 else r - delta) if r.__class__ is int else _moved_heredoc_row(r, delta) for r in rows
    )


def _starts(script: CliScript) -> list[int]:
    return script._starts()


def _diag_line_bisect(diags: Sequence[Diagnostic], line: int) -> int:
    """Index of the first diagnostic starting at or after ``line`` (diagnostics are sorted by position)."""
    lo, hi = 0, len(diags)
    while lo < hi:
        mid = (lo + hi) // 2
        if diags[mid].span.start_line < line:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _assemble(
    lines: tuple[str, ...],
    schemas: Any,
    rows: tuple[Any, ...],
    starts: list[int],
    diagnostics: tuple[Diagnostic, ...],
    lookahead: tuple[int, ...],
) -> CliScript:
    script = CliScript(
        lines=lines, diagnostics=diagnostics, start_line=0, _rows=rows, _lookahead=lookahead, _schemas=schemas
    )
    script._cache["starts"] = starts
    return script


def reparse_window(
    old: CliScript, lines: tuple[str, ...], edit: LineEdit, schemas: Any, compat: str | None
) -> CliScript:
    """``parse_cli(lines, schemas, compat)``, computed from ``old`` (the parse before ``edit``)."""
    global last_stats
    n = len(lines)
    delta = edit.delta
    old_n = n - delta
    old_rows = old._rows
    old_starts = _starts(old)
    old_diags = old.diagnostics
    resume = old.resume_line(min(edit.start, old_n))

    def fallback(start: int = resume) -> CliScript:
        global last_stats
        last_stats = IncrementalStats(start, n, True)
        return reparse_cli(old, lines, start, schemas, compat)

    if old.start_line != 0 or resume > edit.start:
        return fallback()
    changed_old_end = edit.start + edit.removed  # first old line after the edited block
    # Old item starts at or after the edit's end are where the two parses can meet again.
    k = bisect_left(old_starts, changed_old_end)
    target_old = changed_old_end + FIRST_WINDOW
    while True:
        k = bisect_left(old_starts, target_old, lo=k)
        if k >= len(old_starts):
            return fallback()  # no old item start left: scan to the end
        meet_old = old_starts[k]
        meet = meet_old + delta
        scan = parse_cli(lines[:meet], schemas, compat, start_line=resume)
        if scan._lookahead:
            return fallback()
        open_marker = next(
            ((d.data or {}).get("marker") for d in scan.diagnostics if d.code == "unclosed_heredoc"), None
        )
        if open_marker is None:
            break
        # The scan ended inside a heredoc: it cannot close before a line holding its marker. Jump to the first
        # such line (exact match, found by a C-level search); none at all means it runs to the end of the file
        # (or closes at a marker line with blanks around it): scan everything from the restart line.
        try:
            close_at = lines.index(str(open_marker), meet)
        except ValueError:
            return fallback()
        target_old = max(close_at + 1 - delta, meet_old + 1)
    # meet_old is an old item start, so the old parse was outside every heredoc there; the new scan is too.
    suffix_rows = old_rows[k:]
    suffix_starts = old_starts[k:]
    first_suffix_diag = _diag_line_bisect(old_diags, meet_old)
    suffix_diags = old_diags[first_suffix_diag:]
    suffix_lookahead = tuple(x for x in old._lookahead if x >= meet_old)
    if delta:
        if suffix_diags or suffix_lookahead:
            # Their messages and data quote absolute line numbers: moving them is not enough.
            return fallback()
        try:
            suffix_rows = _shift_rows(suffix_rows, delta)
        except _HasBody:
            return fallback()
        suffix_starts = [x + delta for x in suffix_starts]
    k_prefix = bisect_left(old_starts, resume)
    prefix_diags = old_diags[: _diag_line_bisect(old_diags, resume)]
    rows = tuple(old_rows[:k_prefix]) + tuple(scan._rows) + tuple(suffix_rows)
    starts = old_starts[:k_prefix] + _starts(scan) + suffix_starts
    diagnostics = prefix_diags + scan.diagnostics + tuple(suffix_diags)
    lookahead = tuple(x for x in old._lookahead if x < resume) + scan._lookahead + suffix_lookahead
    last_stats = IncrementalStats(resume, meet, False)
    return _assemble(lines, schemas, rows, starts, diagnostics, lookahead)


def reanalyze_cli(
    previous: Analysis,
    doc: Document,
    edit: LineEdit,
    config: Config,
    workspace: Path | None,
    previous_directives: tuple[int, ...],
) -> tuple[Analysis, tuple[int, ...]] | None:
    """The analysis of ``doc`` reusing ``previous`` (its analysis before ``edit``); None to ask for a full one."""
    from heredoc_lsp.lsp.analysis import finish

    old = previous.tree
    if not isinstance(old, CliScript):
        return None
    lines = tuple(doc.lines)
    script = reparse_window(old, lines, edit, config.commands or None, config.compat)
    directives = update_directive_lines(previous_directives, lines, edit)
    analysis = finish(
        Language.CLI, lines, script, list(script.diagnostics), previous.newline, workspace, bool(directives)
    )
    return analysis, directives
