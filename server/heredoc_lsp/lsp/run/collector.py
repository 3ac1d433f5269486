"""The event sink of one run: executor events become progress reports, log lines, stderr tails and questions to
the user."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from heredoc_lsp.executor.events import ARTIFACT, PROGRESS, QUESTION, RunEvent
from heredoc_lsp.executor.sandbox import UNISOLATED_NOTE
from heredoc_lsp.lsp.run.client import RunClient
from heredoc_lsp.lsp.run.log import RunLog
from heredoc_lsp.lsp.run.progress import RunProgress
from heredoc_lsp.runs.state import ActiveRun

log = logging.getLogger(__name__)

STDERR_TAIL_CHARS = 4000


class Collector:
    """The run's event sink: progress, the log, stderr tails, and questions from the executor."""

    def __init__(self, client: RunClient, run: ActiveRun, progress: RunProgress, log_file: RunLog) -> None:
        self.client = client
        self.run = run
        self.progress = progress
        self.log_file = log_file
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._stderr: dict[int, str] = {}
        self._total = 0
        self._began = run.started

    def elapsed(self) -> float:
        return time.monotonic() - self._began

    def stderr_of(self, index: int) -> str:
        return self._stderr.get(index, "")

    def sink(self, event: RunEvent) -> None:
        if threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self._handle, event)
        else:
            self._handle(event)

    def _handle(self, event: RunEvent) -> None:
        self.log_file.feed(event)
        p = event.payload
        if event.type == PROGRESS:
            kind = p.get("kind")
            index = p.get("index")
            if kind == "command":
                self._total = int(p.get("total") or 0)
                i = int(index or 0)
                self.run.current = str(p.get("command", ""))
                line = p.get("line")
                self.run.current_line = line if isinstance(line, int) else None
                self.client.changed(self.run.uri)
                where = f"[{i + 1}/{self._total}] " if self._total > 1 else ""
                self.progress.report(f"{where}{self.run.current}", _percent(i, self._total))
            elif kind == "stderr" and isinstance(index, int):
                tail = self._stderr.get(index, "") + str(p.get("text", ""))
                self._stderr[index] = tail[-STDERR_TAIL_CHARS:]
            elif kind == "status" and isinstance(p.get("result"), Mapping):
                result = p["result"]
                i = int(result.get("index", 0))
                self.progress.report(str(result.get("text", "")), _percent(i + 1, self._total))
            elif kind == "status" and UNISOLATED_NOTE in str(p.get("text", "")):
                # Never silently unisolated (docs/security.md): the progress says so, and a warning once per session.
                note = str(p.get("text", ""))
                self.progress.report(note)
                if not self.client.warned_unisolated:
                    self.client.warned_unisolated = True
                    self.client.show(types.MessageType.Warning, f"heredoc-lsp: {note}")
        elif event.type == QUESTION and not self.client.closing:
            self.client.spawn(self._answer(p))
        elif event.type == ARTIFACT and p.get("kind") == "outbox":
            self.progress.report(f"wrote {p.get('name', 'the next outbox')}")

    async def _answer(self, payload: Mapping[str, Any]) -> None:
        """A question from the executor (normally none: the server confirms first) goes to the user."""
        question_id = str(payload.get("question_id", ""))
        options = [str(o) for o in payload.get("options") or []] or ["yes", "no"]
        if payload.get("kind") == "text":
            self.run.control.cancel("the editor cannot answer text questions")
            return
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Info,
            message=str(payload.get("text", "")),
            actions=[types.MessageActionItem(title=o) for o in options],
        )
        try:
            answer = await self.client.ask(params)
        except Exception as exc:
            log.info("question not answered: %s", exc)
            answer = None
        if isinstance(answer, types.MessageActionItem):
            self.run.control.answer(question_id, answer.title)
        else:
            self.run.control.cancel("the question was dismissed")


def _percent(done: int, total: int) -> int | None:
    return None if total <= 0 else int(100 * done / total)
