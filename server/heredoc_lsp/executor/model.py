"""Plain values of the run layer: options, steps, per-step results and the outcome of a run."""

from __future__ import annotations

import signal
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from heredoc_lsp.config.model import DEFAULT_RUNNER
from heredoc_lsp.executor.output import DEFAULT_CAPTURE_BYTES, DEFAULT_DISPLAY_CHARS, CapturedOutput, truncate_parts
from heredoc_lsp.executor.sandbox import ResourceLimits, SandboxMode

if TYPE_CHECKING:
    from heredoc_lsp.config.model import Config, Confirm
    from heredoc_lsp.executor.files import FileContents

StepStatus = Literal["ok", "failed", "rejected", "timeout", "cancelled", "skipped"]
RunStatus = Literal["completed", "failed", "cancelled"]
#: Step statuses that make a run's exit code 1 even when it completed.
FAILED_STEPS: frozenset[str] = frozenset({"failed", "rejected", "timeout"})


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How a run executes. :meth:`from_config` fills them from ``heredoc-lsp.toml``; front ends override fields."""

    timeout_s: float = 30.0
    sandbox: SandboxMode = "auto"
    allow_network: bool = False
    max_output_chars: int = DEFAULT_DISPLAY_CHARS
    capture_bytes: int = DEFAULT_CAPTURE_BYTES
    confirm: Confirm = "never"
    env: tuple[str, ...] = ()
    runner: tuple[str, ...] = DEFAULT_RUNNER
    keep_going: bool = False
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    kill_grace_s: float = 1.0
    question_timeout_s: float | None = None
    read_max_chars: int = 100_000

    @classmethod
    def from_config(cls, config: Config, **overrides: Any) -> RunOptions:
        ex = config.executor
        base = cls(
            timeout_s=float(ex.timeout_s),
            sandbox=ex.sandbox,
            allow_network=ex.allow_network,
            max_output_chars=ex.max_output_chars,
            confirm=ex.confirm,
            env=tuple(ex.env),
            runner=tuple(config.script_runner),
        )
        return replace(base, **{k: v for k, v in overrides.items() if v is not None})

    def runner_argv(self, command: str) -> list[str]:
        """The argv for ``command``: the runner with each ``{command}`` item replaced by the text (one argument)."""
        return [command if part == "{command}" else part for part in self.runner]


@dataclass(frozen=True, slots=True)
class CommandStep:
    """A command line of a ``.cli`` script: its text, its stdin (the heredoc) and its 0-based line."""

    command: str
    stdin: str = ""
    line: int | None = None


@dataclass(frozen=True, slots=True)
class StepResult:
    """The result of one step, in the seed's wording (``[OK] CREATE_FILE: Created 'src/a.py'``).

    ``kind`` is ``"command"`` for script lines and the inbox command name otherwise; ``line`` is 1-based.
    ``output`` is the display text of the command's output (already truncated to the budget), or a message body.
    """

    index: int
    kind: str
    status: StepStatus
    summary: str
    line: int | None = None
    command: str | None = None
    exit_code: int | None = None
    output: str = ""
    path: str | None = None
    duration_s: float = 0.0
    output_truncated: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def label(self) -> str:
        return {"ok": "OK", "skipped": "SKIPPED"}.get(self.status, "FAILED")

    def seed_line(self) -> str:
        """``[OK] TYPE: summary`` (``TYPE`` is RUN_COMMAND for script lines): the reply wording of the outbox."""
        kind = "RUN_COMMAND" if self.kind == "command" else self.kind
        return f"[{self.label}] {kind}: {self.summary}"

    def text(self) -> str:
        """How the step is reported: a ``.cli`` line in its own words, a reply command in the seed's."""
        if self.kind != "command":
            return self.seed_line()
        fields = {"status": self.status, "exit_code": self.exit_code, "duration_s": self.duration_s}
        return command_result_text({**fields, "summary": self.summary, "line": self.line, "command": self.command})

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "index": self.index,
            "kind": self.kind,
            "status": self.status,
            "ok": self.ok,
            "summary": self.summary,
            "text": self.text(),
        }
        for key in ("line", "command", "exit_code", "path"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        if self.output:
            data["output"] = self.output
            data["output_truncated"] = self.output_truncated
        data["duration_s"] = round(self.duration_s, 3)
        return data


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """How a run ended, with everything the front ends need after the last event."""

    run_id: str
    status: RunStatus
    results: tuple[StepResult, ...]
    summary: str
    failure_code: str | None = None
    message: str | None = None
    reads: tuple[FileContents, ...] = ()
    done_summary: str | None = None
    outbox: Path | None = None
    refused: bool = False  # the run was refused as a whole (nothing ran): a usage error's exit code

    @property
    def failed_steps(self) -> int:
        return sum(1 for r in self.results if r.status in FAILED_STEPS)

    @property
    def exit_code(self) -> int:
        """docs/jsonl.md: 2 refused, 1 failed or completed with a failed step, 0 otherwise (cancelled: front ends)."""
        if self.refused:
            return 2
        return 1 if self.status == "failed" or self.failed_steps else 0


def display_output(stdout: CapturedOutput, stderr: CapturedOutput, budget: int) -> tuple[str, bool]:
    """stdout and stderr as one text of at most about ``budget`` characters; True when something was cut."""
    out_len = len(stdout.head) + len(stdout.tail)
    err_len = len(stderr.head) + len(stderr.tail)
    separator = "\n[stderr]\n" if out_len and err_len else ("[stderr]\n" if err_len else "")
    room = max(budget - len(separator), 0)
    err_room = min(err_len, room // 2) if out_len > room - min(err_len, room // 2) else err_len
    out_room = max(room - err_room, 0)
    out = truncate_parts(stdout.head, stdout.tail, stdout.omitted_bytes, out_room)
    err = truncate_parts(stderr.head, stderr.tail, stderr.omitted_bytes, err_room)
    if out and err:
        out = out if out.endswith("\n") else out + "\n"
        separator = "[stderr]\n"
    truncated = stdout.truncated or stderr.truncated or out_len > out_room or err_len > err_room
    return out + (separator + err if err else ""), truncated


def short_command(text: str, limit: int = 200) -> str:
    """A command as shown in a one-line summary: first line only, at most ``limit`` characters."""
    first, _, rest = text.partition("\n")
    shown = first if not rest else f"{first} ..."
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def quote_command(shown: str) -> str:
    """``shown`` in the first quote character it does not contain (``'``, then ``"``), so quotes never nest.

    A command holding both is shown as it is, without quotes of ours: ``Ran echo "a" 'b' (exit code 0)``.
    """
    for quote in ("'", '"'):
        if quote not in shown:
            return f"{quote}{shown}{quote}"
    return shown


def describe_exit(code: int | None) -> str:
    if code is None:
        return "not started"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}"
    return f"exit code {code}"


#: The words a ``.cli`` run uses for a cancelled command, by the run's cancel reason (signals: see cli/run_common.py).
CANCEL_LABELS: dict[str, str] = {"interrupted": "INTERRUPTED", "terminated": "TERMINATED"}


def command_result_text(result: Mapping[str, Any], *, cancel_reason: str | None = None, timed: bool = True) -> str:
    """How a ``.cli`` run reports one command (a result's JSON): ``[OK] line 3: git commit -F - (exit 0, 0.04 s)``.

    The command follows a colon with no quotes of ours around it, so its own quotes never nest with them.
    """
    status = str(result.get("status", ""))
    code = result.get("exit_code")
    took = f"{float(result.get('duration_s') or 0):.2f} s"
    if status == "cancelled":
        label = CANCEL_LABELS.get(cancel_reason or "", "CANCELLED")
        detail = f"after {took}" if timed else "stopped"
    elif status == "timeout":
        label, detail = "FAILED", f"timed out after {took}" if timed else "timed out"
    elif code is None:
        label = "FAILED"
        summary = str(result.get("summary", ""))
        prefix = f"Could not run {quote_command(short_command(str(result.get('command', ''))))}: "
        detail = "not started: " + summary.removeprefix(prefix)
    else:
        label = "OK" if status == "ok" else "FAILED"
        exited = describe_exit(code) if code < 0 else f"exit {code}"
        detail = f"{exited}, {took}" if timed else exited
    line = result.get("line")
    where = f"line {line}: " if line is not None else ""
    return f"[{label}] {where}{short_command(str(result.get('command', '')))} ({detail})"
