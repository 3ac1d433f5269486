"""The one TOML loader (``heredoc-lsp.toml``, ``pyproject.toml``): tomllib with its nesting depth bounded.

tomllib parses arrays and inline tables recursively: ``a = [[[[...]]]]`` 3,000 deep raises ``RecursionError``
(not the ``TOMLDecodeError`` every caller expects), and a 3,000-part dotted key builds tables as deep, which
any later recursive walk of the value would trip on. A file of a cloned repository may hold either. :func:`loads`
refuses both with a :class:`TomlTooDeep` (a ``ValueError`` like ``TOMLDecodeError``, with its position in the
same ``(at line L, column C)`` form) before anything recurses.
"""

from __future__ import annotations

import re
import sys

from heredoc_lsp.syntax.lazy_re import lazy_compile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 100

# Strings and comments (whose brackets do not nest), and the brackets themselves.
_TOKEN = lazy_compile(
    r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]', re.DOTALL
)


class TomlTooDeep(ValueError):
    """Arrays, inline tables or tables nested deeper than :data:`MAX_DEPTH`."""


def _position(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"(at line {line}, column {col})"


def _check_brackets(text: str) -> None:
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for m in _TOKEN.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                where = _position(text, m.start())
                raise TomlTooDeep(f"arrays or tables nested deeper than {MAX_DEPTH} levels {where}")
        elif ch in "]}":
            depth = max(0, depth - 1)


def _check_tables(data: dict[str, Any]) -> None:
    """Refuse tables (from dotted keys or headers) deeper than :data:`MAX_DEPTH`; iterative."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise TomlTooDeep(f"tables nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, (dict, list)))


def loads(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)`` (tomli on Python 3.10) with nesting bounded; every failure is a ``ValueError``."""
    import importlib  # deferred: check start-up (tomllib is slow to import and most runs need no TOML)

    _check_brackets(text)
    module = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")
    try:
        data: dict[str, Any] = module.loads(text)
    except RecursionError:  # a nesting the bracket count did not see: still a decode error, never a crash
        raise TomlTooDeep(f"nested deeper than this program can read (more than {MAX_DEPTH} levels)") from None
    _check_tables(data)
    return data
