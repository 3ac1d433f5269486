"""Incremental re-analysis of ``.cli`` scripts after an edit."""

from __future__ import annotations

from pathlib import Path

from heredoc_lsp.analysis.core import Analysis
from heredoc_lsp.config import Config
from heredoc_lsp.languages import Language
from heredoc_lsp.lsp.documents import Document, LineEdit


def reanalyze_cli(
    previous: Analysis, doc: Document, edit: LineEdit, config: Config, workspace: Path | None
) -> Analysis | None:
    """The analysis of ``doc`` reusing ``previous`` (the analysis before ``edit``); None to ask for a full one."""
    from heredoc_lsp.lsp.analysis import _has_directive, finish
    from heredoc_lsp.syntax.cli import CliScript, reparse_cli

    old = previous.tree
    if not isinstance(old, CliScript):
        return None
    lines = tuple(doc.lines)
    script = reparse_cli(old, lines, edit.start, config.commands, config.compat)
    newline = previous.newline
    return finish(Language.CLI, lines, script, list(script.diagnostics), newline, workspace, _has_directive(lines))
