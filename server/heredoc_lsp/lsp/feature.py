"""The contract of a language feature: one :class:`Feature` subclass per LSP method or feature.

A feature sees the server through :class:`Server`, the narrow interface of what a feature may use (documents,
analyses, the view cache, the client profile, settings, the position codec, the fan-out over features, the client
requests and notifications it sends); only :mod:`heredoc_lsp.lsp.server` knows the concrete server and every feature.

A feature is constructed with the server, declares its LSP handlers in :meth:`Feature.register`, hears the
document lifecycle through the no-op methods it overrides, and contributes to other features through plain methods
with empty defaults: diagnostics for a document or another file (published by the one publisher,
:mod:`heredoc_lsp.lsp.diagnostics`), code actions for a range (:mod:`heredoc_lsp.lsp.code_actions`), hover parts
for a position (:mod:`heredoc_lsp.lsp.hover`) and code lenses (:mod:`heredoc_lsp.lsp.code_lens`). The server calls
them over ``server.features``, in the order of :data:`heredoc_lsp.lsp.server.FEATURES`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from lsprotocol import types
from pygls.progress import Progress
from pygls.protocol import LanguageServerProtocol
from pygls.workspace import PositionCodec, Workspace

from heredoc_lsp.lsp.analysis import Analyses, ConfigSource, Snapshot
from heredoc_lsp.lsp.client import ClientProfile
from heredoc_lsp.lsp.documents import Document, DocumentStore
from heredoc_lsp.lsp.splice import ViewCache
from heredoc_lsp.syntax.diagnostics import Diagnostic, Span

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class HoverPart:
    """Markdown for a hover, and the code-point span it is about (the hover's range)."""

    markdown: str
    span: Span | None = None


class Settings(ConfigSource, Protocol):
    """What features read of the settings (:class:`heredoc_lsp.lsp.settings.SettingsManager`)."""

    @property
    def init_options(self) -> Mapping[str, Any]: ...
    @property
    def client_settings(self) -> Mapping[str, Any]: ...
    @property
    def diagnostic_mode(self) -> str: ...
    @property
    def ready(self) -> bool: ...
    def when_ready(self, callback: Any) -> None: ...
    async def wait_ready(self) -> None: ...
    def workspace_roots(self) -> list[Path]: ...


class Server(Protocol):
    """What a feature may use of the language server; :class:`heredoc_lsp.lsp.server.HeredocLanguageServer` is
    the one implementation (pygls' client requests keep pygls' signatures)."""

    @property
    def documents(self) -> DocumentStore: ...
    @property
    def analyses(self) -> Analyses: ...
    @property
    def views(self) -> ViewCache: ...
    @property
    def client(self) -> ClientProfile: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def position_codec(self) -> PositionCodec: ...
    @property
    def protocol(self) -> LanguageServerProtocol: ...
    @property
    def workspace(self) -> Workspace: ...
    @property
    def work_done_progress(self) -> Progress: ...

    # -- our own -------------------------------------------------------------------------------------------------
    def each(self, call: Callable[[Feature], T], what: str) -> list[T]: ...
    async def prepared(self, uri: str) -> Snapshot | None: ...
    def config_changed(self) -> None: ...
    def diagnostics_changed(self, uri: str) -> None: ...
    def log_to_client(self, message: str, kind: types.MessageType = types.MessageType.Error) -> None: ...

    # -- pygls: handlers, notifications and requests to the client -----------------------------------------------
    def feature(self, feature_name: str, options: Any | None = None) -> Callable[[F], F]: ...
    def command(self, command_name: str) -> Callable[[F], F]: ...
    def text_document_publish_diagnostics(self, params: types.PublishDiagnosticsParams) -> None: ...
    def window_show_message(self, params: types.ShowMessageParams) -> None: ...
    async def window_show_message_request_async(
        self, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None: ...
    async def window_show_document_async(self, params: types.ShowDocumentParams) -> types.ShowDocumentResult: ...
    async def workspace_code_lens_refresh_async(self, params: None) -> None: ...
    async def workspace_apply_edit_async(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult: ...
    def workspace_semantic_tokens_refresh(
        self, params: None, callback: Callable[[None], None] | None = None
    ) -> Future[None]: ...
    def workspace_diagnostic_refresh(
        self, params: None, callback: Callable[[None], None] | None = None
    ) -> Future[None]: ...
    async def workspace_configuration_async(self, params: types.ConfigurationParams) -> Sequence[Any | None]: ...
    async def client_register_capability_async(self, params: types.RegistrationParams) -> None: ...


class Feature:
    """A language feature; every method is a no-op or an empty contribution until a subclass overrides it."""

    def __init__(self, server: Server) -> None:
        self.server = server

    def register(self) -> None:
        """Declare the feature's LSP handlers (``self.server.feature(...)``), before ``initialize``."""

    # -- lifecycle (pygls allows one handler per method: the server fans these out) -----------------------------
    def initialize(self, params: types.InitializeParams) -> None:
        """``initialize``: ``self.server.client`` is set; handlers may still be registered."""

    def initialized(self) -> None:
        """``initialized``."""

    def opened(self, doc: Document) -> None:
        """``didOpen``: ``doc`` is in the store."""

    def changed(self, doc: Document) -> None:
        """``didChange``: the edit was applied to ``doc``."""

    def closed(self, uri: str) -> None:
        """``didClose``: forget what is kept for ``uri``."""

    def saved(self, uri: str) -> None:
        """``didSave``."""

    def config_changed(self) -> None:
        """The effective configuration may have changed (settings, heredoc-lsp.toml): open documents need a re-check."""

    def diagnostics_changed(self, uri: str) -> None:
        """A feature's :meth:`diagnostics` for ``uri`` changed without an edit (e.g. a run ended)."""

    def shutdown(self) -> None:
        """``shutdown``."""

    # -- contributions ------------------------------------------------------------------------------------------
    async def prepare(self, snap: Snapshot) -> None:
        """Bring what this feature's contributions read up to date for ``snap``, yielding to the event loop while
        it builds (the first answer for a 100k-line script); the contributions below then find it built."""

    def diagnostics(self, snap: Snapshot) -> Sequence[Diagnostic]:
        """Diagnostics of this feature for the snapshot, published with the syntax ones (push and pull)."""
        return ()

    def file_diagnostics(self, uri: str) -> list[types.Diagnostic] | None:
        """Diagnostics of a file that is no analysed document (a configuration file, open in the editor or not), or
        None when this feature has none for it; published by the same publisher."""
        return None

    def code_action_kinds(self) -> Sequence[str]:
        """The code action kinds :meth:`code_actions` returns (advertised at ``initialize``)."""
        return ()

    def code_actions(
        self, params: types.CodeActionParams, snap: Snapshot
    ) -> Sequence[types.CodeAction | types.Command]:
        """Code actions for the range of ``params``."""
        return ()

    def hover(self, snap: Snapshot, position: types.Position) -> str | HoverPart | None:
        """A hover part for ``position`` (in the client's encoding), or None."""
        return None

    def code_lenses(self, snap: Snapshot) -> str | None:
        """Code lenses as one JSON array text, or None."""
        return None

    def resolve_code_lens(self, lens: types.CodeLens) -> str | None:
        """The JSON text of ``lens`` with its command when this feature made it, else None."""
        return None
