"""Diagnostics: pushed with the document version, pulled by clients that support ``textDocument/diagnostic``.

Modes (``initializationOptions.diagnosticMode``, read once at start-up because capabilities depend on it):

- ``auto`` (default): clients that advertise pull diagnostics get pull only (``diagnosticProvider``); all others
  get pushes. Pushing to a client that also pulls would show every problem twice: VS Code and Neovim keep pushed
  and pulled diagnostics in separate collections (Neovim: one namespace per client for push and another for pull).
- ``push``: push to every client, never offer pull.
- ``both``: push to every client and offer pull too (docs/editors.md read literally; for clients that de-duplicate).

Pushes are scheduled after each change and computed from the then-current text, so versions superseded by a
later change before the work ran are never analysed (the work is dropped). Every push carries the version it was
computed for. A pull is answered from the current text at request time; the same ``resultId`` means unchanged.

This is the one publisher: a push or a pull report holds the snapshot's diagnostics and every feature's
:meth:`~heredoc_lsp.lsp.feature.Feature.diagnostics` for the document (e.g. ``run_failed`` from the run feature;
a feature calls ``server.diagnostics_changed(uri)`` when they change without an edit). Files that are no analysed
document get every feature's :meth:`~heredoc_lsp.lsp.feature.Feature.file_diagnostics` (a configuration file's
problems, from the settings), pushed to every client whether it pulls or not.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from bisect import bisect_left
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types
from lsprotocol.converters import get_converter

from heredoc_lsp.lsp.documents import Document, DocumentStore
from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.protocol import HeredocProtocol, Prerendered
from heredoc_lsp.lsp.splice import Parts, View, update
from heredoc_lsp.lsp.wire import diagnostic_text
from heredoc_lsp.lsp.work import WORK
from heredoc_lsp.syntax.diagnostics import Diagnostic

if TYPE_CHECKING:
    from pygls.workspace import PositionCodec

    from heredoc_lsp.lsp.analysis import Snapshot
    from heredoc_lsp.lsp.feature import Server

log = logging.getLogger(__name__)

_CONVERTER = get_converter()
PULL_IDENTIFIER = "heredoc-lsp"


def to_lsp(
    uri: str,
    lines: Sequence[str],
    codec: PositionCodec,
    d: Diagnostic,
    *,
    related: bool = True,
    data: bool = True,
) -> types.Diagnostic:
    """One core diagnostic as an lsprotocol ``Diagnostic``, for answers made of lsprotocol values (code actions,
    the configuration file's diagnostics): the JSON of :func:`heredoc_lsp.lsp.wire.diagnostic_text`, read back."""
    text = diagnostic_text(uri, lines, codec, d, related=related, data=data)
    value: types.Diagnostic = _CONVERTER.structure(json.loads(text), types.Diagnostic)
    return value


class DiagnosticsFeature(Feature):
    def __init__(self, server: Server) -> None:
        super().__init__(server)
        self.push = True
        self.pull = False
        self._scheduled: dict[str, str] = {}  # document key -> URI, in the order they wait for a push
        self._flush_handle: asyncio.Handle | None = None
        self._parts: View[Parts[str]] = server.views.view()  # per document and (related, data)
        self._related_push = True
        self._data_push = True
        self._related_pull = True
        self._data_pull = True
        self.published_versions: dict[str, int | None] = {}
        self._waiting_for_settings = False
        # Per document: bumped when other features' diagnostics change without an edit (part of the resultId).
        self._contributed: dict[str, int] = {}

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def initialize(self, params: types.InitializeParams) -> None:
        client = self.server.client
        mode = self.server.settings.diagnostic_mode
        self.pull = client.pull_diagnostics and mode in ("auto", "both")
        self.push = mode in ("push", "both") or not self.pull
        self._related_push = client.push_related_information
        self._data_push = client.push_data
        self._related_pull = client.pull_related_information
        self._data_pull = True  # DocumentDiagnostic has no data flag; data is part of the Diagnostic type
        log.info("diagnostics: push=%s pull=%s (mode %s)", self.push, self.pull, mode)
        if self.pull:
            options = types.DiagnosticOptions(
                identifier=PULL_IDENTIFIER, inter_file_dependencies=False, workspace_diagnostics=False
            )

            @self.server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, options)
            async def on_pull(params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport | Prerendered:
                if not self.server.settings.ready:
                    await self.server.settings.wait_ready()
                await self.server.analyses.latest(params.text_document.uri)
                return self._on_pull(params)

    def opened(self, doc: Document) -> None:
        if self.push:
            self.schedule(doc.uri)

    def changed(self, doc: Document) -> None:
        if self.push:
            self.schedule(doc.uri)

    def closed(self, uri: str) -> None:
        key = DocumentStore.key(uri)
        self._scheduled.pop(key, None)
        self._contributed.pop(key, None)
        # Clear what was pushed for it (nothing to clear for a document never published, or never opened).
        if key in self.published_versions and self.server.protocol.writer is not None:
            del self.published_versions[key]
            self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def config_changed(self) -> None:
        if self.push:
            for doc in self.server.documents:
                self.schedule(doc.uri)
        self._refresh_pulls()

    def diagnostics_changed(self, uri: str) -> None:
        doc = self.server.documents.get(uri)
        if doc is None or doc.language is None:
            self.schedule(uri)  # a file's own diagnostics (a config file's problems) are pushed to every client
            return
        key = DocumentStore.key(uri)
        self._contributed[key] = self._contributed.get(key, 0) + 1
        if self.push:
            self.schedule(uri)
        self._refresh_pulls()

    def _refresh_pulls(self) -> None:
        if self.pull and self.server.client.diagnostics_refresh and self.server.protocol.writer is not None:
            try:
                self.server.workspace_diagnostic_refresh(None)
            except Exception as exc:
                log.info("workspace/diagnostic/refresh failed: %s", exc)

    # -- push --------------------------------------------------------------------------------------------------
    def schedule(self, uri: str) -> None:
        """Publish the diagnostics of ``uri`` soon (once, however many changes arrive before then)."""
        self._scheduled[DocumentStore.key(uri)] = uri
        if not self.server.settings.ready:
            if not self._waiting_for_settings:
                self._waiting_for_settings = True
                self.server.settings.when_ready(self._flush_soon)
            return
        self._flush_soon()

    def _flush_soon(self) -> None:
        self._waiting_for_settings = False
        if self._flush_handle is None and self._scheduled:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self.flush()
                return
            self._flush_handle = loop.call_soon(self.flush)

    def flush(self) -> None:
        self._flush_handle = None
        # No cycle collection between an edit and its push (docs/decisions.md): an analysis allocates mostly
        # acyclic objects that reference counting frees, and a young collection in the middle of a 100k-line
        # parse costs 5-8 ms; the collection that was due runs at the first allocation after the push is written.
        collecting = gc.isenabled()
        gc.disable()
        try:
            while self._scheduled:
                key = next(iter(self._scheduled))
                uri = self._scheduled.pop(key)
                try:
                    self._publish(key, uri)
                except Exception:
                    log.exception("publishing diagnostics for %s failed", key)
                    self.server.log_to_client(f"heredoc-lsp: could not check {key}; see the server log")
        finally:
            if collecting:
                gc.enable()

    def _publish(self, key: str, uri: str) -> None:
        doc = self.server.documents.get(uri)
        if doc is None or doc.language is None:
            found = self._file(uri)
            if found is None or self.server.protocol.writer is None:
                return  # not one of ours: publish nothing rather than an empty list
            version = None
            if doc is not None:
                uri, version = doc.uri, doc.version
                self.published_versions[key] = version
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=found)
            )
            return
        snap = self.server.analyses.get(doc.uri)
        texts: list[str] = []
        if snap is not None:
            if snap.revision != doc.revision:
                return  # superseded while it was computed: the newer version is scheduled
            texts = self.merged(snap, related=self._related_push, data=self._data_push)
        if self.server.protocol.writer is None:
            return
        if not texts and key not in self.published_versions and not self.push:
            return
        self.published_versions[key] = doc.version
        params = f'{{"uri":{json.dumps(doc.uri)},"version":{doc.version},"diagnostics":[{",".join(texts)}]}}'
        protocol = self.server.protocol
        assert isinstance(protocol, HeredocProtocol)
        protocol.notify_prerendered(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, Prerendered(params))

    # -- pull --------------------------------------------------------------------------------------------------
    def _on_pull(self, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport | Prerendered:
        uri = params.text_document.uri
        snap = self.server.analyses.get(uri)
        if snap is None:
            return types.RelatedFullDocumentDiagnosticReport(items=self._file(uri) or [], result_id=None)
        result_id = f"{snap.serial}.{self._contributed.get(DocumentStore.key(uri), 0)}"
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        texts = self.merged(snap, related=self._related_pull, data=self._data_pull)
        return Prerendered(f'{{"kind":"full","resultId":{json.dumps(result_id)},"items":[{",".join(texts)}]}}')

    def _file(self, uri: str) -> list[types.Diagnostic] | None:
        """Every feature's :meth:`~heredoc_lsp.lsp.feature.Feature.file_diagnostics` for ``uri`` (None: no feature
        has any: not a file of ours)."""
        found = [d for d in self.server.each(lambda f: f.file_diagnostics(uri), "file_diagnostics") if d is not None]
        return None if not found else [d for part in found for d in part]

    # -- conversion --------------------------------------------------------------------------------------------
    def merged(self, snap: Snapshot, *, related: bool, data: bool) -> list[str]:
        """The JSON texts of the snapshot's diagnostics followed by every feature's (a push replaces the client's
        whole list for the document, so they travel together)."""
        texts = self.json_diagnostics(snap, related=related, data=data).values
        found = self.server.each(lambda f: f.diagnostics(snap), "diagnostics")
        if not any(found):
            return texts
        codec = self.server.position_codec
        return [
            *texts,
            *(
                diagnostic_text(snap.uri, snap.lines, codec, d, related=related, data=data)
                for contributed in found
                for d in contributed
            ),
        ]

    def json_diagnostics(self, snap: Snapshot, *, related: bool = True, data: bool = True) -> Parts[str]:
        """The snapshot's diagnostics in LSP form, as JSON texts: after an edit, only the diagnostics of the
        re-parsed items are converted again (:mod:`heredoc_lsp.lsp.splice`)."""
        variant = (related, data)
        previous, changed = self._parts.plan(snap, variant)
        found = snap.diagnostics
        codec = self.server.position_codec

        def build(first: int, stop: int | None) -> tuple[list[int], list[str]]:
            lo = _first_at(found, first)
            hi = len(found) if stop is None else _first_at(found, stop, lo)
            chosen = found[lo:hi]
            WORK["diagnostics"] += len(chosen)
            return [d.span.start_line for d in chosen], [
                diagnostic_text(snap.uri, snap.lines, codec, d, related=related, data=data) for d in chosen
            ]

        done = update(previous, snap.serial, changed, build)
        self._parts.keep(snap, done, variant)
        return done


def _first_at(found: Sequence[Diagnostic], line: int, lo: int = 0) -> int:
    """Index of the first diagnostic starting on ``line`` or after (diagnostics are sorted by position)."""
    return bisect_left(found, line, lo, key=_start_line)


def _start_line(d: Diagnostic) -> int:
    return d.span.start_line
