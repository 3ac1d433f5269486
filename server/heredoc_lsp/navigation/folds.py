"""Folding ranges: heredoc bodies, structured parameters, inbox blocks, outbox sections and runs of comments.

A fold ``(start, end)`` hides lines ``start + 1 .. end`` and keeps ``start`` visible. Choices:

- a heredoc folds from its opener to the last body line, so the terminator stays visible like a closing brace
  (an unclosed heredoc folds to the end of the document);
- a parameter folds from its delimiter to its last non-blank line;
- an inbox block folds from its opener to the line before its closer (unclosed: to the end);
- an outbox section folds from its marker to its last non-blank line;
- two or more consecutive full-line ``#`` comments fold as one ``comment`` range.

Folds of one line or less are dropped. Nested folds (parameters in a heredoc) are allowed; folds never cross.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.cli import CliScript
from heredoc_lsp.syntax.cli_rows import iter_rows
from heredoc_lsp.syntax.inbox import InboxReply
from heredoc_lsp.syntax.outbox import Outbox
from heredoc_lsp.syntax.params import ParamsBody
from heredoc_lsp.syntax.text import BLANK_CHARS, is_blank, plural

FoldKind = Literal["region", "comment"]


@dataclass(frozen=True, slots=True)
class Fold:
    start: int
    end: int
    kind: FoldKind
    label: str | None = None  # a short text for clients that show collapsed text


def folds(language: Language, lines: Sequence[str], tree: Any) -> list[Fold]:
    """All folds of an analysed document, sorted by start line (parents before their children)."""
    if not lines:
        return []
    if language is Language.CLI and isinstance(tree, CliScript):
        return _cli(lines, tree)
    if language is Language.INBOX and isinstance(tree, InboxReply):
        return _inbox(lines, tree)
    if language is Language.OUTBOX and isinstance(tree, Outbox):
        return _outbox(lines, tree)
    if isinstance(tree, ParamsBody):
        return list(_params(lines, tree))
    return []


def _last_content(lines: Sequence[str], start: int, end: int) -> int:
    """The last non-blank line in ``(start, end]``, else ``start``."""
    while end > start and is_blank(lines[end]):
        end -= 1
    return end


def _cli(lines: Sequence[str], script: CliScript) -> list[Fold]:
    return cli_folds(lines, script)


def cli_folds(lines: Sequence[str], script: CliScript, first_line: int = 0, stop_line: int | None = None) -> list[Fold]:
    """The folds of the items starting on lines ``[first_line, stop_line)`` (default: to the end), sorted; a run
    of comments that starts there is followed to its end. ``first_line`` and ``stop_line`` must be item starts
    that no run of comments crosses (:func:`comment_run_bounds`)."""
    out: list[Fold] = []
    append = out.append
    run_start = run_end = -2
    for kind, line, view in iter_rows(script, first_line):
        if line < first_line:
            continue  # an item started before the window (it covers first_line)
        if kind == "comment":
            if line == run_end + 1:
                run_end = line
                continue
            if stop_line is not None and line >= stop_line:
                break
            if run_end > run_start:
                append(Fold(run_start, run_end, "comment"))
            run_start = run_end = line
            continue
        if stop_line is not None and line >= stop_line:
            break
        if view is None or view.body_end <= view.body_start:
            continue
        last = view.body_end - 1
        if last > view.line:
            append(Fold(view.line, last, "region", f"<<{view.marker} … {plural(last - view.line, 'line')}"))
        if view.params is not None:
            out.extend(_params(lines, view.params))
    if run_end > run_start:
        append(Fold(run_start, run_end, "comment"))
    out.sort(key=lambda f: (f.start, -f.end))
    return out


def comment_run_bounds(lines: Sequence[str], first_line: int, stop_line: int | None) -> tuple[int, int | None]:
    """``[first_line, stop_line)`` widened so that no run of ``#`` lines crosses its ends (a fold over comments
    spans several items)."""
    blanks = BLANK_CHARS
    while first_line > 0 and lines[first_line - 1].lstrip(blanks).startswith("#"):
        first_line -= 1
    if stop_line is not None:
        n = len(lines)
        while stop_line < n and lines[stop_line].lstrip(blanks).startswith("#"):
            stop_line += 1
        if stop_line >= n:
            stop_line = None
    return first_line, stop_line


def _params(lines: Sequence[str], body: ParamsBody) -> Iterable[Fold]:
    for p in body.params:
        if p.line is None:
            continue
        last = _last_content(lines, p.line, p.section_end - 1)
        if last > p.line:
            yield Fold(p.line, last, "region", f"---{p.name}--- … {plural(last - p.line, 'line')}")


def _inbox(lines: Sequence[str], reply: InboxReply) -> list[Fold]:
    out: list[Fold] = []
    for c in reply.commands:
        if c.body_lines is None:
            continue
        last = c.close_line - 1 if c.close_line is not None else len(lines) - 1
        if last > c.line:
            out.append(Fold(c.line, last, "region", f"[{c.name}] … {plural(last - c.line, 'line')}"))
    return out


def _outbox(lines: Sequence[str], box: Outbox) -> list[Fold]:
    out: list[Fold] = []
    for s in box.sections.values():
        last = _last_content(lines, s.line, s.end_line)
        if last > s.line:
            out.append(Fold(s.line, last, "region", f"=== {s.name} === … {plural(last - s.line, 'line')}"))
    return out
