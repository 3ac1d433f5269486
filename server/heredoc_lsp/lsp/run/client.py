"""What the run feature tells the client outside a request's answer: lens refreshes, ``run_failed`` diagnostics
changed, messages, documents to show. Nothing is sent once the server shuts down."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from heredoc_lsp.lsp.feature import Server

log = logging.getLogger(__name__)


class RunClient:
    """The client as the run feature talks to it."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.closing = False  # after shutdown nothing more is sent to the client
        self.warned_unisolated = False  # the "runs unisolated" warning is shown once per session
        self._tasks: set[asyncio.Task[Any]] = set()

    def changed(self, uri: str, results: bool = False) -> None:
        """Run views of ``uri`` changed (``results``: its results too): refresh lenses and diagnostics."""
        if self.closing:
            return
        if results:
            self.server.diagnostics_changed(uri)
        if self.server.client.code_lens_refresh:
            self.spawn(self._refresh_lenses())

    async def _refresh_lenses(self) -> None:
        try:
            await asyncio.shield(self.server.workspace_code_lens_refresh_async(None))
        except Exception as exc:
            log.info("workspace/codeLens/refresh failed: %s", exc)

    def show(self, kind: types.MessageType, message: str) -> None:
        """``window/showMessage``."""
        if self.server.protocol.writer is None or self.closing:
            return
        try:
            self.server.window_show_message(types.ShowMessageParams(type=kind, message=message))
        except Exception as exc:
            log.debug("window/showMessage failed: %s", exc)

    def log(self, message: str) -> None:
        """An information line in the client's log."""
        if not self.closing:
            self.server.log_to_client(message, types.MessageType.Info)

    async def show_document(self, path: Path) -> None:
        """Open ``path`` in the editor (``window/showDocument``), or name it in the log."""
        if not self.server.client.show_document:
            self.server.log_to_client(f"heredoc-lsp: open {path}", types.MessageType.Info)
            return
        try:
            await asyncio.shield(
                self.server.window_show_document_async(types.ShowDocumentParams(uri=path.as_uri(), take_focus=True))
            )
        except Exception as exc:
            log.info("window/showDocument failed: %s", exc)

    async def ask(self, params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        """``window/showMessageRequest``; shielded: cancelling a task that awaits a client request breaks pygls'
        response handling (#621)."""
        return await asyncio.shield(self.server.window_show_message_request_async(params))

    def spawn(self, coro: Any) -> None:
        """Run ``coro`` as a task of its own (closed unrun when there is no event loop)."""
        try:
            task = asyncio.get_running_loop().create_task(coro)
        except RuntimeError:
            coro.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
