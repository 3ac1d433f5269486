"""Run events (docs/jsonl.md): what every front end consumes, and the emitter that guarantees one terminal event.

An event is a :class:`RunEvent` handed to an :data:`EventSink` (a plain callable). The terminal display, the JSONL
writer and the language server are all sinks; nothing here knows about terminals, JSON or LSP.
"""

from __future__ import annotations

import itertools
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

PROTOCOL_VERSION: Final = "1"

STARTED: Final = "run.started"
PROGRESS: Final = "run.progress"
QUESTION: Final = "run.question"
ARTIFACT: Final = "run.artifact"
COMPLETED: Final = "run.completed"
FAILED: Final = "run.failed"
CANCELLED: Final = "run.cancelled"
TERMINAL_TYPES: Final = frozenset({COMPLETED, FAILED, CANCELLED})

FailureCode = Literal["command_failed", "parse_error", "unsupported_version", "protocol_error", "internal_error"]
ProgressKind = Literal["status", "stdout", "stderr", "command"]
QuestionKind = Literal["confirm", "select", "text"]
ArtifactKind = Literal["created", "edited", "deleted", "outbox", "session"]

_log = logging.getLogger(__name__)


_PROCESS_TAG = secrets.token_hex(4)
_SEQUENCE = itertools.count(1)


def new_id(prefix: str, nbytes: int = 8) -> str:
    """A unique identifier such as ``run_1f2e3d4c5b6a7988``: random for runs, ``msg_<process tag><n>`` for messages."""
    if prefix == "msg":
        # Messages are many: a per-process random tag and a counter are unique and need no system call.
        return f"msg_{_PROCESS_TAG}{next(_SEQUENCE):08x}"
    return f"{prefix}_{secrets.token_hex(nbytes)}"


_last_second: tuple[int, str] = (-1, "")  # the last formatted second (replaced as a whole: thread-safe)


def rfc3339_now() -> str:
    """The current UTC time as RFC 3339 with milliseconds, e.g. ``2025-01-15T10:30:00.123Z``."""
    global _last_second
    millis = int(time.time() * 1000)
    seconds, text = _last_second
    if seconds != millis // 1000:
        seconds = millis // 1000
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
        _last_second = (seconds, text)
    return f"{text}.{millis % 1000:03d}Z"


@dataclass(frozen=True, slots=True)
class RunEvent:
    """One outbound event. ``payload`` holds only JSON-compatible values."""

    type: str
    run_id: str
    payload: Mapping[str, Any]
    id: str = field(default_factory=lambda: new_id("msg"))
    ts: str = field(default_factory=rfc3339_now)

    @property
    def terminal(self) -> bool:
        return self.type in TERMINAL_TYPES

    def envelope(self) -> dict[str, Any]:
        """The JSONL envelope of docs/jsonl.md."""
        return {
            "v": PROTOCOL_VERSION,
            "id": self.id,
            "ts": self.ts,
            "type": self.type,
            "run_id": self.run_id,
            "payload": dict(self.payload),
        }


EventSink = Callable[[RunEvent], None]


def _no_sink(event: RunEvent) -> None:
    del event


class RunEmitter:
    """Builds events for one run and passes them to the sink; at most one terminal event ever leaves it.

    Thread-safe: a cancel arriving from another thread races with the run's own ending, and the first terminal
    event wins. A sink that raises does not stop the run (the exception is logged once).
    """

    def __init__(self, run_id: str, sink: EventSink | None) -> None:
        self.run_id = run_id
        self._sink: EventSink = sink if sink is not None else _no_sink
        self._lock = threading.Lock()
        self._terminal: RunEvent | None = None
        self._sink_failed = False

    @property
    def listening(self) -> bool:
        """False when there is no sink: callers may skip building progress payloads."""
        return self._sink is not _no_sink

    @property
    def finished(self) -> bool:
        return self._terminal is not None

    def emit(self, type_: str, payload: Mapping[str, Any]) -> RunEvent | None:
        """Emit one event; returns it, or None when the run already ended (nothing is sent after the end)."""
        event = RunEvent(type_, self.run_id, payload)
        with self._lock:
            if self._terminal is not None:
                return None
            if event.terminal:
                self._terminal = event
            try:
                self._sink(event)
            except Exception:
                if not self._sink_failed:
                    self._sink_failed = True
                    _log.exception("run event sink failed on %s", type_)
        return event

    def started(self, **payload: Any) -> None:
        self.emit(STARTED, payload)

    def progress(self, kind: ProgressKind, **payload: Any) -> None:
        if self._sink is not _no_sink:
            self.emit(PROGRESS, {"kind": kind, **payload})

    def status(self, text: str, **payload: Any) -> None:
        self.progress("status", text=text, **payload)

    def question(
        self,
        question_id: str,
        kind: QuestionKind,
        text: str,
        options: list[Any] | None = None,
        default: Any = None,
    ) -> None:
        payload: dict[str, Any] = {"question_id": question_id, "kind": kind, "text": text}
        if options is not None:
            payload["options"] = options
        if default is not None:
            payload["default"] = default
        self.emit(QUESTION, payload)

    def artifact(self, name: str, kind: ArtifactKind, path: str | None = None) -> None:
        payload: dict[str, Any] = {"name": name, "kind": kind}
        if path is not None:
            payload["path"] = path
        self.emit(ARTIFACT, payload)

    def completed(self, summary: str, results: list[dict[str, Any]], **extra: Any) -> bool:
        return self.emit(COMPLETED, {"summary": summary, "results": results, **extra}) is not None

    def failed(self, code: FailureCode, message: str, **extra: Any) -> bool:
        return self.emit(FAILED, {"code": code, "message": message, **extra}) is not None

    def cancelled(self, reason: str, **extra: Any) -> bool:
        return self.emit(CANCELLED, {"reason": reason, **extra}) is not None
