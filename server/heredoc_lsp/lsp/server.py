"""The language server: one pygls ``LanguageServer`` with our document store, and one module per LSP feature.

Extending it: write ``heredoc_lsp/lsp/<feature>.py`` with ``register(server: HeredocLanguageServer) -> None`` that
decorates its handlers with ``@server.feature(...)`` (wrap them in :func:`guarded` so a bug logs instead of
failing), and add the module to :data:`FEATURES`. Read documents and analyses through the server:

- ``server.documents.get(uri)`` -> :class:`~heredoc_lsp.lsp.documents.Document` (lines, version, language);
- ``server.analyses.get(uri)`` -> :class:`~heredoc_lsp.lsp.analysis.Snapshot`: the parse and final diagnostics of
  the document's current version, computed once per version and shared by every feature;
- ``server.position_codec`` with :mod:`heredoc_lsp.lsp.positions` for every position that crosses the wire.

pygls allows one handler per LSP method, so the lifecycle notifications (initialize, initialized, didOpen,
didChange, didClose, didSave, shutdown) are registered here once and fanned out through :class:`Hooks`; a feature
module appends its callbacks to ``server.hooks.<event>`` instead of registering those methods itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer
from pygls.workspace import PositionCodec

from heredoc_lsp import __version__
from heredoc_lsp.lsp import (
    code_actions,
    code_lens,
    completion,
    diagnostics,
    folding,
    formatting,
    highlight,
    hover,
    links,
    rename,
    run_commands,
    semantic_tokens,
    symbols,
    work,
)
from heredoc_lsp.lsp.analysis import Analyses
from heredoc_lsp.lsp.documents import Document, DocumentStore, LineEdit
from heredoc_lsp.lsp.protocol import HeredocProtocol, converter_of, serve_stdio
from heredoc_lsp.lsp.settings import SettingsManager

if TYPE_CHECKING:
    from heredoc_lsp.lsp.code_actions import CodeActions
    from heredoc_lsp.lsp.diagnostics import DiagnosticsFeature

log = logging.getLogger("heredoc_lsp.lsp")


@dataclass
class Hooks:
    """Callbacks run by the lifecycle handlers, in registration order; one failing callback never stops the rest."""

    initialize: list[Callable[[types.InitializeParams], None]] = field(default_factory=list)
    initialized: list[Callable[[], None]] = field(default_factory=list)
    opened: list[Callable[[Document], None]] = field(default_factory=list)
    changed: list[Callable[[Document], None]] = field(default_factory=list)
    closed: list[Callable[[str], None]] = field(default_factory=list)
    saved: list[Callable[[str], None]] = field(default_factory=list)
    # The effective configuration may have changed (settings, heredoc-lsp.toml): open documents need a re-check.
    config_changed: list[Callable[[], None]] = field(default_factory=list)
    shutdown: list[Callable[[], None]] = field(default_factory=list)


class HeredocLanguageServer(LanguageServer):
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
        self.hooks = Hooks()
        self.settings = SettingsManager(self)
        self.analyses = Analyses(self)
        self.diagnostics_feature: DiagnosticsFeature | None = None  # set by heredoc_lsp.lsp.diagnostics
        self.code_actions: CodeActions | None = None  # set by heredoc_lsp.lsp.code_actions (add_provider)

    # -- shared state ------------------------------------------------------------------------------------------
    @property
    def position_codec(self) -> PositionCodec:
        return self.workspace.position_codec

    def note_edit(self, doc: Document, edit: LineEdit) -> None:
        """Called by the protocol after a change was applied, before the didChange hooks run."""
        self.analyses.note_edit(doc, edit)

    def run_hooks(self, hooks: list[Callable[..., None]], *args: Any) -> None:
        for hook in list(hooks):
            try:
                hook(*args)
            except Exception:
                log.exception("error in %s", getattr(hook, "__qualname__", hook))
                self.log_to_client(f"internal error in {getattr(hook, '__qualname__', hook)}; see the server log")

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
    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve over stdio (:func:`heredoc_lsp.lsp.protocol.serve_stdio`)."""
        serve_stdio(self, stdin, stdout)

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
    """Pay the one-time costs of the first check (imports, cattrs converters built on first use) while the client
    is still reading the initialize answer and sending the first document, not after that document arrived."""
    try:
        from heredoc_lsp.lsp import analysis as _analysis
        from heredoc_lsp.lsp import incremental as _incremental
        from heredoc_lsp.syntax.cli import parse_cli

        del _analysis, _incremental
        import heredoc_lsp.analysis.core
        import heredoc_lsp.analysis.suppress
        import heredoc_lsp.fixes  # noqa: F401

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
    hooks = server.hooks

    @server.feature(types.INITIALIZE)
    def on_initialize(params: types.InitializeParams) -> None:
        server.run_hooks(hooks.initialize, params)
        # Runs right after the answer is written (the answer is sent when this handler returns).
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_soon(warm_up, server)

    @server.feature(types.INITIALIZED)
    def on_initialized(params: types.InitializedParams) -> None:
        server.run_hooks(hooks.initialized)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(params: types.DidOpenTextDocumentParams) -> None:
        doc = server.documents.get(params.text_document.uri)
        if doc is not None:
            server.run_hooks(hooks.opened, doc)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def on_change(params: types.DidChangeTextDocumentParams) -> None:
        doc = server.documents.get(params.text_document.uri)
        if doc is not None:
            server.run_hooks(hooks.changed, doc)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def on_close(params: types.DidCloseTextDocumentParams) -> None:
        server.analyses.forget(params.text_document.uri)
        server.run_hooks(hooks.closed, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def on_save(params: types.DidSaveTextDocumentParams) -> None:
        server.run_hooks(hooks.saved, params.text_document.uri)

    @server.feature(types.SHUTDOWN)
    def on_shutdown(params: None) -> None:
        server.run_hooks(hooks.shutdown)


def build_server() -> HeredocLanguageServer:
    """A new server with every feature registered."""
    server = HeredocLanguageServer()
    _register_lifecycle(server)
    server.settings.register()
    for feature in FEATURES:
        feature.register(server)
    return server


class Feature(Protocol):
    """A feature module: it registers its handlers and lifecycle hooks on the server."""

    def register(self, server: HeredocLanguageServer) -> None: ...


# Every feature, in registration order (order matters only for hooks). A feature that cannot be imported or
# registered fails the server's start-up and the tests: nothing is skipped silently.
FEATURES: tuple[Feature, ...] = (
    diagnostics,
    code_actions,
    work,
    symbols,
    folding,
    hover,
    completion,
    semantic_tokens,
    links,
    rename,
    formatting,
    highlight,
    code_lens,
    run_commands,
)
