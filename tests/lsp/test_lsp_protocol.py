"""Frames: the stdio framing, fed bytes directly (the same cases over a real server are in test_lsp_stdio.py)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from lsp_raw import framed

from heredoc_lsp.lsp.protocol import Frames


def body(n: int, text: str = "x") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": "m", "params": {"n": n, "text": text}}).encode()


def feed_all(frames: Frames, data: bytes, step: int | None = None) -> list[bytes]:
    if step is None:
        return frames.feed(data)
    out: list[bytes] = []
    for i in range(0, len(data), step):
        out += frames.feed(data[i : i + step])
    return out


def test_messages_in_any_pieces() -> None:
    bodies = [body(i, "é😀 " * i) for i in range(5)]
    stream = b"".join(framed(b) for b in bodies)
    for step in (None, 1, 2, 7, 64):
        frames = Frames()
        assert feed_all(frames, stream, step) == bodies
        assert not frames.partial and frames.junk == 0


def test_headers_in_any_case_with_other_headers() -> None:
    data = body(1)
    stream = (
        b"content-length: %d\r\n\r\n%s" % (len(data), data)
        + b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH:%d\r\n\r\n%s" % (len(data), data)
        + b"Content-Length: %d\n\n%s" % (len(data), data)  # bare line feeds
    )
    frames = Frames()
    assert frames.feed(stream) == [data, data, data]
    assert frames.junk == 0


def test_header_text_inside_a_body_is_content() -> None:
    # In a JSON string a header is text: a raw line break cannot follow it there.
    quoted = body(1, "Content-Length: 12\r\n\r\n{}")
    pretty = json.dumps({"jsonrpc": "2.0", "method": "m", "params": {"a": "Content-Length: 3"}}, indent=2).encode()
    frames = Frames()
    assert frames.feed(framed(quoted) + framed(pretty)) == [quoted, pretty]


def test_length_too_small_loses_only_that_message() -> None:
    first, second = body(1, "a" * 40), body(2)
    frames = Frames()
    out = frames.feed(framed(first, len(first) - 10) + framed(second))
    assert out == [first[:-10], second]
    assert frames.junk > 0


def test_length_too_large_by_any_amount_loses_nothing() -> None:
    first, second, third = body(1), body(2), body(3)
    for extra in range(1, len(framed(second)) + 5):
        frames = Frames()
        out = frames.feed(framed(first, len(first) + extra) + framed(second) + framed(third))
        assert out[0] == first, extra
        assert out[-1] == third, extra
        if extra <= len(b"Content-Length: 12\r\n"):  # the next header is intact: nothing is lost
            assert out == [first, second, third], extra


def test_header_without_body_or_blank_line() -> None:
    data = body(1)
    frames = Frames()
    assert frames.feed(b"Content-Length: 50\r\n\r\n" + framed(data)) == [b"", data]
    frames = Frames()
    assert frames.feed(b"Content-Length: 50\r\n" + framed(data)) == [data]  # the last header counts


def test_junk_between_messages() -> None:
    data = body(1)
    frames = Frames()
    out = frames.feed(
        b"hello\r\n\r\n{}\n" + framed(data) + b"\x00\xff\r\nContent-Length: twelve\r\n\r\n" + framed(data)
    )
    assert out == [data, data]
    assert frames.junk > 0


def test_a_long_line_without_a_header_is_dropped_as_it_comes() -> None:
    frames = Frames()
    for _ in range(100):
        assert frames.feed(b"z" * 10_000) == []
    assert frames.buffered <= 1 << 16
    data = body(1)
    assert frames.feed(framed(data)) == [data]


def test_idle_hands_over_a_whole_message_only() -> None:
    data = body(1)
    frames = Frames()
    assert frames.feed(framed(data, len(data) + 100)) == []
    assert frames.in_body
    assert frames.idle() == [data]
    assert not frames.in_body
    # A body still in flight is never a whole JSON value.
    frames = Frames()
    assert frames.feed(framed(data)[:-1]) == []
    assert frames.idle() == []
    assert frames.feed(data[-1:]) == [data]


def test_partial_at_the_end_of_input() -> None:
    frames = Frames()
    frames.feed(framed(body(1))[:30])
    assert frames.partial
    frames = Frames()
    frames.feed(b"\r\n \r\n")
    assert not frames.partial


@given(
    sizes=st.lists(st.integers(0, 30), min_size=2, max_size=6),
    broken=st.integers(0, 5),
    delta=st.integers(-40, 60).filter(lambda d: d != 0),
    step=st.integers(1, 300),
)
def test_one_broken_frame_loses_at_most_its_neighbour(sizes: list[int], broken: int, delta: int, step: int) -> None:
    """Whatever the error in one frame's length and however the stream is cut, every message from the second one
    after the broken frame on comes out, and none is invented."""
    bodies = [body(i, "y" * n) for i, n in enumerate(sizes)]
    broken %= len(bodies)
    length = max(0, len(bodies[broken]) + delta)
    stream = b"".join(framed(b, length if i == broken else None) for i, b in enumerate(bodies))
    frames = Frames()
    out = feed_all(frames, stream, step) + frames.idle()
    whole = [b for b in out if b in bodies]
    assert whole == [b for b in bodies if b in whole]  # in order, no duplicates
    assert bodies[:broken] == whole[:broken]
    assert set(bodies[broken + 2 :]) <= set(whole)
