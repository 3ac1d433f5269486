"""Output handling: strict incremental UTF-8, escape removal, bounded capture, truncation on character boundaries."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lsp.executor.output import (
    CapturedOutput,
    StreamCapture,
    StreamSanitizer,
    cluster_boundary,
    sanitize_bytes,
    truncate_parts,
)

# The first bytes of a real JPEG file (SOI, APP0/JFIF header, start of a quantisation table).
JPEG_BYTES = bytes.fromhex(
    "ffd8ffe000104a46494600010101004800480000ffdb004300080606070605080707070909080a0c140d0c0b0b0c1912130f141d1a1f1e1d1a1c1c20242e2720222c231c1c2837292c30313434341f27393d38323c2e333432ffc0000b080001000101011100ffc4"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _chunked(data: bytes, cuts: list[int]) -> str:
    s = StreamSanitizer()
    out: list[str] = []
    prev = 0
    for cut in sorted({c % (len(data) + 1) for c in cuts}):
        out.append(s.feed(data[prev:cut]))
        prev = cut
    out.append(s.feed(data[prev:]))
    out.append(s.finish())
    return "".join(out)


def test_invalid_utf8_one_replacement_per_maximal_subpart() -> None:
    # F0 80 80: F0 cannot be followed by 80 -> three subparts; E2 82 (truncated 3-byte) -> one; C0 (never valid) -> one.
    assert sanitize_bytes(b"a\xf0\x80\x80b\xe2\x82c\xc0d") == "a\ufffd\ufffd\ufffdb\ufffdc\ufffdd"
    # A surrogate encoded in UTF-8 (ED A0 80) is invalid: ED, A0, 80 are each replaced.
    assert sanitize_bytes(b"x\xed\xa0\x80y") == "x\ufffd\ufffd\ufffdy"


def test_character_split_across_chunks_is_not_broken() -> None:
    data = "é😀ж".encode()
    for cut in range(len(data) + 1):
        assert _chunked(data, [cut]) == "é😀ж"


def test_truncated_character_at_end_of_stream_is_replaced() -> None:
    assert _chunked("ab😀".encode()[:-1], [3]) == "ab\ufffd"


def test_jpeg_bytes_come_out_as_valid_clean_text() -> None:
    text = sanitize_bytes(JPEG_BYTES)
    text.encode("utf-8")  # strict: would raise on a surrogate
    assert _CONTROL.search(text) is None
    assert text.startswith("\ufffd\ufffd\ufffd\ufffdJFIF")


def test_ansi_colours_and_titles_are_removed() -> None:
    raw = b"\x1b[1;31mred\x1b[0m \x1b]0;title\x07plain\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b(Bok\r\n\x07"
    assert sanitize_bytes(raw) == "red plainlink ok\n"


def test_control_characters_removed_except_newline_and_tab() -> None:
    assert sanitize_bytes("a\x00b\x08c\td\ne\x7ff\x85g\x0bh\x0ci\rj".encode()) == "abc\td\nefghij"


def test_escape_sequence_split_across_chunks() -> None:
    raw = b"A\x1b[38;5;196mB\x1b]0;some title\x07C"
    for cut in range(len(raw) + 1):
        assert _chunked(raw, [cut]) == "ABC", cut


def test_unterminated_escape_at_end_is_dropped_and_overlong_one_released() -> None:
    assert sanitize_bytes(b"ok\x1b[31") == "ok"
    long_osc = b"\x1b]" + b"x" * 5000
    assert sanitize_bytes(long_osc) == "]" + "x" * 5000


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.lists(st.integers(min_value=0, max_value=400), max_size=6))
def test_chunking_never_changes_the_result(data: bytes, cuts: list[int]) -> None:
    whole = sanitize_bytes(data)
    assert _chunked(data, cuts) == whole
    whole.encode("utf-8")
    assert _CONTROL.search(whole) is None


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_valid_text_without_controls_passes_unchanged(text: str) -> None:
    clean = _CONTROL.sub("", text).replace("\x1b", "")
    assert sanitize_bytes(clean.encode("utf-8", "surrogatepass")) == clean or any(
        0xD800 <= ord(c) <= 0xDFFF for c in clean
    )


# -- capture ---------------------------------------------------------------------------------------------------


def test_small_output_is_kept_whole() -> None:
    cap = StreamCapture(head_bytes=100, tail_bytes=100)
    cap.feed(b"hello ")
    cap.feed(b"world")
    assert cap.finish() == CapturedOutput("hello world", "", 0, 11)


def test_output_between_head_and_tail_limits_is_kept_whole_even_across_a_cut_character() -> None:
    data = ("a" * 9 + "é" + "b" * 20).encode()
    cap = StreamCapture(head_bytes=10, tail_bytes=100)  # the head ends inside "é"
    cap.feed(data)
    out = cap.finish()
    assert out.head + out.tail == "a" * 9 + "é" + "b" * 20
    assert out.omitted_bytes == 0


def test_large_output_keeps_head_and_tail_and_counts_the_rest() -> None:
    cap = StreamCapture(head_bytes=1000, tail_bytes=1000)
    lines = b"".join(b"line %06d\n" % i for i in range(100_000))  # 1.2 MB
    for i in range(0, len(lines), 4096):
        cap.feed(lines[i : i + 4096])
    out = cap.finish()
    assert out.total_bytes == len(lines)
    assert out.head.startswith("line 000000\nline 000001\n")
    assert out.tail.endswith("line 099999\n")
    assert out.tail.startswith("line ")  # resynchronised on a line start
    assert len(out.head.encode()) == 1000
    assert out.omitted_bytes == len(lines) - 1000 - len(out.tail.encode())
    assert f"[... {out.omitted_bytes} bytes omitted ...]" in out.text


def test_live_text_only_for_the_head() -> None:
    seen: list[str] = []
    cap = StreamCapture(head_bytes=5, tail_bytes=5, on_text=seen.append)
    cap.feed(b"abc")
    cap.feed(b"defgh")
    assert "".join(seen) == "abcde"
    assert cap.overflowed


# -- truncation ------------------------------------------------------------------------------------------------


def test_truncate_keeps_head_and_tail_with_marker_within_budget() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(10_000))
    out = truncate_parts(text, "", 0, 4000)
    assert len(out) <= 4000
    head, marker, tail = re.split(r"\n(\[\.\.\. \d+ characters omitted \.\.\.\])\n", out)[0:3]
    assert text.startswith(head) and text.endswith(tail)
    assert marker == f"[... {10_000 - len(head) - len(tail)} characters omitted ...]"
    assert abs(len(head) - len(tail)) <= 1


def test_short_text_is_not_truncated() -> None:
    assert truncate_parts("short", "", 0, 4000) == "short"


def test_truncation_with_dropped_bytes_names_both() -> None:
    out = truncate_parts("h" * 5000, "t" * 5000, 123456, 1000)
    assert len(out) <= 1000
    assert re.search(r"\[\.\.\. \d+ characters and 123456 bytes omitted \.\.\.\]", out)
    assert out.startswith("h") and out.endswith("t")


EMOJI = ["😀", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷", "é", "e\u0301", "❤️"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*EMOJI, "a", " ", "\n"]), min_size=1, max_size=400), st.integers(80, 300))
def test_truncation_never_splits_a_character_or_an_emoji_sequence(pieces: list[str], budget: int) -> None:
    text = "".join(pieces)
    out = truncate_parts(text, "", 0, budget)
    out.encode("utf-8")
    if out == text:
        return
    assert len(out) <= budget
    m = re.search(r"\n\[\.\.\. (\d+) characters omitted \.\.\.\]\n", out)
    assert m is not None
    head, tail = out[: m.start()], out[m.end() :]
    assert text.startswith(head) and text.endswith(tail)
    assert len(head) + len(tail) + int(m.group(1)) == len(text)
    # Both cuts fall between whole pieces (grapheme clusters).
    bounds = {0}
    pos = 0
    for p in pieces:
        pos += len(p)
        bounds.add(pos)
    assert len(head) in bounds
    assert len(text) - len(tail) in bounds


def test_cluster_boundary_cases() -> None:
    family = "👨‍👩‍👧"
    assert not cluster_boundary(family, 1)  # before a ZWJ
    assert not cluster_boundary(family, 2)  # after a ZWJ
    assert not cluster_boundary("🇫🇷🇩🇪", 1)
    assert cluster_boundary("🇫🇷🇩🇪", 2)
    assert not cluster_boundary("e\u0301", 1)
    assert not cluster_boundary("a\r\nb", 2)
