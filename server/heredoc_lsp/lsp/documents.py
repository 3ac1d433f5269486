"""Open documents as lists of lines, updated line by line.

pygls' ``TextDocument`` rebuilds the whole source string on every incremental change (about 24 ms at 100k lines)
and splits it with ``str.splitlines`` (which also breaks at ``\\f``, ``\\v``, ``\\x1c``-``\\x1e``, ``\\x85``,
U+2028 and U+2029). A :class:`Document` instead keeps the LSP line model of :mod:`heredoc_lsp.syntax.text`: the
lines without terminators plus, per line, the terminator that ended it. A change replaces only the lines it touches
and reports them as a :class:`LineEdit`, so the analysis can re-parse from the nearest safe line.

``lines`` and ``endings`` change in place (an edit that keeps the number of lines costs only the lines it touches);
an analysis snapshot keeps its own immutable copy of the lines it was computed from.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from urllib.parse import unquote, urlparse

from heredoc_lsp.languages import Language, detect_language
from heredoc_lsp.runs.state import document_key
from heredoc_lsp.syntax.text import LineEdit

_SPLIT_KEEP = re.compile(r"(\r\n|\r|\n)")

__all__ = ["Document", "DocumentStore", "LineEdit", "split_with_endings", "uri_to_path"]


def split_with_endings(text: str) -> tuple[list[str], list[str]]:
    """Lines without terminators and the terminator of each (``""`` for a last line without one)."""
    if not text:
        return [], []
    if "\r" not in text:
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
            return lines, ["\n"] * len(lines)
        endings = ["\n"] * len(lines)
        endings[-1] = ""
        return lines, endings
    parts = _SPLIT_KEEP.split(text)
    # parts alternates content, terminator, content, ...; the final content is "" after a final terminator.
    lines = parts[0::2]
    endings = parts[1::2]
    if lines[-1] == "":
        lines.pop()
    else:
        endings.append("")
    return lines, endings


def uri_to_path(uri: str) -> str | None:
    """The file system path of a ``file:`` URI, None for other schemes (``untitled:``...)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if parsed.netloc and parsed.netloc != "localhost":
        path = f"//{parsed.netloc}{path}"
    return os.path.normpath(path) if path else None


class Document:
    """One open document: its lines, their terminators, version and language."""

    __slots__ = (
        "_text",
        "endings",
        "language",
        "language_id",
        "lines",
        "maybe_directives",
        "path",
        "revision",
        "uri",
        "version",
    )

    def __init__(self, uri: str, text: str, version: int | None, language_id: str | None) -> None:
        self.uri = uri
        self.path = uri_to_path(uri)
        self.language_id = language_id or ""
        self.language: Language | None = detect_language(self.language_id, self.path or urlparse(uri).path)
        self.version = version
        self.lines, self.endings = split_with_endings(text)
        # Whether the text as opened may hold a suppression directive: one C-level search now saves a scan of
        # every line at the first check. Only meaningful while revision == 0.
        self.maybe_directives = "heredoc-lsp" in text
        # Not kept: the text is rebuilt on demand, so a huge document is not held twice.
        self._text: str | None = None
        # Counts changes (versions come from the client and are not trusted to change).
        self.revision = 0

    def __repr__(self) -> str:
        return f"<Document {self.uri} v{self.version} {len(self.lines)} lines>"

    # -- reading ---------------------------------------------------------------------------------------------
    def text(self) -> str:
        """The whole text (built on demand and cached until the next change)."""
        if self._text is None:
            self._text = "".join(_interleave(self.lines, self.endings))
        return self._text

    def line(self, index: int) -> str:
        """Line ``index`` without its terminator; ``""`` past the end."""
        return self.lines[index] if 0 <= index < len(self.lines) else ""

    @property
    def ends_with_newline(self) -> bool:
        return bool(self.endings) and self.endings[-1] != ""

    def end_position(self) -> tuple[int, int]:
        """The (line, code-point column) just after the last character."""
        n = len(self.lines)
        if n == 0:
            return (0, 0)
        if self.endings[-1]:
            return (n, 0)
        return (n - 1, len(self.lines[-1]))

    def clamp(self, line: int, col: int) -> tuple[int, int]:
        """A position inside the document: past the end of a line is its end, past the last line is the end."""
        if line < 0:
            return (0, 0)
        if line >= len(self.lines):
            return self.end_position()
        return (line, max(0, min(col, len(self.lines[line]))))

    # -- changing --------------------------------------------------------------------------------------------
    def replace_all(self, text: str, version: int | None) -> LineEdit:
        old = len(self.lines)
        self.lines, self.endings = split_with_endings(text)
        self.maybe_directives = "heredoc-lsp" in text
        self._text = None
        self.version = version
        self.revision += 1
        return LineEdit(0, old, len(self.lines))

    def replace_range(
        self, start: tuple[int, int], end: tuple[int, int], new_text: str, version: int | None
    ) -> LineEdit:
        """Replace the text between two (line, code-point column) positions, clamped into the document."""
        (sl, sc), (el, ec) = self.clamp(*start), self.clamp(*end)
        if (el, ec) < (sl, sc):
            (sl, sc), (el, ec) = (el, ec), (sl, sc)
        lines, endings = self.lines, self.endings
        n = len(lines)
        first = sl
        stop = min(el + 1, n)  # old lines [first, stop) are rewritten
        region = self.line(sl)[:sc] + new_text + self.line(el)[ec:] + (endings[el] if el < n else "")
        # A "\r" and a "\n" that meet across the region's edges become one "\r\n" terminator.
        if region.startswith("\n") and first > 0 and endings[first - 1] == "\r":
            first -= 1
            region = lines[first] + "\r" + region
        if region.endswith("\r") and stop < n and lines[stop] == "" and endings[stop] == "\n":
            region += "\n"
            stop += 1
        new_lines, new_endings = split_with_endings(region)
        lines[first:stop] = new_lines
        endings[first:stop] = new_endings
        self._text = None
        self.version = version
        self.revision += 1
        return LineEdit(first, stop - first, len(new_lines))


def _interleave(lines: list[str], endings: list[str]) -> Iterator[str]:
    for line, ending in zip(lines, endings, strict=True):
        yield line
        yield ending


class DocumentStore:
    """The open documents by URI (URIs compared after percent-decoding, like pygls 2.1)."""

    def __init__(self) -> None:
        self._docs: dict[str, Document] = {}

    @staticmethod
    def key(uri: str) -> str:
        return document_key(uri)

    def open(self, uri: str, text: str, version: int | None, language_id: str | None) -> Document:
        doc = Document(uri, text, version, language_id)
        self._docs[self.key(uri)] = doc
        return doc

    def get(self, uri: str) -> Document | None:
        return self._docs.get(self.key(uri))

    def close(self, uri: str) -> Document | None:
        return self._docs.pop(self.key(uri), None)

    def __iter__(self) -> Iterator[Document]:
        return iter(list(self._docs.values()))

    def __len__(self) -> int:
        return len(self._docs)
