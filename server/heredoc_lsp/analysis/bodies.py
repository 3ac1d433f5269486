"""``body_syntax``: heredoc bodies and reply file blocks checked in their own language (docs/bodies.md).

The language of each body comes from :mod:`heredoc_lsp.syntax.body_language`, the check from
:mod:`heredoc_lsp.syntax.body_check`; this module finds the bodies of a parsed document, maps each problem to the
host document's line and column (a ``<<-`` body's stripped tabs added back) and remembers checks by body content,
so that a body is checked again only when its text or language changed.
"""

from __future__ import annotations

import sys
from bisect import bisect_left
from collections.abc import Sequence
from functools import lru_cache

from heredoc_lsp.syntax.body_check import CHECKED, BodyProblem, check_body
from heredoc_lsp.syntax.body_language import (
    NO_LANGUAGE,
    command_language,
    file_language,
    lang_directive,
    language_name,
    marker_language,
    plain_program,
    shebang_language,
    target_language,
)
from heredoc_lsp.syntax.cli import CliScript, Command
from heredoc_lsp.syntax.cli_rows import closed_body, closed_command, iter_closed_openers
from heredoc_lsp.syntax.diagnostics import Diagnostic, Span, error
from heredoc_lsp.syntax.text import LineEdit, trim

TYPE_CHECKING = False
if TYPE_CHECKING:
    from heredoc_lsp.syntax.inbox import InboxCommand, InboxReply

__all__ = [
    "CODE",
    "STATS",
    "block_language",
    "body_diagnostics",
    "cli_body_diagnostics",
    "heredoc_language",
    "inbox_body_diagnostics",
    "opener_language",
    "update_cli_body_diagnostics",
]

CODE = "body_syntax"
FILE_BLOCKS = ("CREATE_FILE",)  # EDIT_FILE bodies are fragments of a file: their language colours, never checks
_CACHE_SIZE = 2048
_cache: dict[tuple[str, tuple[str, ...]], BodyProblem | None] = {}
# Work counters, for tests and the benchmark: ``checked`` counts bodies actually parsed (cache misses), ``read``
# opener commands read word by word for their language (cache misses; a plain program is never read).
STATS: dict[str, int] = {"checked": 0, "read": 0}


def _checked(language: str, body: tuple[str, ...]) -> BodyProblem | None:
    key = (language, body)
    try:
        return _cache[key]
    except KeyError:
        pass
    STATS["checked"] += 1
    found = check_body(language, body)
    if len(_cache) >= _CACHE_SIZE:
        del _cache[next(iter(_cache))]  # the oldest entry
    _cache[key] = found
    return found


def _directive_above(lines: Sequence[str], line: int) -> str | None:
    """The language named by ``# heredoc-lsp: lang=NAME`` among the directive lines just above ``line``
    (``NO_LANGUAGE`` for ``lang=none`` or an unknown name); None without one."""
    n = line - 1
    while n >= 0 and "heredoc-lsp" in lines[n]:
        name = lang_directive(lines[n])
        if name is not None:
            return language_name(name) or NO_LANGUAGE
        if not trim(lines[n]).startswith("#"):
            return None
        n -= 1
    return None


def _known(language: str | None) -> str | None:
    return None if language is None or language == NO_LANGUAGE else language


def opener_language(
    lines: Sequence[str], line: int, text: str, tail: str, marker: str, first_body_line: str | None, lang: str | None
) -> str | None:
    """The language of the body of the heredoc opened on ``line`` by command ``text`` (``tail`` after the marker),
    whose configured ``lang`` (the command's config entry) may be None; ``first_body_line`` for a shebang."""
    said = _directive_above(lines, line)
    if said is not None:
        return _known(said)
    if lang is not None:
        return _known(lang)
    guessed = marker_language(marker) if plain_program(text) else _guessed(text, tail, marker)
    return guessed or (shebang_language(first_body_line) if first_body_line is not None else None)


@lru_cache(maxsize=4096)
def _guessed(text: str, tail: str, marker: str) -> str | None:
    """What the opener line says (consumer, marker, written file): scripts repeat their commands, so it is kept."""
    STATS["read"] += 1
    return command_language(text, tail) or marker_language(marker) or target_language(text, tail)


def heredoc_language(lines: Sequence[str], command: Command) -> str | None:
    """The language of ``command``'s heredoc body (None: data, or no heredoc, or a structured body)."""
    h = command.heredoc
    if h is None or (command.params is not None and command.params.mode != "text"):
        return None  # (a structured body is parameters)
    lang = command.schema.lang if command.schema is not None else None
    first = h.body[0] if h.body else None
    return opener_language(lines, command.line, command.text, h.tail, h.marker, first, lang)


def block_language(lines: Sequence[str], command: InboxCommand) -> str | None:
    """The language of a ``[CREATE_FILE]``/``[EDIT_FILE]`` body (None for other blocks and for data)."""
    if command.name not in ("CREATE_FILE", "EDIT_FILE") or command.body_lines is None:
        return None
    said = _directive_above(lines, command.line)
    if said is not None:
        return _known(said)
    first, end = command.body_lines
    first_line = lines[first] if first < end and command.name == "CREATE_FILE" else None
    return file_language(command.attrs.get("path", ""), first_line)


def _diagnostic(lines: Sequence[str], problem: BodyProblem, first: int, body: Sequence[str], lang: str) -> Diagnostic:
    """``problem`` of ``body`` (the lines checked, a ``<<-`` body's tabs stripped), which is on lines from ``first``."""
    line = first + problem.line
    col = problem.col + len(lines[line]) - len(body[problem.line])
    end_line = first + problem.end_line
    end_col = problem.end_col + len(lines[end_line]) - len(body[problem.end_line])
    if (end_line, end_col) <= (line, col):  # a point: the character there, if any
        end_line, end_col = line, min(col + 1, len(lines[line]))
    return error(Span(line, col, end_line, end_col), CODE, problem.message, data={"language": lang})


def _heredoc_diagnostic(lines: Sequence[str], command: Command, language: str | None = None) -> Diagnostic | None:
    """``command``'s ``body_syntax``, if any; ``language``: its body's language when the caller knows it."""
    h = command.heredoc
    if h is None or command.error is not None or not h.closed:
        return None
    if language is None:
        language = heredoc_language(lines, command)
    if language is None or language not in CHECKED:
        return None
    problem = _checked(language, h.body)
    if problem is None:
        return None
    if not h.body:
        return error(h.marker_span, CODE, problem.message, data={"language": language})
    return _diagnostic(lines, problem, h.body_start, h.body, language)


def cli_body_diagnostics(
    script: CliScript, first_line: int = 0, stop_line: int | None = None, *, directives: bool = True
) -> list[Diagnostic]:
    """``body_syntax`` of the heredocs whose opener is on lines ``[first_line, stop_line)`` (default: all);
    ``directives=False`` promises that no line holds ``heredoc-lsp`` (no ``lang=`` directive to look for).

    The language is read from the scanner's rows (a command whose first word names no program takes its marker's
    language at the cost of one split); only a heredoc with a checked language is built and checked."""
    lines = script.lines
    last = None if stop_line is None else stop_line - 1
    if last is not None and last < first_line:
        return []
    out: list[Diagnostic] = []
    checked = CHECKED
    for line, text, tail, marker, first, schema, key in iter_closed_openers(script, first_line, last):
        said = _directive_above(lines, line) if directives and line and "heredoc-lsp" in lines[line - 1] else None
        if said is not None:
            language = _known(said)
        elif schema is not None and schema.lang is not None:
            language = _known(schema.lang)
        else:
            language = marker_language(marker) if plain_program(text) else _guessed(text, tail, marker)
            if language is None and first is not None and first.startswith("#!"):
                language = shebang_language(first)
        if language is None or language not in checked:
            continue
        start, body = closed_body(script, key)
        problem = _checked(language, body)
        if problem is None:
            continue
        if body:  # (no Command built: only an empty body's problem, at its marker, needs one)
            out.append(_diagnostic(lines, problem, start, body, language))
        elif (found := _heredoc_diagnostic(lines, closed_command(script, key), language)) is not None:
            out.append(found)
    return out


def _first_at(diagnostics: Sequence[Diagnostic], line: int) -> int:
    return bisect_left(diagnostics, line, key=_start_line)


def _start_line(d: Diagnostic) -> int:
    return d.span.start_line


def _context_start(lines: Sequence[str], line: int) -> int:
    """The first line a heredoc opener's language may depend on: the directive lines just above it."""
    n = line - 1
    while n >= 0 and "heredoc-lsp" in lines[n]:
        n -= 1
    return max(0, n)


def update_cli_body_diagnostics(
    previous: Sequence[Diagnostic], old: CliScript, new: CliScript, edit: LineEdit, resume: int, stop: int
) -> tuple[Diagnostic, ...]:
    """The body diagnostics of ``new``, an incremental re-parse of ``old`` after ``edit`` that scanned new lines
    ``[resume, stop)`` again; ``previous`` are ``old``'s (sorted by line).

    Diagnostics before ``resume`` are kept and those from old line ``stop - delta`` on are moved. In the window, a
    heredoc whose lines (and directive lines above) the edit did not touch, and which was the same heredoc in the
    old parse, keeps its old result; the others are checked (through the content cache)."""
    delta = edit.delta
    lines = new.lines
    edited_lo, edited_hi = edit.start, edit.start + edit.inserted  # new lines that changed (an insertion point)
    out = list(previous[: _first_at(previous, resume)])
    for kind, line, command in new.outline(resume, stop - 1):
        if kind != "heredoc" or command is None or line < resume:
            continue
        first, last = _context_start(lines, line), command.end_line
        if last < edited_lo or first >= edited_hi:
            old_line = line if last < edited_lo else line - delta
            was = old.item_at(old_line)
            if (
                isinstance(was, type(command))
                and was.line == old_line
                and was.end_line - old_line == last - line
                and was.error == command.error
                and was.heredoc is not None
                and command.heredoc is not None
                and was.heredoc.closed == command.heredoc.closed
            ):
                k = _first_at(previous, old_line)
                while k < len(previous) and previous[k].span.start_line <= was.end_line:
                    out.append(previous[k].shifted(line - old_line) if line != old_line else previous[k])
                    k += 1
                continue
        found = _heredoc_diagnostic(lines, command)
        if found is not None:
            out.append(found)
    for d in previous[_first_at(previous, stop - delta) :]:
        out.append(d.shifted(delta) if delta else d)
    return tuple(out)


def inbox_body_diagnostics(lines: Sequence[str], reply: InboxReply) -> list[Diagnostic]:
    """``body_syntax`` of the reply's ``[CREATE_FILE]`` blocks."""
    out: list[Diagnostic] = []
    for command in reply.commands:
        if command.name not in FILE_BLOCKS or command.errors or command.body_lines is None:
            continue
        language = block_language(lines, command)
        if language is None or language not in CHECKED:
            continue
        first, end = command.body_lines
        body = tuple(lines[first:end])
        problem = _checked(language, body)
        if problem is None:
            continue
        if not body:
            out.append(error(command.tag_span, CODE, problem.message, data={"language": language}))
        else:
            out.append(_diagnostic(lines, problem, first, body, language))
    return out


def body_diagnostics(lines: Sequence[str], tree: object, *, directives: bool = True) -> list[Diagnostic]:
    """``body_syntax`` of a parsed ``.cli`` script or inbox reply (nothing for other formats); ``directives`` as
    for :func:`cli_body_diagnostics`."""
    if isinstance(tree, CliScript):
        return cli_body_diagnostics(tree, directives=directives)
    # An inbox reply exists only once its parser is loaded: checking a .cli script never imports it (start-up).
    inbox = sys.modules.get("heredoc_lsp.syntax.inbox")
    if inbox is not None and isinstance(tree, inbox.InboxReply):
        return inbox_body_diagnostics(lines, tree)
    return []
