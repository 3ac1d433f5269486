"""The preview's text edits (lsp/run/preview_edit.py), pure: the lines that change, in the client's units."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import PositionCodec

from heredoc_lsp.lsp.run.preview_edit import changed_lines, end_position


def rng(a: tuple[int, int], b: tuple[int, int]) -> types.Range:
    return types.Range(start=types.Position(*a), end=types.Position(*b))


def apply(text: str, span: types.Range, new: str) -> str:
    """Oracle for LF/CRLF texts whose ranges start and end at line starts or at the end of the text."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def at(p: types.Position) -> int:
        return min(offsets[p.line] + p.character, len(text)) if p.line < len(lines) else len(text)

    return text[: at(span.start)] + new + text[at(span.end) :]


CODEC = PositionCodec(types.PositionEncodingKind.Utf16)


@pytest.mark.parametrize(
    ("before", "after", "span", "new"),
    [
        ("one\ntwo\nthree\n", "one\nTWO\nthree\n", rng((1, 0), (2, 0)), "TWO\n"),
        ("one\ntwo\nthree\n", "one\nTWO\nextra\nthree\n", rng((1, 0), (2, 0)), "TWO\nextra\n"),
        ("a\nb", "a\nb\n", rng((1, 0), (1, 1)), "b\n"),  # the last line had no newline
        ("", "x\n", rng((0, 0), (0, 0)), "x\n"),
        ("a\r\nb\r\n", "a\r\nB\r\n", rng((1, 0), (2, 0)), "B\r\n"),
        ("same\n", "same\n", rng((1, 0), (1, 0)), ""),
        ("x\ny\n", "", rng((0, 0), (2, 0)), ""),
    ],
)
def test_only_the_lines_that_change_are_replaced(before: str, after: str, span: types.Range, new: str) -> None:
    assert changed_lines(CODEC, before, after) == (span, new)
    assert apply(before, span, new) == after


def test_the_end_of_a_text_is_in_the_clients_units() -> None:
    assert end_position(CODEC, "a\n😀é") == types.Position(line=1, character=3)
    assert end_position(PositionCodec(types.PositionEncodingKind.Utf8), "😀é") == types.Position(line=0, character=6)
    assert end_position(CODEC, "a\r\n") == types.Position(line=1, character=0)
    assert end_position(CODEC, "") == types.Position(line=0, character=0)


def offset(text: str, position: types.Position) -> int:
    """Oracle: the offset of an LSP position (lines end at \\r\\n, \\n or \\r; characters in UTF-16 units)."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    assert position.line < len(starts), position
    i, units = starts[position.line], 0
    while units < position.character:
        assert i < len(text) and text[i] not in "\r\n", position  # inside the line
        units += 2 if ord(text[i]) > 0xFFFF else 1
        i += 1
    return i


TEXTS = st.text(alphabet="ab\r\n😀", max_size=30)


@settings(max_examples=400, deadline=None)
@given(TEXTS, TEXTS)
def test_applying_the_edit_gives_the_new_text(before: str, after: str) -> None:
    span, new = changed_lines(CODEC, before, after)
    a, b = offset(before, span.start), offset(before, span.end)
    assert a <= b
    assert before[:a] + new + before[b:] == after
    assert span.start.character == 0  # whole lines from the first that changes
