"""docs/formats.md: the line model, trimming, BOM and invalid UTF-8."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heredoc_lsp.syntax.text import (
    decode_bytes,
    is_blank,
    split_lines,
    split_lines_keepends,
    strip_bom,
    trim,
)


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("a", ["a"]),
        ("a\n", ["a"]),
        ("a\n\n", ["a", ""]),
        ("a\r\nb", ["a", "b"]),
        ("a\rb\r", ["a", "b"]),
        ("a\r\r\nb", ["a", "", "b"]),
        ("\n", [""]),
        # Only \r\n, \n and \r end a line: the other characters str.splitlines() splits on are content.
        ("a\x0bb\x0cc\x1cd\x1de\x1ef\x85g\u2028h\u2029i", ["a\x0bb\x0cc\x1cd\x1de\x1ef\x85g\u2028h\u2029i"]),
    ],
)
def test_split_lines(text: str, lines: list[str]) -> None:
    assert split_lines(text) == lines


def test_trim_is_ascii_only() -> None:
    assert trim(" \t\f\vx\v\f\t ") == "x"
    assert trim("\u00a0x\u00a0") == "\u00a0x\u00a0"  # NBSP is content
    assert trim("\u2003x") == "\u2003x"
    assert is_blank(" \t\f\v")
    assert not is_blank("\u00a0")
    assert not is_blank("\u3000")


def test_bom_is_not_content() -> None:
    assert strip_bom("\ufeffcmd") == ("cmd", True)
    assert strip_bom("cmd\ufeff") == ("cmd\ufeff", False)
    decoded = decode_bytes(b"\xef\xbb\xbfecho hi\n")
    assert decoded.text == "echo hi\n"
    assert decoded.had_bom
    assert decoded.first_invalid_line is None


@pytest.mark.parametrize(
    ("data", "bad_line"),
    [
        (b"ok\n\xff\n", 1),
        (b"\xc3", 0),
        (b"a\r\nb\rc\n\xe2\x82", 3),
        (b"a\r\nb\rc\nd\xed\xa0\x80", 3),  # an encoded surrogate is invalid UTF-8
    ],
)
def test_invalid_utf8_is_replaced_and_located(data: bytes, bad_line: int) -> None:
    decoded = decode_bytes(data)
    assert decoded.first_invalid_line == bad_line
    assert "\ufffd" in decoded.text


def _drop_terminator(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith(("\r", "\n")) else line


@given(st.text())
def test_keepends_round_trips_and_agrees_with_split_lines(text: str) -> None:
    parts = split_lines_keepends(text)
    assert "".join(parts) == text
    assert split_lines(text) == [_drop_terminator(p) for p in parts]


@given(st.binary())
def test_decode_never_raises(data: bytes) -> None:
    decoded = decode_bytes(data)
    if decoded.first_invalid_line is not None:
        assert decoded.first_invalid_line <= len(split_lines(decoded.text))
