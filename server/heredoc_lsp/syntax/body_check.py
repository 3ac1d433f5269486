"""Syntax checks of a body in its own language, without running anything (docs/bodies.md).

Python: the standard library's compiler (``compile(..., "exec", dont_inherit=True)``: the code object is thrown
away, never run). JSON: :mod:`json`. TOML: ``tomllib`` (``tomli`` before Python 3.11) through
:mod:`heredoc_lsp.syntax.toml_load` (nesting bounded). YAML: PyYAML's composer (the node tree only, so that
application tags such as ``!Ref`` are not errors and no object is built). Shell (``sh``, ``bash``): the project's
shell lexer (:mod:`heredoc_lsp.syntax.shell`), which reads the text as dash or bash would.

The text is the body's lines joined with ``\\n``. A problem's position is 0-based (line, code-point column) in
those lines; the caller maps it to the host document.
"""

from __future__ import annotations

import warnings
from functools import cache

from heredoc_lsp.syntax.lazy_re import lazy_compile
from heredoc_lsp.syntax.records import record
from heredoc_lsp.syntax.shell import scan
from heredoc_lsp.syntax.toml_load import TomlTooDeep
from heredoc_lsp.syntax.toml_load import loads as toml_loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from json import JSONDecoder

    from heredoc_lsp.syntax.shell import Dialect

__all__ = ["CHECKED", "BodyProblem", "check_body"]

_OPENED_ON = lazy_compile(r" \(opened on line \d+\)")
_TOML_AT = lazy_compile(r"\s*\(at line (\d+), column (\d+)\)\s*\Z|\s*\(at end of document\)\s*\Z")


@record
class BodyProblem:
    """A syntax error at ``line``/``col`` of the body (0-based; code points), up to ``end_line``/``end_col`` (the
    same point when the language does not say), with the language's own message."""

    line: int
    col: int
    end_line: int
    end_col: int
    message: str


def _at(lines: Sequence[str], line: int, col: int, message: str) -> BodyProblem:
    """A problem at ``line``/``col`` clamped into the body (a point past the last line is the end of the body)."""
    if not lines:
        return BodyProblem(0, 0, 0, 0, message)
    if line >= len(lines):
        line, col = len(lines) - 1, len(lines[-1])
    line = max(0, line)
    col = max(0, min(col, len(lines[line])))
    return BodyProblem(line, col, line, col, message)


def _python(lines: Sequence[str], text: str) -> BodyProblem | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning (an invalid escape) is no syntax error
            compile(text, "<body>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        message = f"python: {exc.msg}"
        if exc.lineno is None:
            nul = text.find("\0")
            line = text.count("\n", 0, nul) if nul >= 0 else 0
            col = nul - (text.rfind("\n", 0, nul) + 1) if nul >= 0 else 0
            return _at(lines, line, col, message)
        problem = _at(lines, exc.lineno - 1, (exc.offset or 1) - 1, message)
        end_line = (exc.end_lineno or 0) - 1
        end_col = (exc.end_offset or 0) - 1
        if end_line == problem.line and problem.col < end_col <= len(lines[problem.line]):
            return BodyProblem(problem.line, problem.col, end_line, end_col, message)
        return problem
    except (ValueError, RecursionError, MemoryError):
        return None  # (null bytes before 3.12; nesting the compiler cannot judge): not sure, so nothing
    return None


def _json_space_end(text: str, pos: int) -> int:
    """Where the white space ``json.loads`` skips around a value (space, tab, LF, CR), from ``pos`` on, ends."""
    return len(text) - len(text[pos:].lstrip(" \t\n\r"))


@cache
def _json_decoder() -> JSONDecoder:
    import json  # deferred: check start-up: only for JSON bodies

    return json.JSONDecoder()


def _json(lines: Sequence[str], text: str) -> BodyProblem | None:
    """``json.loads(text)``'s first error, found step by step as ``json.loads`` finds it (the same message and
    position), so that the common error (a value followed by more text, "Extra data") raises no exception."""
    import json  # deferred: check start-up: only for JSON bodies

    if text.startswith("\ufeff"):
        return _at(lines, 0, 0, "json: Unexpected UTF-8 BOM (decode using utf-8-sig)")
    try:
        _, end = _json_decoder().raw_decode(text, _json_space_end(text, 0))
    except json.JSONDecodeError as exc:
        return _at(lines, exc.lineno - 1, exc.colno - 1, f"json: {exc.msg}")
    except RecursionError:
        return None
    end = _json_space_end(text, end)
    if end == len(text):
        return None
    return _at(lines, text.count("\n", 0, end), end - (text.rfind("\n", 0, end) + 1), "json: Extra data")


def _toml(lines: Sequence[str], text: str) -> BodyProblem | None:
    try:
        toml_loads(text)
    except TomlTooDeep:
        return None  # valid TOML may nest that deep: too deep to read is no syntax error
    except ValueError as exc:  # tomllib's TOMLDecodeError
        raw = str(exc.args[0]) if exc.args else str(exc)
        raw = raw.split("\n", 1)[0]
        m = _TOML_AT.search(raw)
        message = f"toml: {raw[: m.start()] if m else raw}"
        if m is None:
            return _at(lines, 0, 0, message)
        if m.group(1) is None:  # at the end of the document
            return _at(lines, len(lines), 0, message)
        return _at(lines, int(m.group(1)) - 1, int(m.group(2)) - 1, message)
    return None


def _yaml(lines: Sequence[str], text: str) -> BodyProblem | None:
    try:
        import yaml  # deferred: check start-up: only for YAML bodies (PyYAML, with libyaml when installed)
    except ImportError:
        return None  # (the VS Code bundle has pure-Python libraries only: no PyYAML wheel there)

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        for _ in yaml.compose_all(text, Loader=loader):
            pass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or exc.context or "invalid YAML"
        if mark is None:
            return _at(lines, 0, 0, f"yaml: {what}")
        return _at(lines, mark.line, mark.column, f"yaml: {what}")
    except yaml.YAMLError as exc:
        return _at(lines, 0, 0, f"yaml: {exc}")
    except RecursionError:
        return None
    return None


def _shell(dialect: Dialect) -> Callable[[Sequence[str], str], BodyProblem | None]:
    def check(lines: Sequence[str], text: str) -> BodyProblem | None:
        found = scan(text, dialect=dialect)
        if found.error is None or found.gave_up:
            return None  # (the lexer stops where it cannot judge: no error it is not sure of)
        line = found.error_line if found.error_line is not None else len(lines)
        message = _OPENED_ON.sub("", found.error)  # the diagnostic is on that line already
        if line < len(lines):
            text_line = lines[line]
            col = len(text_line) - len(text_line.lstrip(" \t\f\v"))
            return BodyProblem(line, col, line, len(text_line.rstrip(" \t\f\v")), f"{dialect}: {message}")
        return _at(lines, line, 0, f"{dialect}: {message}")

    return check


_CHECKERS: dict[str, Callable[[Sequence[str], str], BodyProblem | None]] = {
    "python": _python,
    "json": _json,
    "toml": _toml,
    "yaml": _yaml,
    "sh": _shell("sh"),
    "bash": _shell("bash"),
}

# The languages whose syntax is checked; the other known languages are only recognised (and coloured).
CHECKED = frozenset(_CHECKERS)


def check_body(language: str, lines: Sequence[str]) -> BodyProblem | None:
    """The first syntax error of ``lines`` read as ``language``; None when it is valid or not checked."""
    checker = _CHECKERS.get(language)
    if checker is None:
        return None
    return checker(lines, "\n".join(lines))
