"""A config file's problems as diagnostics on that file (code ``config_error``), for the language server."""

from __future__ import annotations

from pathlib import Path

from heredoc_lsp.config.model import ConfigError, ConfigProblem
from heredoc_lsp.syntax.diagnostics import Diagnostic, Span, error
from heredoc_lsp.syntax.text import split_lines, trim_end


def problem_span(lines: list[str], problem: ConfigProblem) -> Span:
    """From the problem's column to the end of its line's text; the first line when the position is unknown."""
    line = max(problem.line - 1, 0)
    text = lines[line] if line < len(lines) else ""
    start = min(max(problem.column - 1, 0), len(text))
    end = max(len(trim_end(text)), start)
    return Span(line, start, line, end)


def error_diagnostics(text: str, exc: ConfigError) -> list[Diagnostic]:
    lines = split_lines(text)
    return [
        error(problem_span(lines, p), "config_error", p.message, data={"key": p.key} if p.key else None)
        for p in exc.problems
    ]


def config_diagnostics(text: str, path: Path) -> list[Diagnostic]:
    """Every problem of a ``heredoc-lsp.toml`` or ``pyproject.toml`` text; [] when it is usable."""
    from heredoc_lsp.config.load import parse_config_text

    try:
        parse_config_text(text, path)
    except ConfigError as exc:
        return error_diagnostics(text, exc)
    return []
