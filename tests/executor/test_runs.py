"""The run layer in-process (as the language server uses it): events, exactly one terminal event, questions."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from heredoc_lsp.config import DEFAULT_CONFIG
from heredoc_lsp.executor import engine
from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.events import TERMINAL_TYPES, RunEvent
from heredoc_lsp.executor.model import RunOptions, RunOutcome, command_result_text, quote_command
from heredoc_lsp.executor.sandbox import UNISOLATED_NOTE
from heredoc_lsp.executor.script_run import run_script

from .conftest import processes_with, unique_sleep


class Recorder:
    """An event sink that keeps everything and can react to events."""

    def __init__(self) -> None:
        self.events: list[RunEvent] = []
        self.hooks: list[Any] = []

    def __call__(self, event: RunEvent) -> None:
        self.events.append(event)
        for hook in self.hooks:
            hook(event)

    def types(self) -> list[str]:
        return [e.type for e in self.events]

    def terminal(self) -> RunEvent:
        ends = [e for e in self.events if e.type in TERMINAL_TYPES]
        assert len(ends) == 1, self.types()
        assert self.events[-1] is ends[0]
        assert self.events[0].type == "run.started"
        assert {e.run_id for e in self.events} == {self.events[0].run_id}
        return ends[0]

    def progress(self, kind: str) -> list[dict[str, Any]]:
        return [dict(e.payload) for e in self.events if e.type == "run.progress" and e.payload["kind"] == kind]


def opts(mode: str = "none", **kw: Any) -> RunOptions:
    return replace(RunOptions(sandbox=mode, kill_grace_s=0.3), **kw)  # type: ignore[arg-type]


def script(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "s.cli"
    p.write_text(text)
    return p


async def run(
    path: Path,
    mode: str = "none",
    *,
    rec: Recorder | None = None,
    control: RunControl | None = None,
    lines: Collection[int] | None = None,
    **options: Any,
) -> tuple[RunOutcome, Recorder]:
    """``run_script`` of ``path`` in its folder with the default config and ``opts(mode, **options)``: the outcome
    and the recorded events (in ``rec`` when given)."""
    rec = rec or Recorder()
    out = await run_script(
        path,
        options=opts(mode, **options),
        workspace=path.parent,
        sink=rec,
        control=control,
        config=DEFAULT_CONFIG,
        lines=lines,
    )
    return out, rec


async def test_script_runs_in_order_with_heredoc_stdin(tmp_path: Path, mode: str) -> None:
    out, rec = await run(
        script(tmp_path, "# c\necho one\ncat <<EOF\n  kept  \n\n# not a comment\nEOF\ncat <<E2\nE2\n"), mode
    )
    end = rec.terminal()
    assert end.type == "run.completed"
    assert end.payload["summary"] == "3 commands: 3 OK"
    assert [r.get("output", "") for r in end.payload["results"]] == [
        "one\n",
        "  kept  \n\n# not a comment\n",
        "",
    ]
    assert [r.line for r in out.results] == [2, 3, 8]
    assert [c["command"] for c in rec.progress("command")] == ["echo one", "cat", "cat"]
    assert out.status == "completed" and out.exit_code == 0


async def test_script_with_errors_runs_nothing(tmp_path: Path) -> None:
    out, rec = await run(script(tmp_path, "touch made\ncat <<EOF\nnever closed\n"))
    end = rec.terminal()
    assert rec.types() == ["run.started", "run.failed"]
    assert end.payload["code"] == "parse_error"
    assert end.payload["message"] == (
        "s.cli has 1 error; nothing was run (line 2: Unclosed heredoc starting at line 2: expected 'EOF' "
        "but reached end of file)"
    )
    assert end.payload["diagnostics"][0]["code"] == "unclosed_heredoc"
    assert not (tmp_path / "made").exists()
    assert out.exit_code == 1


async def test_stops_at_first_failure_unless_keep_going(tmp_path: Path) -> None:
    path = script(tmp_path, "echo a\nfalse\necho c\n")
    _, rec = await run(path)
    end = rec.terminal()
    assert (end.type, end.payload["code"]) == ("run.failed", "command_failed")
    assert end.payload["message"] == "line 2: false (exit 1); 1 later command not run"
    assert len(end.payload["results"]) == 2
    _, rec = await run(path, keep_going=True)
    end = rec.terminal()
    assert end.type == "run.failed"
    assert [r["status"] for r in end.payload["results"]] == ["ok", "failed", "ok"]


async def test_keep_going_failure_names_every_failed_command(tmp_path: Path) -> None:
    _, rec = await run(script(tmp_path, "false\necho ok\nsh -c 'exit 3'\n"), keep_going=True)
    end = rec.terminal()
    assert end.payload["message"] == "2 of 3 commands failed: line 1: false (exit 1); line 3: sh -c 'exit 3' (exit 3)"


def test_command_result_text_never_nests_quotes() -> None:
    result = {"status": "ok", "line": 3, "command": "python3 -c 'import sys'", "exit_code": 0, "duration_s": 0.041}
    assert command_result_text(result) == "[OK] line 3: python3 -c 'import sys' (exit 0, 0.04 s)"
    cancelled = {**result, "status": "cancelled", "exit_code": None}
    assert command_result_text(cancelled, cancel_reason="interrupted") == (
        "[INTERRUPTED] line 3: python3 -c 'import sys' (after 0.04 s)"
    )
    assert command_result_text({**result, "exit_code": -9, "status": "failed"}, timed=False) == (
        "[FAILED] line 3: python3 -c 'import sys' (killed by SIGKILL)"
    )


def test_reply_summary_quotes_never_nest() -> None:
    assert quote_command("make") == "'make'"
    assert quote_command("python3 -c 'import sys'") == "\"python3 -c 'import sys'\""
    assert quote_command("echo \"a\" 'b'") == "echo \"a\" 'b'"


async def test_timeout_result_wording(tmp_path: Path) -> None:
    _, rec = await run(script(tmp_path, "sleep 5\n"), timeout_s=0.3)
    end = rec.terminal()
    assert end.payload["results"][0]["summary"] == "Command timed out (0.3s): sleep 5"
    assert end.payload["results"][0]["status"] == "timeout"


async def test_runner_from_options(tmp_path: Path) -> None:
    _, rec = await run(script(tmp_path, "hello world\n"), runner=("/bin/echo", "ran:", "{command}"))
    assert rec.terminal().payload["results"][0]["output"] == "ran: hello world\n"


async def test_cancel_mid_command_kills_tree_and_ends_once(tmp_path: Path, mode: str) -> None:
    secs = unique_sleep()
    path = script(tmp_path, f"echo go; (setsid sleep {secs} &); sleep {secs}\necho never\n")
    rec = Recorder()
    control = RunControl()
    rec.hooks.append(lambda e: control.cancel("user pressed stop") if e.payload.get("text") == "go\n" else None)
    out, _ = await run(path, mode, rec=rec, control=control)
    end = rec.terminal()
    assert (end.type, end.payload["reason"]) == ("run.cancelled", "user pressed stop")
    assert end.payload["results"][0]["status"] == "cancelled"
    assert out.status == "cancelled" and out.exit_code == 0
    assert processes_with(f"sleep {secs}") == []


async def test_confirmation_yes_no_timeout_cancel_and_closed_input(tmp_path: Path) -> None:
    path = script(tmp_path, "touch made\n")

    async def attempt(react: Any, **kw: Any) -> RunEvent:
        rec = Recorder()
        control = RunControl()
        rec.hooks.append(lambda e: react(control, e) if e.type == "run.question" else None)
        await run(path, rec=rec, control=control, confirm="always", **kw)
        q = [e for e in rec.events if e.type == "run.question"]
        assert len(q) == 1 and q[0].payload["kind"] == "confirm" and q[0].payload["options"] == ["yes", "no"]
        return rec.terminal()

    end = await attempt(lambda c, e: c.answer(e.payload["question_id"], "no"))
    assert (end.type, end.payload["reason"]) == ("run.cancelled", "not confirmed")
    assert not (tmp_path / "made").exists()
    end = await attempt(lambda c, e: None, question_timeout_s=0.2)
    assert end.type == "run.cancelled" and "within 0.2s" in end.payload["reason"]
    end = await attempt(lambda c, e: c.cancel("changed my mind"))
    assert (end.type, end.payload["reason"]) == ("run.cancelled", "changed my mind")
    end = await attempt(lambda c, e: c.close_input("standard input was closed"))
    assert (end.type, end.payload["reason"]) == ("run.cancelled", "standard input was closed")
    end = await attempt(lambda c, e: c.abort("unsupported_version", "version 2"))
    assert (end.type, end.payload["code"]) == ("run.failed", "unsupported_version")
    assert not (tmp_path / "made").exists()
    end = await attempt(lambda c, e: c.answer(e.payload["question_id"], True))
    assert end.type == "run.completed"
    assert (tmp_path / "made").exists()


async def test_answer_from_another_thread(tmp_path: Path) -> None:
    import threading

    path = script(tmp_path, "echo ok\n")
    rec = Recorder()
    control = RunControl()

    def answer_later(e: RunEvent) -> None:
        if e.type == "run.question":
            qid = e.payload["question_id"]
            threading.Timer(0.1, lambda: control.answer(qid, "yes")).start()

    rec.hooks.append(answer_later)
    await run(path, rec=rec, control=control, confirm="always")
    assert rec.terminal().type == "run.completed"


async def test_exception_inside_becomes_internal_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(engine, "run_process", broken)
    out, rec = await run(script(tmp_path, "echo x\n"))
    end = rec.terminal()
    assert (end.type, end.payload["code"]) == ("run.failed", "internal_error")
    assert end.payload["message"] == "internal error: RuntimeError: boom"
    assert out.exit_code == 1


async def test_a_failing_sink_does_not_break_the_run(tmp_path: Path) -> None:
    seen: list[str] = []

    def sink(event: RunEvent) -> None:
        seen.append(event.type)
        raise OSError("display gone")

    out = await run_script(
        script(tmp_path, "echo x\n"), options=opts(), workspace=tmp_path, sink=sink, config=DEFAULT_CONFIG
    )
    assert out.status == "completed"
    assert seen[0] == "run.started" and seen[-1] == "run.completed"


async def test_outer_task_cancel_emits_cancelled_and_kills(tmp_path: Path) -> None:
    secs = unique_sleep()
    rec = Recorder()
    task = asyncio.ensure_future(run(script(tmp_path, f"sleep {secs}\n"), rec=rec))
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert rec.terminal().type == "run.cancelled"
    assert processes_with(f"sleep {secs}") == []


async def test_missing_bwrap_when_required(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from heredoc_lsp.executor import sandbox

    monkeypatch.setattr(sandbox, "bwrap_status", lambda: (None, "bubblewrap (bwrap) is not installed"))
    _, rec = await run(script(tmp_path, "echo x\n"), "bwrap")
    end = rec.terminal()
    assert end.payload == {
        "code": "internal_error",
        "message": 'sandbox = "bwrap" but bubblewrap (bwrap) is not installed',
        "results": [],
    }
    _, rec = await run(script(tmp_path, "echo x\n"), "auto")
    assert rec.terminal().type == "run.completed"
    notes = [p["text"] for p in rec.progress("status")]
    assert notes.count(f"bubblewrap (bwrap) is not installed: {UNISOLATED_NOTE}") == 1


async def test_only_selected_lines(tmp_path: Path) -> None:
    _, rec = await run(script(tmp_path, "echo a\necho b\necho c\n"), lines=[1])
    end = rec.terminal()
    assert [r["command"] for r in end.payload["results"]] == ["echo b"]
    assert end.payload["total"] == 3


async def test_unsaved_text_and_invalid_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "s.cli"
    path.write_bytes(b"echo caf\xe9\n")
    _, rec = await run(path)
    assert rec.terminal().payload["results"][0]["output"] == "caf\ufffd\n"
    rec = Recorder()
    await run_script(path, text="echo from buffer\n", options=opts(), workspace=tmp_path, sink=rec)
    assert rec.terminal().payload["results"][0]["output"] == "from buffer\n"


def test_cpu_limit_never_below_the_deadline() -> None:
    assert engine.effective_limits(RunOptions(timeout_s=600)).cpu_s == 601
    assert engine.effective_limits(RunOptions(timeout_s=30)).cpu_s == 300
    assert engine.effective_limits(RunOptions(timeout_s=29.5)).cpu_s == 300
