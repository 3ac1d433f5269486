"""One run from start to end: its log, progress and event collector, the executor call
(:mod:`heredoc_lsp.lsp.run.execute`), and its results stored per target (:mod:`heredoc_lsp.runs.state`)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

from lsprotocol import types

from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.events import new_id
from heredoc_lsp.executor.model import RunOutcome, StepResult
from heredoc_lsp.executor.reply_preview import EditorApplied
from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.documents import Document, DocumentStore
from heredoc_lsp.lsp.feature import Server
from heredoc_lsp.lsp.run.client import RunClient
from heredoc_lsp.lsp.run.collector import Collector
from heredoc_lsp.lsp.run.execute import RunJob, command_text, document_text, execute
from heredoc_lsp.lsp.run.log import RunLog
from heredoc_lsp.lsp.run.progress import RunProgress
from heredoc_lsp.lsp.run.targets import RunTargets
from heredoc_lsp.runs.state import ActiveRun, OutcomeStatus, RunState, TargetResult
from heredoc_lsp.runs.targets import RunTarget
from heredoc_lsp.runs.view import result_title
from heredoc_lsp.syntax.paths import normalize_relative


class Runner:
    """Starts runs and keeps what they leave behind: logs by run id, the files their reply commands touched."""

    def __init__(self, server: Server, targets: RunTargets, client: RunClient) -> None:
        self.server = server
        self.targets = targets
        self.state: RunState = targets.state
        self.client = client
        self.logs: dict[str, Path] = {}  # run id -> log
        self.files: dict[str, set[Path]] = {}  # run id -> files its reply commands created, edited or read

    async def start(
        self,
        doc: Document,
        snap: Snapshot,
        target: RunTarget,
        workspace: Path,
        control: RunControl,
        editor: EditorApplied | None = None,
    ) -> dict[str, Any]:
        """Run ``target`` of ``snap`` to its end; the answer of the run request. ``editor``: the reply's file
        changes were applied by the editor from their preview."""
        run_id = new_id("run")
        targets = self.targets(snap)
        if target.kind == "script":
            covered = [target, *(t for t in targets if t.kind == "command")]
        elif target.kind == "reply":
            covered = [target, *(t for t in targets if t.kind == "block")]
        else:
            covered = [target]
        title = run_title(target, doc)
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
        self.logs[run_id] = log_file.path
        self.state.last_log[DocumentStore.key(doc.uri)] = log_file.path
        self.state.start(run)
        progress = RunProgress(
            self.server,
            f"heredoc-lsp-{run_id}",
            title,
            lambda: control.cancel("cancelled from the editor"),
            muted=lambda: self.client.closing,
        )
        collector = Collector(self.client, run, progress, log_file)
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
            editor=editor,
        )
        self.client.changed(doc.uri)
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
            self.client.changed(doc.uri, results=True)
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

    def _store(
        self,
        uri: str,
        target: RunTarget,
        covered: list[RunTarget],
        outcome: RunOutcome,
        collector: Collector,
        workspace: Path,
    ) -> None:
        steps = [t for t in covered if t.kind in ("command", "block")]
        log_path = self.logs.get(outcome.run_id)
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
                self.files.setdefault(outcome.run_id, set()).add(file)
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
        if self.client.closing:
            return
        result = self.state.result(doc.uri, target.key)
        title = result_title(target, result) if result is not None else outcome.status
        self.client.log(f"heredoc-lsp: {run_title(target, doc)}: {title} — {outcome.summary} (log: {log_path})")
        if outcome.status == "failed" and outcome.failure_code not in (None, "command_failed"):
            self.client.show(types.MessageType.Warning, f"heredoc-lsp: {outcome.message}")
        if outcome.outbox is not None:
            self.client.spawn(self.client.show_document(outcome.outbox))


def run_title(target: RunTarget, doc: Document) -> str:
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
