"""A config file's problems as diagnostics on that file: ``config_error``, and the warning ``ignored_setting`` for a
safety setting a workspace file tried to loosen (docs/configuration.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from heredoc_lsp.config.effective import IGNORED_SETTING, IgnoredSetting, effective_config
from heredoc_lsp.config.model import DEFAULT_CONFIG, Config, ConfigError, ConfigProblem
from heredoc_lsp.syntax.diagnostics import Diagnostic, Span, error, warning
from heredoc_lsp.syntax.text import split_lines, trim_end

TYPE_CHECKING = False  # `check` imports this module on its start-up path, which does not load typing
if TYPE_CHECKING:
    from typing import Any


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


def ignored_diagnostics(ignored: Iterable[IgnoredSetting]) -> list[Diagnostic]:
    """One ``ignored_setting`` warning per ignored setting, on the setting's key."""
    out: list[Diagnostic] = []
    for item in ignored:
        line, start = max(item.line - 1, 0), max(item.column - 1, 0)
        span = Span(line, start, line, max(item.end_column - 1, start))
        out.append(warning(span, IGNORED_SETTING, item.message, data={"key": item.key}))
    return out


def config_diagnostics(
    text: str, path: Path, user: Config = DEFAULT_CONFIG, settings: Mapping[str, Any] | None = None
) -> list[Diagnostic]:
    """Every problem of a workspace ``heredoc-lsp.toml`` or ``pyproject.toml`` text, with the safety settings it
    may not loosen given the user's own ``user`` config and editor ``settings``; [] when it is usable as is."""
    from heredoc_lsp.config.load import parse_config_text  # deferred: check start-up

    try:
        workspace = parse_config_text(text, path)
    except ConfigError as exc:
        return error_diagnostics(text, exc)
    return ignored_diagnostics(effective_config(workspace, user=user, settings=settings).ignored)
