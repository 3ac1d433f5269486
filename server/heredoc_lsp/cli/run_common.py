"""What ``run``, ``apply`` and ``agent`` share: options, config, and the text / JSONL front ends of a run.

JSON mode follows docs/jsonl.md (events on stdout; stdin read for the whole run: ``run.start``, ``run.input``,
``run.cancel``; its exit codes). Imported only inside the subcommands' ``run()`` (it pulls in the executor and rich).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from heredoc_lsp.cli.progress import TextDisplay, ask_on
from heredoc_lsp.cli.sources import display_path
from heredoc_lsp.config import (
    IGNORED_SETTING,
    Config,
    ConfigError,
    ConfigResolver,
    EffectiveConfig,
    IgnoredSetting,
    Overrides,
)
from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.events import FAILED, PROGRESS, STARTED, EventSink, RunEmitter, RunEvent, new_id
from heredoc_lsp.executor.jsonl import (
    RUN_CANCEL,
    RUN_INPUT,
    RUN_START,
    Inbound,
    InboundProblem,
    JsonlWriter,
    StdinListener,
)
from heredoc_lsp.executor.model import RunOptions, RunOutcome
from heredoc_lsp.syntax.visible import visible

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class UsageError(Exception):
    """A problem with the command line or its inputs: one line on stderr, exit code 2."""


def cli_overrides(args: argparse.Namespace, options: Mapping[str, Any] | None = None) -> Overrides:
    """The person's choices for this run: the flags, then (JSON mode) ``run.start`` options. They may loosen the
    safety settings, which a workspace config may not (docs/configuration.md)."""
    timeout = getattr(args, "timeout", None)
    sandbox = getattr(args, "sandbox", None)
    yes = bool(getattr(args, "yes", False))
    env = tuple(getattr(args, "env", None) or ())
    for name in env:
        if not _ENV_NAME.fullmatch(name):
            raise UsageError(f"--env {name!r}: not an environment variable name")
    if options:
        o = options
        if isinstance(o.get("timeout_s"), (int, float)) and not isinstance(o.get("timeout_s"), bool):
            timeout = float(o["timeout_s"])
        if o.get("sandbox") in ("auto", "bwrap", "none"):
            sandbox = o["sandbox"]
        if o.get("yes") is True:
            yes = True
    if timeout is not None and not timeout > 0:
        raise UsageError("--timeout must be a positive number of seconds")
    return Overrides(
        timeout_s=timeout,
        sandbox=sandbox,
        allow_network=getattr(args, "allow_network", None),
        confirm="never" if yes else None,
        env=env,
    )


def load_cli_config(args: argparse.Namespace, path: Path | None, overrides: Overrides | None = None) -> EffectiveConfig:
    """``--config`` or the nearest config of ``path`` (or the current directory), merged with the user's own config
    and the flags; errors are usage errors."""
    explicit = Path(args.config) if getattr(args, "config", None) else None
    resolver = ConfigResolver(explicit, overrides=overrides if overrides is not None else cli_overrides(args))
    try:
        return resolver.resolve(path if path is not None else Path.cwd() / "x")
    except ConfigError as exc:
        raise UsageError(f"configuration error:\n{exc.format()}") from None
    except OSError as exc:
        raise UsageError(f"cannot read config: {exc}") from None


def build_options(args: argparse.Namespace, config: Config, overrides: Mapping[str, Any] | None = None) -> RunOptions:
    """The run's options: the effective config (flags included), ``--keep-going`` and ``--question-timeout``, then
    (JSON mode) ``run.start``'s ``keep_going``."""
    keep_going = True if getattr(args, "keep_going", False) else None
    if overrides and isinstance(overrides.get("keep_going"), bool):
        keep_going = overrides["keep_going"]
    return RunOptions.from_config(
        config, keep_going=keep_going, question_timeout_s=getattr(args, "question_timeout", None)
    )


def report_ignored(ignored: tuple[IgnoredSetting, ...]) -> None:
    """One stderr line per workspace setting that was ignored (docs/configuration.md), before anything runs."""
    for item in ignored:
        _warn(_line(item))


def _line(item: IgnoredSetting) -> str:
    return item.format(display_path(item.path) if item.path is not None else None)


def with_ignored_status(sink: EventSink, ignored: tuple[IgnoredSetting, ...]) -> EventSink:
    """``sink``, plus one ``run.progress`` status event per ignored workspace setting right after ``run.started``."""
    if not ignored:
        return sink

    def wrapped(event: RunEvent) -> None:
        sink(event)
        if event.type == STARTED:
            for item in ignored:
                payload = {"kind": "status", "text": _line(item), "code": IGNORED_SETTING, "key": item.key}
                sink(RunEvent(PROGRESS, event.run_id, payload))

    return wrapped


def output_format(args: argparse.Namespace, config: Config) -> str:
    return str(args.output or config.cli_output)


def _warn(message: str) -> None:
    sys.stderr.write(f"heredoc-lsp: {visible(message)}\n")
    sys.stderr.flush()


@dataclass
class Request:
    """What to run: the file, the options, the client's run id (JSON mode) and the config."""

    path: Path
    options: RunOptions
    config: Config
    run_id: str | None = None
    ignored: tuple[IgnoredSetting, ...] = ()


Starter = Callable[[Request, EventSink, RunControl], Awaitable[RunOutcome]]
Preparer = Callable[[Path, Mapping[str, Any] | None], Request]


def starter(runner: Callable[..., Awaitable[RunOutcome]], **fixed: Any) -> Starter:
    """How ``run`` and ``apply`` start: ``runner`` (``run_script``, ``apply_reply``) on the request, with the
    subcommand's ``fixed`` arguments."""

    async def start(request: Request, sink: EventSink, control: RunControl) -> RunOutcome:
        return await runner(
            request.path,
            config=request.config,
            options=request.options,
            sink=sink,
            control=control,
            run_id=request.run_id,
            **fixed,
        )

    return start


def file_preparer(args: argparse.Namespace) -> Preparer:
    """The usual preparer of ``run`` and ``apply``: the file must exist; its config and the options make the request."""

    def prepare(path: Path, overrides: Mapping[str, Any] | None) -> Request:
        require_file(path)
        effective = load_cli_config(args, path, cli_overrides(args, overrides))
        config = effective.config
        return Request(path, build_options(args, config, overrides), config, ignored=effective.ignored)

    return prepare


def _install_signals(
    loop: asyncio.AbstractEventLoop,
    control: RunControl,
    got: dict[str, int],
    also: Callable[[str], None] | None = None,
) -> None:
    """SIGINT/SIGTERM cancel the run (its commands' process groups are killed); ``also`` hears the reason too."""

    def on_signal(signum: int, reason: str) -> None:
        got.setdefault("signal", signum)
        control.cancel(reason)
        if also is not None:
            also(reason)

    for signum, reason in ((signal.SIGINT, "interrupted"), (signal.SIGTERM, "terminated")):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, on_signal, signum, reason)


def _exit_code(outcome: RunOutcome, got: dict[str, int]) -> int:
    """docs/jsonl.md: 0 completed, 1 failed, 130 cancelled (143 when SIGTERM ended it)."""
    if outcome.status == "cancelled":
        return _cancelled_exit(got)
    return outcome.exit_code


def _cancelled_exit(got: dict[str, int]) -> int:
    return EXIT_TERMINATED if got.get("signal") == signal.SIGTERM else EXIT_INTERRUPTED


async def run_json(path: Path | None, prepare: Preparer, start: Starter) -> int:
    """JSON mode: events on stdout, run.start/run.input/run.cancel read from stdin for the whole run."""
    loop = asyncio.get_running_loop()
    writer = JsonlWriter(sys.stdout.buffer)
    control = RunControl()
    got: dict[str, int] = {}
    pending: asyncio.Future[Inbound | tuple[str, str, str | None]] = loop.create_future()

    def on_signal(reason: str) -> None:
        if not pending.done():
            pending.set_result(("cancel", reason, None))

    _install_signals(loop, control, got, on_signal)

    def on_message(msg: Inbound) -> None:
        if msg.type == RUN_START:
            if path is None and not pending.done():
                pending.set_result(msg)
            else:
                _warn("run.start ignored: a run is already under way")
        elif msg.type == RUN_INPUT:
            qid = str(msg.payload.get("question_id"))
            if not control.answer(qid, msg.payload.get("value")):
                _warn(f"run.input ignored: no question {qid!r} is waiting for an answer")
        elif msg.type == RUN_CANCEL:
            reason = msg.payload.get("reason")
            reason = reason if isinstance(reason, str) and reason else "cancelled by the client"
            control.cancel(reason)
            if not pending.done():
                pending.set_result(("cancel", reason, msg.run_id))

    def on_problem(problem: InboundProblem) -> None:
        _warn(f"ignored input line: {problem.message}" if problem.kind != "version" else problem.message)
        if problem.kind == "version":
            control.abort("unsupported_version", problem.message)
            if not pending.done():
                pending.set_result(("version", problem.message, problem.run_id))

    def on_eof() -> None:
        control.close_input("standard input was closed")
        if not pending.done():
            pending.set_result(("eof", "standard input was closed before run.start", None))

    StdinListener(sys.stdin.fileno(), loop, on_message, on_problem, on_eof).start()
    request: Request
    if path is not None:
        try:
            request = prepare(path, None)
        except UsageError as exc:
            _refuse_json(writer, None, str(exc), path)
            return EXIT_USAGE
    else:
        first = await pending
        if isinstance(first, tuple):
            kind, message, run_id = first
            em = RunEmitter(run_id or new_id("run"), writer)
            if kind == "cancel":
                em.cancelled(message)
                return _cancelled_exit(got)
            em.failed("unsupported_version" if kind == "version" else "protocol_error", message)
            return 1
        options = first.payload.get("options")
        try:
            request = prepare(Path(str(first.payload["path"])), options if isinstance(options, dict) else None)
        except UsageError as exc:
            return _refuse_json(writer, first.run_id, str(exc), Path(str(first.payload["path"])))
        request.run_id = first.run_id
    report_ignored(request.ignored)
    sink = with_ignored_status(_diagnostics_to_stderr(writer, request.path), request.ignored)
    outcome = await start(request, sink, control)
    return _exit_code(outcome, got)


def _diagnostics_to_stderr(writer: JsonlWriter, path: Path) -> EventSink:
    """The JSONL sink, plus the diagnostics of a refused run as ``path:line:col: severity[code] message`` on stderr."""

    def sink(event: RunEvent) -> None:
        writer(event)
        if event.type == FAILED:
            for d in event.payload.get("diagnostics", ()) or ():
                where = visible(f"{path}:{d['line']}:{d['column']}:", one_line=True)
                sys.stderr.write(f"{where} {d['severity']}[{d['code']}] {visible(str(d['message']), one_line=True)}\n")
            sys.stderr.flush()

    return sink


def _refuse_json(writer: JsonlWriter, run_id: str | None, message: str, path: Path) -> int:
    em = RunEmitter(run_id or new_id("run"), writer)
    em.started(path=str(path.absolute()))
    em.failed("protocol_error", message)
    _warn(message)
    return 1


async def run_text(request: Request, start: Starter) -> int:
    """Text mode: rich live progress on a terminal, plain lines otherwise."""

    loop = asyncio.get_running_loop()
    control = RunControl()
    got: dict[str, int] = {}
    _install_signals(loop, control, got)
    console = Console(highlight=False)
    live = console.is_terminal
    interactive = sys.stdin.isatty()
    ask = ask_on(console) if interactive else None

    display = TextDisplay(console, control, live=live, ask=ask)
    try:
        outcome = await start(request, display, control)
    finally:
        display.close()
    return _exit_code(outcome, got)


def check_confirmation_possible(request: Request, fmt: str) -> None:
    """Text mode without a terminal cannot ask: refuse before anything happens (a usage error)."""
    if fmt == "text" and request.options.confirm == "always" and not sys.stdin.isatty():
        raise UsageError(
            'confirmation required (confirm = "always") but standard input is not a terminal: pass --yes to run'
        )


def main_for(args: argparse.Namespace, path: Path | None, prepare: Preparer, start: Starter) -> int:
    """Entry point shared by the subcommands: choose the front end, map usage errors to exit code 2."""
    try:
        fmt = output_format(args, load_cli_config(args, path).config)
        if fmt == "json":
            return asyncio.run(run_json(path, prepare, start))
        if path is None:
            raise UsageError("a file to run is required (or use --output json and send run.start)")
        request = prepare(path, None)
        report_ignored(request.ignored)
        check_confirmation_possible(request, fmt)
        return asyncio.run(run_text(request, start))
    except UsageError as exc:
        _warn(str(exc))
        return EXIT_USAGE


def require_file(path: Path) -> None:
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if path.is_dir():
        raise UsageError(f"{path}: is a directory, not a file")
    if not path.is_file():  # a FIFO would make the read wait for a writer forever
        raise UsageError(f"{path}: not a regular file (a FIFO, a device or a socket is never read)")
    if not os.access(path, os.R_OK):
        raise UsageError(f"{path}: not readable")
