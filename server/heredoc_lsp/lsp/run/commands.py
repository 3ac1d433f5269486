"""Running from the editor: the ``workspace/executeCommand`` commands behind every run lens and action.

The commands are answered by :class:`RunCommands`; a run that goes ahead is
:class:`~heredoc_lsp.lsp.run.runner.Runner`'s.

The commands, their one argument (an object) and their answers are listed in docs/running.md ("Commands").

A run request is refused (a ``window/showMessage`` warning and the result ``{"status": "refused", "message"}``)
when the workspace is untrusted, the document is not open, ``version`` is not the document's current version (a
lens or action from an older text), the target has errors, or the same target is already running. Otherwise the
server asks for confirmation (``executor.confirm``), re-checks the version, and runs through the executor with a
cancellable work-done progress; the request's answer comes when the run has ended:
``{"status": "completed" | "failed" | "cancelled" | "declined", "runId", "summary", "results", "log"}``.
Cancelling the request (``$/cancelRequest``) cancels the run too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from heredoc_lsp.analysis.core import document_workspace
from heredoc_lsp.executor.agent import AGENT_DIRS, AgentPaths
from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.editor_loop import agent_root
from heredoc_lsp.executor.files import FileOpError, Workspace
from heredoc_lsp.executor.undo import UndoError, undo_last
from heredoc_lsp.languages import Language
from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.commands import (
    APPLY_REPLY,
    CANCEL_RUN,
    RUN_BLOCK,
    RUN_COMMAND,
    RUN_SCRIPT,
    SHOW_RUN_OUTPUT,
    UNDO_REPLY,
)
from heredoc_lsp.lsp.documents import Document, DocumentStore, uri_to_path
from heredoc_lsp.lsp.feature import Server
from heredoc_lsp.lsp.protocol import request_future
from heredoc_lsp.lsp.run.client import RunClient
from heredoc_lsp.lsp.run.gate import UNTRUSTED_MESSAGE, RunGate
from heredoc_lsp.lsp.run.runner import Runner
from heredoc_lsp.runs.state import ActiveRun
from heredoc_lsp.runs.targets import RunTarget

log = logging.getLogger(__name__)


class Refused(Exception):
    """A run request that cannot go ahead; the message is shown to the user."""


@dataclass(frozen=True, slots=True)
class RunArgs:
    uri: str
    version: int | None
    line: int | None


def parse_args(command: str, args: Sequence[Any], need_line: bool) -> RunArgs:
    shape = '{"uri": ..., "version": ..., "line": ...}' if need_line else '{"uri": ..., "version": ...}'
    if len(args) != 1 or not isinstance(args[0], Mapping):
        raise Refused(f"{command} expects one argument {shape}")
    arg = args[0]
    uri, version, line = arg.get("uri"), arg.get("version"), arg.get("line")
    if not isinstance(uri, str) or not uri:
        raise Refused(f"{command}: 'uri' must be the document URI")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise Refused(f"{command}: 'version' must be the document version (an integer)")
    if need_line and (not isinstance(line, int) or isinstance(line, bool) or line < 0):
        raise Refused(f"{command}: 'line' must be a 0-based line number")
    return RunArgs(uri, version, line if need_line else None)


class RunCommands:
    """The run commands: checks (trust, version, target), confirmation, then the run."""

    def __init__(self, server: Server, gate: RunGate, runner: Runner, client: RunClient) -> None:
        self.server = server
        self.gate = gate
        self.runner = runner
        self.state = runner.state
        self.client = client
        self.requests: set[Any] = set()  # the futures of run requests in progress (pygls keeps them by id)

    async def execute(self, name: str, args: list[Any]) -> dict[str, Any]:
        try:
            if name == CANCEL_RUN:
                return self.cancel(args)
            if name == SHOW_RUN_OUTPUT:
                return await self.show_output(args)
            if name == UNDO_REPLY:
                return await self.undo(args)
            return await self.run(name, args)
        except Refused as exc:
            message = str(exc)
            log.info("run refused: %s", message)
            self.client.show(types.MessageType.Warning, message)
            return {"status": "refused", "message": message}

    def cancel(self, args: list[Any]) -> dict[str, Any]:
        arg = args[0] if len(args) == 1 and isinstance(args[0], Mapping) else None
        if arg is None:
            raise Refused(f'{CANCEL_RUN} expects one argument {{"runId": ...}} or {{"uri": ...}}')
        runs: list[ActiveRun] = []
        if isinstance(arg.get("runId"), str):
            run = self.state.active.get(arg["runId"])
            runs = [run] if run is not None else []
        elif isinstance(arg.get("uri"), str):
            runs = self.state.runs_of(arg["uri"])
        for run in runs:
            run.control.cancel("cancelled from the editor")
        return {"status": "cancelling" if runs else "idle", "runIds": [r.run_id for r in runs]}

    async def show_output(self, args: list[Any]) -> dict[str, Any]:
        arg = args[0] if len(args) == 1 and isinstance(args[0], Mapping) else None
        if arg is None:
            raise Refused(f'{SHOW_RUN_OUTPUT} expects one argument {{"runId": ...}} or {{"uri": ...}}')
        path: Path | None = None
        file = arg.get("file")
        if isinstance(file, str) and isinstance(arg.get("runId"), str):
            # A file a reply's command created, edited or read: only those the run reported are opened.
            if Path(file) not in self.runner.files.get(arg["runId"], set()):
                raise Refused(f"heredoc-lsp: {file} is not a file of that run")
            await self.client.show_document(Path(file))
            return {"status": "shown", "file": file}
        if isinstance(arg.get("runId"), str):
            path = self.runner.logs.get(arg["runId"])
        elif isinstance(arg.get("uri"), str):
            path = self.state.last_log.get(DocumentStore.key(arg["uri"]))
        if path is None:
            raise Refused("heredoc-lsp: no run output to show yet")
        await self.client.show_document(path)
        return {"status": "shown", "log": str(path)}

    async def undo(self, args: list[Any]) -> dict[str, Any]:
        """``undoReply {"uri"}``: put back what the last reply applied in the document's workspace changed (as
        ``heredoc-lsp undo``); the restored files are named in a message and in the result, the first one shown.
        ``uri``: an open inbox reply, or any file or folder of an agent workspace."""
        if not self.gate.trusted():
            raise Refused(UNTRUSTED_MESSAGE)
        arg = args[0] if len(args) == 1 and isinstance(args[0], Mapping) else {}
        doc = self.server.documents.get(str(arg.get("uri", "")))
        snap = self.server.analyses.get(doc.uri) if doc is not None else None
        if doc is not None and snap is not None and snap.language is Language.INBOX:
            root = self._workspace(doc, snap)
        else:
            path = uri_to_path(str(arg.get("uri", "")))
            folder = self.server.settings.workspace_root_for(path)
            found = None if path is None else agent_root(Path(path), folder)
            if found is None:
                raise Refused('heredoc-lsp: undoReply needs {"uri"} of an inbox reply or a file of an agent workspace')
            root = found
        try:
            ws = Workspace(root, protected=AGENT_DIRS if AgentPaths(root).is_agent_root() else ())
            report = await asyncio.to_thread(undo_last, ws)
        except (FileOpError, UndoError) as exc:
            raise Refused(f"heredoc-lsp: {exc}") from None
        lines = report.lines()
        self.client.show(types.MessageType.Info if report.ok else types.MessageType.Warning, "\n".join(lines))
        if report.restored:
            self.client.spawn(self.client.show_document(root / report.restored[0]))
        status = "nothing" if report.entry is None else ("undone" if report.ok else "partly undone")
        return {"status": status, "message": "\n".join(lines), **report.to_json()}

    async def run(self, name: str, raw: list[Any]) -> dict[str, Any]:
        need_line = name in (RUN_COMMAND, RUN_BLOCK)
        args = parse_args(name, raw, need_line)
        if not self.gate.trusted():
            raise Refused(UNTRUSTED_MESSAGE)
        doc, snap = self._current(args)
        target = self._target_for(name, snap, args)
        running = self.state.running(doc.uri, target.key)
        if running is not None:
            raise Refused(f"heredoc-lsp: '{target.label}' is already running; cancel it first")
        workspace = self._workspace(doc, snap)
        where = doc.path.rsplit("/", 1)[-1] if doc.path else doc.uri
        question = self._question(target, where, workspace, snap)
        control = RunControl()
        request = self._watch_request(control)
        try:
            if not await self.gate.confirm(doc.uri, snap.config.executor.confirm, question):
                return {"status": "declined", "message": "not run: the confirmation was declined"}
            # The text may have changed while the question was open: run only what the user saw.
            doc, snap = self._current(args)
            target = self._target_for(name, snap, args)
            return await self.runner.start(doc, snap, target, workspace, control)
        finally:
            if request is not None:
                self.requests.discard(request)

    # -- checks --------------------------------------------------------------------------------------------------
    def _current(self, args: RunArgs) -> tuple[Document, Snapshot]:
        doc = self.server.documents.get(args.uri)
        if doc is None:
            raise Refused(f"heredoc-lsp: {args.uri} is not open in the editor")
        if args.version is None:
            raise Refused("heredoc-lsp: the run request names no document version; run it from a current lens")
        if doc.version != args.version:
            raise Refused(
                f"heredoc-lsp: the document changed since this was offered (version {args.version}, now "
                f"{doc.version}); nothing was run. Run it again from the updated lens or action."
            )
        snap = self.server.analyses.get(doc.uri)
        if snap is None:
            raise Refused(f"heredoc-lsp: {args.uri} is not a .cli script or an inbox reply")
        return doc, snap

    def _target_for(self, name: str, snap: Snapshot, args: RunArgs) -> RunTarget:
        targets = self.runner.targets(snap)
        wanted = {
            RUN_COMMAND: (Language.CLI, "command"),
            RUN_SCRIPT: (Language.CLI, "script"),
            APPLY_REPLY: (Language.INBOX, "reply"),
            RUN_BLOCK: (Language.INBOX, "block"),
        }[name]
        if snap.language is not wanted[0]:
            kind = "a .cli script" if wanted[0] is Language.CLI else "an inbox reply"
            raise Refused(f"heredoc-lsp: {name} works on {kind}, not on this document")
        found = next(
            (t for t in targets if t.kind == wanted[1] and (args.line is None or t.line == args.line)),
            None,
        )
        if found is None:
            what = "command" if wanted[1] == "command" else "[RUN_COMMAND] block"
            raise Refused(f"heredoc-lsp: no {what} starts at line {(args.line or 0) + 1}")
        if wanted[1] == "block" and not found.command and found.problem is None:
            raise Refused(f"heredoc-lsp: line {found.line + 1} is not a [RUN_COMMAND] block")
        if not found.runnable:
            raise Refused(f"heredoc-lsp: nothing was run. {found.problem or 'This cannot be run.'}")
        return found

    def _workspace(self, doc: Document, snap: Snapshot) -> Path:
        settings = self.server.settings
        found = document_workspace(
            Path(doc.path) if doc.path else None, snap.language, folder=settings.workspace_root_for(doc.path)
        )
        if found is not None:
            return found
        roots = settings.workspace_roots()
        if len(roots) == 1:
            return roots[0]
        raise Refused("heredoc-lsp: save the document first (an untitled document has no workspace to run in)")

    def _question(self, target: RunTarget, where: str, workspace: Path, snap: Snapshot) -> str:
        sandbox = snap.config.executor.sandbox
        if target.kind == "command":
            what = f"Run '{target.label}' from {where}"
        elif target.kind == "script":
            what = f"Run all {target.label} of {where}"
        elif target.kind == "reply":
            what = f"Apply the reply {where} ({target.label}: files may be created, edited or deleted)"
        else:
            what = f"Run '{target.label}' from the reply {where}"
        return f"{what} in {workspace} (sandbox: {sandbox})?"

    def _watch_request(self, control: RunControl) -> Any:
        """Cancel the run when the client cancels the executeCommand request (``$/cancelRequest``).

        pygls answers a cancelled ``workspace/executeCommand`` itself but leaves the command's task running, so
        watch the request's future (pygls keeps it under the request id, which is in the handler's context).
        Returns that future (None when it cannot be found).
        """
        protocol = self.server.protocol
        future = request_future(protocol, protocol.msg_id)
        if future is None:
            return None

        def done(fut: Any) -> None:
            if fut.cancelled():
                control.cancel("the run request was cancelled")

        future.add_done_callback(done)
        self.requests.add(future)
        return future
