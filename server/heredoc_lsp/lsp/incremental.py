"""Incremental re-analysis of ``.cli`` scripts: work proportional to the edit, not to the file.

The re-parse is :func:`heredoc_lsp.syntax.cli.reparse` (the syntax layer's public API); this module adds what the
analysis needs around it: the lines that may hold suppression directives, kept up to date from the edited lines
only, and the core's :func:`~heredoc_lsp.analysis.core.finish_analysis`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from heredoc_lsp.analysis.bodies import update_cli_body_diagnostics
from heredoc_lsp.analysis.core import Analysis, finish_analysis
from heredoc_lsp.config import Config
from heredoc_lsp.languages import Language
from heredoc_lsp.lsp.documents import Document, LineEdit
from heredoc_lsp.lsp.work import WORK
from heredoc_lsp.syntax.cli import CliScript, Reparse, reparse

DIRECTIVE_MARK = "heredoc-lsp"


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


def reanalyze_cli(
    previous: Analysis,
    doc: Document,
    edit: LineEdit,
    config: Config,
    workspace: Path | None,
    previous_directives: tuple[int, ...],
) -> tuple[Analysis, tuple[int, ...], Reparse] | None:
    """The analysis of ``doc`` reusing ``previous`` (its analysis before ``edit``); None to ask for a full one."""
    old = previous.tree
    if not isinstance(old, CliScript):
        return None
    lines = tuple(doc.lines)
    result = reparse(old, lines, edit, config.commands or None, config.compat, shell=config.shell)
    WORK["lines_scanned"] += result.scanned
    script = result.script
    directives = update_directive_lines(previous_directives, lines, edit)
    analysis = finish_analysis(
        Language.CLI,
        lines,
        script,
        list(script.diagnostics),
        newline=previous.newline,
        workspace=workspace,
        may_have_directives=bool(directives),
        bodies=update_cli_body_diagnostics(previous.bodies, old, script, edit, result.resume, result.stop),
    )
    return analysis, directives, result
