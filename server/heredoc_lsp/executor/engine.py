"""The part every run shares: events with exactly one terminal event, confirmation, running one command.

:func:`drive` wraps the body of a run (a script, a reply): it emits ``run.started``, runs the body, and turns
whatever happens — a normal end, a cancel (even during a question), a question nobody answers, a failing sandbox,
an exception, the surrounding task being cancelled — into exactly one terminal event.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from heredoc_lsp.executor.control import QuestionUnanswered, RunCancelled, RunControl
from heredoc_lsp.executor.environment import Redactor, build_environment, secret_values
from heredoc_lsp.executor.events import EventSink, FailureCode, RunEmitter, new_id
from heredoc_lsp.executor.model import (
    RunOptions,
    RunOutcome,
    RunStatus,
    StepResult,
    StepStatus,
    describe_exit,
    display_output,
    quote_command,
    short_command,
)
from heredoc_lsp.executor.planted import PlantGuard
from heredoc_lsp.executor.process import ProcessSpec, run_process
from heredoc_lsp.executor.sandbox import (
    ResourceLimits,
    SandboxChoice,
    SandboxUnavailable,
    choose_sandbox,
    command_argv,
    limits_note,
)
from heredoc_lsp.syntax.outbox import quoted_name

_log = logging.getLogger(__name__)
YES_ANSWERS = frozenset({"yes", "y", "true", "1", "ok", "run"})


class RunRefused(Exception):
    """The run cannot start (errors in the script, unreadable file...): becomes ``run.failed``."""

    def __init__(self, code: FailureCode, message: str, *, refused: bool = False, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.refused = refused  # refused as a whole, on purpose (a reply applied before...): exit code 2
        self.extra = extra


class RunContext:
    """State of one run while it executes: emitter, control, options, sandbox choice, results so far."""

    def __init__(
        self,
        workspace: Path,
        options: RunOptions,
        sink: EventSink | None = None,
        control: RunControl | None = None,
        run_id: str | None = None,
    ) -> None:
        self.run_id = run_id or new_id("run")
        self.workspace = workspace
        self.options = options
        self.emitter = RunEmitter(self.run_id, sink)
        self.control = control if control is not None else RunControl()
        self.results: list[StepResult] = []
        self._sandbox: SandboxChoice | None = None
        self._env: dict[str, str] | None = None
        self._redactor: Redactor | None = None
        self._limits_for: RunOptions | None = None
        self._effective_limits = options.limits

    # -- questions ----------------------------------------------------------------------------------------------

    async def confirm(self, text: str) -> None:
        """Ask before anything runs when ``confirm = "always"``; a "no" cancels the run."""
        if self.options.confirm != "always":
            return
        answer = await self.control.ask(
            self.emitter,
            "confirm",
            text,
            options=["yes", "no"],
            default="no",
            timeout_s=self.options.question_timeout_s,
        )
        if not is_yes(answer):
            raise RunCancelled("not confirmed")

    # -- commands -----------------------------------------------------------------------------------------------

    def sandbox(self) -> SandboxChoice:
        if self._sandbox is None:
            self._sandbox = choose_sandbox(self.options.sandbox)
            for note in (self._sandbox.note, limits_note(self._limits())):
                if note:
                    self.emitter.status(note)
        return self._sandbox

    def _limits(self) -> ResourceLimits:
        if self._limits_for is not self.options:
            self._limits_for = self.options
            self._effective_limits = effective_limits(self.options)
        return self._effective_limits

    def _environment(self) -> tuple[dict[str, str], Redactor]:
        if self._env is None or self._redactor is None:
            self._env = build_environment(None, self.options.env)
            self._redactor = Redactor(secret_values())
        return self._env, self._redactor

    @property
    def redactor(self) -> Redactor:
        """Hides the secret values of heredoc-lsp's environment in everything the run shows or writes."""
        return self._environment()[1]

    async def run_command(
        self, index: int, total: int, text: str, stdin: str, *, line: int | None, kind: str
    ) -> StepResult:
        """Run one command through the runner, sandbox and limits, streaming its output as progress events."""
        line1 = None if line is None else line + 1
        choice = self.sandbox()  # first, so that a note about missing isolation precedes any command
        self.emitter.progress("command", index=index, total=total, line=line1, command=text, step=kind)
        env, redactor = self._environment()
        opts = self.options
        guard = PlantGuard.before(self.workspace) if choice.mode == "bwrap" else None
        argv = command_argv(
            opts.runner_argv(text),
            self.workspace,
            choice,
            self._limits(),
            allow_network=opts.allow_network,
            search_path=env.get("PATH"),
            extra_binds=guard.binds() if guard is not None else (),
        )
        spec = ProcessSpec(
            argv=argv,
            cwd=self.workspace,
            env=env,
            stdin=stdin.encode("utf-8", "surrogateescape"),
            timeout_s=opts.timeout_s if opts.timeout_s > 0 else None,
            kill_grace_s=opts.kill_grace_s,
            capture_bytes=opts.capture_bytes,
            redactor=redactor,
        )
        done = await run_process(
            spec,
            self.control,
            on_output=lambda stream, chunk: self.emitter.progress(stream, index=index, text=chunk),
            on_status=lambda note: self.emitter.status(note, index=index),
        )
        planted = guard.sweep() if guard is not None else []
        output, truncated = display_output(done.stdout, done.stderr, opts.max_output_chars)
        shown = short_command(text)
        status: StepStatus
        if done.spawn_error is not None:
            status, summary = "failed", f"Could not run {quote_command(shown)}: {done.spawn_error}"
        elif done.cancelled:
            status, summary = "cancelled", f"Command cancelled ({done.cancel_reason}): {shown}"
        elif done.timed_out:
            status, summary = "timeout", f"Command timed out ({opts.timeout_s:g}s): {shown}"
        else:
            code = done.exit_code
            status = "ok" if code == 0 else "failed"
            summary = f"Ran {quote_command(shown)} ({describe_exit(code)})"
        if planted:
            more = f" and {len(planted) - 5} more" if len(planted) > 5 else ""
            names = ", ".join(quoted_name(p) for p in planted[:5]) + more
            status = "failed" if status == "ok" else status
            output = (
                f"heredoc-lsp: the command created {names}, which would run code outside the sandbox later (Git "
                f"hooks and config, direnv, editor settings): removed, and the command failed\n{output}"
            )
        return StepResult(
            index=index,
            kind=kind,
            status=status,
            summary=summary,
            line=line1,
            command=text,
            exit_code=done.exit_code,
            output=output,
            duration_s=done.duration_s,
            output_truncated=truncated,
        )

    def record(self, result: StepResult) -> StepResult:
        """Keep ``result`` and tell the consumers (a status progress event carrying the result)."""
        self.results.append(result)
        if self.emitter.listening:
            self.emitter.status(result.text(), index=result.index, result=result.to_json())
        return result

    def results_json(self) -> list[dict[str, Any]]:
        return [r.to_json() for r in self.results]


def effective_limits(options: RunOptions) -> ResourceLimits:
    """The options' limits, with a CPU limit that never fires before the wall-clock deadline of a busy process."""
    limits = options.limits
    if limits.cpu_s is not None and options.timeout_s > 0 and limits.cpu_s <= options.timeout_s:
        return replace(limits, cpu_s=math.ceil(options.timeout_s) + 1)
    return limits


def is_yes(answer: Any) -> bool:
    if isinstance(answer, bool):
        return answer
    return isinstance(answer, str) and answer.strip().lower() in YES_ANSWERS


def count_summary(results: list[StepResult], noun: str = "command") -> str:
    """``3 commands: 2 OK, 1 FAILED``."""
    n = len(results)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.label] = counts.get(r.label, 0) + 1
    parts = [f"{counts[k]} {k}" for k in ("OK", "FAILED", "SKIPPED") if counts.get(k)]
    return f"{n} {noun}{'s' if n != 1 else ''}" + (f": {', '.join(parts)}" if parts else "")


async def drive(
    ctx: RunContext,
    started: dict[str, Any],
    body: Callable[[RunContext], Awaitable[RunOutcome]],
) -> RunOutcome:
    """Run ``body`` with ``run.started`` before it and exactly one terminal event after it, whatever happens."""
    em = ctx.emitter
    em.started(**started)

    def outcome(status: RunStatus, summary: str, code: str | None = None, message: str | None = None) -> RunOutcome:
        return RunOutcome(ctx.run_id, status, tuple(ctx.results), summary, code, message)

    try:
        result = await body(ctx)
    except RunRefused as exc:
        if exc.refused:
            em.failed(exc.code, exc.message, refused=True, **exc.extra)
        else:
            em.failed(exc.code, exc.message, **exc.extra)
        result = replace(outcome("failed", exc.message, exc.code, exc.message), refused=exc.refused)
    except RunCancelled as exc:
        failure = ctx.control.failure
        if failure is not None:
            em.failed(failure[0], failure[1], results=ctx.results_json())
            result = outcome("failed", failure[1], failure[0], failure[1])
        else:
            em.cancelled(exc.reason, results=ctx.results_json())
            result = outcome("cancelled", exc.reason, message=exc.reason)
    except QuestionUnanswered as exc:
        em.cancelled(exc.reason, results=ctx.results_json())
        result = outcome("cancelled", exc.reason, message=exc.reason)
    except SandboxUnavailable as exc:
        em.failed("internal_error", str(exc), results=ctx.results_json())
        result = outcome("failed", str(exc), "internal_error", str(exc))
    except asyncio.CancelledError:
        em.cancelled("the run's task was cancelled", results=ctx.results_json())
        raise
    except Exception as exc:
        _log.exception("run %s failed", ctx.run_id)
        message = f"internal error: {type(exc).__name__}: {exc}"
        em.failed("internal_error", message, results=ctx.results_json())
        result = outcome("failed", message, "internal_error", message)
    finally:
        if not em.finished:
            em.failed("internal_error", "the run ended without a result", results=ctx.results_json())
    return result
