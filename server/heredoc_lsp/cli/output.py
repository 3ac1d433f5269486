"""Diagnostics as text, JSON objects or GitHub Actions annotations (shared by ``check`` and ``parse``).

Positions are 1-based lines and 1-based code-point columns; ``end_column`` is exclusive (it points just after the
last character of the range, like an LSP range end).
"""

from __future__ import annotations

import os
import sys

from heredoc_lsp.syntax.diagnostics import Diagnostic, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

_COLORS = {
    Severity.ERROR: "\x1b[1;31m",
    Severity.WARNING: "\x1b[1;33m",
    Severity.INFORMATION: "\x1b[1;34m",
    Severity.HINT: "\x1b[1;36m",
}
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_RESET = "\x1b[0m"
_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning"}


def use_color(stream: TextIO, *, disabled: bool = False) -> bool:
    """Colour only on a terminal, never with ``--no-color``, ``NO_COLOR`` (any non-empty value) or TERM=dumb."""
    if disabled or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def diagnostic_json(d: Diagnostic) -> dict[str, Any]:
    s = d.span
    return {
        "line": s.start_line + 1,
        "column": s.start_col + 1,
        "end_line": s.end_line + 1,
        "end_column": s.end_col + 1,
        "severity": d.severity.label,
        "code": d.code,
        "message": d.message,
    }


def text_line(path: str, d: Diagnostic, *, color: bool = False) -> str:
    """``path:line:col: severity[code] message``"""
    where = f"{path}:{d.span.start_line + 1}:{d.span.start_col + 1}:"
    label = f"{d.severity.label}[{d.code}]"
    message = _one_line(d.message)
    if color:
        return (
            f"{_BOLD}{where}{_RESET} {_COLORS[d.severity]}{d.severity.label}{_RESET}{_DIM}[{d.code}]{_RESET} {message}"
        )
    return f"{where} {label} {message}"


def _one_line(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", " ")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(path: str, d: Diagnostic) -> str:
    """A GitHub Actions workflow command: ``::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message``."""
    s = d.span
    level = _GITHUB_LEVEL.get(d.severity, "notice")
    props = [
        f"file={_escape_property(path)}",
        f"line={s.start_line + 1}",
        f"col={s.start_col + 1}",
        f"endLine={s.end_line + 1}",
        f"endColumn={s.end_col + 1}",
        f"title={_escape_property(f'heredoc-lsp {d.code}')}",
    ]
    return f"::{level} {','.join(props)}::{_escape_data(d.message)}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def write(stream: TextIO, text: str) -> None:
    """Write and flush; a closed pipe (``| head``) is not an error worth a traceback."""
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        # Keep Python from complaining again at exit when it flushes the dead stream.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        raise


def error_exit(message: str, prog: str = "heredoc-lsp") -> int:
    """Print ``prog: error: message`` on stderr and return 2 (usage error)."""
    sys.stderr.write(f"{prog}: error: {message}\n")
    return 2
