"""Running from the editor: the ``workspace/executeCommand`` commands behind every run lens and action.

Commands (all listed in ``executeCommandProvider.commands``; each takes ONE argument, an object):

=============================  ===========================================  ==========================================
command                        argument                                     does
=============================  ===========================================  ==========================================
``heredoc-lsp.runCommand``     ``{"uri", "version", "line"}``               run the ``.cli`` command whose line is
                                                                            ``line`` (0-based, the opener line)
``heredoc-lsp.runScript``      ``{"uri", "version"}``                       run every command of the script
``heredoc-lsp.applyReply``     ``{"uri", "version"}``                       apply the inbox reply (agent session:
                                                                            results stored, next outbox opened)
``heredoc-lsp.runBlock``       ``{"uri", "version", "line"}``               run one ``[RUN_COMMAND]`` block of a
                                                                            reply (its opener line), no session
``heredoc-lsp.cancelRun``      ``{"runId"}`` or ``{"uri"}``                 cancel one run / every run of a document
``heredoc-lsp.showRunOutput``  ``{"runId"}`` or ``{"uri"}``                 open the run's full log
``heredoc-lsp.undoReply``      ``{"uri"}`` of an inbox reply                undo the last applied reply of its
                                                                            workspace (as ``heredoc-lsp undo``)
=============================  ===========================================  ==========================================

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
import threading
import time
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from heredoc_lsp.executor.agent import AGENT_DIRS, AgentPaths
from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.events import ARTIFACT, PROGRESS, QUESTION, RunEvent, new_id
from heredoc_lsp.executor.files import FileOpError, Workspace
from heredoc_lsp.executor.model import RunOutcome, StepResult
from heredoc_lsp.executor.sandbox import UNISOLATED_NOTE
from heredoc_lsp.executor.undo import UndoError, undo_last
from heredoc_lsp.languages import Language
from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.code_lens import LensCache, resolve_lens
from heredoc_lsp.lsp.commands import (
    ALL_COMMANDS,
    APPLY_REPLY,
    CANCEL_RUN,
    RUN_BLOCK,
    RUN_COMMAND,
    RUN_SCRIPT,
    SHOW_RUN_OUTPUT,
    UNDO_REPLY,
)
from heredoc_lsp.lsp.documents import Document, DocumentStore
from heredoc_lsp.lsp.feature import Feature, HoverPart
from heredoc_lsp.lsp.protocol import request_future
from heredoc_lsp.lsp.run_actions import RUN_KIND, run_code_actions
from heredoc_lsp.lsp.run_exec import RunJob, command_text, document_text, execute
from heredoc_lsp.lsp.run_gate import UNTRUSTED_MESSAGE, RunGate
from heredoc_lsp.lsp.run_hover import run_hover_markdown
from heredoc_lsp.lsp.run_log import RunLog
from heredoc_lsp.lsp.run_progress import RunProgress
from heredoc_lsp.lsp.splice import Build, Parts, update, update_sliced
from heredoc_lsp.lsp.work import WORK
from heredoc_lsp.runs.state import ActiveRun, OutcomeStatus, RunState, TargetResult
from heredoc_lsp.runs.targets import (
    RunTarget,
    TargetKey,
    cli_command_targets,
    content_of,
    errors_of,
    number_occurrences,
    script_target,
    targets_for,
)
from heredoc_lsp.runs.view import result_diagnostics, result_title
from heredoc_lsp.syntax.cli import CliScript
from heredoc_lsp.syntax.diagnostics import Diagnostic
from heredoc_lsp.syntax.paths import normalize_relative

if TYPE_CHECKING:
    from heredoc_lsp.lsp.feature import Server

log = logging.getLogger(__name__)

STDERR_TAIL_CHARS = 4000


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


def _numbered(tree: CliScript, errors: list[Diagnostic], seen: dict[TargetKey, int]) -> Build[RunTarget]:
    """A first build of a script's command targets: built from its first line on, in order (at once or in
    slices), ``seen`` numbers repeated contents across the calls and ends as their counts."""

    def build(first: int, stop: int | None) -> tuple[list[int], list[RunTarget]]:
        made = cli_command_targets(tree, errors, first, stop, seen)
        WORK["run_targets"] += len(made)
        return [t.line for t in made], made

    return build


class RunFeature(Feature):
    """Run requests, their progress, their results, and the views that read them (lenses, code actions, hover,
    ``run_failed`` diagnostics)."""

    def __init__(self, server: Server) -> None:
        super().__init__(server)
        self.state = RunState()
        self.gate = RunGate(server)
        self.lenses = LensCache(server)
        self._targets: dict[str, tuple[int, list[RunTarget]]] = {}
        # Per .cli document: its command targets and how often each content occurs (kept across edits).
        self._commands: dict[str, tuple[Parts[RunTarget], Counter[TargetKey]]] = {}
        self._logs: dict[str, Path] = {}  # run id -> log
        self._files: dict[str, set[Path]] = {}  # run id -> files its reply commands created, edited or read
        self._tasks: set[asyncio.Task[Any]] = set()
        self._requests: set[Any] = set()  # the futures of run requests in progress (pygls keeps them by id)
        self.closing = False  # after shutdown nothing more is sent to the client
        self.warned_unisolated = False  # the "runs unisolated" warning is shown once per session

    # -- targets -----------------------------------------------------------------------------------------------
    def targets(self, snap: Snapshot) -> list[RunTarget]:
        """The run targets of a snapshot (computed once per snapshot; stale results pruned on the way)."""
        key = DocumentStore.key(snap.uri)
        cached = self._targets.get(key)
        if cached is not None and cached[0] == snap.serial:
            return cached[1]
        if isinstance(snap.tree, CliScript):
            commands = self._cli_commands(key, snap)
            found = [script_target(commands, errors_of(snap.tree.diagnostics, snap.diagnostics)), *commands]
        else:
            found = targets_for(snap.language, snap.tree, snap.diagnostics)
            WORK["run_targets"] += len(found)
        self._targets[key] = (snap.serial, found)
        self.state.prune(snap.uri, found)
        return found

    async def prepare(self, snap: Snapshot) -> None:
        """A script's first run targets and lenses are built in slices (50k of each in a 100k-line script)."""
        if isinstance(snap.tree, CliScript):
            key = DocumentStore.key(snap.uri)
            previous = self._commands.get(key)
            if previous is None or self.server.analyses.changes_since(snap, previous[0].serial) is None:
                await self._first_commands(key, snap)
        if self.server.documents.get(snap.uri) is not None:
            await self.lenses.prepare(self, snap)

    async def _first_commands(self, key: str, snap: Snapshot) -> None:
        tree = snap.tree
        assert isinstance(tree, CliScript)
        seen: dict[TargetKey, int] = {}
        build = _numbered(tree, errors_of(tree.diagnostics, snap.diagnostics), seen)
        parts = await update_sliced(None, snap.serial, None, build, len(snap.lines))
        kept = self._commands.get(key)
        if self.server.documents.get(snap.uri) is not None and (kept is None or kept[0].serial <= parts.serial):
            self._commands[key] = (parts, Counter(seen))

    def _cli_commands(self, key: str, snap: Snapshot) -> list[RunTarget]:
        """The command targets of a ``.cli`` snapshot: those of the items an edit touched are built again, the
        others kept (:mod:`heredoc_lsp.lsp.splice`); repeated contents are renumbered only when an edit touched
        one of them."""
        tree = snap.tree
        assert isinstance(tree, CliScript)
        errors = errors_of(tree.diagnostics, snap.diagnostics)
        previous = self._commands.get(key)
        changed = None if previous is None else self.server.analyses.changes_since(snap, previous[0].serial)
        if previous is None or changed is None:
            seen: dict[TargetKey, int] = {}
            first = update(None, snap.serial, None, _numbered(tree, errors, seen))
            self._commands[key] = (first, Counter(seen))
            return first.values
        parts, counts = previous
        gone: list[RunTarget] = []

        def build(first: int, stop: int | None) -> tuple[list[int], list[RunTarget]]:
            i = bisect_left(parts.lines, first)
            j = len(parts.lines) if stop is None else bisect_left(parts.lines, stop)
            gone.extend(parts.values[i:j])
            made = cli_command_targets(tree, errors, first, stop)
            WORK["run_targets"] += len(made)
            return [t.line for t in made], made

        spliced = update(parts, snap.serial, changed, build)
        if spliced is parts:
            return parts.values
        k = bisect_left(spliced.lines, changed.start)
        made = spliced.values[k : k + spliced.rebuilt]
        before = {content_of(t): counts[content_of(t)] for t in (*gone, *made)}
        for t in gone:
            counts[content_of(t)] -= 1
        for t in made:
            counts[content_of(t)] += 1
        # A content seen more than once, now or before the edit, needs its copies renumbered.
        repeated = {c for c, n in before.items() if counts[c] > 0 and (n > 1 or counts[c] > 1)}
        commands = spliced.values
        if repeated:
            commands = number_occurrences(commands, repeated)
            spliced = Parts(spliced.serial, spliced.lines, commands, spliced.rebuilt)
        self._commands[key] = (spliced, counts)
        return commands

    def results(self, snap: Snapshot) -> list[tuple[RunTarget, TargetResult]]:
        if not self.state.has_results(snap.uri):
            return []  # no run target is built for a document that never ran (every push asks)
        return [(t, r) for t in self.targets(snap) if (r := self.state.result(snap.uri, t.key)) is not None]

    # -- contributions -----------------------------------------------------------------------------------------
    def diagnostics(self, snap: Snapshot) -> list[Diagnostic]:
        """Information diagnostics (``run_failed``) for the failed commands of the document's current text."""
        return result_diagnostics(self.results(snap))

    def code_action_kinds(self) -> Sequence[str]:
        return (RUN_KIND,)

    def code_actions(self, params: types.CodeActionParams, snap: Snapshot) -> list[types.CodeAction]:
        return run_code_actions(self, snap, params)

    def hover(self, snap: Snapshot, position: types.Position) -> str | HoverPart | None:
        return run_hover_markdown(self, snap, position)

    def code_lenses(self, snap: Snapshot) -> str:
        return self.lenses.get(self, snap)

    def resolve_code_lens(self, lens: types.CodeLens) -> str | None:
        data = lens.data
        if not isinstance(data, list) or len(data) != 4:
            return None
        number, version, line, k = data
        uri = self.lenses.uris.get(number) if isinstance(number, int) else None
        snap = self.server.analyses.get(uri) if uri is not None else None
        if snap is None or not all(isinstance(x, int) for x in (version, line, k)):
            return None
        return resolve_lens(self, snap, version, line, k)

    # -- wiring ------------------------------------------------------------------------------------------------
    def register(self) -> None:
        server = self.server
        for name in ALL_COMMANDS:
            server.command(name)(self._handler(name))

    def _handler(self, name: str) -> Callable[..., Any]:
        async def handler(*args: Any) -> Any:
            return await self.execute(name, list(args))

        handler.__name__ = f"command_{name.rsplit('.', 1)[-1]}"
        return handler

    def shutdown(self) -> None:
        # Runs end with the server: their process trees are killed by the executor's cancel. The run requests are
        # answered (cancelled) here, before pygls' own shutdown cancels pending requests: its loop over them
        # breaks when a cancelled executeCommand removes itself from the dict it iterates (pygls 2.1.1).
        self.closing = True
        for run in list(self.state.active.values()):
            run.control.cancel("the language server is shutting down")
        for future in list(self._requests):
            if not future.done():
                future.cancel()
        self._requests.clear()

    def closed(self, uri: str) -> None:
        key = DocumentStore.key(uri)
        self._targets.pop(key, None)
        self._commands.pop(key, None)
        self.lenses.forget(uri)
        self.state.forget(uri)

    # -- the commands --------------------------------------------------------------------------------------------
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
            self._show(types.MessageType.Warning, message)
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
            if Path(file) not in self._files.get(arg["runId"], set()):
                raise Refused(f"heredoc-lsp: {file} is not a file of that run")
            await self._show_document(Path(file))
            return {"status": "shown", "file": file}
        if isinstance(arg.get("runId"), str):
            path = self._logs.get(arg["runId"])
        elif isinstance(arg.get("uri"), str):
            path = self.state.last_log.get(DocumentStore.key(arg["uri"]))
        if path is None:
            raise Refused("heredoc-lsp: no run output to show yet")
        await self._show_document(path)
        return {"status": "shown", "log": str(path)}

    async def undo(self, args: list[Any]) -> dict[str, Any]:
        """``undoReply {"uri"}``: put back what the last reply applied in the document's workspace changed (as
        ``heredoc-lsp undo``); the restored files are named in a message and in the result."""
        if not self.gate.trusted():
            raise Refused(UNTRUSTED_MESSAGE)
        arg = args[0] if len(args) == 1 and isinstance(args[0], Mapping) else {}
        doc = self.server.documents.get(str(arg.get("uri", "")))
        snap = self.server.analyses.get(doc.uri) if doc is not None else None
        if doc is None or snap is None or snap.language is not Language.INBOX:
            raise Refused('heredoc-lsp: undoReply needs {"uri"} of an open inbox reply')
        root = self._workspace(doc, snap)
        try:
            ws = Workspace(root, protected=AGENT_DIRS if AgentPaths(root).is_agent_root() else ())
            report = await asyncio.to_thread(undo_last, ws)
        except (FileOpError, UndoError) as exc:
            raise Refused(f"heredoc-lsp: {exc}") from None
        lines = report.lines()
        self._show(types.MessageType.Info if report.ok else types.MessageType.Warning, "\n".join(lines))
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
            return await self._start(doc, snap, target, workspace, control)
        finally:
            if request is not None:
                self._requests.discard(request)

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
        targets = self.targets(snap)
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
        root = settings.workspace_root_for(doc.path)
        if snap.language is Language.INBOX and doc.path is not None:
            parent = Path(doc.path).parent
            if parent.name == "inbox" or (parent.name == "processed" and parent.parent.name == "inbox"):
                # The agent loop's layout: the reply belongs to the agent root (sessions/, outbox/).
                return parent.parent if parent.name == "inbox" else parent.parent.parent
        if root is not None:
            return root
        if doc.path is not None:
            return Path(doc.path).parent
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

    # -- running -------------------------------------------------------------------------------------------------
    async def _start(
        self, doc: Document, snap: Snapshot, target: RunTarget, workspace: Path, control: RunControl
    ) -> dict[str, Any]:
        server = self.server
        run_id = new_id("run")
        targets = self.targets(snap)
        if target.kind == "script":
            covered = [target, *(t for t in targets if t.kind == "command")]
        elif target.kind == "reply":
            covered = [target, *(t for t in targets if t.kind == "block")]
        else:
            covered = [target]
        title = _title(target, doc)
        log_file = RunLog(
            workspace,
            run_id,
            {
                "what": title,
                "document": doc.path or doc.uri,
                "version": str(doc.version),
                "workspace": str(workspace),
            },
        )
        run = ActiveRun(
            run_id=run_id,
            uri=doc.uri,
            kind=target.kind,
            title=title,
            control=control,
            keys=frozenset(t.key for t in covered),
            log_path=log_file.path,
        )
        self._logs[run_id] = log_file.path
        self.state.last_log[DocumentStore.key(doc.uri)] = log_file.path
        self.state.start(run)
        progress = RunProgress(
            server,
            f"heredoc-lsp-{run_id}",
            title,
            lambda: control.cancel("cancelled from the editor"),
            muted=lambda: self.closing,
        )
        collector = _Collector(self, run, progress, log_file)
        job = RunJob(
            kind="script" if target.kind in ("script", "command") else target.kind,
            path=Path(doc.path) if doc.path else None,
            text=(
                command_text(snap.lines, snap.analysis.newline, target)
                if target.kind == "command"
                else document_text(snap.lines, snap.analysis.newline)
            ),
            config=snap.config,
            workspace=workspace,
            lines=(target.line,) if target.kind == "command" else None,
            block=target if target.kind == "block" else None,
        )
        self._changed(doc.uri)
        outcome: RunOutcome | None = None
        try:
            await progress.begin("starting")
            task = asyncio.get_running_loop().create_task(execute(job, collector.sink, control, run_id))
            try:
                outcome = await asyncio.shield(task)
            except asyncio.CancelledError:
                # The request itself was cancelled ($/cancelRequest): stop the run and let it clean up.
                control.cancel("the run request was cancelled")
                outcome = await task
                raise
        finally:
            self.state.finish(run_id)
            log_file.close()
            if outcome is not None:
                self._store(doc.uri, target, covered, outcome, collector, workspace)
                progress.end(_end_message(outcome))
            else:
                progress.end("ended")
            self._changed(doc.uri, results=True)
        self._announce(doc, target, outcome, log_file.path)
        return {
            "status": outcome.status,
            "runId": run_id,
            "summary": outcome.summary,
            "message": outcome.message,
            "results": [r.to_json() for r in outcome.results],
            "log": str(log_file.path),
            **({"outbox": str(outcome.outbox)} if outcome.outbox is not None else {}),
            **({"refused": True} if outcome.refused else {}),  # a reply applied before, a pasted prompt...
        }

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
        self._requests.add(future)
        return future

    def _store(
        self,
        uri: str,
        target: RunTarget,
        covered: list[RunTarget],
        outcome: RunOutcome,
        collector: _Collector,
        workspace: Path,
    ) -> None:
        steps = [t for t in covered if t.kind in ("command", "block")]
        log_path = self._logs.get(outcome.run_id)
        by_line = {t.line + 1: t for t in steps}
        for step in outcome.results:
            if target.kind == "block":
                slot: RunTarget | None = target
            elif target.kind == "reply":
                slot = steps[step.index] if 0 <= step.index < len(steps) else None
            else:
                slot = by_line.get(step.line or 0)
            if slot is None:
                continue
            result = _step_result(step, outcome.run_id, collector.stderr_of(step.index), log_path)
            file = _touched_file(step, workspace)
            if file is not None:
                result = replace(result, file=file)
                self._files.setdefault(outcome.run_id, set()).add(file)
            self.state.set_result(uri, slot.key, result)
        if target.kind in ("script", "reply"):
            ok = sum(1 for r in outcome.results if r.ok or r.status == "skipped")
            bad = len(outcome.results) - ok
            status: OutcomeStatus
            if outcome.status == "cancelled":
                status = "cancelled"
            elif outcome.status == "completed" and bad == 0:
                status = "ok"
            else:
                status = "failed"
            message = outcome.message if outcome.failure_code not in (None, "command_failed") else None
            self.state.set_result(
                uri,
                target.key,
                TargetResult(
                    status=status,
                    run_id=outcome.run_id,
                    summary=message or outcome.summary,
                    exit_code=None,
                    duration_s=collector.elapsed(),
                    log_path=log_path,
                    outbox=outcome.outbox,
                    counts=(ok, bad),
                    output=message or "",
                ),
            )
        elif not outcome.results and outcome.message:
            # Refused or failed before any command ran (a broken config, a missing workspace...).
            self.state.set_result(
                uri,
                target.key,
                TargetResult(
                    status="cancelled" if outcome.status == "cancelled" else "failed",
                    run_id=outcome.run_id,
                    summary=outcome.message,
                    duration_s=collector.elapsed(),
                    log_path=log_path,
                ),
            )

    def _announce(self, doc: Document, target: RunTarget, outcome: RunOutcome, log_path: Path) -> None:
        if self.closing:
            return
        result = self.state.result(doc.uri, target.key)
        title = result_title(target, result) if result is not None else outcome.status
        self.server.log_to_client(
            f"heredoc-lsp: {_title(target, doc)}: {title} — {outcome.summary} (log: {log_path})",
            types.MessageType.Info,
        )
        if outcome.status == "failed" and outcome.failure_code not in (None, "command_failed"):
            self._show(types.MessageType.Warning, f"heredoc-lsp: {outcome.message}")
        if outcome.outbox is not None:
            self._spawn(self._show_document(outcome.outbox))

    # -- client notifications --------------------------------------------------------------------------------------
    def _changed(self, uri: str, results: bool = False) -> None:
        """Run views of ``uri`` changed (``results``: its results too): refresh lenses and diagnostics."""
        if self.closing:
            return
        if results:
            self.server.diagnostics_changed(uri)
        if self.server.client.code_lens_refresh:
            self._spawn(self._refresh_lenses())

    async def _refresh_lenses(self) -> None:
        try:
            await asyncio.shield(self.server.workspace_code_lens_refresh_async(None))
        except Exception as exc:
            log.info("workspace/codeLens/refresh failed: %s", exc)

    def _show(self, kind: types.MessageType, message: str) -> None:
        if self.server.protocol.writer is None or self.closing:
            return
        try:
            self.server.window_show_message(types.ShowMessageParams(type=kind, message=message))
        except Exception as exc:
            log.debug("window/showMessage failed: %s", exc)

    async def _show_document(self, path: Path) -> None:
        if not self.server.client.show_document:
            self.server.log_to_client(f"heredoc-lsp: open {path}", types.MessageType.Info)
            return
        try:
            await asyncio.shield(
                self.server.window_show_document_async(types.ShowDocumentParams(uri=path.as_uri(), take_focus=True))
            )
        except Exception as exc:
            log.info("window/showDocument failed: %s", exc)

    def _spawn(self, coro: Any) -> None:
        try:
            task = asyncio.get_running_loop().create_task(coro)
        except RuntimeError:
            coro.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class _Collector:
    """The run's event sink: progress, the log, stderr tails, and questions from the executor."""

    def __init__(self, feature: RunFeature, run: ActiveRun, progress: RunProgress, log_file: RunLog) -> None:
        self.feature = feature
        self.run = run
        self.progress = progress
        self.log_file = log_file
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._stderr: dict[int, str] = {}
        self._total = 0
        self._began = run.started

    def elapsed(self) -> float:
        return time.monotonic() - self._began

    def stderr_of(self, index: int) -> str:
        return self._stderr.get(index, "")

    def sink(self, event: RunEvent) -> None:
        if threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self._handle, event)
        else:
            self._handle(event)

    def _handle(self, event: RunEvent) -> None:
        self.log_file.feed(event)
        p = event.payload
        if event.type == PROGRESS:
            kind = p.get("kind")
            index = p.get("index")
            if kind == "command":
                self._total = int(p.get("total") or 0)
                i = int(index or 0)
                self.run.current = str(p.get("command", ""))
                line = p.get("line")
                self.run.current_line = line if isinstance(line, int) else None
                self.feature._changed(self.run.uri)
                where = f"[{i + 1}/{self._total}] " if self._total > 1 else ""
                self.progress.report(f"{where}{self.run.current}", _percent(i, self._total))
            elif kind == "stderr" and isinstance(index, int):
                tail = self._stderr.get(index, "") + str(p.get("text", ""))
                self._stderr[index] = tail[-STDERR_TAIL_CHARS:]
            elif kind == "status" and isinstance(p.get("result"), Mapping):
                result = p["result"]
                i = int(result.get("index", 0))
                self.progress.report(str(result.get("text", "")), _percent(i + 1, self._total))
            elif kind == "status" and UNISOLATED_NOTE in str(p.get("text", "")):
                # Never silently unisolated (SPEC §6): the progress says so, and a warning once per session.
                note = str(p.get("text", ""))
                self.progress.report(note)
                if not self.feature.warned_unisolated:
                    self.feature.warned_unisolated = True
                    self.feature._show(types.MessageType.Warning, f"heredoc-lsp: {note}")
        elif event.type == QUESTION and not self.feature.closing:
            self.feature._spawn(self._answer(p))
        elif event.type == ARTIFACT and p.get("kind") == "outbox":
            self.progress.report(f"wrote {p.get('name', 'the next outbox')}")

    async def _answer(self, payload: Mapping[str, Any]) -> None:
        """A question from the executor (normally none: the server confirms first) goes to the user."""
        question_id = str(payload.get("question_id", ""))
        options = [str(o) for o in payload.get("options") or []] or ["yes", "no"]
        if payload.get("kind") == "text":
            self.run.control.cancel("the editor cannot answer text questions")
            return
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Info,
            message=str(payload.get("text", "")),
            actions=[types.MessageActionItem(title=o) for o in options],
        )
        try:
            answer = await asyncio.shield(self.feature.server.window_show_message_request_async(params))
        except Exception as exc:
            log.info("question not answered: %s", exc)
            answer = None
        if isinstance(answer, types.MessageActionItem):
            self.run.control.answer(question_id, answer.title)
        else:
            self.run.control.cancel("the question was dismissed")


def _percent(done: int, total: int) -> int | None:
    return None if total <= 0 else int(100 * done / total)


def _title(target: RunTarget, doc: Document) -> str:
    name = doc.path.rsplit("/", 1)[-1] if doc.path else doc.uri
    if target.kind == "script":
        return f"Run script {name}"
    if target.kind == "reply":
        return f"Apply reply {name}"
    return f"Run '{target.label}'"


def _end_message(outcome: RunOutcome) -> str:
    if outcome.status == "completed":
        return f"✓ {outcome.summary}"
    if outcome.status == "cancelled":
        return f"■ cancelled: {outcome.message or outcome.summary}"
    return f"✗ {outcome.message or outcome.summary}"


def _step_result(step: StepResult, run_id: str, stderr: str, log_path: Path | None) -> TargetResult:
    return TargetResult(
        status=step.status,
        run_id=run_id,
        summary=step.summary,
        exit_code=step.exit_code,
        duration_s=step.duration_s,
        output=step.output,
        output_truncated=step.output_truncated,
        stderr_tail=stderr,
        log_path=log_path,
        path=step.path,
    )


FILE_STEPS = frozenset({"CREATE_FILE", "EDIT_FILE", "READ_FILE"})


def _touched_file(step: StepResult, workspace: Path) -> Path | None:
    """The file a successful CREATE_FILE / EDIT_FILE / READ_FILE worked on (absolute), else None."""
    if step.kind not in FILE_STEPS or not step.ok or not step.path:
        return None
    try:
        return workspace / normalize_relative(step.path)
    except ValueError:
        return None
