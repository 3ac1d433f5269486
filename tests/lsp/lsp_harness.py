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

This is the one LSP client of the tests (``tests/lsp/``, ``tests/lsp/nav/``, ``tests/lsp/run/``): one client
class, :func:`client_fixture` (the ``client`` fixture of tests/lsp/conftest.py, in the folder's ``module_root``)
and :func:`session` for a server of a test's own. The client records every diagnostics push (with its version),
applied edit and registration; it answers ``window/showMessageRequest`` from a queue (``client.answers``; ``None``
dismisses) and ``workspace/applyEdit`` from ``client.edit_answers`` (written to disk when
``client.edits_to_disk``), records the questions, the progress (pytest-lsp's ``progress_reports``), shown messages and
``workspace/codeLens/refresh`` requests.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Union

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES

from heredoc_lsp.lsp.documents import split_with_endings, uri_to_path
from heredoc_lsp.lsp.work import WORK_COUNTS

SERVER_COMMAND = [sys.executable, "-m", "heredoc_lsp", "lsp"]
PROFILES: dict[str, str] = {
    "vscode": "visual-studio-code",
    "nvim-0.11": "neovim",
    "nvim-0.10": "neovim@v0.10.0",
    "eglot": "emacs",
}
ENCODINGS = {"vscode": "utf-16", "nvim-0.11": "utf-8", "nvim-0.10": "utf-16", "eglot": "utf-32"}
TIMEOUT = 20.0
RUN = "▶ Run"


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
        self.answers: list[str | None] = []  # answers to window/showMessageRequest, in order (None: dismissed)
        self.edit_answers: list[bool] = []  # answers to workspace/applyEdit, in order (none left: applied)
        self.edits_to_disk = False  # write applied workspace edits to the files, as VS Code does after a preview
        self.questions: list[types.ShowMessageRequestParams] = []
        self.lens_refreshes = 0
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

    def open_file(
        self, text: str, name: str | None = None, suffix: str = ".cli", language_id: str = "cli-script"
    ) -> str:
        """:meth:`open` a document that is also written to disk (runs need a file in the workspace)."""
        path = self.root / (name or f"doc{next(self._names)}{suffix}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return self.open(text, language_id=language_id, name=str(path.relative_to(self.root)))

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

    def replace_all(self, uri: str, text: str) -> int:
        """One whole-document change."""
        return self.change(uri, types.TextDocumentContentChangeWholeDocument(text=text))

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

    async def shown_diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """What the editor shows for ``uri`` now: a fresh pull report, or the last push (without waiting)."""
        if self.pulls:
            return await self.diagnostics_of(uri)
        last = self.last_push(uri)
        return list(last.diagnostics) if last is not None else []

    async def run_diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """The run_failed diagnostics the editor shows for ``uri``."""
        return [d for d in await self.shown_diagnostics(uri) if d.code == "run_failed"]

    def last_push(self, uri: str) -> types.PublishDiagnosticsParams | None:
        return next((p for p in reversed(self.publishes) if p.uri == uri), None)

    # -- requests ----------------------------------------------------------------------------------------------
    async def lenses(self, uri: str) -> list[types.CodeLens]:
        found = await self.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return list(found or [])

    async def lens_titles(self, uri: str) -> list[tuple[int, str]]:
        return [(lens.range.start.line, lens.command.title if lens.command else "") for lens in await self.lenses(uri)]

    async def lens(self, uri: str, line: int, title: str) -> types.CodeLens:
        for lens in await self.lenses(uri):
            if lens.range.start.line == line and lens.command is not None and lens.command.title == title:
                return lens
        raise AssertionError(f"no lens {title!r} on line {line}: {await self.lens_titles(uri)}")

    async def run_lens(self, uri: str, line: int, title: str, answer: str | None = None) -> Any:
        """Execute the command of the lens ``title`` on ``line``, its question answered with ``answer`` (if given)."""
        if answer is not None:
            self.answers.append(answer)
        return await self.execute((await self.lens(uri, line, title)).command)

    async def execute(self, command: types.Command | None, timeout: float = TIMEOUT) -> Any:
        assert command is not None
        return await asyncio.wait_for(
            self.workspace_execute_command_async(
                types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
            ),
            timeout,
        )

    async def actions(
        self,
        uri: str,
        at: int | types.Range,
        only: list[str] | None = None,
        diagnostics: Sequence[types.Diagnostic] = (),
    ) -> list[types.CodeAction]:
        """The code actions at the start of line ``at``, or for the range ``at`` (never a bare Command)."""
        rng = at if isinstance(at, types.Range) else types.Range(start=types.Position(at, 0), end=types.Position(at, 0))
        found = await self.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=rng,
                context=types.CodeActionContext(diagnostics=list(diagnostics), only=only),
            )
        )
        assert all(isinstance(a, types.CodeAction) for a in found or []), found
        return [a for a in found or [] if isinstance(a, types.CodeAction)]

    async def hover_text(self, uri: str, line: int, character: int = 0) -> str | None:
        found = await self.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, character)
            )
        )
        if found is None:
            return None
        contents = found.contents
        assert isinstance(contents, types.MarkupContent)
        return contents.value

    async def work_counts(self) -> dict[str, int]:
        """The server's work counters (``heredoc-lsp/workCounts``, server/heredoc_lsp/lsp/work.py)."""
        result = await self.protocol.send_request_async(WORK_COUNTS, None)
        items = result.items() if isinstance(result, Mapping) else result._asdict().items()  # or a named tuple
        return {str(k): int(v) for k, v in items}

    # -- waiting -----------------------------------------------------------------------------------------------
    async def wait_for(self, predicate: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError("condition not met in time")
            await asyncio.sleep(0.02)

    async def wait_for_value(
        self, fetch: Callable[[], Awaitable[Any]], accept: Callable[[Any], bool], timeout: float = TIMEOUT
    ) -> Any:
        """Call ``fetch`` until ``accept`` likes its value (settings and results arrive asynchronously)."""
        deadline = time.monotonic() + timeout
        while True:
            value = await fetch()
            if accept(value):
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"last value not accepted: {value!r}")
            await asyncio.sleep(0.05)


def _make_client() -> RecordingClient:
    client = RecordingClient()
    features: dict[str, Callable[..., Any]] = dict(DEFAULT_CLIENT_FEATURES)

    def publish(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
        client.record_publish(params)

    def apply_edit(client: RecordingClient, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        client.applied_edits.append(params.edit)
        applied = client.edit_answers.pop(0) if client.edit_answers else True
        if applied and client.edits_to_disk:
            write_edit(params.edit, client.encoding)
        return types.ApplyWorkspaceEditResult(applied=applied)

    def register_capability(client: RecordingClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    def question(client: RecordingClient, params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        client.questions.append(params)
        answer = client.answers.pop(0) if client.answers else None
        return None if answer is None else types.MessageActionItem(title=answer)

    def lens_refresh(client: RecordingClient, params: None) -> None:
        client.lens_refreshes += 1

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    features[types.WORKSPACE_APPLY_EDIT] = apply_edit
    features[types.CLIENT_REGISTER_CAPABILITY] = register_capability
    features[types.WINDOW_SHOW_MESSAGE_REQUEST] = question
    features[types.WORKSPACE_CODE_LENS_REFRESH] = lens_refresh
    for method, fn in features.items():
        client.feature(method)(fn)
    converter = client.protocol._converter

    # lsprotocol's client-side hook reads any object with a "command" key as a Command, so a CodeAction that
    # carries a command would come back as a Command with its dict as the command name.
    def command_or_action(obj: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    converter.register_structure_hook(types.Command | types.CodeAction, command_or_action)
    converter.register_structure_hook(Union[types.Command, types.CodeAction], command_or_action)  # noqa: UP007
    return client


CONFIG = ClientServerConfig(server_command=SERVER_COMMAND, client_factory=_make_client)


@pytest_lsp.fixture(config=CONFIG, scope="module", params=list(PROFILES), name="client")
async def client_fixture(lsp_client: RecordingClient, request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """One server per profile and test module, in the folder's ``module_root``; tests open documents with unique
    names (the fixture ``client``, imported by tests/lsp/conftest.py)."""
    root = request.getfixturevalue("module_root")
    await initialize(lsp_client, request.param, root)
    yield
    await lsp_client.shutdown_session()


def command(name: str, **arg: object) -> types.Command:
    """The command ``heredoc-lsp.NAME`` with the one argument object ``arg``, as a lens or action carries it."""
    return types.Command(title="", command=f"heredoc-lsp.{name}", arguments=[arg])


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
        if server_process(client).returncode is None:  # a test may have ended the server its own way
            await client.shutdown_session()
        done = True
    finally:
        await stop_server(client, graceful=done)


def server_process(client: LanguageClient) -> asyncio.subprocess.Process:
    """The server process of ``client`` (to end it as an editor would: close its input, send it a signal)."""
    server = client._server
    assert server is not None, "the client has no server process"
    return server


async def stop_server(client: LanguageClient, graceful: bool) -> None:
    """Stop the client; after a failed test, end the server by closing its stdin (it must exit on EOF), killing
    it only if it does not."""
    server = server_process(client)
    if not graceful and server.returncode is None:
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


def apply_text_edits(text: str, edits: Sequence[types.TextEdit | types.AnnotatedTextEdit], encoding: str) -> str:
    spans = sorted(
        ((offset_at(text, e.range.start, encoding), offset_at(text, e.range.end, encoding), e.new_text) for e in edits),
        reverse=True,
    )
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


def write_edit(edit: types.WorkspaceEdit, encoding: str) -> None:
    """Apply a workspace edit's ``documentChanges`` to the files on disk, in order (an editor that saves them)."""
    for change in edit.document_changes or []:
        if isinstance(change, types.CreateFile):
            path = Path(uri_to_path(change.uri) or "")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        elif isinstance(change, types.DeleteFile):
            Path(uri_to_path(change.uri) or "").unlink()
        elif isinstance(change, types.TextDocumentEdit):
            path = Path(uri_to_path(change.text_document.uri) or "")
            text = path.read_bytes().decode("utf-8") if path.exists() else ""
            edits = [e for e in change.edits if isinstance(e, (types.TextEdit, types.AnnotatedTextEdit))]
            path.write_bytes(apply_text_edits(text, edits, encoding).encode("utf-8"))


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


async def apply_action(client: RecordingClient, uri: str, text: str, action: types.CodeAction) -> str:
    """Apply a code action's edit as an editor would: compute the new text and send it as a change."""
    new_text = apply_text_edits(text, edits_of(client, action.edit, uri), client.encoding)
    client.change(uri, types.TextDocumentContentChangeWholeDocument(text=new_text))
    return new_text
