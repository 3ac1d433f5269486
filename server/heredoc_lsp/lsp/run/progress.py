"""Work-done progress for one run: begin (cancellable), a report per command and every second, end.

Only used when the client advertises ``window.workDoneProgress``. A ``window/workDoneProgress/cancel`` for the
token calls ``on_cancel`` (the run's :meth:`~heredoc_lsp.executor.control.RunControl.cancel`), which kills the
run's process tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from heredoc_lsp.runs.view import seconds

if TYPE_CHECKING:
    from heredoc_lsp.lsp.feature import Server

log = logging.getLogger(__name__)

TICK_SECONDS = 1.0


class RunProgress:
    """The progress bar of one run. Safe to use when the client has no progress support (it then does nothing)."""

    def __init__(
        self,
        server: Server,
        token: str,
        title: str,
        on_cancel: Callable[[], None],
        muted: Callable[[], bool] = lambda: False,
    ) -> None:
        self.server = server
        self.muted = muted  # True once the server shuts down: nothing more is sent
        self.token = token
        self.title = title
        self.on_cancel = on_cancel
        self.active = False
        self.message = ""
        self.percentage: int | None = None
        self._started = time.monotonic()
        self._ticker: asyncio.Task[None] | None = None

    @staticmethod
    def supported(server: Server) -> bool:
        return server.client.work_done_progress

    async def begin(self, message: str) -> None:
        if not self.supported(self.server):
            return
        progress = self.server.work_done_progress
        try:
            # Shielded: a cancelled task awaiting a client response breaks pygls' response handling (#621).
            await asyncio.shield(progress.create_async(self.token))
        except Exception as exc:
            log.info("window/workDoneProgress/create failed: %s", exc)
            return
        future: Future[Any] | None = progress.tokens.get(self.token)
        if future is not None:
            future.add_done_callback(self._cancelled_by_client)
        self.active = True
        self.message = message
        progress.begin(
            self.token,
            types.WorkDoneProgressBegin(title=self.title, message=message, cancellable=True, percentage=0),
        )
        self._ticker = asyncio.get_running_loop().create_task(self._tick())

    def _cancelled_by_client(self, future: Future[Any]) -> None:
        if future.cancelled():
            log.info("progress %s cancelled by the client", self.token)
            self.on_cancel()

    def report(self, message: str, percentage: int | None = None) -> None:
        self.message = message
        if percentage is not None:
            self.percentage = max(0, min(100, percentage))
        self._send()

    def _send(self) -> None:
        if not self.active or self.muted():
            return
        elapsed = seconds(time.monotonic() - self._started)
        text = f"{self.message} · {elapsed}" if self.message else elapsed
        try:
            self.server.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=text, percentage=self.percentage, cancellable=True)
            )
        except Exception as exc:  # the client may be gone
            log.debug("progress report failed: %s", exc)

    async def _tick(self) -> None:
        while self.active:
            await asyncio.sleep(TICK_SECONDS)
            self._send()

    def end(self, message: str) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if not self.active:
            return
        self.active = False
        progress = self.server.work_done_progress
        if self.muted():
            progress.tokens.pop(self.token, None)
            return
        with contextlib.suppress(Exception):
            progress.end(self.token, types.WorkDoneProgressEnd(message=message))
        progress.tokens.pop(self.token, None)
