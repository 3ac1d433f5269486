"""Information diagnostics for failed runs: ``run_failed`` on the command or block, with the tail of its stderr.

How they reach the client depends on how the diagnostics feature talks to it:

- **pull** clients (VS Code with pull, Neovim 0.10+) keep pushed and pulled diagnostics apart, so the run diagnostics
  are *pushed* on their own (``textDocument/publishDiagnostics`` with the document version) and never touch the
  pulled syntax diagnostics; they are re-pushed when the text changes (results that no longer apply vanish);
- **push** clients (eglot, old VS Code) get one list per document, so the run diagnostics go with the syntax ones
  through the diagnostics feature's ``extra_push_sources``; a change of results schedules that feature's push.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from heredoc_lsp.lsp.documents import Document, DocumentStore
from heredoc_lsp.lsp.run_commands import RunFeature

if TYPE_CHECKING:
    from heredoc_lsp.lsp.server import HeredocLanguageServer

log = logging.getLogger(__name__)


class RunDiagnostics:
    def __init__(self, server: HeredocLanguageServer, feature: RunFeature) -> None:
        self.server = server
        self.feature = feature
        self._published: set[str] = set()  # documents with run diagnostics pushed on their own
        self._pending: set[str] = set()
        self._handle: asyncio.Handle | None = None

    def register(self) -> None:
        self.feature.listeners.append(self.refresh)
        self.server.hooks.changed.append(self._on_change)
        self.server.hooks.closed.append(self._on_close)
        self.server.hooks.config_changed.append(self._on_config_changed)
        self.server.hooks.initialized.append(self._on_initialized)

    def _on_initialized(self) -> None:
        sources = getattr(self.server.diagnostics_feature, "extra_push_sources", None)
        if isinstance(sources, list):
            sources.append(self.feature.diagnostics)

    # -- mode ----------------------------------------------------------------------------------------------------
    def _mode(self) -> str:
        diag = self.server.diagnostics_feature
        if diag is None or (diag.pull and not diag.push):
            return "own"
        return "joined"

    # -- events --------------------------------------------------------------------------------------------------
    def refresh(self, uri: str) -> None:
        """The results of ``uri`` changed: show the current run diagnostics."""
        if self._mode() == "joined":
            diag = self.server.diagnostics_feature
            if diag is not None:
                diag.schedule(uri)
        else:
            self._schedule(uri)

    def _on_change(self, doc: Document) -> None:
        if DocumentStore.key(doc.uri) in self._published:
            self._schedule(doc.uri)

    def _on_config_changed(self) -> None:
        for key in list(self._published):
            self._schedule(key)

    def _on_close(self, uri: str) -> None:
        key = DocumentStore.key(uri)
        self._pending.discard(key)
        self._published.discard(key)

    def _schedule(self, uri: str) -> None:
        self._pending.add(DocumentStore.key(uri))
        if self._handle is None:
            try:
                self._handle = asyncio.get_running_loop().call_soon(self._flush)
            except RuntimeError:
                self._flush()

    def _flush(self) -> None:
        self._handle = None
        pending, self._pending = self._pending, set()
        for key in pending:
            try:
                self._publish(key)
            except Exception:
                log.exception("publishing run diagnostics for %s failed", key)

    def _publish(self, key: str) -> None:
        doc = self.server.documents.get(key)
        snap = self.server.analyses.get(key) if doc is not None else None
        if doc is None or snap is None or self.server.protocol.writer is None:
            return
        from heredoc_lsp.lsp.diagnostics import to_lsp

        mode = self._mode()
        if mode == "joined":
            return
        found = self.feature.diagnostics(snap)
        if not found and key not in self._published:
            return
        codec = self.server.position_codec
        items = [to_lsp(snap.uri, snap.lines, codec, d) for d in found]
        if found:
            self._published.add(key)
        else:
            self._published.discard(key)
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=doc.uri, version=doc.version, diagnostics=items)
        )


def register(server: HeredocLanguageServer, feature: RunFeature) -> RunDiagnostics:
    diagnostics = RunDiagnostics(server, feature)
    diagnostics.register()
    return diagnostics
