"""pytest-lsp harness for running from the editor: the real server over stdio, recorded client profiles.

The client answers ``window/showMessageRequest`` from a queue (``client.answers``; ``None`` dismisses), records
the questions, the progress (pytest-lsp's ``progress_reports``), shown documents and messages, every diagnostics
push, and ``workspace/codeLens/refresh`` requests.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Union

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
TIMEOUT = 20.0
RUN = "▶ Run"
ALL_COMMANDS = [
    "heredoc-lsp.runCommand",
    "heredoc-lsp.runScript",
    "heredoc-lsp.applyReply",
    "heredoc-lsp.runBlock",
    "heredoc-lsp.cancelRun",
    "heredoc-lsp.showRunOutput",
    "heredoc-lsp.undoReply",
]


class RunClient(LanguageClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.profile = ""
        self.root = Path()
        self.init_result: types.InitializeResult | None = None
        self.answers: list[str | None] = []
        self.questions: list[types.ShowMessageRequestParams] = []
        self.publishes: list[types.PublishDiagnosticsParams] = []
        self.lens_refreshes = 0
        self.versions: dict[str, int] = {}
        self._names = itertools.count(1)

    # -- documents ---------------------------------------------------------------------------------------------
    def open(self, text: str, name: str | None = None, suffix: str = ".cli", language_id: str = "cli-script") -> str:
        path = self.root / (name or f"doc{next(self._names)}{suffix}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        self.versions[uri] = 1
        self.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)
            )
        )
        return uri

    def replace_all(self, uri: str, text: str) -> int:
        version = self.versions[uri] + 1
        self.versions[uri] = version
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return version

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

    async def execute(self, command: types.Command | None, timeout: float = TIMEOUT) -> Any:
        assert command is not None
        return await asyncio.wait_for(
            self.workspace_execute_command_async(
                types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
            ),
            timeout,
        )

    async def actions(self, uri: str, line: int, only: list[str] | None = None) -> list[types.CodeAction]:
        rng = types.Range(start=types.Position(line, 0), end=types.Position(line, 0))
        found = await self.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=rng,
                context=types.CodeActionContext(diagnostics=[], only=only),
            )
        )
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

    def pulls(self) -> bool:
        """Whether the server answers this client's diagnostic pulls (then it pushes nothing for our documents)."""
        assert self.init_result is not None
        return self.init_result.capabilities.diagnostic_provider is not None

    async def shown_diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """What the editor shows for ``uri``: a fresh pull report, or the last push."""
        if self.pulls():
            report = await self.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
            assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
            return list(report.items)
        last = self.last_push(uri)
        return list(last.diagnostics) if last is not None else []

    async def run_diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """The run_failed diagnostics the editor shows for ``uri``."""
        return [d for d in await self.shown_diagnostics(uri) if d.code == "run_failed"]

    def last_push(self, uri: str) -> types.PublishDiagnosticsParams | None:
        return next((p for p in reversed(self.publishes) if p.uri == uri), None)

    def progress_tokens(self) -> list[Any]:
        return list(self.progress_reports)


def _make_client() -> RunClient:
    client = RunClient()
    features: dict[str, Callable[..., Any]] = dict(DEFAULT_CLIENT_FEATURES)

    def publish(client: RunClient, params: types.PublishDiagnosticsParams) -> None:
        client.publishes.append(params)
        client.diagnostics[params.uri] = params.diagnostics

    def question(client: RunClient, params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        client.questions.append(params)
        answer = client.answers.pop(0) if client.answers else None
        return None if answer is None else types.MessageActionItem(title=answer)

    def lens_refresh(client: RunClient, params: None) -> None:
        client.lens_refreshes += 1

    def register_capability(client: RunClient, params: types.RegistrationParams) -> None:
        return None

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    features[types.WINDOW_SHOW_MESSAGE_REQUEST] = question
    features[types.WORKSPACE_CODE_LENS_REFRESH] = lens_refresh
    features[types.CLIENT_REGISTER_CAPABILITY] = register_capability
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


async def initialize(client: RunClient, profile: str, root: Path, init_options: Any = None) -> None:
    client.profile = profile
    client.root = root
    client.init_result = await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(PROFILES[profile]),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=init_options,
        )
    )


@asynccontextmanager
async def session(
    profile: str, root: Path, init_options: Any = None, settings: dict[str, Any] | None = None
) -> AsyncIterator[RunClient]:
    """A server of its own (for tests that need particular settings)."""
    client = await CONFIG.start()
    assert isinstance(client, RunClient)
    if settings is not None:
        client.set_configuration(settings)
    try:
        await initialize(client, profile, root, init_options)
        yield client
        await client.shutdown_session()
    finally:
        await client.stop()
