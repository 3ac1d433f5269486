"""``# heredoc-lsp: disable=CODE[,CODE]`` suppressions, and the edit that adds one (for the quick fix).

Where a directive may be written: a full-line comment of a ``.cli`` script (outside any heredoc body), or a prose
line of an inbox reply (outside any block). Inside a heredoc body or a block body the same text is content and
does nothing. Outbox files and stand-alone structured bodies have no comments, hence no directives.

What a directive silences:

- written before the first command of the file: the listed codes in the whole file;
- otherwise: the listed codes on the next line that is not itself a directive (consecutive directives add up; a
  ``# heredoc-lsp: lang=NAME`` line in between is a directive too);
  when that line starts a command, the whole command is covered — its heredoc or block body and its closing line
  included — so problems inside a body can be silenced from the line above the command.

A diagnostic is matched by the line where its range starts. Codes are written as they appear in diagnostics
(snake_case); after the list, only blanks may follow.

A comment that starts like a directive but is not one (a code with a hyphen, a bare ``disable``,
``disable-next-line=``, anything else after ``heredoc-lsp:``), or a directive at the end of a command line, silences
nothing: each is a ``bad_directive`` warning saying what to write. Heredoc and block bodies are content (often a file
being written, with directives of its own) and are not looked at.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from heredoc_lsp.syntax.body_language import lang_directive
from heredoc_lsp.syntax.diagnostics import Diagnostic, Span, warning
from heredoc_lsp.syntax.text import trim

DIRECTIVE_PREFIX = "# heredoc-lsp: disable="
_DIRECTIVE = re.compile(
    r"#[ \t]*heredoc-lsp[ \t]*:[ \t]*disable[ \t]*=[ \t]*([A-Za-z0-9_]+(?:[ \t]*,[ \t]*[A-Za-z0-9_]+)*)[ \t]*,?[ \t]*"
)


@dataclass(frozen=True, slots=True)
class Layout:
    """Where directives can be, and what a directive before a line covers.

    ``directive_lines``: lines that are comments (``.cli``) or prose (inbox), sorted. ``statements``: sorted
    half-open line extents of commands, bodies and closers included. Empty for formats without directives.
    """

    directive_lines: tuple[int, ...] = ()
    statements: tuple[tuple[int, int], ...] = ()
    has_directives: bool = True  # False for formats where directives are content (outbox, stand-alone bodies)

    @property
    def first_statement(self) -> int | None:
        return self.statements[0][0] if self.statements else None

    def statement_at(self, line: int) -> tuple[int, int] | None:
        """The extent of the statement containing ``line``."""
        i = bisect.bisect_right(self.statements, (line, 1 << 62)) - 1
        if i >= 0 and self.statements[i][0] <= line < self.statements[i][1]:
            return self.statements[i]
        return None


NO_DIRECTIVES = Layout(has_directives=False)


@dataclass(frozen=True, slots=True)
class Suppression:
    """One directive: its line, its codes, and the half-open line range it covers (the whole file when
    ``file_wide``)."""

    line: int
    codes: frozenset[str]
    file_wide: bool
    covers: tuple[int, int]


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``span`` (0-based lines, code-point columns) with ``new_text``."""

    span: Span
    new_text: str


def parse_directive(line: str) -> tuple[str, ...] | None:
    """The codes of a directive line, in order, or None when the line is not one."""
    m = _DIRECTIVE.fullmatch(trim(line))
    if m is None:
        return None
    return tuple(c.strip(" \t") for c in m.group(1).split(","))


def find_suppressions(lines: Sequence[str], layout: Layout) -> list[Suppression]:
    if not layout.directive_lines:
        return []
    found: dict[int, tuple[str, ...]] = {}
    for n in layout.directive_lines:
        if n < len(lines) and "heredoc-lsp" in lines[n]:
            codes = parse_directive(lines[n])
            if codes is not None:
                found[n] = codes
    first = layout.first_statement
    out: list[Suppression] = []
    for n, codes in found.items():
        if first is None or n < first:
            out.append(Suppression(n, frozenset(codes), True, (0, len(lines))))
            continue
        target = n + 1
        while target in found or (target < len(lines) and lang_directive(lines[target]) is not None):
            target += 1  # (a lang= directive belongs to the command below it too)
        extent = layout.statement_at(target)
        covers = extent if extent is not None and extent[0] == target else (target, target + 1)
        out.append(Suppression(n, frozenset(codes), False, covers))
    return out


# A comment that means to be a directive: ``#``, then ``heredoc-lsp`` and ``:``.
_ATTEMPT = re.compile(r"#[ \t]*heredoc-lsp[ \t]*:")
_AT_END = re.compile(r"(?<=[ \t;&|])#[ \t]*heredoc-lsp[ \t]*:")
_NEXT_LINE = re.compile(r"disable-next-line[ \t]*=?[ \t]*(.*)")


def _meant(after: str) -> str:
    """What a broken directive's text after ``heredoc-lsp:`` should have been."""
    body = trim(after)
    m = _NEXT_LINE.match(body)
    if m is not None:
        codes = trim(m.group(1)) or "CODE"
        return (
            "'disable-next-line' is not supported; a directive on its own line already covers the next line (or the "
            f"command starting there): write '{DIRECTIVE_PREFIX}{codes.replace('-', '_')}'"
        )
    name, eq, codes = body.partition("=")
    if trim(name) == "disable" and not eq:
        return f"a bare 'disable' silences nothing; name the codes: '{DIRECTIVE_PREFIX}CODE[,CODE]'"
    if trim(name) == "disable" and "-" in codes:
        fixed = ",".join(trim(c).replace("-", "_") for c in codes.split(",") if trim(c))
        return f"codes are written with '_', not '-': did you mean '{DIRECTIVE_PREFIX}{fixed}'?"
    return f"it cannot be read as a directive; the form is '{DIRECTIVE_PREFIX}CODE[,CODE]'"


def bad_directive_diagnostics(lines: Sequence[str], layout: Layout) -> list[Diagnostic]:
    """A ``bad_directive`` warning for each comment meant as a directive that silences nothing: one that does not
    parse (on a line where a directive may be), and one at the end of a command line."""
    if not layout.has_directives:
        return []
    out: list[Diagnostic] = []
    for n in layout.directive_lines:
        if n >= len(lines) or "heredoc-lsp" not in lines[n]:
            continue
        text = lines[n]
        m = _ATTEMPT.search(text)
        if m is None or text[: m.start()].strip(" \t\f\v") or parse_directive(text) is not None:
            continue
        end = len(text.rstrip(" \t\f\v"))
        out.append(
            warning(
                Span.at(n, m.start(), end),
                "bad_directive",
                f"This heredoc-lsp directive silences nothing: {_meant(text[m.end() :])}",
            )
        )
    comment_lines = set(layout.directive_lines)
    for start, _ in layout.statements:
        if start in comment_lines or start >= len(lines) or "heredoc-lsp" not in lines[start]:
            continue
        text = lines[start]
        m = _AT_END.search(text)
        if m is None:
            continue
        end = len(text.rstrip(" \t\f\v"))
        directive = trim(text[m.start() :])
        out.append(
            warning(
                Span.at(start, m.start(), end),
                "bad_directive",
                "A heredoc-lsp directive at the end of a command line silences nothing; put it on a line of its own "
                f"above the command: '{directive}'",
            )
        )
    return out


def unknown_code_diagnostics(lines: Sequence[str], suppressions: Sequence[Suppression]) -> list[Diagnostic]:
    """An ``unknown_code`` warning for every code in a directive that no rule has (a misspelt code silences
    nothing), at the code's own column."""
    if not suppressions:
        return []
    from heredoc_lsp.rules import RULES  # deferred: check start-up: the registry only for files that have directives

    out: list[Diagnostic] = []
    for s in suppressions:
        unknown = sorted(c for c in s.codes if c not in RULES)
        if not unknown:
            continue
        text = lines[s.line]
        after = text.index("=") + 1  # a directive line always has its ``=``
        for code in unknown:
            m = re.search(rf"(?<![A-Za-z0-9_]){code}(?![A-Za-z0-9_])", text[after:])
            start = after + m.start() if m is not None else 0
            out.append(
                warning(
                    Span.at(s.line, start, start + len(code)),
                    "unknown_code",
                    f"Unknown code '{code}' in a heredoc-lsp: disable directive; it silences nothing "
                    "(see 'heredoc-lsp rule --all')",
                    data={"code": code},
                )
            )
    return out


def apply_suppressions(
    diagnostics: Iterable[Diagnostic], suppressions: Sequence[Suppression]
) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """Split ``diagnostics`` into (kept, suppressed)."""
    if not suppressions:
        return list(diagnostics), []
    file_wide: set[str] = set()
    for s in suppressions:
        if s.file_wide:
            file_wide |= s.codes
    local = [s for s in suppressions if not s.file_wide]
    kept: list[Diagnostic] = []
    dropped: list[Diagnostic] = []
    for d in diagnostics:
        line = d.span.start_line
        if d.code in file_wide or any(d.code in s.codes and s.covers[0] <= line < s.covers[1] for s in local):
            dropped.append(d)
        else:
            kept.append(d)
    return kept, dropped


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _directive_text(indent: str, codes: Iterable[str]) -> str:
    return indent + DIRECTIVE_PREFIX + ",".join(codes)


def suppression_edit(
    lines: Sequence[str],
    layout: Layout,
    diagnostic: Diagnostic,
    *,
    newline: str = "\n",
    whole_file: bool = False,
) -> TextEdit | None:
    """The edit that silences ``diagnostic``'s code: on its line (or its command, when it is inside one), or in
    the whole file. An existing directive in the right place is extended instead of adding a line. None when the
    format has no directives."""
    if not layout.has_directives:
        return None
    code = diagnostic.code
    directives = {n: c for n in layout.directive_lines if n < len(lines) and (c := parse_directive(lines[n]))}
    first = layout.first_statement
    if whole_file:
        top = [n for n in sorted(directives) if first is None or n < first]
        if top:
            return _extend(lines, top[0], directives[top[0]], code)
        line = 1 if lines and lines[0].startswith("#!") else 0
        return TextEdit(Span(line, 0, line, 0), _directive_text("", (code,)) + newline)
    target = diagnostic.span.start_line
    extent = layout.statement_at(target)
    if extent is not None:
        target = extent[0]
    above = target - 1
    if above in directives:  # file-wide or local, extending it covers the target
        return _extend(lines, above, directives[above], code)
    indent = _indent(lines[target]) if target < len(lines) else ""
    return TextEdit(Span(target, 0, target, 0), _directive_text(indent, (code,)) + newline)


def _extend(lines: Sequence[str], line: int, codes: tuple[str, ...], code: str) -> TextEdit:
    text = lines[line]
    new_codes = codes if code in codes else (*codes, code)
    return TextEdit(Span(line, 0, line, len(text)), _directive_text(_indent(text), new_codes))
