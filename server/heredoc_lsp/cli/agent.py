"""``heredoc-lsp agent new TASK`` and ``agent watch``: the inbox/outbox loop from the command line (docs/formats.md).

``agent new`` creates a session (``sessions/<id>.json``) and writes ``outbox/<id>_seq0001.txt``: paste it to an
LLM, save its reply as ``inbox/<anything>.txt``. ``agent watch`` applies every ``inbox/*.txt`` (oldest first) to
the active session, writes the next outbox and moves the reply to ``inbox/processed/``; ``--once`` stops when the
inbox is empty. The agent root (``--workspace``, default the current directory) is also the workspace the
replies change.

Exactly once (docs/formats.md): a reply is applied only when it is complete (unchanged for ``--settle`` seconds),
never twice (the ledger ``.heredoc-lsp/replies.json`` is shared with ``apply``; a reply interrupted by a kill is
reported and moved to ``inbox/processed/``, not re-applied), a declined reply is not offered again, and a file that
a run or a reply wrote into ``inbox/`` is refused and moved to ``inbox/refused/``, as is a prompt pasted back and
a reply cut off (see docs/running.md, "Replies are transactions"); a copy of an applied reply is ``[SKIPPED]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from heredoc_lsp.analysis.decode import decode_document
from heredoc_lsp.cli.progress import TextDisplay, ask_on
from heredoc_lsp.cli.run import add_common_arguments
from heredoc_lsp.cli.run_common import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EXIT_USAGE,
    UsageError,
    build_options,
    load_cli_config,
    output_format,
    report_ignored,
)
from heredoc_lsp.executor.agent import (
    HANDLED,
    AgentPaths,
    LedgerError,
    OutboxSettings,
    ReplyLedger,
    ReplyRecord,
    SettleTracker,
    file_digest,
    inbox_snapshot,
    move_processed,
    start_session,
)
from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.events import EventSink, RunEmitter, new_id
from heredoc_lsp.executor.jsonl import RUN_CANCEL, RUN_INPUT, Inbound, InboundProblem, JsonlWriter, StdinListener
from heredoc_lsp.executor.reply_apply import already_applied_message, apply_reply
from heredoc_lsp.syntax.reply_shape import reply_key
from heredoc_lsp.syntax.visible import visible

if TYPE_CHECKING:
    from heredoc_lsp.executor.agent import AgentPaths, ReplyLedger


DESCRIPTION = (
    "The agent loop: 'agent new TASK' writes the first outbox; 'agent watch' applies replies "
    "saved in inbox/ and writes the next outboxes."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="agent_command", metavar="ACTION")
    new_help = "start a session for TASK and write its first outbox"
    new = sub.add_parser("new", help=new_help, description=new_help[:1].upper() + new_help[1:] + ".")
    new.add_argument("task", metavar="TASK", help="what the LLM should do")
    add_common_arguments(new)
    new.set_defaults(handler=run)
    watch_help = "apply inbox/*.txt replies as they arrive, oldest first"
    watch = sub.add_parser("watch", help=watch_help, description=watch_help[:1].upper() + watch_help[1:] + ".")
    watch.add_argument("--once", action="store_true", help="process what is in the inbox now, then stop")
    watch.add_argument("--interval", type=float, default=0.2, metavar="S", help="seconds between inbox scans")
    watch.add_argument(
        "--settle",
        type=float,
        default=1.0,
        metavar="S",
        help="a reply is applied once its size and time stamp have not changed for S seconds (it is complete)",
    )
    add_common_arguments(watch)
    watch.set_defaults(handler=run)
    p.set_defaults(handler=_usage(p))


def _usage(p: argparse.ArgumentParser) -> Any:
    def handler(args: argparse.Namespace) -> int:
        del args
        p.print_help(sys.stderr)
        return 2

    return handler


def run(args: argparse.Namespace) -> int:
    root = Path(args.workspace or ".").absolute()
    try:
        if not root.is_dir():
            raise UsageError(f"{root}: not a directory")
        effective = load_cli_config(args, root / "x")
        report_ignored(effective.ignored)
        config = effective.config
        fmt = output_format(args, config)
        if args.agent_command == "new":
            return _new(args, root, config, fmt)
        if args.interval <= 0 or args.settle < 0:
            raise UsageError("--interval must be positive and --settle not negative")
        return asyncio.run(_watch(args, root, config, fmt))
    except UsageError as exc:
        sys.stderr.write(f"heredoc-lsp: {exc}\n")
        return EXIT_USAGE


def _new(args: argparse.Namespace, root: Path, config: Any, fmt: str) -> int:
    task = args.task
    if not task.strip():
        raise UsageError("TASK is empty")
    options = build_options(args, config)
    paths = AgentPaths(root)
    emitter = RunEmitter(new_id("run"), JsonlWriter(sys.stdout.buffer)) if fmt == "json" else None
    if emitter is not None:
        emitter.started(kind="agent.new", path=str(root), task=task)
    try:
        session, outbox = start_session(
            paths, task, OutboxSettings(options.timeout_s, options.max_output_chars, options.read_max_chars)
        )
    except OSError as exc:
        if emitter is not None:
            emitter.failed("internal_error", f"cannot create the session: {exc}")
        sys.stderr.write(f"heredoc-lsp: cannot create the session: {exc}\n")
        return 1
    session_file = paths.session_file(session.session_id)
    if emitter is not None:
        emitter.artifact(session_file.name, "session", str(session_file))
        emitter.artifact(outbox.name, "outbox", str(outbox))
        emitter.completed(f"session {session.session_id} started", [], session=session.session_id, outbox=str(outbox))
    else:
        sys.stdout.write(f"Session {session.session_id} started.\nOutbox: {outbox}\n")
        sys.stdout.write(f"Send it to the LLM, save the reply in {paths.inbox}/, then run: heredoc-lsp agent watch\n")
    return 0


async def _watch(args: argparse.Namespace, root: Path, config: Any, fmt: str) -> int:
    options = build_options(args, config)
    paths = AgentPaths(root)
    if not paths.is_agent_root():
        raise UsageError(f"{root} has no sessions/ folder: start one with 'heredoc-lsp agent new TASK'")
    if fmt == "text" and options.confirm == "always" and not sys.stdin.isatty():
        raise UsageError('confirmation required (confirm = "always") but standard input is not a terminal: pass --yes')
    ledger = ReplyLedger(paths)
    try:
        ledger.records()
    except LedgerError as exc:
        raise UsageError(str(exc)) from None
    loop = asyncio.get_running_loop()
    state: dict[str, Any] = {"control": RunControl(), "stop": None, "signal": None}

    def stop(reason: str, signum: int | None = None) -> None:
        state["stop"] = reason
        state["signal"] = state["signal"] or signum
        state["control"].cancel(reason)

    for signum, reason in ((signal.SIGINT, "interrupted"), (signal.SIGTERM, "terminated")):
        loop.add_signal_handler(signum, stop, reason, signum)
    console = Console(highlight=False)
    writer = JsonlWriter(sys.stdout.buffer) if fmt == "json" else None
    if writer is not None:

        def on_message(msg: Inbound) -> None:
            if msg.type == RUN_CANCEL:
                reason = msg.payload.get("reason")
                stop(reason if isinstance(reason, str) and reason else "cancelled by the client")
            elif msg.type == RUN_INPUT:
                state["control"].answer(str(msg.payload.get("question_id")), msg.payload.get("value"))
            else:
                sys.stderr.write("heredoc-lsp: run.start ignored by agent watch\n")

        def on_problem(problem: InboundProblem) -> None:
            sys.stderr.write(f"heredoc-lsp: ignored input line: {problem.message}\n")
            if problem.kind == "version":
                state["stop"] = problem.message
                state["control"].abort("unsupported_version", problem.message)

        def on_eof() -> None:
            state["control"].close_input("standard input was closed")

        StdinListener(sys.stdin.fileno(), loop, on_message, on_problem, on_eof).start()
    else:
        what = f"Processing {paths.inbox} once" if args.once else f"Watching {paths.inbox} (Ctrl-C to stop)"
        console.print(Text(visible(what, one_line=True), style="bold"))

    def notice(text: str) -> None:
        text = visible(text, one_line=True)  # inbox file names are anyone's
        if writer is not None:
            sys.stderr.write(f"heredoc-lsp: {text}\n")
            sys.stderr.flush()
        else:
            console.print(text, soft_wrap=True, markup=False)

    tracker = SettleTracker(args.settle)
    passed: set[tuple[str, str]] = set()  # replies declined or left unanswered: not offered again
    failed = False
    while state["stop"] is None:
        snapshot = inbox_snapshot(paths)
        settled, waiting = tracker.update(snapshot, loop.time())
        acted = False
        for name in sorted(settled, key=lambda n: (snapshot[n][1], n)):
            if state["stop"] is not None:
                break
            reply = paths.inbox / name
            try:
                verdict = _triage(ledger, reply)
            except LedgerError as exc:
                notice(f"{exc}; stopping")
                return 1
            if verdict is None:
                continue  # gone meanwhile
            action, digest, message = verdict
            if action == "refuse":
                where = _move(paths, reply, paths.refused)
                notice(f"[REFUSED] {message}; moved to {where}")
                acted = True
                continue
            if action == "done":
                where = _move(paths, reply, paths.processed)
                notice(f"{message}; moved to {where}")
                acted = True
                continue
            if (name, digest) in passed:
                continue
            if action == "declined":
                passed.add((name, digest))
                notice(f"Skipped {name}: {message}")
                continue
            control: RunControl = state["control"]
            sink: EventSink
            display = None
            if writer is not None:
                sink = writer
            else:
                ask = ask_on(console) if sys.stdin.isatty() else None

                display = TextDisplay(console, control, live=console.is_terminal, ask=ask)
                sink = display
            try:
                outcome = await apply_reply(
                    reply, config=config, options=options, workspace=root, sink=sink, control=control
                )
            finally:
                if display is not None:
                    display.close()
            acted = True
            if outcome.status == "cancelled":
                if state["stop"] is not None:
                    break
                passed.add((name, digest))  # declined (remembered in the ledger) or unanswered
                state["control"] = RunControl()
                continue
            if outcome.refused and reply.exists():  # a prompt, a copy, a reply cut off: reported, never applied
                where = _move(paths, reply, paths.refused)
                notice(f"[REFUSED] {name}: moved to {where}")
                state["control"] = RunControl() if state["stop"] is None else state["control"]
                continue
            failed = failed or outcome.exit_code == 1  # the run failed, or a block of the reply did
            if reply.exists():
                where = _move(paths, reply, paths.processed)
                if writer is None:
                    console.print(Text(visible(f"Moved {name} to {where.parent}/", one_line=True), style="dim"))
            if state["control"].failure is not None:
                break
            state["control"] = RunControl() if state["stop"] is None else state["control"]
        if state["stop"] is not None or state["control"].failure is not None:
            break
        if args.once and waiting == 0 and not acted:
            break
        if not acted:
            await asyncio.sleep(args.interval)
    if state["stop"] is not None and fmt == "text":
        console.print(Text(visible(f"Stopped: {state['stop']}", one_line=True)))
    if state["signal"] is not None:
        return EXIT_INTERRUPTED if state["signal"] == signal.SIGINT else EXIT_TERMINATED
    return 1 if failed or state["control"].failure is not None else 0


def _triage(ledger: ReplyLedger, reply: Path) -> tuple[str, str, str] | None:
    """What ``agent watch`` does with a settled inbox file: (action, digest, message); None when it is gone.

    Actions: ``refuse`` (not a regular file, or written by a run or a reply), ``done`` (already applied or
    interrupted: never applied again), ``declined`` (a person said no earlier), ``apply``.
    """

    name = reply.name
    try:
        st = os.lstat(reply)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return "refuse", "", f"{name} is not a regular file (a symlink or a special file); it is never applied"
    try:
        digest = file_digest(reply)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return "refuse", "", f"{name} cannot be read ({exc.strerror or exc})"
    untrusted = ledger.untrusted(digest)
    if untrusted is not None:
        return (
            "refuse",
            digest,
            f"{name} {untrusted.note} (at {untrusted.at}): a command or a reply may have written it, so it is "
            f"never applied by 'agent watch'. If you wrote it yourself, apply it with 'heredoc-lsp apply FILE'",
        )
    record = ledger.find(digest, name)
    if record is None or record.state not in HANDLED:
        record = ledger.applied(ReplyRecord(digest, name, "started", content=_content_key(reply))) or record
    if record is not None and record.state in HANDLED:
        if record.state == "applied" or record.name != name:
            return "done", digest, f"[SKIPPED] {already_applied_message(name, record)}"
        return (
            "done",
            digest,
            f"[INTERRUPTED] {name} was being applied when heredoc-lsp stopped (started at {record.at}); it is "
            "not applied again: check the workspace and write a new reply",
        )
    if record is not None and record.state == "declined":
        return "declined", digest, f"declined at {record.at}; not asked again (apply it with 'heredoc-lsp apply')"
    return "apply", digest, ""


def _content_key(reply: Path) -> str:
    """The reply's content key (the same reply under any name); empty when it cannot be read."""
    try:
        return reply_key(decode_document(reply.read_bytes()).text)
    except OSError:
        return ""


def _move(paths: AgentPaths, reply: Path, folder: Path) -> Path:
    try:
        return move_processed(paths, reply, folder)
    except OSError:
        return reply
