"""A shell command as bash runs it: the heredoc mistakes and syntax errors of a command an agent is about to run
(``heredoc-lsp guard``, ``heredoc-lsp check - --language bash``; docs/guard.md).

Bash's rules, not the ``.cli`` dialect's: a heredoc ends at the first line that is exactly its marker (after the
leading tabs ``<<-`` strips); lines end at ``\\n`` only (a ``\\r`` is part of the line, as for bash). Diagnostics,
each at the line that shows the problem:

- ``unclosed_heredoc``: no line closes the body (same code and message as in ``.cli`` scripts);
- ``inexact_terminator``: the body was meant to end at a line that is the marker but for blanks around it or a
  ``\\r`` (indented without ``<<-``, indented with spaces under ``<<-``, trailing blanks); bash read on to the end;
- ``terminator_not_alone``: the marker followed by more shell (``EOF)``, ``EOF;``, ``EOF |``) on the line meant to
  close the body; bash reads on (inside ``$( )`` bash 5 stops there with a warning; dash reads on);
- ``early_close``: a later command line that is a closed heredoc's marker alone: the body held its marker, the
  lines after it ran as commands;
- ``orphan_option``: a line whose command word starts with ``-``: an option meant for the command above, which
  bash runs as a command of its own;
- ``shell_syntax``: not valid bash (syntax/shell.py), unless an unclosed heredoc above explains it;
- the structured-body codes (syntax/params.py) for heredocs of configured commands (never guessed without a
  configuration here: a command's body is only checked when its command is configured).
"""

from __future__ import annotations

from collections.abc import Mapping

from heredoc_lsp.syntax.diagnostics import Diagnostic, Related, Span, error
from heredoc_lsp.syntax.records import record
from heredoc_lsp.syntax.shell import ShellHeredoc, scan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from heredoc_lsp.syntax.schema import CommandSchema

# What may follow a marker on a line meant to close its body: shell again (a list, pipe, redirection, `)`).
_GLUE = ")|;&<>"
_SHOWN = 60


@record(eq=False)
class BashCommand:
    """``heredocs`` in the order bash reads their bodies; ``diagnostics`` sorted by position."""

    text: str
    lines: tuple[str, ...]
    heredocs: tuple[ShellHeredoc, ...]
    diagnostics: tuple[Diagnostic, ...]
    gave_up: bool

    def body(self, heredoc: ShellHeredoc) -> list[str]:
        """The body's lines (``<<-`` tabs stripped), as the command reads them now."""
        rows = self.lines[heredoc.body_start : heredoc.body_end]
        return [r.lstrip("\t") for r in rows] if heredoc.strip_tabs else list(rows)


def bash_lines(text: str) -> tuple[str, ...]:
    """``text`` split at ``\\n`` (bash's line end); a final newline starts no line."""
    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    return tuple(rows)


def parse_bash(text: str, schemas: Mapping[str, CommandSchema] | None = None) -> BashCommand:
    """Check ``text`` as bash reads it; ``schemas``: the configured commands with structured bodies."""
    found = scan(text, dialect="bash")
    lines = bash_lines(text)
    out: list[Diagnostic] = []
    any_unclosed = False
    strays: dict[int, list[int]] = {}
    for stray in found.strays:
        strays.setdefault(stray.heredoc, []).append(stray.line)
    explained = False
    if found.error is not None and found.error_line is not None:
        # The lexer stopped (e.g. at a quote in what was meant as body text): a later line that is a closed
        # heredoc's marker alone still shows the body held its marker.
        for k, h in enumerate(found.heredocs):
            if h.closed and not h.glued and k not in strays and h.body_end < found.error_line:
                later = [n for n in range(found.error_line, len(lines)) if lines[n].strip(" \t") == h.marker]
                if later:
                    strays[k] = later
                    explained = True
    for k, h in enumerate(found.heredocs):
        if not h.closed:
            any_unclosed = True
            out.append(_unclosed(lines, h))
        elif h.glued:
            out.append(_not_alone(lines, h, h.body_end, glued=True))
        else:
            if k in strays:
                out.append(_early_close(lines, h, strays[k]))
            if schemas:
                out.extend(_structured(lines, h, schemas))
    for n in found.orphans:
        word = lines[n].strip(" \t").split(" ", 1)[0]
        out.append(
            error(
                Span.of_line(n, lines[n]),
                "orphan_option",
                f"Line {n + 1} starts with the option '{_shown(word)}': bash runs it as a command of its own, and "
                "the command above runs without it. Move the option onto its command's line (before the heredoc "
                "operator '<<').",
            )
        )
    if found.error is not None and not any_unclosed and not explained:
        line = found.error_line if found.error_line is not None else 0
        row = lines[line] if line < len(lines) else ""
        out.append(
            error(
                Span.of_line(line, row),
                "shell_syntax",
                f"Line {line + 1} is not valid bash: {found.error}. Fix the shell syntax (close what is open) "
                "before running it.",
            )
        )
    out.sort(key=lambda d: (d.span.start_line, d.span.start_col))
    return BashCommand(text, lines, found.heredocs, tuple(out), found.gave_up)


def near_miss(lines: tuple[str, ...], h: ShellHeredoc) -> tuple[int, str] | None:
    """The first body line meant to close the unclosed heredoc ``h``: (line, kind) with kind ``indented``,
    ``spaces`` (``<<-`` strips tabs only), ``trailing``, ``cr`` or ``glued``."""
    marker = h.marker
    for n in range(h.body_start, min(h.body_end, len(lines))):
        row = lines[n]
        if marker not in row:
            continue
        core = row.lstrip("\t") if h.strip_tabs else row
        trimmed = core.strip(" \t")
        if trimmed.rstrip("\r") == marker or trimmed == marker:
            lead = core[: len(core) - len(core.lstrip(" \t"))]
            if lead:
                return n, "spaces" if h.strip_tabs else "indented"
            if core.rstrip(" \t") == marker:
                return n, "trailing"
            return n, "cr" if "\r" in core else "trailing"
        rest = core.lstrip(" \t")
        if rest.startswith(marker):
            after = rest[len(marker) :].lstrip(" \t")
            if after[:1] and after[0] in _GLUE and not rest[len(marker) : len(marker) + 1].isalnum():
                return n, "glued"
    return None


def _marker_span(h: ShellHeredoc) -> Span:
    return Span(h.line, h.word_column, h.line, max(h.word_end_column, h.word_column))


def _opener(h: ShellHeredoc) -> Related:
    return Related(_marker_span(h), f"the heredoc '{_shown(h.marker)}' opens here")


def _unclosed(lines: tuple[str, ...], h: ShellHeredoc) -> Diagnostic:
    if h.cut:
        return error(
            _marker_span(h),
            "unclosed_heredoc",
            f"Unclosed heredoc starting at line {h.line + 1}: the '$( )' holding '<<{_shown(h.marker)}' closes on "
            'the same line, before its body: bash reads the body only with a warning ("unterminated here-document") '
            f"and dash runs its lines as commands. Put the body and the line '{_shown(h.marker)}' inside the '$( )', "
            "before its ')'.",
            data={"marker": h.marker, "opener_line": h.line},
        )
    miss = near_miss(lines, h)
    if miss is not None:
        n, kind = miss
        if kind == "glued":
            return _not_alone(lines, h, n, glued=False)
        return _inexact(lines, h, n, kind)
    last = max(len(lines) - 1, 0)
    end = len(lines[last]) if lines else 0
    return error(
        _marker_span(h),
        "unclosed_heredoc",
        f"Unclosed heredoc starting at line {h.line + 1}: expected '{_shown(h.marker)}' but reached end of file. "
        f"End the body with a line that is exactly '{_shown(h.marker)}'.",
        related=(Related(Span(last, end, last, end), f"end of the command without a line '{_shown(h.marker)}'"),),
        data={"marker": h.marker, "opener_line": h.line},
    )


def _inexact(lines: tuple[str, ...], h: ShellHeredoc, n: int, kind: str) -> Diagnostic:
    marker = _shown(h.marker)
    why = {
        "indented": f"is indented; bash only ends the body at a line that is exactly '{marker}' (with '<<-', "
        "leading tabs are stripped)",
        "spaces": "is indented with spaces; '<<-' strips leading tabs only",
        "trailing": f"has blanks after '{marker}'; bash needs the exact line",
        "cr": f"ends in a carriage return (\\r); bash needs the exact line '{marker}'",
    }[kind]
    return error(
        Span.of_line(n, lines[n]),
        "inexact_terminator",
        f"Line {n + 1} {why}, so the heredoc of line {h.line + 1} never ends and the rest of the command is its "
        f"body. Write the line as exactly '{marker}', at the start of the line.",
        related=(_opener(h),),
        data={"marker": h.marker, "opener_line": h.line, "terminator_line": n},
    )


def _not_alone(lines: tuple[str, ...], h: ShellHeredoc, n: int, *, glued: bool) -> Diagnostic:
    marker = _shown(h.marker)
    row = lines[n] if n < len(lines) else ""
    core = row.lstrip("\t") if h.strip_tabs else row
    rest = _shown(core.lstrip(" \t")[len(h.marker) :].strip(" \t"))
    how = (
        "bash 5 ends the body there only with a warning ('delimited by end-of-file') and dash reads on"
        if glued
        else f"bash only ends the body at a line that is exactly '{marker}', so it never ends"
    )
    if rest.startswith(";"):
        then = "drop the ';' (the end of the line ends the command)"
        if rest[1:].strip(" "):
            then += " and put the rest on the next line"
    else:
        then = f"put '{rest}' on the next line"
    return error(
        Span.of_line(n, row),
        "terminator_not_alone",
        f"Line {n + 1} puts '{rest}' after the terminator '{marker}' of the heredoc of line {h.line + 1}: {how}. "
        f"Put '{marker}' alone on its line and {then}.",
        related=(_opener(h),),
        data={"marker": h.marker, "opener_line": h.line, "terminator_line": n},
    )


def _early_close(lines: tuple[str, ...], h: ShellHeredoc, stray_lines: list[int]) -> Diagnostic:
    last = stray_lines[-1]
    marker = _shown(h.marker)
    ran = f"lines {h.body_end + 2}-{last}" if last > h.body_end + 2 else f"line {h.body_end + 2}"
    return error(
        Span.of_line(last, lines[last]),
        "early_close",
        f"Line {last + 1} is '{marker}' again: the body of the heredoc of line {h.line + 1} held its own marker, "
        f"so it ended at line {h.body_end + 1} and {ran} ran as commands. Use a marker that occurs in no line of "
        "the body, at the opener and at this line.",
        related=(_opener(h), Related(Span.of_line(h.body_end, lines[h.body_end]), "the body ended here")),
        data={"marker": h.marker, "opener_line": h.line, "close_line": h.body_end, "stray_lines": stray_lines},
    )


def _structured(lines: tuple[str, ...], h: ShellHeredoc, schemas: Mapping[str, CommandSchema]) -> list[Diagnostic]:
    from heredoc_lsp.syntax.params import parse_params  # deferred: check start-up (guard: configured commands only)
    from heredoc_lsp.syntax.schema import lookup_schema  # deferred: check start-up (guard: configured commands only)

    schema = lookup_schema(schemas, h.command) if h.command else None
    if schema is None:
        return []
    body: list[str] = list(lines[h.body_start : h.body_end])
    offsets: list[int] | None = None
    if h.strip_tabs:
        stripped = [b.lstrip("\t") for b in body]
        offsets = [len(b) - len(s) for b, s in zip(body, stripped, strict=True)]
        body = stripped
    return list(parse_params(body, schema, line_offset=h.body_start, col_offsets=offsets).diagnostics)


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


# -- rewrites (``guard --rewrite``) ------------------------------------------------------------------------------
# Kept here rather than in fixes/ because the guard must start fast and the fixes package loads every parser.


def rewrite_bash(command: BashCommand, schemas: Mapping[str, CommandSchema] | None = None) -> str | None:
    """``command`` with every problem fixed, when each fix is provably safe: the fixed command parses without a
    problem and each heredoc's body is exactly the text the command visibly meant (the lines up to the line meant
    as its terminator). None when any problem has no such fix."""
    if not command.diagnostics or command.gave_up:
        return None
    lines = list(command.lines)
    heredocs = command.heredocs
    edits: list[tuple[int, list[str]]] = []  # (line, replacement lines), applied bottom-up
    opener_edits: dict[int, tuple[int, int, str]] = {}  # line -> (start col, end col, new word)
    intended: dict[int, int] = {}  # heredoc index -> line meant as its terminator
    for d in command.diagnostics:
        data = d.data or {}
        code = d.code
        if code not in ("inexact_terminator", "terminator_not_alone", "early_close"):
            return None
        k = _heredoc_at(heredocs, int(data["opener_line"]), str(data["marker"]))
        if k is None:
            return None
        h = heredocs[k]
        if code == "inexact_terminator":
            n = int(data["terminator_line"])
            edits.append((n, [h.marker]))
            intended[k] = n
        elif code == "terminator_not_alone":
            n = int(data["terminator_line"])
            row = lines[n].lstrip("\t") if h.strip_tabs else lines[n]
            rest = row.lstrip(" \t")[len(h.marker) :].strip(" \t")
            if rest.startswith(")"):
                edits.append((n, [h.marker, rest]))
            elif rest == ";" or rest.startswith(("; ", ";\t")):
                edits.append((n, [h.marker, rest[1:].strip(" \t")] if rest[1:].strip(" \t") else [h.marker]))
            else:
                return None
            intended[k] = n
        else:
            last = int(data["stray_lines"][-1])
            if any(h.body_end < o.line < last for o in heredocs):
                return None  # another heredoc opens in between: which lines are whose body is not visible
            body = lines[h.body_start : last]
            fresh = _fresh_marker(h.marker, body)
            edits.append((last, [fresh]))
            word = f"'{fresh}'" if h.quoted else fresh
            if h.line in opener_edits:
                return None
            opener_edits[h.line] = (h.word_column, h.word_end_column, word)
            intended[k] = last
    for n, (start, end, word) in opener_edits.items():
        lines[n] = lines[n][:start] + word + lines[n][end:]
    for n, rows in sorted(edits, key=lambda e: e[0], reverse=True):
        lines[n : n + 1] = rows
    fixed = "\n".join(lines) + ("\n" if command.text.endswith("\n") else "")
    return fixed if _rewrite_holds(command, fixed, intended, schemas) else None


def _heredoc_at(heredocs: tuple[ShellHeredoc, ...], line: int, marker: str) -> int | None:
    for k, h in enumerate(heredocs):
        if h.line == line and h.marker == marker:
            return k
    return None


def _fresh_marker(marker: str, body: list[str]) -> str:
    """A marker that occurs in no line of ``body`` (not even inside a line)."""
    base = marker if marker.replace("_", "").isalnum() and marker.isascii() else "EOF"
    for candidate in (f"{base}_END", *(f"{base}_{k}" for k in range(2, 1000))):
        if not any(candidate in row for row in body):
            return candidate
    return "HEREDOC_LSP_END_OF_BODY"


def _rewrite_holds(
    before: BashCommand, fixed: str, intended: dict[int, int], schemas: Mapping[str, CommandSchema] | None
) -> bool:
    after = parse_bash(fixed, schemas)
    if after.diagnostics or after.gave_up or len(after.heredocs) != len(before.heredocs):
        return False
    for k, h in enumerate(before.heredocs):
        end = intended.get(k, h.body_end)
        rows = before.lines[h.body_start : end]
        want = [r.lstrip("\t") for r in rows] if h.strip_tabs else list(rows)
        if after.body(after.heredocs[k]) != want:
            return False
    return True
