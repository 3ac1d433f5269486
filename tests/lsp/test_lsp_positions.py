"""Code points <-> UTF-16 / UTF-8 / UTF-32 columns through pygls' codec, against an independent encoder."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsp_harness import units
from lsprotocol import types
from pygls.workspace import PositionCodec

from heredoc_lsp.lsp import positions
from heredoc_lsp.syntax.diagnostics import Span

ENCODINGS = ["utf-16", "utf-8", "utf-32"]
CHARS = ["a", " ", "é", "😀", "\u2028", "\x0b", "中", "\U0001f9d1\u200d\U0001f4bb"]
LINE = st.lists(st.sampled_from(CHARS), max_size=12).map("".join)


@pytest.mark.parametrize("encoding", ENCODINGS)
@given(line=LINE, col=st.integers(0, 20))
def test_round_trip(encoding: str, line: str, col: int) -> None:
    codec = PositionCodec(encoding)
    col = min(col, len(line))
    client = positions.column_to_client(codec, line, col)
    assert client == units(line[:col], encoding)
    assert positions.column_from_client(codec, line, client) == col


@pytest.mark.parametrize("encoding", ENCODINGS)
@given(line=LINE, extra=st.integers(0, 50))
def test_past_the_end_of_a_line_is_its_end(encoding: str, line: str, extra: int) -> None:
    codec = PositionCodec(encoding)
    assert positions.column_from_client(codec, line, units(line, encoding) + extra) == len(line)


def test_the_spec_example() -> None:
    # docs/formats.md: "é😀 <<EOF" has the opener at UTF-16 column 6, UTF-8 column 9 and Python index 5.
    line = "é😀 <<EOF"
    assert [positions.column_to_client(PositionCodec(e), line, 5) for e in ENCODINGS] == [6, 9, 5]


def test_inside_a_character_moves_to_its_end() -> None:
    line = "a😀b"
    assert positions.column_from_client(PositionCodec("utf-16"), line, 2) == 2  # half a surrogate pair
    assert positions.column_from_client(PositionCodec("utf-8"), line, 3) == 2  # inside the 4-byte sequence


def test_lines_past_the_end() -> None:
    codec = PositionCodec("utf-16")
    lines = ["ab", "é"]
    assert positions.from_client(codec, lines, types.Position(line=9, character=4)) == (2, 0)
    assert positions.to_client(codec, lines, 9, 3) == types.Position(line=2, character=0)
    rng = positions.span_to_range(codec, lines, Span(1, 0, 1, 1))
    assert rng == types.Range(start=types.Position(1, 0), end=types.Position(1, 1))
    backwards = types.Range(start=types.Position(1, 1), end=types.Position(0, 1))
    assert positions.range_to_span(codec, lines, backwards) == Span(0, 1, 1, 1)
