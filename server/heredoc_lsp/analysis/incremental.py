"""The analysis of an edited document: :func:`analyze_edit` re-parses a ``.cli`` script from the nearest safe line
before the edit (:func:`heredoc_lsp.syntax.cli.reparse`, work proportional to the edit) and any other document
whole (:func:`heredoc_lsp.analysis.core.analyze_lines`), then applies suppressions as the core does.

A server keeps the lines that may hold a suppression directive beside each analysis, updated from the edited lines
only, so that a document without directives skips the suppression pass after every edit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from heredoc_lsp.analysis.bodies import update_cli_body_diagnostics
from heredoc_lsp.analysis.core import DIRECTIVE_MARK, Analysis, analyze_lines, finish_analysis
from heredoc_lsp.config import Config
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.cli import CliScript, Reparse, reparse
from heredoc_lsp.syntax.text import LineEdit


@dataclass(frozen=True, slots=True)
class Analysed:
    """An analysis, the lines that may hold a suppression directive, and the re-parse that made it (None: the
    document was parsed whole)."""

    analysis: Analysis
    directives: tuple[int, ...]
    reparse: Reparse | None = None


def directive_lines(lines: Sequence[str]) -> tuple[int, ...]:
    """Lines that may hold a ``# heredoc-lsp: disable=`` directive (the cheap test the core uses).

    One C-level search over the joined text instead of a Python test per line (5x faster at 100k lines); lines
    hold no terminators, so counting ``\\n`` between hits gives their numbers.
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


def analyze_edit(
    lines: tuple[str, ...],
    language: Language,
    config: Config,
    *,
    newline: str,
    workspace: Path | None,
    previous: Analysed | None = None,
    edit: LineEdit | None = None,
    maybe_directives: bool = True,
) -> Analysed:
    """The analysis of ``lines``; with the ``previous`` analysis of the same document under the same configuration
    and the ``edit`` that led from its text to ``lines``, a ``.cli`` script is re-parsed from the edit only.
    ``maybe_directives=False`` promises that no line holds a directive (a document fresh from the editor that
    said so)."""
    if (
        previous is not None
        and edit is not None
        and language is Language.CLI
        and isinstance(previous.analysis.tree, CliScript)
    ):
        result = reparse(
            previous.analysis.tree, lines, edit, config.commands or None, config.compat, shell=config.shell
        )
        script = result.script
        directives = update_directive_lines(previous.directives, lines, edit)
        analysis = finish_analysis(
            Language.CLI,
            lines,
            script,
            list(script.diagnostics),
            newline=previous.analysis.newline,
            workspace=workspace,
            may_have_directives=bool(directives),
            bodies=update_cli_body_diagnostics(
                previous.analysis.bodies, previous.analysis.tree, script, edit, result.resume, result.stop
            ),
        )
        return Analysed(analysis, directives, result)
    directives = directive_lines(lines) if maybe_directives else ()
    analysis = analyze_lines(
        lines, language, config, newline=newline, workspace=workspace, may_have_directives=bool(directives)
    )
    return Analysed(analysis, directives)
