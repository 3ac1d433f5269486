"""Helpers for the navigation tests: the workspace they run in, requests, and expected ranges in the client's units.

Texts put non-ASCII characters (é, 😀: 2 bytes / 1 UTF-16 unit, 4 bytes / 2 UTF-16 units) before the things
checked, so every range is wrong unless converted through the negotiated position encoding.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types

from heredoc_lsp.syntax.text import split_lines
from lsp.lsp_harness import RecordingClient


def make_workspace(root: Path, config: str) -> Path:
    (root / "heredoc-lsp.toml").write_text(config, encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print('hi')\n", encoding="utf-8")
    (root / "src" / "été.txt").write_text("x\n", encoding="utf-8")
    (root / "notes.md").write_text("# notes\n", encoding="utf-8")
    (root / "docs").mkdir()
    return root


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def pos(client: RecordingClient, text: str, line: int, col: int) -> types.Position:
    """The client position of code-point column ``col`` on ``line`` of ``text``."""
    lines = split_lines(text)
    line_text = lines[line] if line < len(lines) else ""
    return types.Position(line=line, character=client.col(line_text, col))


def rng(client: RecordingClient, text: str, sl: int, sc: int, el: int, ec: int) -> types.Range:
    return types.Range(start=pos(client, text, sl, sc), end=pos(client, text, el, ec))


def line_end(text: str, line: int) -> int:
    return len(split_lines(text)[line])


def at(text: str, needle: str, occurrence: int = 0) -> tuple[int, int]:
    """(line, code-point column) of the ``occurrence``-th ``needle`` in ``text``."""
    seen = 0
    for i, line in enumerate(split_lines(text)):
        start = 0
        while (k := line.find(needle, start)) >= 0:
            if seen == occurrence:
                return i, k
            seen += 1
            start = k + 1
    raise AssertionError(f"{needle!r} not found")


def contains(outer: types.Range, inner: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(outer.start) <= key(inner.start) and key(inner.end) <= key(outer.end)


def flatten(symbols: Sequence[types.DocumentSymbol]) -> list[types.DocumentSymbol]:
    out: list[types.DocumentSymbol] = []
    for s in symbols:
        out.append(s)
        out.extend(flatten(s.children or []))
    return out
