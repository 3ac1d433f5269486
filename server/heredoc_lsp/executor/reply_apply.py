"""Applying an inbox reply to a workspace (docs/formats.md) and, in an agent session, writing the next outbox
(docs/formats.md).

A reply is a transaction (docs/running.md, "Replies are transactions"): before anything runs it is refused when it
is heredoc-lsp's own prompt pasted back, when it looks cut off (unless ``partial``) or when the same content was
applied before under any name (unless ``again``); what its file blocks change is kept for ``heredoc-lsp undo``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from heredoc_lsp.analysis.core import default_workspace
from heredoc_lsp.executor.agent import (
    AGENT_DIRS,
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
from heredoc_lsp.executor.files import FileOpError, FileState, Workspace
from heredoc_lsp.executor.model import FAILED_STEPS, RunOptions, RunOutcome, StepResult, StepStatus, short_command
from heredoc_lsp.executor.protocol_text import example_fingerprints
from heredoc_lsp.executor.script_run import load_config_for, read_document
from heredoc_lsp.executor.undo import UndoRecorder
from heredoc_lsp.syntax.inbox import InboxReply, parse_inbox
from heredoc_lsp.syntax.paths import normalize_relative
from heredoc_lsp.syntax.reply_shape import prompt_problem, reply_key, same_text, truncated_block
from heredoc_lsp.syntax.text import split_lines

if TYPE_CHECKING:
    from heredoc_lsp.config.model import Config
    from heredoc_lsp.syntax.inbox import InboxCommand


class AppliedByEditor(Protocol):
    """File blocks an editor applied from their preview (:class:`heredoc_lsp.executor.reply_preview.EditorApplied`):
    what ``apply_reply`` asks of them."""

    @property
    def run_commands(self) -> bool: ...
    def keeps(self) -> list[tuple[str, FileState | None]]: ...
    def result(self, ws: Workspace, index: int, command: InboxCommand) -> StepResult: ...


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


def error_result(index: int, command: InboxCommand) -> StepResult:
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


async def _apply_one(
    ctx: RunContext, ws: Workspace, index: int, total: int, command: InboxCommand, undo: UndoRecorder | None
) -> StepResult:
    """Execute one valid command; file problems become FAILED/REJECTED results, never exceptions."""
    name = command.name
    line = command.line + 1
    if name == "RUN_COMMAND":
        body = command.body or ""
        if undo is not None:
            undo.ran(body)
        return await ctx.run_command(index, total, body, "", line=command.line, kind=name)
    ctx.emitter.progress(
        "command", index=index, total=total, line=line, command=short_command(_title(command)), step=name
    )
    path = command.path
    status: StepStatus = "ok"
    output = ""
    try:
        if undo is not None and path is not None and name in FILE_COMMANDS:
            undo.keep(ws, path)
        if name == "CREATE_FILE":
            assert path is not None
            existed = ws.exists(path)
            summary = ws.create_file(path, command.body or "")
            ctx.emitter.artifact(path, "edited" if existed else "created", _where(ws, path))
        elif name == "EDIT_FILE":
            assert path is not None and command.line_range is not None
            start, end = command.line_range
            summary = ws.edit_file(path, start, end, command.body or "", expect=command.attrs)
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
        output = exc.detail
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


def reply_root(reply: Path, cfg: Config, workspace: Path | None) -> Path:
    """The workspace a reply is applied to (:func:`heredoc_lsp.analysis.core.default_workspace` unless given)."""
    root = (workspace or default_workspace(reply, cfg)).resolve()
    if not root.is_dir():
        raise RunRefused("parse_error", f"workspace '{root}' is not a directory")
    return root


@dataclass(frozen=True, slots=True)
class ReadReply:
    """A reply read and parsed in its workspace, before anything is applied or previewed."""

    paths: AgentPaths
    ws: Workspace
    source: str
    parsed: InboxReply
    current: Session | None
    cut: InboxCommand | None  # the open last block of a reply that looks cut off


def read_reply(reply: Path, text: str | None, root: Path, session: str | Literal[False] | None) -> ReadReply:
    """Read ``reply`` (``text`` when given): :class:`RunRefused` (``refused``) when it is not a reply (a prompt)."""
    paths = AgentPaths(root)
    ws = Workspace(root, protected=AGENT_DIRS if paths.is_agent_root() else ())
    source, _warnings = read_document(reply, text)
    lines = split_lines(source)
    parsed = parse_inbox(lines)
    current = find_session(paths, session)
    refusal = not_a_reply(reply.name, source, lines, parsed, paths, current)
    if refusal is not None:
        raise RunRefused("parse_error", refusal, refused=True)
    return ReadReply(paths, ws, source, parsed, current, truncated_block(parsed))


def find_session(paths: AgentPaths, session: str | Literal[False] | None) -> Session | None:
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
    again: bool = False,
    partial: bool = False,
    editor: AppliedByEditor | None = None,
) -> RunOutcome:
    """Apply a reply: its commands in order; errors make a command FAILED (not executed); [DONE] ends processing.

    ``workspace`` defaults to the agent root of ``inbox/x.txt``, else the config's folder, else the reply's folder.
    ``session``: an id, None for the active session of the workspace (if any), False for none. With a session the
    results are stored and the next outbox is written (no outbox after [DONE]: the session is complete).
    Refused as a whole (exit code 2, nothing written or run): a prompt, a reply that looks cut off (``partial``:
    apply its closed blocks), a reply applied before under any name (``again``: apply it anyway).
    ``editor``: the file blocks were applied by an editor from their preview; they are checked, not executed.
    """
    reply = Path(path)
    ctx = RunContext(workspace or reply.absolute().parent, options or RunOptions(), sink, control, run_id)

    async def body(ctx: RunContext) -> RunOutcome:
        cfg = load_config_for(reply, config)
        opts = options or RunOptions.from_config(cfg)
        ctx.options = opts
        root = ctx.workspace = reply_root(reply, cfg, workspace)
        read = read_reply(reply, text, root, session)
        paths, ws, source, current, cut = read.paths, read.ws, read.source, read.current, read.cut
        commands = read.parsed.commands
        n = len(commands)
        if cut is not None and not partial:
            raise RunRefused("parse_error", truncated_message(reply.name, cut), refused=True)
        ledger: ReplyLedger | None = None
        digest = ""
        key = reply_key(source)
        if session is not False or text is None:  # every workspace apply writes to keeps its ledger
            ledger = ReplyLedger(paths)
            digest = content_digest(source.encode("utf-8", "surrogateescape"))
            try:
                earlier = ledger.applied(ReplyRecord(digest, reply.name, "started", content=key))
            except LedgerError as exc:
                raise RunRefused("parse_error", f"{exc}; nothing was applied") from None
            if earlier is not None and not again:
                raise RunRefused("parse_error", already_applied_message(reply.name, earlier), refused=True)
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
                ledger.mark(ReplyRecord(digest, reply.name, "declined", content=key))
            raise
        if ledger is not None:
            try:
                earlier = ledger.claim(ReplyRecord(digest, reply.name, "started", content=key), again=again)
            except LedgerError as exc:
                raise RunRefused("parse_error", f"{exc}; nothing was applied") from None
            if earlier is not None:  # another process started it while the question was open
                raise RunRefused("parse_error", already_applied_message(reply.name, earlier), refused=True)
        undo = UndoRecorder(root, reply.name)
        if editor is not None:
            for kept_path, state in editor.keeps():
                undo.keep_state(kept_path, state)
        with guard_inbox(root, f"reply {reply.name}"):
            try:
                outcome = await _apply_commands(ctx, ws, commands, paths, current, opts, undo, cut, editor)
            except RunCancelled as exc:
                _settle_record(ledger, ReplyRecord(digest, reply.name, "interrupted", note=exc.reason, content=key))
                raise
            finally:
                _finish_undo(ctx, undo, ws)
        _settle_record(ledger, ReplyRecord(digest, reply.name, "applied", content=key))
        return outcome

    return await drive(ctx, {"kind": "reply", "path": str(reply.absolute())}, body)


async def _apply_commands(
    ctx: RunContext,
    ws: Workspace,
    commands: tuple[InboxCommand, ...],
    paths: AgentPaths,
    current: Session | None,
    opts: RunOptions,
    undo: UndoRecorder | None = None,
    cut: InboxCommand | None = None,
    editor: AppliedByEditor | None = None,
) -> RunOutcome:
    """The commands of a reply in order, then the session's next outbox; emits ``run.completed``.

    ``cut``: the open last block of a reply applied with ``partial``, reported as skipped. ``editor``: the file
    blocks were applied by an editor (their results are checked on disk)."""
    n = len(commands)
    reads: list[str] = []
    done: str | None = None
    for i, command in enumerate(commands):
        if done is not None:
            ctx.record(StepResult(i, command.name, "skipped", "Skipped: comes after [DONE]", line=command.line + 1))
            continue
        if command is cut:
            summary = "Skipped: the reply ends inside this block (no closing tag); --partial applies closed blocks"
            ctx.record(StepResult(i, command.name, "skipped", summary, line=command.line + 1, path=command.path))
            continue
        ctx.control.check()
        if not command.ok:
            result = error_result(i, command)
        elif editor is not None and command.name in FILE_COMMANDS:
            result = editor.result(ws, i, command)
        elif editor is not None and command.name == "RUN_COMMAND" and not editor.run_commands:
            summary = "Not run: running the reply's commands was declined after its files were applied"
            result = StepResult(i, command.name, "skipped", summary, line=command.line + 1)
        else:
            result = await _apply_one(ctx, ws, i, n, command, undo)
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
    extra: dict[str, object] = {
        "done": done is not None,
        "failed": sum(1 for r in ctx.results if r.status in FAILED_STEPS),
    }
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


def _finish_undo(ctx: RunContext, undo: UndoRecorder, ws: Workspace) -> None:
    """Store the undo entry's after-states; a failure to write it is reported, never hidden."""
    try:
        undo.finish(ws)
    except OSError as exc:
        ctx.emitter.status(
            f"the undo entry of this reply could not be written ({exc}): 'heredoc-lsp undo' cannot undo it"
        )


def already_applied_message(name: str, record: ReplyRecord) -> str:
    what = {"started": "was being applied", "interrupted": "was interrupted"}.get(record.state, "was applied")
    who = name if record.name == name else f"{name} is the same reply as {record.name}, which"
    return (
        f"{who} {what} at {record.at}; a reply is applied only once, so nothing was written or run "
        "(to apply it again on purpose, use --again)"
    )


def not_a_reply(
    name: str, source: str, lines: list[str], parsed: InboxReply, paths: AgentPaths, current: Session | None
) -> str | None:
    """Why ``source`` is heredoc-lsp's prompt pasted as a reply (never applied, whatever the flags), or None."""
    problem = prompt_problem(lines, parsed, example_fingerprints())
    why = problem.message if problem is not None else None
    if why is None and current is not None:
        last = paths.outbox_file(current.session_id, current.sequence_number)
        with contextlib.suppress(OSError, UnicodeDecodeError):
            if same_text(source, last.read_text(encoding="utf-8")):
                why = f"it is the session's last outbox, {last.name}"
    if why is None:
        return None
    return (
        f"{name} is not a reply: {why}; nothing was created or run. Send that text to the LLM and save the LLM's "
        "answer as the reply"
    )


def truncated_message(name: str, cut: InboxCommand) -> str:
    what = f"{cut.name} for '{cut.path}'" if cut.path is not None else cut.name
    return (
        f"{name} looks truncated: its last block, {what} at line {cut.line + 1}, has no closing tag and there is "
        f"no [DONE]; nothing was written or run. Save the whole reply, or apply its closed blocks with --partial"
    )
