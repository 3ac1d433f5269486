"""The JSONL envelope and the stdin reader on their own."""

from __future__ import annotations

import asyncio
import json
import os

from heredoc_lsp.executor.events import RunEmitter, RunEvent
from heredoc_lsp.executor.jsonl import MAX_LINE_BYTES, Inbound, InboundProblem, StdinListener, parse_inbound


def test_parse_inbound_cases() -> None:
    ok = parse_inbound(b'{"v":"1","type":"run.cancel","payload":{"reason":"x"},"zzz":1}')
    assert ok == Inbound("run.cancel", {"reason": "x"}, None, None)
    assert parse_inbound('{"v":"1","type":"run.cancel"}') == Inbound("run.cancel", {}, None, None)
    cases = {
        b"\xff\xfe": "malformed",
        b"nope": "malformed",
        b"[]": "malformed",
        b'{"type":"run.cancel"}': "malformed",
        b'{"v":1,"type":"run.cancel"}': "version",
        b'{"v":"2","type":"run.cancel","run_id":"r"}': "version",
        b'{"v":"1"}': "malformed",
        b'{"v":"1","type":"run.other"}': "unknown_type",
        b'{"v":"1","type":"run.start","payload":{}}': "malformed",
        b'{"v":"1","type":"run.start","payload":[]}': "malformed",
        b'{"v":"1","type":"run.input","payload":{"value":1}}': "malformed",
    }
    for line, kind in cases.items():
        got = parse_inbound(line)
        assert isinstance(got, InboundProblem) and got.kind == kind, (line, got)
    version = parse_inbound(b'{"v":"2","type":"run.cancel","run_id":"r"}')
    assert isinstance(version, InboundProblem) and version.run_id == "r"


def test_envelope_is_valid_utf8_even_with_lone_surrogates() -> None:
    out: list[bytes] = []

    class Sink:
        def write(self, data: bytes) -> int:
            out.append(data)
            return len(data)

        def flush(self) -> None:
            pass

    from heredoc_lsp.executor.jsonl import JsonlWriter

    writer = JsonlWriter(Sink())  # type: ignore[arg-type]
    em = RunEmitter("run_x", writer)
    em.artifact("bad\udcff.txt", "created")
    em.completed("done", [])
    em.failed("internal_error", "too late")  # after the terminal event: dropped
    lines = b"".join(out).decode("utf-8").splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["run.artifact", "run.completed"]


async def test_stdin_listener_skips_long_lines_and_reads_to_eof() -> None:
    r, w = os.pipe()
    loop = asyncio.get_running_loop()
    got: list[object] = []
    eof = loop.create_future()
    StdinListener(r, loop, got.append, got.append, lambda: eof.set_result(None)).start()
    payload = (
        b"x" * (MAX_LINE_BYTES + 10)
        + b"\n"
        + b'{"v":"1","type":"run.cancel"}\n'
        + b"bad\n"
        + b'{"v":"1","type":"run.cancel","payload":{"reason":"last, no newline"}}'
    )

    def writer() -> None:
        view = memoryview(payload)
        while view:
            view = view[os.write(w, view[: 1 << 16]) :]
        os.close(w)

    await loop.run_in_executor(None, writer)
    await asyncio.wait_for(eof, 10)
    os.close(r)
    assert [type(g).__name__ for g in got] == ["InboundProblem", "Inbound", "InboundProblem", "Inbound"]
    assert isinstance(got[0], InboundProblem) and got[0].message == f"line longer than {MAX_LINE_BYTES} bytes; skipped"
    assert isinstance(got[3], Inbound) and got[3].payload == {"reason": "last, no newline"}


def test_event_ids_unique_and_terminal_flag() -> None:
    events: list[RunEvent] = []
    em = RunEmitter("run_y", events.append)
    em.started()
    em.cancelled("x")
    em.completed("late", [])
    assert [e.type for e in events] == ["run.started", "run.cancelled"]
    assert len({e.id for e in events}) == 2
    assert events[1].terminal and em.finished
