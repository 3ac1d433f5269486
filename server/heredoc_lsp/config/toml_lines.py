"""Where each key of a TOML document is written, so config errors can name a line.

``tomllib`` gives values but no positions. This scanner reads table headers (``[a."b c"]``) and ``key = value`` lines
(dotted keys included) and records the first line defining each full key path. It skips the insides of multi-line
strings and arrays; keys inside inline tables are not located (their table's line is used instead).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_KEY_PART = re.compile(r"""[ \t]*(?:([A-Za-z0-9_-]+)|"((?:[^"\\]|\\.)*)"|'([^']*)')[ \t]*""")
_HEADER = re.compile(r"[ \t]*\[(\[?)")


@dataclass(frozen=True, slots=True)
class KeyPosition:
    """0-based line; 0-based columns of the last key part."""

    line: int
    start_col: int
    end_col: int


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def _parse_key(text: str, pos: int) -> tuple[list[str], int, int, int] | None:
    """Parse a dotted key at ``pos``: (parts, end position, start and end column of the last part)."""
    parts: list[str] = []
    last_start = last_end = pos
    while True:
        m = _KEY_PART.match(text, pos)
        if m is None:
            return None
        bare, basic, literal = m.groups()
        parts.append(bare if bare is not None else _unescape(basic) if basic is not None else literal or "")
        last_start, last_end = m.start(m.lastindex or 0), m.end(m.lastindex or 0)
        if basic is not None or literal is not None:  # include the quotes in the span
            last_start -= 1
            last_end += 1
        pos = m.end()
        if pos < len(text) and text[pos] == ".":
            pos += 1
            continue
        return parts, pos, last_start, last_end


def _multiline_state(line: str, open_quote: str | None) -> str | None:
    """Track whether a multi-line string stays open after ``line`` (approximate: counts triple quotes)."""
    i = 0
    while i < len(line):
        if open_quote is None:
            if line.startswith(('"""', "'''"), i):
                open_quote = line[i : i + 3]
                i += 3
                continue
            if line[i] == "#":
                break
            if line[i] in "\"'":  # a one-line string: skip it
                q = line[i]
                j = i + 1
                while j < len(line) and line[j] != q:
                    j += 2 if q == '"' and line[j] == "\\" else 1
                i = j + 1
                continue
        else:
            if open_quote == '"""' and line[i] == "\\":
                i += 2
                continue
            if line.startswith(open_quote, i):
                open_quote = None
                i += 3
                continue
        i += 1
    return open_quote


def _bracket_depth(line: str, depth: int) -> int:
    """Depth of open ``[`` of a multi-line array after ``line`` (strings and comments skipped)."""
    i = 0
    while i < len(line):
        c = line[i]
        if c == "#":
            break
        if c in "\"'":
            j = i + 1
            while j < len(line) and line[j] != c:
                j += 2 if c == '"' and line[j] == "\\" else 1
            i = j + 1
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        i += 1
    return max(depth, 0)


def locate_keys(text: str) -> dict[tuple[str, ...], KeyPosition]:
    """Map each full key path (table headers included) to where it is first written."""
    from heredoc_lsp.syntax.text import split_lines  # deferred: check start-up

    found: dict[tuple[str, ...], KeyPosition] = {}
    table: tuple[str, ...] = ()
    open_quote: str | None = None
    depth = 0
    for n, line in enumerate(split_lines(text)):
        if open_quote is not None:
            open_quote = _multiline_state(line, open_quote)
            continue
        if depth > 0:
            depth = _bracket_depth(line, depth)
            continue
        header = _HEADER.match(line)
        if header is not None:
            parsed = _parse_key(line, header.end())
            if parsed is not None:
                parts, _, start, end = parsed
                table = tuple(parts)
                for i in range(1, len(table) + 1):
                    found.setdefault(table[:i], KeyPosition(n, start, end))
            continue
        parsed = _parse_key(line, 0)
        if parsed is None or parsed[1] >= len(line) or line[parsed[1]] != "=":
            continue
        parts, eq, start, end = parsed
        path = table + tuple(parts)
        for i in range(len(table) + 1, len(path) + 1):
            found.setdefault(path[:i], KeyPosition(n, start, end))
        value = line[eq + 1 :]
        open_quote = _multiline_state(value, None)
        if open_quote is None:
            depth = _bracket_depth(value, 0)
    return found


def position_of(found: dict[tuple[str, ...], KeyPosition], path: tuple[str, ...]) -> KeyPosition | None:
    """Where ``path`` is written, else its nearest written ancestor."""
    for i in range(len(path), 0, -1):
        pos = found.get(path[:i])
        if pos is not None:
            return pos
    return None
