"""Bad input and hard conditions: malformed parameters, unknown URIs, positions past the end, a 50 MB document,
2 000 changes back to back, and the TCP transport (a client that disconnects in the middle of a request, and
broken framing: test_lsp_stdio.py)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import sys
import uuid
from pathlib import Path

import pytest
from lsp_harness import PROFILES, SERVER_COMMAND, RecordingClient, apply_text_edits, units
from lsp_raw import RawPeer, did_open, frame, notification
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.config import load_config
from heredoc_lsp.languages import Language

pytestmark = pytest.mark.asyncio(loop_scope="module")
E = "é😀"


async def alive(client: RecordingClient) -> None:
    uri = client.open(f"{E} <<EOF\n")
    assert [d.code for d in await client.diagnostics_of(uri)] == ["unclosed_heredoc"]


def _raw(client: RecordingClient, payload: dict[str, object]) -> None:
    client.protocol.writer.write(frame(payload))  # type: ignore[union-attr]


async def raw_request(client: RecordingClient, method: str, params: object) -> object:
    """Send a request exactly as given (no client-side validation) and return its result."""
    msg_id = f"raw-{uuid.uuid4()}"
    future: concurrent.futures.Future[object] = concurrent.futures.Future()
    client.protocol._request_futures[msg_id] = future
    _raw(client, {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return await asyncio.wait_for(asyncio.wrap_future(future), 15)


def raw_notify(client: RecordingClient, method: str, params: object) -> None:
    _raw(client, {"jsonrpc": "2.0", "method": method, "params": params})


async def test_malformed_request_parameters_get_an_error(client: RecordingClient) -> None:
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, types.TEXT_DOCUMENT_CODE_ACTION, {"textDocument": 5, "range": "everything"})
    assert info.value.code == -32602
    with pytest.raises(JsonRpcException):
        await raw_request(
            client,
            types.TEXT_DOCUMENT_CODE_ACTION,
            {
                "textDocument": {"uri": "file:///x.cli"},
                "range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}},
                "context": {"diagnostics": []},
            },
        )
    await alive(client)


async def test_malformed_notifications_are_ignored(client: RecordingClient) -> None:
    raw_notify(client, types.TEXT_DOCUMENT_DID_OPEN, {"textDocument": {"uri": "file:///bad.cli"}})
    raw_notify(client, types.TEXT_DOCUMENT_DID_CHANGE, {"textDocument": 1, "contentChanges": "x"})
    raw_notify(client, "heredoc/unknownNotification", {"anything": [1, 2]})
    await alive(client)
    assert client.messages == []  # never a pop-up


async def test_unknown_uris(client: RecordingClient) -> None:
    uri = (client.root / "never-opened.cli").as_uri()
    ident = types.TextDocumentIdentifier(uri=uri)
    assert await client.actions(uri, 0) == []  # not open: nothing to fix, nothing to run
    if client.pulls:
        assert await client.diagnostics_of(uri) == []
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=7),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="x <<EOF\n")],
        )
    )
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=ident))
    # An open document whose format is not ours gets no diagnostics at all.
    other = client.open("cat <<EOF\n", suffix=".txt", language_id="plaintext")
    await alive(client)
    assert [p for p in client.publishes if p.uri in (uri, other)] == []


async def test_positions_past_the_end(client: RecordingClient) -> None:
    uri = client.open(f"{E} cat <<EOF\nbody")
    assert [d.code for d in await client.diagnostics_of(uri)] == ["unclosed_heredoc"]
    # An insertion far past the end lands at the end of the document.
    client.replace(uri, (1000, 5), (1000, 9), "\nEOF\n")
    assert await client.diagnostics_of(uri) == []
    # A position past the end of a line is the end of that line.
    client.replace(uri, (1, 500), (1, 900), " more")
    assert await client.diagnostics_of(uri) == []
    far = types.Range(start=types.Position(900, 900), end=types.Position(1000, 0))
    assert [a for a in await client.actions(uri, far) if a.kind == "quickfix"] == []


async def test_fifty_megabyte_document(client: RecordingClient) -> None:
    filler = "lorem ipsum dolor sit amet " * 4
    block = "".join(f"cmd {i} {E} {filler}\ncat <<EOF\n{filler}{i}\nEOF\n# {filler}\n" for i in range(200))
    text = block * (50_000_000 // len(block.encode()) + 1) + f"{E} tail <<END\n"
    assert len(text.encode()) > 50_000_000
    uri = client.open(text)
    diagnostics = await client.wait_publish(uri, 1, timeout=180) if not client.pulls else None
    if diagnostics is None:
        diagnostics = await asyncio.wait_for(client.diagnostics_of(uri), 180)
    lines = text.count("\n")
    assert [(d.code, d.range.start.line) for d in diagnostics] == [("unclosed_heredoc", lines - 1)]
    # Closing the heredoc at the end is checked incrementally.
    client.replace(uri, (lines, 0), (lines, 0), "END\n")
    assert await asyncio.wait_for(client.diagnostics_of(uri), 60) == []
    client.close(uri)


async def test_two_thousand_changes_back_to_back(client: RecordingClient) -> None:
    rng = random.Random(2000)
    text = "".join(f"cmd{i} é <<EOF\nbody {E} {i}\nEOF\n" for i in range(300))
    uri = client.open(text)
    pieces = ["x", "é", "😀", "\n", "EOF", "<<EOF", " ", "\nEOF\n", "---TITLE---\n"]
    for _ in range(2000):
        lines = text.split("\n")
        line = rng.randrange(len(lines))
        start = rng.randrange(len(lines[line]) + 1)
        end = min(len(lines[line]), start + rng.choice([0, 0, 1, 2]))
        new = rng.choice(pieces)
        rng_lsp = types.Range(
            start=types.Position(line, units(lines[line][:start], client.encoding)),
            end=types.Position(line, units(lines[line][:end], client.encoding)),
        )
        text = apply_text_edits(text, [types.TextEdit(range=rng_lsp, new_text=new)], client.encoding)
        client.replace(
            uri, (rng_lsp.start.line, rng_lsp.start.character), (rng_lsp.end.line, rng_lsp.end.character), new
        )
    final = await asyncio.wait_for(client.diagnostics_of(uri), 120)
    core = analyze(text, Language.CLI, load_config(client.root / "heredoc-lsp.toml"))
    assert [(d.code, d.message, d.range.start.line) for d in final] == [
        (d.code, d.message, d.span.start_line) for d in core.diagnostics
    ]
    if not client.pulls:
        # Every publish names a version, in increasing order; the last one is the last change's.
        versions = [p.version for p in client.publishes if p.uri == uri]
        assert versions == sorted(versions) and versions[-1] == client.versions[uri]


async def test_server_exits_after_shutdown_and_exit_on_its_own() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "heredoc_lsp",
        "lsp",
        "--tcp",
        "bad",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2
    assert b"--tcp expects HOST:PORT" in err and b"Traceback" not in err


@pytest.mark.parametrize("profile", list(PROFILES))
async def test_tcp_transport(tmp_path: Path, profile: str) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND, "--tcp", f"127.0.0.1:{port}", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        for _ in range(200):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.05)
        else:
            raise AssertionError("the server never listened")
        peer = RawPeer(reader, writer)
        answer = await peer.initialize(tmp_path, profile)
        assert "capabilities" in answer["result"]
        uri = (tmp_path / "t.cli").as_uri()
        peer.send(did_open(uri, "x <<EOF\n"))
        zero = {"line": 0, "character": 0}
        actions = await peer.call(
            2,
            "textDocument/codeAction",
            {"textDocument": {"uri": uri}, "range": {"start": zero, "end": zero}, "context": {"diagnostics": []}},
        )
        assert "Close the heredoc with a line 'EOF'" in [a["title"] for a in actions["result"]]
        assert (await peer.call(3, "shutdown"))["result"] is None
        peer.send(notification("exit"))
        await writer.drain()
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
