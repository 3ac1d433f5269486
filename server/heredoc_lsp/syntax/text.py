"""The text model shared by every format (docs/formats.md).

Lines end at ``\\r\\n``, ``\\n`` or a lone ``\\r`` and nowhere else; a terminator at the very end does not start
another line. "Trim" and "blank" mean ASCII space, tab, form feed and vertical tab only.
"""

from __future__ import annotations

from collections.abc import Sequence

from heredoc_lsp.syntax.lazy_re import lazy_compile
from heredoc_lsp.syntax.records import record

BLANK_CHARS = " \t\f\v"
BOM = "\ufeff"

_LINE_BREAK = lazy_compile(r"\r\n|\r|\n")
_LINE_BREAK_BYTES = lazy_compile(rb"\r\n|\r|\n")
_CHUNK = 4096  # items compared as one slice (in C) before the rest is compared item by item


@record
class LineEdit:
    """Lines ``[start, start + removed)`` of the previous text became ``[start, start + inserted)``.

    Lines before ``start`` are unchanged; lines after the edited block are unchanged and moved by
    ``inserted - removed``.
    """

    start: int
    removed: int
    inserted: int

    @property
    def delta(self) -> int:
        return self.inserted - self.removed

    def then(self, later: LineEdit) -> LineEdit:
        """One edit equivalent to ``self`` followed by ``later`` (whose lines are numbered after ``self``)."""
        lo = min(self.start, later.start)
        mid_end = max(self.start + self.inserted, later.start + later.removed)
        old_end = self.start + self.removed + (mid_end - (self.start + self.inserted))
        new_end = mid_end + later.delta
        return LineEdit(lo, old_end - lo, new_end - lo)


def split_lines(text: str) -> list[str]:
    """Split ``text`` into lines without their terminators (never ``str.splitlines``)."""
    lines = text.split("\n") if "\r" not in text else _LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def split_lines_keepends(text: str) -> list[str]:
    """Split ``text`` into lines that keep their terminators (same line model as :func:`split_lines`)."""
    out: list[str] = []
    start = 0
    for m in _LINE_BREAK.finditer(text):
        out.append(text[start : m.end()])
        start = m.end()
    if start < len(text):
        out.append(text[start:])
    return out


def trim(s: str) -> str:
    """Remove ASCII space, tab, form feed and vertical tab at both ends."""
    return s.strip(BLANK_CHARS)


def trim_start(s: str) -> str:
    return s.lstrip(BLANK_CHARS)


def trim_end(s: str) -> str:
    return s.rstrip(BLANK_CHARS)


def is_blank(s: str) -> bool:
    """True when ``s`` holds nothing but ASCII blanks."""
    return not s.strip(BLANK_CHARS)


def common_prefix(a: Sequence[object], b: Sequence[object]) -> int:
    """The length of the longest common prefix of ``a`` and ``b`` (strings or lists), compared in chunks first."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i : i + _CHUNK] == b[i : i + _CHUNK]:
        i += _CHUNK
    i = min(i, n)
    while i < n and a[i] == b[i]:
        i += 1
    return i


def common_suffix(a: Sequence[object], b: Sequence[object], limit: int) -> int:
    """The length of the longest common suffix of ``a`` and ``b`` not reaching into their first ``limit`` items,
    compared in chunks first."""
    n = min(len(a), len(b)) - limit
    s = 0
    while s + _CHUNK <= n and a[len(a) - s - _CHUNK : len(a) - s] == b[len(b) - s - _CHUNK : len(b) - s]:
        s += _CHUNK
    while s < n and a[len(a) - s - 1] == b[len(b) - s - 1]:
        s += 1
    return s


def plural(n: int, word: str) -> str:
    """``1 line``, ``2 lines``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def strip_bom(text: str) -> tuple[str, bool]:
    """Remove a leading BOM; return the text and whether there was one."""
    if text.startswith(BOM):
        return text[1:], True
    return text, False


@record
class DecodedText:
    """Bytes decoded per docs/formats.md: BOM removed, invalid UTF-8 replaced."""

    text: str
    had_bom: bool
    first_invalid_line: int | None  # 0-based line of the first invalid byte, None when valid


def decode_bytes(data: bytes) -> DecodedText:
    """Decode file bytes as UTF-8 with replacement, noting the first line with an invalid sequence."""
    bad_line: int | None = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad_line = len(_LINE_BREAK_BYTES.findall(data, 0, exc.start))
        # A CRLF split by the error position would be counted as CR alone: harmless, CR and CRLF both end a line.
        text = data.decode("utf-8", errors="replace")
    text, bom = strip_bom(text)
    return DecodedText(text=text, had_bom=bom, first_invalid_line=bad_line)
