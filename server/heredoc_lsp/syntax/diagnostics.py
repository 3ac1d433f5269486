"""Positions, spans and diagnostics shared by every parser.

Lines are 0-based; columns are 0-based code-point indexes into the line (Python ``str`` indexes). Adapters convert:
the command line to 1-based lines and columns, the language server to the negotiated position encoding.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

from heredoc_lsp.syntax.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Severity(enum.IntEnum):
    """Same numbers as LSP's DiagnosticSeverity."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return {1: "error", 2: "warning", 3: "info", 4: "hint"}[int(self)]


@record(order=True)
class Span:
    """A half-open range ``[start, end)`` in (line, code-point column) coordinates."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    @staticmethod
    def of_line(line: int, text: str) -> Span:
        """The whole of one line's text (terminator excluded)."""
        return Span(line, 0, line, len(text))

    @staticmethod
    def at(line: int, start_col: int, end_col: int) -> Span:
        return Span(line, start_col, line, end_col)

    def shifted(self, lines: int) -> Span:
        return Span(self.start_line + lines, self.start_col, self.end_line + lines, self.end_col)


@record
class Related:
    """Extra location that explains a diagnostic (LSP relatedInformation)."""

    span: Span
    message: str


@record
class Diagnostic:
    span: Span
    severity: Severity
    code: str
    message: str
    related: tuple[Related, ...] = ()
    # Machine-readable facts for quick fixes (marker, names, ids...). Never shown to users.
    data: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)

    def shifted(self, lines: int) -> Diagnostic:
        """The same diagnostic moved down ``lines`` lines (for bodies parsed on their own)."""
        return Diagnostic(
            self.span.shifted(lines),
            self.severity,
            self.code,
            self.message,
            tuple(Related(r.span.shifted(lines), r.message) for r in self.related),
            self.data,
        )


def span_json(span: Span) -> dict[str, int]:
    """A span as the command line shows it: 1-based lines and columns (code points)."""
    return {
        "line": span.start_line + 1,
        "column": span.start_col + 1,
        "end_line": span.end_line + 1,
        "end_column": span.end_col + 1,
    }


def diagnostic_json(d: Diagnostic) -> dict[str, Any]:
    """A diagnostic as the command line shows it (``check`` and ``parse`` JSON, a refused run's diagnostics)."""
    return {**span_json(d.span), "severity": d.severity.label, "code": d.code, "message": d.message}


def error(span: Span, code: str, message: str, **kw: Any) -> Diagnostic:
    return Diagnostic(span, Severity.ERROR, code, message, **kw)


def warning(span: Span, code: str, message: str, **kw: Any) -> Diagnostic:
    return Diagnostic(span, Severity.WARNING, code, message, **kw)


def information(span: Span, code: str, message: str, **kw: Any) -> Diagnostic:
    return Diagnostic(span, Severity.INFORMATION, code, message, **kw)
