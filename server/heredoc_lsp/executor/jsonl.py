"""The JSONL side of docs/jsonl.md: writing events one per line, reading ``run.start``/``run.input``/``run.cancel``.

Rules implemented here: every line written is one complete JSON object in UTF-8; inbound lines that are not JSON
objects, have no ``type`` or an unknown one are *problems* (reported, reading goes on); a ``v`` other than ``"1"``
is a *version error* (the run fails with ``unsupported_version``); unknown fields are ignored. The stdin reader
runs for the whole run in a daemon thread, so a blocked read never holds up the event loop, and end of file is
just another notification. A line longer than :data:`MAX_LINE_BYTES` is reported and skipped as it streams by
(never held whole); one nested deeper than :data:`MAX_DEPTH` is reported without being decoded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Final, Literal

from heredoc_lsp.executor.events import PROTOCOL_VERSION, RunEvent

RUN_START: Final = "run.start"
RUN_INPUT: Final = "run.input"
RUN_CANCEL: Final = "run.cancel"
INBOUND_TYPES: Final = frozenset({RUN_START, RUN_INPUT, RUN_CANCEL})
MAX_LINE_BYTES: Final = 1 << 20
MAX_DEPTH: Final = 64
_OPENERS: Final = frozenset(b"[{")


class StreamSink:
    """Whole writes to a byte stream, one writer at a time, flushed at once. Once the reader is gone (a broken pipe,
    a closed stream) :meth:`lost` is called, once, and later writes are dropped."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.broken = False

    def send(self, data: bytes) -> None:
        with self._lock:
            if self.broken:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError) as exc:
                self.broken = True
                self.lost(exc)

    def lost(self, exc: Exception) -> None:
        """Called under the lock when the stream breaks."""


class JsonlWriter(StreamSink):
    """An event sink writing the docs/jsonl.md envelope, one JSON object per line, flushed at once (thread-safe)."""

    def __call__(self, event: RunEvent) -> None:
        self.write(event.envelope())

    def write(self, obj: Mapping[str, Any]) -> None:
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
        # "replace": a lone surrogate (from an undecodable file name) must not make the line invalid UTF-8.
        self.send((line + "\n").encode("utf-8", "replace"))


ProblemKind = Literal["malformed", "unknown_type", "version"]


@dataclass(frozen=True, slots=True)
class InboundProblem:
    """A line that is not a usable message. ``version`` problems end the run; the others are only reported."""

    kind: ProblemKind
    message: str
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class Inbound:
    """A valid inbound message."""

    type: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    run_id: str | None = None
    id: str | None = None


def parse_inbound(line: bytes | str) -> Inbound | InboundProblem:
    """Check one line of stdin against the envelope; never raises."""
    data = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
    if nesting_depth(data) > MAX_DEPTH:
        return InboundProblem("malformed", f"JSON nested deeper than {MAX_DEPTH} levels")
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return InboundProblem("malformed", f"not a JSON line ({type(exc).__name__}: {str(exc)[:200]})")
    if not isinstance(obj, dict):
        return InboundProblem("malformed", "not a JSON object")
    run_id = obj.get("run_id") if isinstance(obj.get("run_id"), str) else None
    if "v" not in obj:
        return InboundProblem("malformed", "missing protocol version field 'v'", run_id)
    if obj["v"] != PROTOCOL_VERSION:
        return InboundProblem(
            "version", f"unsupported protocol version {obj['v']!r} (this is version {PROTOCOL_VERSION})", run_id
        )
    kind = obj.get("type")
    if not isinstance(kind, str):
        return InboundProblem("malformed", "missing message 'type'", run_id)
    if kind not in INBOUND_TYPES:
        return InboundProblem("unknown_type", f"unknown message type {kind!r} ignored", run_id)
    payload = obj.get("payload", {})
    if payload is None:
        payload = {}
    if not isinstance(payload, dict):
        return InboundProblem("malformed", f"{kind}: 'payload' must be an object", run_id)
    if kind == RUN_START and not isinstance(payload.get("path"), str):
        return InboundProblem("malformed", "run.start: payload.path (a string) is required", run_id)
    if kind == RUN_INPUT and not isinstance(payload.get("question_id"), str):
        return InboundProblem("malformed", "run.input: payload.question_id (a string) is required", run_id)
    msg_id = obj.get("id") if isinstance(obj.get("id"), str) else None
    return Inbound(kind, payload, run_id, msg_id)


def nesting_depth(data: bytes) -> int:
    """The deepest ``[``/``{`` nesting of a JSON text, strings skipped; stops counting once past :data:`MAX_DEPTH`."""
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        return 0  # cannot be deeper than the number of openers
    depth = deepest = 0
    i = 0
    n = len(data)
    while i < n:
        c = data[i]
        if c == 0x22:  # a string: skip to its closing quote, over escapes
            i += 1
            while i < n and data[i] != 0x22:
                i += 2 if data[i] == 0x5C else 1
        elif c in _OPENERS:
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif c in (0x5D, 0x7D):
            depth -= 1
        i += 1
    return deepest


_TOO_LONG: Final = InboundProblem("malformed", f"line longer than {MAX_LINE_BYTES} bytes; skipped")


class StdinListener:
    """Reads JSONL messages from file descriptor ``fd`` in a daemon thread; callbacks run in the loop's thread.

    The thread reads the raw descriptor (no buffered file object, whose lock a daemon thread could still hold at
    interpreter shutdown) and keeps reading until end of file, whatever the lines contain.
    """

    def __init__(
        self,
        fd: int,
        loop: asyncio.AbstractEventLoop,
        on_message: Callable[[Inbound], None],
        on_problem: Callable[[InboundProblem], None],
        on_eof: Callable[[], None],
    ) -> None:
        self._fd = fd
        self._loop = loop
        self._on_message = on_message
        self._on_problem = on_problem
        self._on_eof = on_eof
        self._thread = threading.Thread(target=self._read, name="heredoc-lsp-stdin", daemon=True)

    def start(self) -> StdinListener:
        self._thread.start()
        return self

    def _call(self, fn: Callable[..., None], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the run is over
            self._loop.call_soon_threadsafe(fn, *args)

    def _line(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            parsed = parse_inbound(line)
        except Exception as exc:  # the reader must outlive any line
            parsed = InboundProblem("malformed", f"line not readable ({type(exc).__name__})")
        if isinstance(parsed, Inbound):
            self._call(self._on_message, parsed)
        else:
            self._call(self._on_problem, parsed)

    def _read(self) -> None:
        pending = bytearray()
        scanned = 0  # bytes of ``pending`` known to hold no newline
        skipping = False  # inside a line already reported as too long
        while True:
            try:
                chunk = os.read(self._fd, 1 << 16)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                break
            pending += chunk
            while (newline := pending.find(b"\n", scanned)) >= 0:
                line = bytes(pending[:newline])
                del pending[: newline + 1]
                scanned = 0
                if skipping:
                    skipping = False
                elif len(line) > MAX_LINE_BYTES:
                    self._call(self._on_problem, _TOO_LONG)
                else:
                    self._line(line)
            scanned = len(pending)
            if len(pending) > MAX_LINE_BYTES:
                if not skipping:
                    self._call(self._on_problem, _TOO_LONG)
                    skipping = True
                pending.clear()
                scanned = 0
        if pending and not skipping:
            self._line(bytes(pending))
        self._call(self._on_eof)
