"""Applying an inbox reply to a workspace (SPEC §4.8) and, in an agent session, writing the next outbox (SPEC §5)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from heredoc_lsp.analysis.core import default_workspace
from heredoc_lsp.executor.agent import (
    AGENT_DIRS,
    HANDLED,
    AgentPaths,
    LedgerError,
    OutboxSettings,
    ReplyLedger,
    ReplyRecord,
    Session,
    SessionError,
    active_session,
    advance_session,
    content_digest,
    guard_inbox,
    load_session,
)
from heredoc_lsp.executor.control import RunCancelled, RunControl
from heredoc_lsp.executor.engine import RunContext, RunRefused, count_summary, drive
from heredoc_lsp.executor.events import EventSink
from heredoc_lsp.executor.files import FileOpError, Workspace
from heredoc_lsp.executor.model import RunOptions, RunOutcome, StepResult, StepStatus, short_command
from heredoc_lsp.executor.script_run import load_config_for, read_document
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.paths import normalize_relative
from heredoc_lsp.syntax.text import split_lines

if TYPE_CHECKING:
    from heredoc_lsp.config.model import Config
    from heredoc_lsp.syntax.inbox import InboxCommand

PATH_CODES = frozenset({"path_outside_workspace", "invalid_path"})
FILE_COMMANDS = frozenset({"CREATE_FILE", "EDIT_FILE", "DELETE_FILE"})


def _describe(commands: tuple[InboxCommand, ...]) -> str:
    files = sum(1 for c in commands if c.name in FILE_COMMANDS)
    runs = sum(1 for c in commands if c.name == "RUN_COMMAND")
    parts = [f"{len(commands)} command{'s' if len(commands) != 1 else ''}"]
    if files:
        parts.append(f"{files} file change{'s' if files != 1 else ''}")
    if runs:
        parts.append(f"{runs} shell command{'s' if runs != 1 else ''}")
    return ", ".join(parts)


def _error_result(index: int, command: InboxCommand) -> StepResult:
    first = command.errors[0]
    rejected = first.code in PATH_CODES
    summary = f"REJECTED: {first.message}" if rejected else first.message
    return StepResult(
        index=index,
        kind=command.name,
        status="rejected" if rejected else "failed",
        summary=summary,
        line=command.line + 1,
        path=command.path,
    )


async def _apply_one(ctx: RunContext, ws: Workspace, index: int, total: int, command: InboxCommand) -> StepResult:
    """Execute one valid command; file problems become FAILED/REJECTED results, never exceptions."""
    name = command.name
    line = command.line + 1
    if name == "RUN_COMMAND":
        body = command.body or ""
        return await ctx.run_command(index, total, body, "", line=command.line, kind=name)
    ctx.emitter.progress(
        "command", index=index, total=total, line=line, command=short_command(_title(command)), step=name
    )
    path = command.path
    status: StepStatus = "ok"
    output = ""
    try:
        if name == "CREATE_FILE":
            assert path is not None
            existed = ws.exists(path)
            summary = ws.create_file(path, command.body or "")
            ctx.emitter.artifact(path, "edited" if existed else "created", _where(ws, path))
        elif name == "EDIT_FILE":
            assert path is not None and command.line_range is not None
            start, end = command.line_range
            summary = ws.edit_file(path, start, end, command.body or "")
            ctx.emitter.artifact(path, "edited", _where(ws, path))
        elif name == "DELETE_FILE":
            assert path is not None
            summary = ws.delete_file(path)
            ctx.emitter.artifact(path, "deleted", _where(ws, path))
        elif name == "READ_FILE":
            assert path is not None
            contents = ws.read_file(path, ctx.options.read_max_chars, ctx.redactor)
            what = "binary file, " if contents.binary else ""
            note = ", truncated" if contents.truncated else ""
            summary = f"Read '{path}' ({what}{contents.size} bytes{note}); contents are included below"
        elif name == "MESSAGE":
            output = command.body or ""
            summary = "Message shown to the user"
        else:  # DONE
            output = command.body or ""
            summary = "Task marked as done" + (f": {short_command(output, 120)}" if output else "")
    except FileOpError as exc:
        status = "rejected" if exc.rejected else "failed"
        summary = exc.summary
    except OSError as exc:
        status = "failed"
        summary = f"{name} failed: {exc.strerror or exc}"
    return StepResult(index=index, kind=name, status=status, summary=summary, line=line, path=path, output=output)


def _where(ws: Workspace, path: str) -> str:
    return str(ws.root / normalize_relative(path))


def _title(command: InboxCommand) -> str:
    if command.path is not None:
        return f"{command.name} {command.path}"
    return command.name


def _find_session(paths: AgentPaths, session: str | Literal[False] | None) -> Session | None:
    if session is False:
        return None
    try:
        if session is None:
            return active_session(paths)
        return load_session(paths, session)
    except SessionError as exc:
        raise RunRefused("parse_error", str(exc)) from None


async def apply_reply(
    path: Path | str,
    *,
    text: str | None = None,
    config: Config | None = None,
    options: RunOptions | None = None,
    workspace: Path | None = None,
    session: str | Literal[False] | None = None,
    sink: EventSink | None = None,
    control: RunControl | None = None,
    run_id: str | None = None,
) -> RunOutcome:
    """Apply a reply: its commands in order; errors make a command FAILED (not executed); [DONE] ends processing.

    ``workspace`` defaults to the agent root of ``inbox/x.txt``, else the config's folder, else the reply's folder.
    ``session``: an id, None for the active session of the workspace (if any), False for none. With a session the
    results are stored and the next outbox is written (no outbox after [DONE]: the session is complete).
    """
    reply = Path(path)
    ctx = RunContext(workspace or reply.absolute().parent, options or RunOptions(), sink, control, run_id)

    async def body(ctx: RunContext) -> RunOutcome:
        cfg = load_config_for(reply, config)
        opts = options or RunOptions.from_config(cfg)
        ctx.options = opts
        root = (workspace or default_workspace(reply, cfg)).resolve()
        if not root.is_dir():
            raise RunRefused("parse_error", f"workspace '{root}' is not a directory")
        ctx.workspace = root
        paths = AgentPaths(root)
        ws = Workspace(root, protected=AGENT_DIRS if paths.is_agent_root() else ())
        source, _warnings = read_document(reply, text)
        parsed = parse_inbox(split_lines(source))
        commands = parsed.commands
        n = len(commands)
        current = _find_session(paths, session)
        ledger: ReplyLedger | None = None
        digest = ""
        if paths.is_agent_root() and (session is not False or text is None):
            ledger = ReplyLedger(paths)
            digest = content_digest(source.encode("utf-8", "surrogateescape"))
            try:
                earlier = ledger.find(digest, reply.name)
            except LedgerError as exc:
                raise RunRefused("parse_error", f"{exc}; nothing was applied") from None
            if earlier is not None and earlier.state in HANDLED:
                raise RunRefused("parse_error", already_applied_message(reply.name, earlier))
        ctx.emitter.status(
            f"{_describe(commands)} for {root}" + (f" (session {current.session_id})" if current else ""),
            workspace=str(root),
            commands=n,
            session=current.session_id if current else None,
        )
        if any(c.name == "RUN_COMMAND" and c.ok for c in commands):
            ctx.sandbox()
        try:
            await ctx.confirm(f"Apply {reply.name} to {root}: {_describe(commands)}?")
        except RunCancelled:
            if ledger is not None and not ctx.control.cancelled:  # a "no", not a cancel
                ledger.mark(ReplyRecord(digest, reply.name, "declined"))
            raise
        if ledger is not None:
            try:
                earlier = ledger.claim(ReplyRecord(digest, reply.name, "started"))
            except LedgerError as exc:
                raise RunRefused("parse_error", f"{exc}; nothing was applied") from None
            if earlier is not None:  # another process started it while the question was open
                raise RunRefused("parse_error", already_applied_message(reply.name, earlier))
        with guard_inbox(root, f"reply {reply.name}"):
            try:
                outcome = await _apply_commands(ctx, ws, commands, paths, current, opts)
            except RunCancelled as exc:
                _settle_record(ledger, ReplyRecord(digest, reply.name, "interrupted", note=exc.reason))
                raise
        _settle_record(ledger, ReplyRecord(digest, reply.name, "applied"))
        return outcome

    return await drive(ctx, {"kind": "reply", "path": str(reply.absolute())}, body)


async def _apply_commands(
    ctx: RunContext,
    ws: Workspace,
    commands: tuple[InboxCommand, ...],
    paths: AgentPaths,
    current: Session | None,
    opts: RunOptions,
) -> RunOutcome:
    """The commands of a reply in order, then the session's next outbox; emits ``run.completed``."""
    n = len(commands)
    reads: list[str] = []
    done: str | None = None
    for i, command in enumerate(commands):
        if done is not None:
            ctx.record(StepResult(i, command.name, "skipped", "Skipped: comes after [DONE]", line=command.line + 1))
            continue
        ctx.control.check()
        if not command.ok:
            result = _error_result(i, command)
        else:
            result = await _apply_one(ctx, ws, i, n, command)
        ctx.record(result)
        if result.status == "cancelled":
            ctx.control.check()
        if command.name == "READ_FILE" and result.ok and command.path is not None:
            reads.append(command.path)
        if command.name == "DONE" and command.ok:
            done = command.body or ""
    summary = count_summary(ctx.results)
    outbox: Path | None = None
    if current is not None:
        settings = OutboxSettings(opts.timeout_s, opts.max_output_chars, opts.read_max_chars, ctx.redactor)
        updated, outbox = advance_session(paths, current, ctx.results, reads, done is not None, ws, settings)
        session_file = paths.session_file(updated.session_id)
        ctx.emitter.artifact(session_file.name, "session", str(session_file))
        if outbox is not None:
            ctx.emitter.artifact(outbox.name, "outbox", str(outbox))
    extra: dict[str, object] = {"done": done is not None}
    if done is not None:
        extra["done_summary"] = done
    if outbox is not None:
        extra["outbox"] = str(outbox)
    ctx.emitter.completed(summary, ctx.results_json(), **extra)
    read_contents = []
    for p in reads:
        try:
            read_contents.append(ws.read_file(p, opts.read_max_chars, ctx.redactor))
        except FileOpError:
            continue
    return RunOutcome(
        ctx.run_id,
        "completed",
        tuple(ctx.results),
        summary,
        reads=tuple(read_contents),
        done_summary=done,
        outbox=outbox,
    )


def _settle_record(ledger: ReplyLedger | None, record: ReplyRecord) -> None:
    """How a started reply ended; the ``started`` record already stops a second application if this write fails."""
    if ledger is not None:
        with contextlib.suppress(LedgerError):
            ledger.mark(record)


def already_applied_message(name: str, record: ReplyRecord) -> str:
    what = {"started": "was being applied", "interrupted": "was interrupted"}.get(record.state, "was applied")
    return f"{name} {what} at {record.at}; a reply is applied only once, so nothing was run"
