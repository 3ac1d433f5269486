"""pytest-lsp harness: the real server over stdio, driven by recorded client profiles.

Every end-to-end test runs once per client profile:

=============  =========  ==========  ==============================  ==========================
profile        encoding   diagnostics workspace edits                 captured capabilities
=============  =========  ==========  ==============================  ==========================
vscode         UTF-16     push        documentChanges                 VS Code 1.65.2
nvim-0.11      UTF-8      pull        changes                         Neovim 0.11.0
nvim-0.10      UTF-16     pull        changes                         Neovim 0.10.0
eglot          UTF-32     push        documentChanges                 Emacs 29.1 eglot (no pull)
=============  =========  ==========  ==============================  ==========================
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES

SERVER_COMMAND = [sys.executable, "-m", "heredoc_lsp", "lsp"]
PROFILES: dict[str, str] = {
    "vscode": "visual-studio-code",
    "nvim-0.11": "neovim",
    "nvim-0.10": "neovim@v0.10.0",
    "eglot": "emacs",
}
ENCODINGS = {"vscode": "utf-16", "nvim-0.11": "utf-8", "nvim-0.10": "utf-16", "eglot": "utf-32"}
TIMEOUT = 15.0


def units(text: str, encoding: str) -> int:
    """Length of ``text`` in the code units of ``encoding``."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


class RecordingClient(LanguageClient):
    """pytest-lsp's client, recording every publish (with its version), applied edit and registration."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.profile = ""
        self.root = Path()
        self.init_result: types.InitializeResult | None = None
        self.publishes: list[types.PublishDiagnosticsParams] = []
        self.applied_edits: list[types.WorkspaceEdit] = []
        self.registrations: list[types.Registration] = []
        self.versions: dict[str, int] = {}
        self._published = asyncio.Event()
        self._names = itertools.count(1)

    # -- capabilities negotiated ---------------------------------------------------------------------------
    @property
    def encoding(self) -> str:
        assert self.init_result is not None
        enc = self.init_result.capabilities.position_encoding
        return str(enc.value if hasattr(enc, "value") else enc or "utf-16")

    @property
    def pulls(self) -> bool:
        assert self.init_result is not None
        return self.init_result.capabilities.diagnostic_provider is not None

    @property
    def document_changes(self) -> bool:
        assert self.capabilities is not None
        we = self.capabilities.workspace.workspace_edit if self.capabilities.workspace else None
        return bool(we and we.document_changes)

    def col(self, line_text: str, index: int) -> int:
        """Code-point index ``index`` of ``line_text`` in the negotiated encoding."""
        return units(line_text[:index], self.encoding)

    # -- documents ---------------------------------------------------------------------------------------------
    def open(self, text: str, suffix: str = ".cli", language_id: str = "cli-script", name: str | None = None) -> str:
        """Open a new document (a file name unique in this session) and return its URI."""
        path = self.root / (name or f"doc{next(self._names)}{suffix}")
        uri = path.as_uri()
        self.versions[uri] = 1
        self.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)
            )
        )
        return uri

    def change(self, uri: str, *changes: types.TextDocumentContentChangeEvent) -> int:
        version = self.versions[uri] + 1
        self.versions[uri] = version
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=list(changes),
            )
        )
        return version

    def replace(self, uri: str, start: tuple[int, int], end: tuple[int, int], text: str) -> int:
        """One incremental change; positions already in client units."""
        rng = types.Range(start=types.Position(*start), end=types.Position(*end))
        return self.change(uri, types.TextDocumentContentChangePartial(range=rng, text=text))

    def close(self, uri: str) -> None:
        self.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    # -- diagnostics -------------------------------------------------------------------------------------------
    def record_publish(self, params: types.PublishDiagnosticsParams) -> None:
        self.publishes.append(params)
        self.diagnostics[params.uri] = params.diagnostics
        self._published.set()

    async def wait_publish(
        self, uri: str, version: int | None, timeout: float = TIMEOUT, after: int = 0
    ) -> list[types.Diagnostic]:
        """The diagnostics pushed for ``uri`` at ``version`` (any version: None), among the publishes from index
        ``after`` on (waits for them)."""

        async def wait() -> list[types.Diagnostic]:
            while True:
                for p in reversed(self.publishes[after:]):
                    if p.uri == uri and (version is None or p.version == version):
                        return list(p.diagnostics)
                self._published.clear()
                await self._published.wait()

        return await asyncio.wait_for(wait(), timeout)

    async def diagnostics_of(self, uri: str) -> list[types.Diagnostic]:
        """The diagnostics of the document's current version, the way this client gets them."""
        if self.pulls:
            report = await self.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
            assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
            return list(report.items)
        return await self.wait_publish(uri, self.versions[uri])


def _make_client() -> RecordingClient:
    client = RecordingClient()
    features: dict[str, Callable[..., Any]] = dict(DEFAULT_CLIENT_FEATURES)

    def publish(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
        client.record_publish(params)

    def apply_edit(client: RecordingClient, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        client.applied_edits.append(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    def register_capability(client: RecordingClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    features[types.WORKSPACE_APPLY_EDIT] = apply_edit
    features[types.CLIENT_REGISTER_CAPABILITY] = register_capability
    for method, fn in features.items():
        client.feature(method)(fn)
    return client


CONFIG = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=_make_client)


def capabilities_for(profile: str) -> types.ClientCapabilities:
    return client_capabilities(PROFILES[profile])


async def initialize(
    client: RecordingClient,
    profile: str,
    root: Path,
    init_options: Any = None,
    capabilities: types.ClientCapabilities | None = None,
) -> None:
    client.profile = profile
    client.root = root
    caps = capabilities or capabilities_for(profile)
    client.init_result = await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=init_options,
        )
    )


@asynccontextmanager
async def session(
    profile: str,
    root: Path,
    init_options: Any = None,
    capabilities: types.ClientCapabilities | None = None,
    settings: dict[str, Any] | None = None,
) -> AsyncIterator[RecordingClient]:
    """A server of its own (for tests that change settings or the workspace)."""
    client = await CONFIG.start()
    assert isinstance(client, RecordingClient)
    if settings is not None:
        client.set_configuration(settings)
    done = False
    try:
        await initialize(client, profile, root, init_options, capabilities)
        yield client
        await client.shutdown_session()
        done = True
    finally:
        await stop_server(client, graceful=done)


async def stop_server(client: LanguageClient, graceful: bool) -> None:
    """Stop the client; after a failed test, end the server by closing its stdin (it must exit on EOF), killing
    it only if it does not."""
    server = client._server
    if not graceful and server is not None and server.returncode is None:
        if server.stdin is not None:
            server.stdin.close()
        try:
            await asyncio.wait_for(server.wait(), 10)
        except asyncio.TimeoutError:
            server.kill()
    await client.stop()


def expect_range(client: RecordingClient, lines: Sequence[str], line: int, start: int, end: int) -> types.Range:
    """The LSP range of code points ``[start, end)`` on ``line`` in the client's encoding."""
    text = lines[line] if line < len(lines) else ""
    return types.Range(
        start=types.Position(line=line, character=client.col(text, start)),
        end=types.Position(line=line, character=client.col(text, end)),
    )


def offset_at(text: str, position: types.Position, encoding: str) -> int:
    """Code-point offset of an LSP position in ``text`` (LSP line model; past the end clamps)."""
    from heredoc_lsp.lsp.documents import split_with_endings

    lines, endings = split_with_endings(text)
    off = 0
    for i in range(min(position.line, len(lines))):
        off += len(lines[i]) + len(endings[i])
    if position.line < len(lines):
        line = lines[position.line]
        k = 0
        while k < len(line) and units(line[: k + 1], encoding) <= position.character:
            k += 1
        off += k
    return off


def apply_text_edits(text: str, edits: Sequence[types.TextEdit], encoding: str) -> str:
    spans = sorted(
        ((offset_at(text, e.range.start, encoding), offset_at(text, e.range.end, encoding), e.new_text) for e in edits),
        reverse=True,
    )
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


def edits_of(client: RecordingClient, edit: types.WorkspaceEdit | None, uri: str) -> list[types.TextEdit]:
    """The text edits a workspace edit makes to ``uri``, checking it uses the form the client supports."""
    assert edit is not None
    if client.document_changes:
        assert edit.changes is None and edit.document_changes is not None
        out: list[types.TextEdit] = []
        for dc in edit.document_changes:
            assert isinstance(dc, types.TextDocumentEdit)
            assert dc.text_document.uri == uri and dc.text_document.version == client.versions[uri]
            out.extend(e for e in dc.edits if isinstance(e, types.TextEdit))
        return out
    assert edit.document_changes is None and edit.changes is not None
    return list(edit.changes[uri])


async def code_actions(client: RecordingClient, uri: str, rng: types.Range) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def apply_action(client: RecordingClient, uri: str, text: str, action: types.CodeAction) -> str:
    """Apply a code action's edit as an editor would: compute the new text and send it as a change."""
    new_text = apply_text_edits(text, edits_of(client, action.edit, uri), client.encoding)
    client.change(uri, types.TextDocumentContentChangeWholeDocument(text=new_text))
    return new_text
