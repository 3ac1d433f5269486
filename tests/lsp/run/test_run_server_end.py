"""Runs end with the server, whatever ends it (docs/running.md, docs/security.md): ``shutdown`` then ``exit``,
``exit`` alone, the end of its input, SIGTERM or SIGHUP from the editor. Every run's whole process tree is gone by
the time the server process has exited — a grandchild that ignores SIGTERM and whose parent died included — and the
server exits in bounded time."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest
from tests.executor.conftest import processes_with, unique_sleep

from lsp.lsp_harness import RUN, RecordingClient, server_process, session

pytestmark = pytest.mark.asyncio(loop_scope="module")

# Unisolated, the server alone ends the tree; under bubblewrap ("auto" where it is usable) its processes are in a
# pid namespace of their own, still found through /proc.
SANDBOXES = ("none", "auto")
EXIT_WITHIN_S = 15.0
# How each path ends the server, and the exit code it then has (docs/editors.md, "The connection").
ENDINGS = {"shutdown+exit": 0, "exit": 1, "eof": 0, "sigterm": 128 + signal.SIGTERM, "sighup": 128 + signal.SIGHUP}


# Started by the run as ``sh tree.sh MARKER; echo after``: the run's shell dies on SIGTERM; below it a polite shell
# that leaves a file when it gets SIGTERM, and a shell and its sleep that ignore SIGTERM (the ignored disposition
# is inherited; the polite one is started first, as a shell cannot trap a signal ignored when it started).
TREE = """\
sh -c 'trap "echo terminated > terminated; exit 0" TERM; sleep "$1" & wait' polite "$1" &
trap '' TERM
sleep "$1" &
wait
"""


async def end_server(client: RecordingClient, how: str) -> None:
    server = server_process(client)
    if how == "shutdown+exit":
        await client.shutdown_session()
    elif how == "exit":
        client.exit(None)
    elif how == "eof":
        assert server.stdin is not None
        server.stdin.close()
    else:
        server.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGHUP)


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("how", list(ENDINGS))
async def test_every_way_the_server_ends_kills_the_whole_tree_first(tmp_path: Path, how: str, sandbox: str) -> None:
    m = unique_sleep()
    options = {"executor": {"confirm": "never", "sandbox": sandbox}}
    async with session("vscode", tmp_path, init_options=options) as client:
        (tmp_path / "tree.sh").write_text(TREE, encoding="utf-8")
        uri = client.open_file(f"sh tree.sh {m}; echo after\n")
        run = asyncio.ensure_future(client.execute((await client.lens(uri, 0, RUN)).command))
        # Both sleeps: the stubborn one only exists once its shell ignores SIGTERM, the polite one once it traps it.
        await client.wait_for(lambda: len(processes_with(f"sleep {m}")) >= 2)
        server = server_process(client)
        await end_server(client, how)
        code = await asyncio.wait_for(server.wait(), EXIT_WITHIN_S)
        # No waiting here: the server killed the tree before it exited, after SIGTERM and a grace.
        assert processes_with(m) == []
        if sandbox == "none":
            # (Under bubblewrap SIGTERM also ends bwrap itself, whose --die-with-parent then kills the namespace: a
            # process in it may die before its handler ran.)
            assert (tmp_path / "terminated").read_text(encoding="utf-8") == "terminated\n"
        assert code == ENDINGS[how]
        run.cancel()
        await asyncio.gather(run, return_exceptions=True)  # cancelled by the shutdown, or lost with the server
