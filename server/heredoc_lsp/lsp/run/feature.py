"""The run feature: run targets, lenses, code actions, hover and ``run_failed`` diagnostics of every document, and
the ``workspace/executeCommand`` commands that run them.

Its modules, by role: :mod:`~heredoc_lsp.lsp.run.targets` (run targets per document),
:mod:`~heredoc_lsp.lsp.run.lenses`, :mod:`~heredoc_lsp.lsp.run.actions` and :mod:`~heredoc_lsp.lsp.run.hover`
(the views), :mod:`~heredoc_lsp.lsp.run.commands` (the command handlers), :mod:`~heredoc_lsp.lsp.run.gate`
(trust and confirmation), :mod:`~heredoc_lsp.lsp.run.runner` with :mod:`~heredoc_lsp.lsp.run.execute` and
:mod:`~heredoc_lsp.lsp.run.collector` (one run and its events), :mod:`~heredoc_lsp.lsp.run.progress`,
:mod:`~heredoc_lsp.lsp.run.log` and :mod:`~heredoc_lsp.lsp.run.client` (what the client is told).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lsprotocol import types

from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.commands import AGENT_COMMANDS, ALL_COMMANDS
from heredoc_lsp.lsp.feature import Feature, HoverPart, Server
from heredoc_lsp.lsp.run.actions import RUN_KIND, run_code_actions
from heredoc_lsp.lsp.run.agent import AgentCommands, AppliedReplies
from heredoc_lsp.lsp.run.client import RunClient
from heredoc_lsp.lsp.run.commands import RunCommands
from heredoc_lsp.lsp.run.gate import RunGate
from heredoc_lsp.lsp.run.hover import run_hover_markdown
from heredoc_lsp.lsp.run.lenses import Lenses
from heredoc_lsp.lsp.run.runner import Runner
from heredoc_lsp.lsp.run.targets import RunTargets
from heredoc_lsp.runs.state import RunState
from heredoc_lsp.runs.view import result_diagnostics
from heredoc_lsp.syntax.diagnostics import Diagnostic


class RunFeature(Feature):
    """Run requests, their progress, their results, and the views that read them."""

    def __init__(self, server: Server) -> None:
        super().__init__(server)
        self.state = RunState()
        self.gate = RunGate(server)
        self.client = RunClient(server)
        self.targets = RunTargets(server.views, self.state)
        self.applied = AppliedReplies()
        self.lenses = Lenses(
            server.views, lambda: server.position_codec, self.targets, self.state, self.gate, self.applied
        )
        self.commands = RunCommands(server, self.gate, Runner(server, self.targets, self.client), self.client)
        self.agent = AgentCommands(self.commands)

    # -- contributions -----------------------------------------------------------------------------------------
    async def prepare(self, snap: Snapshot) -> None:
        """A script's first run targets and lenses are built in slices (50k of each in a 100k-line script)."""
        await self.targets.prepare(snap)
        if self.server.documents.get(snap.uri) is not None:
            await self.lenses.prepare(snap)

    def diagnostics(self, snap: Snapshot) -> list[Diagnostic]:
        """Information diagnostics (``run_failed``) for the failed commands of the document's current text."""
        return result_diagnostics(self.targets.results(snap))

    def code_action_kinds(self) -> Sequence[str]:
        return (RUN_KIND,)

    def code_actions(self, params: types.CodeActionParams, snap: Snapshot) -> list[types.CodeAction]:
        return run_code_actions(self.gate, self.targets, snap, params)

    def hover(self, snap: Snapshot, position: types.Position) -> str | HoverPart | None:
        return run_hover_markdown(self.targets, snap, position)

    def code_lenses(self, snap: Snapshot) -> str:
        return self.lenses.get(snap)

    def resolve_code_lens(self, lens: types.CodeLens) -> str | None:
        data = lens.data
        if not isinstance(data, list) or len(data) != 4 or not all(isinstance(x, int) for x in data):
            return None
        number, version, line, k = data
        return self.lenses.resolve(number, version, line, k)

    # -- wiring ------------------------------------------------------------------------------------------------
    def register(self) -> None:
        for name in ALL_COMMANDS:
            self.server.command(name)(self._handler(name))

    def _handler(self, name: str) -> Callable[..., Any]:
        async def handler(*args: Any) -> Any:
            if name in AGENT_COMMANDS:
                return await self.agent.execute(name, list(args))
            return await self.commands.execute(name, list(args))

        handler.__name__ = f"command_{name.rsplit('.', 1)[-1]}"
        return handler

    def shutdown(self) -> None:
        # Runs end with the server: their process trees are killed by the executor's cancel. The run requests are
        # answered (cancelled) here, before pygls' own shutdown cancels pending requests: its loop over them
        # breaks when a cancelled executeCommand removes itself from the dict it iterates (pygls 2.1.1).
        self.client.closing = True
        for run in list(self.state.active.values()):
            run.control.cancel("the language server is shutting down")
        for future in list(self.commands.requests):
            if not future.done():
                future.cancel()
        self.commands.requests.clear()

    def closed(self, uri: str) -> None:
        self.targets.forget(uri)
        self.lenses.forget(uri)
        self.applied.forget(uri)
        self.state.forget(uri)
