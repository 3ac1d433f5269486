"""The language server: one pygls ``LanguageServer`` with our document store, and one :class:`Feature` per LSP
method or feature.

To add a feature: subclass :class:`~heredoc_lsp.lsp.feature.Feature` in ``heredoc_lsp/lsp/<feature>.py``, declare
its handlers in ``register()`` with ``self.server.feature(...)`` (wrap them in :func:`~heredoc_lsp.lsp.handlers.guarded`
so a bug logs instead of failing), override the lifecycle methods and contributions it needs, and add the class to
:data:`FEATURES`. Features see the server as :class:`~heredoc_lsp.lsp.feature.Server`:

- ``server.documents.get(uri)`` -> :class:`~heredoc_lsp.lsp.documents.Document` (lines, version, language);
- ``server.analyses.get(uri)`` -> :class:`~heredoc_lsp.lsp.analysis.Snapshot`: the parse and final diagnostics of
  the document's current version, computed once per version and shared by every feature;
- ``server.views.view()`` -> a :class:`~heredoc_lsp.lsp.splice.View` of the one per-document view cache, where an
  incremental view keeps its answers (rebuilt after an edit for the changed window only);
- ``server.client`` -> :class:`~heredoc_lsp.lsp.client.ClientProfile`: what the client can do;
- ``server.position_codec`` with :mod:`heredoc_lsp.lsp.positions` for every position that crosses the wire.

pygls allows one handler per LSP method, so the lifecycle notifications (initialize, initialized, didOpen,
didChange, didClose, didSave, shutdown) are registered here once and fanned out over ``server.features`` (the
settings first, then :data:`FEATURES` in order); one failing feature logs and never stops the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.workspace import PositionCodec

from heredoc_lsp import __version__
from heredoc_lsp.analysis.bodies import STATS as BODY_STATS
from heredoc_lsp.lsp.analysis import Analyses, Snapshot
from heredoc_lsp.lsp.client import ClientProfile
from heredoc_lsp.lsp.code_actions import CodeActions
from heredoc_lsp.lsp.code_lens import CodeLensFeature
from heredoc_lsp.lsp.completion import CompletionFeature
from heredoc_lsp.lsp.diagnostics import DiagnosticsFeature
from heredoc_lsp.lsp.documents import Document, DocumentStore, LineEdit
from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.folding import FoldingFeature
from heredoc_lsp.lsp.formatting import FormattingFeature
from heredoc_lsp.lsp.highlight import HighlightFeature
from heredoc_lsp.lsp.hover import HoverFeature
from heredoc_lsp.lsp.links import LinksFeature
from heredoc_lsp.lsp.protocol import DocumentServer, HeredocProtocol, converter_of, serve_stdio
from heredoc_lsp.lsp.rename import RenameFeature
from heredoc_lsp.lsp.run.feature import RunFeature
from heredoc_lsp.lsp.semantic_tokens import SemanticTokensFeature
from heredoc_lsp.lsp.settings import SettingsManager
from heredoc_lsp.lsp.splice import Building, ViewCache
from heredoc_lsp.lsp.symbols import SymbolsFeature
from heredoc_lsp.lsp.work import WORK, WORK_COUNTS
from heredoc_lsp.syntax.cli import parse_cli

log = logging.getLogger("heredoc_lsp.lsp")

T = TypeVar("T")


class WorkCounts(Feature):
    """heredoc-lsp/workCounts: every count of :data:`heredoc_lsp.lsp.work.WORK` so far (for tests and
    benchmarks; harmless to any client)."""

    def register(self) -> None:
        @self.server.feature(WORK_COUNTS)
        def work_counts(params: Any) -> dict[str, int]:
            return {**WORK, "bodies_checked": BODY_STATS["checked"]}


# Every feature, in the order lifecycle events and contributions are called (diagnostics, code actions, hover
# parts and lenses are joined in this order). A feature that cannot be imported or constructed fails the server's
# start-up and the tests: nothing is skipped silently.
FEATURES: tuple[type[Feature], ...] = (
    DiagnosticsFeature,
    CodeActions,
    WorkCounts,
    SymbolsFeature,
    FoldingFeature,
    HoverFeature,
    CompletionFeature,
    SemanticTokensFeature,
    LinksFeature,
    RenameFeature,
    FormattingFeature,
    HighlightFeature,
    CodeLensFeature,
    RunFeature,
)


class HeredocLanguageServer(DocumentServer):
    def __init__(self) -> None:
        super().__init__(
            "heredoc-lsp",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=HeredocProtocol,
            # The stdin reader shares this pool: never starve it (see the notes on pygls threads).
            max_workers=8,
        )
        self.documents = DocumentStore()
        self.client = ClientProfile()  # replaced at initialize
        self.settings = SettingsManager(self)
        self.analyses = Analyses(self.documents, self.settings)
        self.views = ViewCache(self.documents, self.analyses)  # every incremental view's answers per document
        self.building = Building()  # one prepare at a time per document (server.prepared)
        self.features: tuple[Feature, ...] = (self.settings, *(feature(self) for feature in FEATURES))

    # -- shared state ------------------------------------------------------------------------------------------
    @property
    def position_codec(self) -> PositionCodec:
        return self.workspace.position_codec

    def note_edit(self, doc: Document, edit: LineEdit) -> None:
        """Called by the protocol after a change was applied, before the didChange hooks run."""
        self.analyses.note_edit(doc, edit)

    def each(self, call: Callable[[Feature], T], what: str) -> list[T]:
        """``call`` on every feature in order, and what each returned; a failing feature is logged and skipped."""
        out: list[T] = []
        for feature in self.features:
            try:
                out.append(call(feature))
            except Exception:
                name = type(feature).__name__
                log.exception("error in %s.%s", name, what)
                self.log_to_client(f"internal error in {name}.{what}; see the server log")
        return out

    async def prepared(self, uri: str) -> Snapshot | None:
        """The current snapshot of ``uri`` once every feature has prepared its contributions for it
        (:meth:`Feature.prepare`); a change that arrived while they built is prepared too (cheaply: only the
        changed items are built again)."""
        async with self.building(uri):
            for _ in range(3):
                snap = await self.analyses.latest(uri)
                if snap is None:
                    return None
                for feature in self.features:
                    try:
                        await feature.prepare(snap)
                    except Exception:
                        log.exception("error in %s.prepare", type(feature).__name__)
                if self.analyses.get(uri) is snap:
                    return snap
            return self.analyses.get(uri)

    def config_changed(self) -> None:
        """The effective configuration may have changed: every feature re-checks what it shows."""
        self.each(lambda f: f.config_changed(), "config_changed")

    def diagnostics_changed(self, uri: str) -> None:
        """A feature's diagnostics for ``uri`` changed without an edit (the publisher shows them again)."""
        self.each(lambda f: f.diagnostics_changed(uri), "diagnostics_changed")

    # -- logging -----------------------------------------------------------------------------------------------
    def log_to_client(self, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
        """``window/logMessage`` (never a popup); silently skipped when no client is connected."""
        if self.protocol.writer is None:
            return
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # the client may be gone; the log on stderr is enough
            log.debug("could not send window/logMessage", exc_info=True)

    # -- transport -------------------------------------------------------------------------------------------
    def start_io(self, stdin: Any = None, stdout: Any = None) -> int:
        """Serve over stdio (:func:`heredoc_lsp.lsp.protocol.serve_stdio`) until the client is gone; the exit code."""
        return serve_stdio(self, stdin, stdout)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls' default pops up "Error in server" for every failed notification; log instead.
        if source is FeatureRequestError:
            log.warning("request failed: %s", error)
            return
        log.error("server error (%s): %s", getattr(source, "__name__", source), error)
        self.log_to_client(f"heredoc-lsp internal error: {error}")


class ClientLogHandler(logging.Handler):
    """Forwards our own log records (warnings and errors) to the client as ``window/logMessage``."""

    def __init__(self, server: HeredocLanguageServer, level: int = logging.WARNING) -> None:
        super().__init__(level)
        self._levels = {
            logging.ERROR: types.MessageType.Error,
            logging.WARNING: types.MessageType.Warning,
            logging.INFO: types.MessageType.Info,
        }
        self.server = server
        self._busy = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._busy, "on", False) or self.server.protocol.writer is None:
            return
        self._busy.on = True
        try:
            kind = self._levels.get(record.levelno, types.MessageType.Log)
            if record.levelno >= logging.ERROR:
                kind = types.MessageType.Error
            self.server.window_log_message(types.LogMessageParams(type=kind, message=self.format(record)))
        except Exception:
            pass
        finally:
            self._busy.on = False


def warm_up(server: HeredocLanguageServer) -> None:
    """Pay the one-time costs of the first check (first parse, cattrs converters built on first use) while the
    client is still reading the initialize answer and sending the first document, not after that document arrived."""
    try:
        parse_cli(("x <<EOF", "---A---", "a", "EOF"))
        converter = converter_of(server.protocol)
        position = {"line": 0, "character": 0}
        rng = {"start": position, "end": position}
        converter.structure(
            {"textDocument": {"uri": "file:///w", "languageId": "x", "version": 1, "text": ""}},
            types.DidOpenTextDocumentParams,
        )
        converter.structure(
            {"textDocument": {"uri": "file:///w", "version": 2}, "contentChanges": [{"range": rng, "text": ""}]},
            types.DidChangeTextDocumentParams,
        )
        diagnostic = types.Diagnostic(
            range=types.Range(start=types.Position(0, 0), end=types.Position(0, 0)),
            message="",
            related_information=[
                types.DiagnosticRelatedInformation(
                    location=types.Location(
                        uri="file:///w", range=types.Range(types.Position(0, 0), types.Position(0, 0))
                    ),
                    message="",
                )
            ],
        )
        converter.unstructure(types.PublishDiagnosticsParams(uri="file:///w", diagnostics=[diagnostic], version=1))
    except Exception:  # an optimisation only
        log.debug("warm-up failed", exc_info=True)


def _register_lifecycle(server: HeredocLanguageServer) -> None:
    @server.feature(types.INITIALIZE)
    def on_initialize(params: types.InitializeParams) -> None:
        encoding = server.position_codec.encoding
        chosen = encoding.value if isinstance(encoding, types.PositionEncodingKind) else str(encoding or "utf-16")
        server.client = ClientProfile.of(params.capabilities, chosen)
        server.each(lambda f: f.initialize(params), "initialize")
        # Runs right after the answer is written (the answer is sent when this handler returns).
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_soon(warm_up, server)

    @server.feature(types.INITIALIZED)
    def on_initialized(params: types.InitializedParams) -> None:
        server.each(lambda f: f.initialized(), "initialized")

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(params: types.DidOpenTextDocumentParams) -> None:
        doc = server.documents.get(params.text_document.uri)
        if doc is not None:
            server.each(lambda f: f.opened(doc), "opened")

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def on_change(params: types.DidChangeTextDocumentParams) -> None:
        doc = server.documents.get(params.text_document.uri)
        if doc is not None:
            server.each(lambda f: f.changed(doc), "changed")

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def on_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        server.analyses.forget(uri)
        server.views.forget(uri)
        server.building.forget(uri)
        server.each(lambda f: f.closed(uri), "closed")

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def on_save(params: types.DidSaveTextDocumentParams) -> None:
        server.each(lambda f: f.saved(params.text_document.uri), "saved")

    @server.feature(types.SHUTDOWN)
    def on_shutdown(params: None) -> None:
        server.each(lambda f: f.shutdown(), "shutdown")


def build_server() -> HeredocLanguageServer:
    """A new server with every feature registered."""
    server = HeredocLanguageServer()
    _register_lifecycle(server)
    for feature in server.features:
        feature.register()
    return server
