"""The server's memory stays flat: thousands of edits, and documents opened and closed, retain nothing.

The server runs in this process (on a thread, over pipes, as on stdio) so that the objects it keeps can be counted:
Python objects tracked by the garbage collector (gc) and the memory blocks allocated (tracemalloc), after a warm-up
that fills every cache, then again after thousands more messages. Counts, not timing; the process's own growth is
measured in bench/bench_stdio.py.
"""

from __future__ import annotations

import gc
import os
import threading
import tracemalloc
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from lsp_raw import RawPeer, did_open, notification, pipe_peer, request

from heredoc_lsp.lsp.analysis import HISTORY
from heredoc_lsp.lsp.server import build_server

EDITS = 3000
CYCLES = 600
# What may stay: nothing per message, and a constant for what bounded caches hold more or less of from one count to
# the next: up to 100 cancelled timers the event loop purges in bulk, the document's last 64 changes
# (lsp/analysis.py's HISTORY; the warm-up fills it, but on a loaded machine the edits coalesce into fewer analyses), and
# one parse of the 50-heredoc document held while the next replaces it (seen once in CI: 782 blocks).
# Before the fix every edit kept 12 objects (pygls' Future with its lock and callbacks, 1.9 kB), 36,000 over the
# 3,000 edits; every document opened and closed twice that, plus a lock per document asked for its outline and
# two settings entries per document analysed.
PER_MESSAGE = 0.05
SLACK = 1500


@asynccontextmanager
async def in_process(root: Path) -> AsyncIterator[RawPeer]:
    """The real server on a thread of this process, over two pipes; initialized as VS Code (push diagnostics)."""
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    server = build_server()
    thread = threading.Thread(
        target=server.start_io, args=(os.fdopen(stdin_r, "rb", 0), os.fdopen(stdout_w, "wb")), daemon=True
    )
    thread.start()
    peer = await pipe_peer(stdin_w, stdout_r)
    try:
        await peer.initialize(root)
        yield peer
        assert (await peer.call("bye", "shutdown"))["result"] is None
        peer.send(notification("exit"))
    finally:
        assert peer.writer is not None
        peer.writer.close()
        thread.join(30)
    assert not thread.is_alive()


def retained(peer: RawPeer) -> tuple[Counter[str], int]:
    """Objects by type, and memory blocks allocated (counted before the objects are), after a full collection.
    Blocks, not bytes: a buffer that grew is one block however big, a Future kept is several."""
    peer.published.clear()  # the client's own record of every document
    gc.collect()
    blocks = sum(stat.count for stat in tracemalloc.take_snapshot().statistics("filename"))
    return Counter(type(o).__name__ for o in gc.get_objects()), blocks


def grown(before: tuple[Counter[str], int], after: tuple[Counter[str], int]) -> tuple[int, int, list[str]]:
    """Objects and blocks kept between two counts, and the types most kept."""
    objects = sum(after[0].values()) - sum(before[0].values())
    top = [f"{name} +{n}" for name, n in (after[0] - before[0]).most_common(6)]
    return objects, after[1] - before[1], top


def change(uri: str, version: int, line: int, text: str) -> dict[str, object]:
    where = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}}
    return notification(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": where, "text": text}]},
    )


async def test_memory_is_flat_over_edits_and_open_close(tmp_path: Path) -> None:
    tracemalloc.start()
    try:
        async with in_process(tmp_path) as peer:
            uri = (tmp_path / "typed.cli").as_uri()
            peer.send(did_open(uri, "".join(f"cmd{i} <<EOF\nbody {i}\nEOF\n" for i in range(50))))
            version = 1

            async def edits(n: int) -> None:
                nonlocal version
                for k in range(n):
                    version += 1
                    peer.send(change(uri, version, (k * 3 + 1) % 150, "xyz"[k % 3]))
                    if k % 200 == 199:
                        await peer.writer.drain()  # type: ignore[union-attr]
                await peer.published_version(uri, version, timeout=120)  # thousands of edits on a loaded machine

            cycle = 0

            async def cycles(n: int) -> None:
                """Open a document, ask its outline (it is analysed), close it; open and close another: ``n`` times."""
                nonlocal cycle
                for _ in range(n):
                    cycle += 1
                    other = (tmp_path / f"open{cycle}.cli").as_uri()
                    peer.send(did_open(other, f"tool{cycle} <<EOF\nx\n"))
                    await peer.call(cycle, "textDocument/documentSymbol", {"textDocument": {"uri": other}})
                    # Closed before its outline request runs (the request is answered later, and skipped).
                    again = (tmp_path / f"again{cycle}.cli").as_uri()
                    late = request(f"late{cycle}", "textDocument/documentSymbol", {"textDocument": {"uri": again}})
                    peer.send(did_open(again, "y <<EOF\n"), late)
                    peer.send(notification("textDocument/didClose", {"textDocument": {"uri": other}}))
                    peer.send(notification("textDocument/didClose", {"textDocument": {"uri": again}}))

            await edits(300)
            for _ in range(HISTORY + 2):  # one analysis each: the change history is full before the first count
                await edits(1)
            await cycles(300)  # more than the 128 URIs urllib.parse caches
            before = retained(peer)
            await edits(EDITS)
            after_edits = retained(peer)
            await cycles(CYCLES)
            after_cycles = retained(peer)
    finally:
        tracemalloc.stop()
    objects, blocks, top = grown(before, after_edits)
    assert max(objects, blocks) <= SLACK + EDITS * PER_MESSAGE, (objects, blocks, top)
    objects, blocks, top = grown(after_edits, after_cycles)
    assert max(objects, blocks) <= SLACK + CYCLES * PER_MESSAGE, (objects, blocks, top)
