"""``heredoc-lsp agent new TASK`` and ``agent watch``: the inbox/outbox loop from the command line (SPEC §5).

``agent new`` creates a session (``sessions/<id>.json``) and writes ``outbox/<id>_seq0001.txt``: paste it to an
LLM, save its reply as ``inbox/<anything>.txt``. ``agent watch`` applies every ``inbox/*.txt`` (oldest first) to
the active session, writes the next outbox and moves the reply to ``inbox/processed/``; ``--once`` stops when the
inbox is empty. The agent root (``--workspace``, default the current directory) is also the workspace the
replies change.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from heredoc_lsp.cli.run import add_common_arguments


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "agent",
        help="start an agent session or process its inbox (the inbox/outbox loop)",
        description="The agent loop: 'agent new TASK' writes the first outbox; 'agent watch' applies replies "
        "saved in inbox/ and writes the next outboxes.",
    )
    sub = p.add_subparsers(dest="agent_command", metavar="ACTION")
    new = sub.add_parser("new", help="start a session for TASK and write its first outbox")
    new.add_argument("task", metavar="TASK", help="what the LLM should do")
    add_common_arguments(new)
    new.set_defaults(handler=run)
    watch = sub.add_parser("watch", help="apply inbox/*.txt replies as they arrive, oldest first")
    watch.add_argument("--once", action="store_true", help="process what is in the inbox now, then stop")
    watch.add_argument("--interval", type=float, default=1.0, metavar="S", help="seconds between inbox scans")
    add_common_arguments(watch)
    watch.set_defaults(handler=run)
    p.set_defaults(handler=_usage(p))


def _usage(p: argparse.ArgumentParser) -> Any:
    def handler(args: argparse.Namespace) -> int:
        import sys

        del args
        p.print_help(sys.stderr)
        return 2

    return handler


def run(args: argparse.Namespace) -> int:
    import asyncio
    import sys

    from heredoc_lsp.cli.run_common import EXIT_USAGE, UsageError, load_cli_config, output_format, report_ignored

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
        if args.interval <= 0:
            raise UsageError("--interval must be positive")
        return asyncio.run(_watch(args, root, config, fmt))
    except UsageError as exc:
        sys.stderr.write(f"heredoc-lsp: {exc}\n")
        return EXIT_USAGE


def _new(args: argparse.Namespace, root: Path, config: Any, fmt: str) -> int:
    import sys

    from heredoc_lsp.cli.run_common import UsageError, build_options
    from heredoc_lsp.executor.agent import AgentPaths, OutboxSettings, start_session
    from heredoc_lsp.executor.events import RunEmitter, new_id
    from heredoc_lsp.executor.jsonl import JsonlWriter

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
    import asyncio
    import signal
    import sys

    from rich.console import Console

    from heredoc_lsp.cli.progress import TextDisplay
    from heredoc_lsp.cli.run_common import UsageError, build_options
    from heredoc_lsp.executor.agent import AgentPaths, move_processed, pending_replies
    from heredoc_lsp.executor.control import RunControl
    from heredoc_lsp.executor.events import EventSink
    from heredoc_lsp.executor.jsonl import RUN_CANCEL, RUN_INPUT, Inbound, InboundProblem, JsonlWriter, StdinListener
    from heredoc_lsp.executor.reply_apply import apply_reply

    options = build_options(args, config)
    paths = AgentPaths(root)
    if not paths.is_agent_root():
        raise UsageError(f"{root} has no sessions/ folder: start one with 'heredoc-lsp agent new TASK'")
    if fmt == "text" and options.confirm == "always" and not sys.stdin.isatty():
        raise UsageError('confirmation required (confirm = "always") but standard input is not a terminal: pass --yes')
    loop = asyncio.get_running_loop()
    state: dict[str, Any] = {"control": RunControl(), "stop": None}

    def stop(reason: str) -> None:
        state["stop"] = reason
        state["control"].cancel(reason)

    for signum, reason in ((signal.SIGINT, "interrupted (SIGINT)"), (signal.SIGTERM, "terminated (SIGTERM)")):
        loop.add_signal_handler(signum, stop, reason)
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
        console.print(f"Watching {paths.inbox} (Ctrl-C to stop)", style="bold")
    failed = False
    while state["stop"] is None:
        replies = pending_replies(paths)
        if not replies:
            if args.once:
                break
            await asyncio.sleep(args.interval)
            continue
        for reply in replies:
            if state["stop"] is not None:
                break
            control: RunControl = state["control"]
            sink: EventSink
            display = None
            if writer is not None:
                sink = writer
            else:
                ask = None
                if sys.stdin.isatty():
                    from rich.prompt import Confirm

                    def ask(text: str) -> bool:
                        return Confirm.ask(text, default=False, console=console)

                display = TextDisplay(console, control, live=console.is_terminal, ask=ask)
                sink = display
            try:
                outcome = await apply_reply(
                    reply, config=config, options=options, workspace=root, sink=sink, control=control
                )
            finally:
                if display is not None:
                    display.close()
            if outcome.status == "cancelled":
                break
            failed = failed or outcome.status == "failed"
            move_processed(paths, reply)
            if writer is None:
                console.print(f"Moved {reply.name} to {paths.processed}/", style="dim")
            if state["control"].failure is not None:
                break
            state["control"] = RunControl() if state["stop"] is None else state["control"]
    if state["stop"] is not None and fmt == "text":
        console.print(f"Stopped: {state['stop']}")
    return 1 if failed or state["control"].failure is not None else 0
