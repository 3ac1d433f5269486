"""How run results look in the editor: lens titles, hover text, result diagnostics (pure formatting, no LSP I/O)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from heredoc_lsp.runs.state import ActiveRun, TargetResult
from heredoc_lsp.runs.targets import RunTarget
from heredoc_lsp.syntax.diagnostics import Diagnostic, Severity

RUN_TITLE = "▶ Run"
RUN_SCRIPT_TITLE = "▶ Run script"
APPLY_REPLY_TITLE = "▶ Apply reply"
PREVIEW_REPLY_TITLE = "Preview reply"
UNDO_REPLY_TITLE = "↶ Undo last reply"
RESULT_CODE = "run_failed"
HOVER_OUTPUT_CHARS = 2000
DIAGNOSTIC_TAIL_LINES = 5
DIAGNOSTIC_TAIL_CHARS = 400


def seconds(value: float | None) -> str:
    """``0.03 s``, ``0.3 s``, ``12 s``, ``2 min 05 s``."""
    if value is None:
        return "?"
    if value < 0.095:
        return f"{value:.2f} s"
    if value < 10:
        return f"{value:.1f} s"
    if value < 60:
        return f"{value:.0f} s"
    minutes, secs = divmod(round(value), 60)
    return f"{minutes} min {secs:02d} s"


def exit_text(code: int | None) -> str:
    if code is None:
        return "not started"
    if code < 0:
        return f"signal {-code}"
    return f"exit {code}"


def result_title(target: RunTarget, result: TargetResult) -> str:
    """The lens title of a finished run: ``✓ exit 0 · 0.3 s``, ``✗ exit 2 · 1.1 s``, ``⏱ timed out · 30 s``..."""
    took = seconds(result.duration_s)
    if target.kind in ("script", "reply"):
        return _whole_title(target, result, took)
    if result.status == "timeout":
        return f"⏱ timed out · {took}"
    if result.status == "cancelled":
        return f"■ cancelled · {took}"
    if result.status == "skipped":
        return "– skipped"
    if target.kind == "block" and not target.command:
        # A file command of a reply: the executor's summary says what happened (Created 'a.py', File 'x' not found).
        return ("✓ " if result.ok else "✗ ") + _one_line(result.summary)
    if result.exit_code is None:
        return "✗ " + _one_line(result.summary or "failed")
    mark = "✓" if result.status == "ok" else "✗"
    return f"{mark} {exit_text(result.exit_code)} · {took}"


def _whole_title(target: RunTarget, result: TargetResult, took: str) -> str:
    ok, bad = result.counts
    if result.status == "cancelled":
        return f"■ cancelled after {ok + bad} of the commands · {took}"
    if ok + bad == 0 and not result.ok:
        return "✗ " + _one_line(result.summary or "failed")  # refused before anything ran
    if bad:
        text = f"✗ {ok} ok, {bad} failed · {took}"
    elif target.kind == "script":
        text = f"✓ {ok} command{'s' if ok != 1 else ''} ok · {took}"
    else:
        text = f"✓ {ok} ok · {took}"
    if result.outbox is not None:
        text += f" · {result.outbox.name}"
    return text


def running_title(run: ActiveRun) -> str:
    return f"⏳ running {seconds(time.monotonic() - run.started)} · ■ Cancel"


def _one_line(text: str, limit: int = 80) -> str:
    first = text.split("\n", 1)[0]
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _fence(text: str) -> str:
    """A code fence longer than any backtick run inside ``text``."""
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _clip(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    half = limit // 2
    return f"{text[:half]}\n… {len(text) - limit} characters not shown …\n{text[-half:]}", True


def hover_markdown(target: RunTarget, result: TargetResult | None, run: ActiveRun | None) -> str | None:
    """Markdown for a hover on a target: the last result with its output (truncated), or the run in progress."""
    if result is None and run is None:
        return None
    parts: list[str] = []
    if run is not None:
        parts.append(
            f"**Running** for {seconds(time.monotonic() - run.started)}" + (f": `{run.current}`" if run.current else "")
        )
    if result is not None:
        when = time.strftime("%H:%M:%S", time.localtime(result.finished_at))
        parts.append(f"**Last run** {result_title(target, result)} (at {when})")
        if result.summary:
            parts.append(_one_line(result.summary, 200))
        output = result.output.rstrip("\n")
        if output:
            shown, clipped = _clip(output, HOVER_OUTPUT_CHARS)
            fence = _fence(shown)
            parts.append(f"{fence}text\n{shown}\n{fence}")
            if clipped or result.output_truncated:
                parts.append("*Output truncated.*")
        elif target.kind in ("command", "block") and target.command:
            parts.append("*(no output)*")
        if result.log_path is not None:
            parts.append(f"[Full output]({result.log_path.as_uri()})")
    return "\n\n".join(parts)


def tail_lines(text: str, lines: int = DIAGNOSTIC_TAIL_LINES, chars: int = DIAGNOSTIC_TAIL_CHARS) -> str:
    """The last non-blank lines of ``text`` (at most ``lines`` lines and about ``chars`` characters)."""
    kept = [line for line in text.rstrip("\n").split("\n") if line.strip(" \t\f\v")][-lines:]
    out = "\n".join(kept)
    if len(out) > chars:
        out = "…" + out[-(chars - 1) :]
    return out


def result_diagnostics(pairs: Sequence[tuple[RunTarget, TargetResult]]) -> list[Diagnostic]:
    """One information diagnostic per failed command or block: what failed and the tail of its stderr."""
    out: list[Diagnostic] = []
    for target, result in pairs:
        if target.kind not in ("command", "block") or result.ok or result.status == "cancelled":
            continue
        if result.status == "timeout":
            head = f"Timed out after {seconds(result.duration_s)}"
        elif result.exit_code is not None:
            head = f"Failed with {exit_text(result.exit_code).replace('exit', 'exit code')}"
        else:
            head = _one_line(result.summary or "Failed", 200)
        tail = tail_lines(result.stderr_tail or result.output)
        message = f"{head}: {target.label}" if target.command else head
        if tail:
            message += "\n" + tail
        out.append(
            Diagnostic(
                span=target.span,
                severity=Severity.INFORMATION,
                code=RESULT_CODE,
                message=message,
                data={"run_id": result.run_id},
            )
        )
    return out
