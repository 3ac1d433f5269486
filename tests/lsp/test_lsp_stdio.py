"""The real server over raw stdio (docs/editors.md, "The connection"): it ends quietly when its input ends (EOF,
``/dev/null``, an empty file, a terminal, an editor that goes away mid-request), a broken frame never stops it
answering, and requests before ``initialize`` or after ``shutdown`` are refused with the LSP error codes.

How fast it ends is measured in bench/bench_stdio.py; here a generous limit only tells "ends" from "hangs"."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lsp_harness import SERVER_COMMAND
from lsp_raw import RawServer, did_open, frame, framed, initialize_params, notification, request

END = 30.0  # seconds: far above the real time (bench/bench_stdio.py), far below "never"
TEXT = "x <<EOF\nbody\nEOF\n"


@contextlib.asynccontextmanager
async def started(root: Path) -> AsyncIterator[tuple[RawServer, str]]:
    """An initialized server with one open document, and the document's URI; killed at the end if still running."""
    server = await RawServer.start()
    try:
        await server.initialize(root)
        uri = (root / "a.cli").as_uri()
        server.send(did_open(uri, TEXT))
        yield server, uri
    finally:
        await server.kill()


def symbols(msg_id: object, uri: str) -> dict[str, object]:
    return request(msg_id, "textDocument/documentSymbol", {"textDocument": {"uri": uri}})


async def answered(server: RawServer, msg_id: object) -> list[object]:
    """The names of the outline the server answered ``msg_id`` with (the request must have succeeded)."""
    answer = await server.response(msg_id)
    assert "error" not in answer, answer
    return [item["name"] for item in answer["result"]]


async def quit_(server: RawServer) -> None:
    assert (await server.call("bye", "shutdown"))["result"] is None
    server.send(notification("exit"))
    code, err = await server.ended(END)
    assert code == 0, err
    assert "Traceback" not in err, err


# -- the end of the input ---------------------------------------------------------------------------------------


async def test_dev_null_as_input_ends_quietly() -> None:
    with open(os.devnull, "rb") as devnull:
        server = await RawServer.start(stdin=devnull)
    assert await server.ended(END) == (0, "")


async def test_an_empty_file_as_input_ends_quietly(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with empty.open("rb") as stdin:
        server = await RawServer.start(stdin=stdin)
    assert await server.ended(END) == (0, "")


async def test_a_file_of_messages_is_answered_then_the_server_ends(tmp_path: Path) -> None:
    script = tmp_path / "session"
    script.write_bytes(frame(request(1, "initialize", initialize_params(tmp_path))) + frame(request(2, "shutdown")))
    with script.open("rb") as stdin:
        server = await RawServer.start(stdin=stdin)
    assert (await server.response(1))["result"]["capabilities"]
    assert (await server.response(2))["result"] is None
    assert await server.ended(END) == (0, "")


async def test_a_closed_pipe_ends_the_server_quietly() -> None:
    server = await RawServer.start()
    assert server.writer is not None
    server.writer.close()
    assert await server.ended(END) == (0, "")


async def test_end_of_input_after_a_session(tmp_path: Path) -> None:
    async with started(tmp_path) as (server, uri):
        server.send(symbols(1, uri))
        assert await answered(server, 1) == ["x"]
        assert server.writer is not None
        server.writer.close()
        assert await server.ended(END) == (0, "")


@pytest.mark.parametrize("how", ["ctrl-d", "hangup"])
async def test_a_terminal_as_input(how: str) -> None:
    """Started in a terminal: Ctrl-D (end of file) or the terminal going away (the read fails with EIO)."""
    master, slave = os.openpty()
    try:
        server = await RawServer.start(stdin=slave)
    finally:
        os.close(slave)
    try:
        if how == "ctrl-d":
            os.write(master, b"\x04")
        else:
            os.close(master)
        assert await server.ended(END) == (0, "")
    finally:
        if how == "ctrl-d":
            os.close(master)


@pytest.mark.parametrize("gone", ["input", "input and output"])
async def test_the_editor_goes_away_mid_request(tmp_path: Path, gone: str) -> None:
    """The editor ends while the server is busy with a big document and a request about it: the server ends too,
    whether only its input ends or its output breaks as well (the answer cannot be written)."""
    loop = asyncio.get_running_loop()
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    proc = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, stdin=stdin_r, stdout=stdout_w, stderr=asyncio.subprocess.PIPE
    )
    os.close(stdin_r)
    os.close(stdout_w)
    assert proc.stderr is not None
    err = asyncio.ensure_future(proc.stderr.read())
    uri = (tmp_path / "big.cli").as_uri()
    text = "cat <<EOF\nx\nEOF\n" * 100_000 + "tail <<END\n"
    messages = (
        frame(request(1, "initialize", initialize_params(tmp_path)))
        + frame(notification("initialized", {}))
        + frame(did_open(uri, text))
        + frame(request(2, "textDocument/documentSymbol", {"textDocument": {"uri": uri}}))
    )
    out = os.fdopen(stdout_r, "rb", buffering=0)
    try:
        with os.fdopen(stdin_w, "wb") as pipe:
            pipe.write(messages)
            # The first bytes of the initialize answer: the server is past start-up and busy when the editor goes.
            head = await loop.run_in_executor(None, out.read, 15)
            assert head.startswith(b"Content-Length"), head
            if gone == "input and output":
                out.close()
        rest = loop.run_in_executor(None, out.read) if gone == "input" else None
        try:
            code = await asyncio.wait_for(proc.wait(), END)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        if rest is not None:
            await rest
    finally:
        out.close()
    assert (code, (await err).decode(errors="replace")) == (0, "")


# -- broken frames -------------------------------------------------------------------------------------------------

BAD = request("bad", "textDocument/documentSymbol", {"textDocument": {"uri": "URI"}})


def body(uri: str) -> bytes:
    return json.dumps(BAD).replace("URI", uri).encode()


# Each case: the bytes sent (given the open document's URI), and whether the broken request itself is answered.
FRAMES = {
    # a Content-Length too small: the body is cut, its rest is read as a header line
    "length too small": (lambda uri: framed(body(uri), len(body(uri)) - 9), False),
    # too large: the next message's header is read as part of this body
    "length too large": (lambda uri: framed(body(uri), len(body(uri)) + 9), True),
    "length far too large": (lambda uri: framed(body(uri), 999999), True),
    "header without body": (lambda uri: b"Content-Length: 60\r\n\r\n", False),
    "header without blank line": (lambda uri: b"Content-Length: 60\r\n", False),
    "header in lower case": (lambda uri: b"content-length: %d\r\n\r\n%s" % (len(body(uri)), body(uri)), True),
    "header with a content type": (
        lambda uri: (
            b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s"
            % (len(body(uri)), body(uri))
        ),
        True,
    ),
    "length not a number": (lambda uri: b"Content-Length: twelve\r\n\r\n{}", False),
    "garbage lines": (lambda uri: b"hello\r\n\r\n{}\n\r\n\x00\xff\r\n", False),
    "body not JSON": (lambda uri: framed(b"{not json"), False),
    "body not an object": (lambda uri: framed(b"[1, 2, 3]"), False),
}


@pytest.mark.parametrize("case", list(FRAMES))
async def test_a_broken_frame_never_stops_the_answers(tmp_path: Path, case: str) -> None:
    make, bad_answered = FRAMES[case]
    async with started(tmp_path) as (server, uri):
        server.send(make(uri), symbols("after", uri))
        if bad_answered:
            assert await answered(server, "bad") == ["x"]
        assert await answered(server, "after") == ["x"]
        server.send(symbols("again", uri))
        assert await answered(server, "again") == ["x"]
        await quit_(server)


async def test_invalid_utf8_in_a_request_is_a_parse_error_for_that_request(tmp_path: Path) -> None:
    async with started(tmp_path) as (server, uri):
        bad = body(uri).replace(uri.encode(), uri.encode() + b"\xc3\x28")  # not UTF-8
        server.send(framed(bad), symbols("after", uri))
        answer = await server.response("bad")
        assert answer["error"]["code"] == -32700, answer
        assert await answered(server, "after") == ["x"]
        # A notification with invalid UTF-8 is dropped; the document is unchanged.
        change = notification(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "TEXT"}]},
        )
        server.send(framed(json.dumps(change).encode().replace(b"TEXT", b"y\xff <<EOF\n")))
        server.send(symbols("again", uri))
        assert await answered(server, "again") == ["x"]
        await quit_(server)


async def test_a_frame_cut_by_the_end_of_input_ends_quietly(tmp_path: Path) -> None:
    async with started(tmp_path) as (server, uri):
        whole = frame(symbols(1, uri))
        server.send(whole[: len(whole) // 2])
        assert server.writer is not None
        server.writer.close()
        assert await server.ended(END) == (0, "")


# -- the lifecycle -------------------------------------------------------------------------------------------------


async def test_requests_before_initialize_are_refused(tmp_path: Path) -> None:
    server = await RawServer.start()
    try:
        uri = (tmp_path / "early.cli").as_uri()
        # A notification before initialize is dropped; a request is answered ServerNotInitialized (-32002).
        server.send(did_open(uri, TEXT))
        early = await server.call(1, "textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        assert early["error"]["code"] == -32002, early
        await server.initialize(tmp_path)
        server.send(symbols(2, uri))
        assert (await server.response(2))["result"] in (None, [])  # the early didOpen was dropped
        await quit_(server)
    finally:
        await server.kill()


async def test_requests_after_shutdown_are_invalid(tmp_path: Path) -> None:
    async with started(tmp_path) as (server, uri):
        assert (await server.call("down", "shutdown"))["result"] is None
        late = await server.call("late", "textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        assert late["error"]["code"] == -32600, late
        again = await server.call("down again", "shutdown")
        assert again["error"]["code"] == -32600, again
        server.send(notification("exit"))
        code, err = await server.ended(END)
        assert code == 0 and "Traceback" not in err, err


async def test_exit_without_shutdown_is_exit_code_1(tmp_path: Path) -> None:
    async with started(tmp_path) as (server, _):
        server.send(notification("exit"))
        code, err = await server.ended(END)
        assert code == 1 and "Traceback" not in err, err
