"""Hostile JSONL input (docs/jsonl.md): no line stops the reader, signals end the process at any time, exit codes."""

from __future__ import annotations

import os
import select
import signal
from pathlib import Path

import pytest
from tests.cli_run.conftest import JsonRun, config, write

MIB = 1 << 20


@pytest.fixture
def project(tmp_path: Path) -> Path:
    config(tmp_path)
    write(tmp_path / "s.cli", "echo ran\n")
    return tmp_path


def _wait_stderr(run: JsonRun, needle: bytes, timeout: float = 30) -> bytes:
    """Read the process's stderr until ``needle`` shows (the reader is up and answering)."""
    assert run.proc.stderr is not None
    fd = run.proc.stderr.fileno()
    seen = b""
    while needle not in seen:
        ready, _, _ = select.select([fd], [], [], timeout)
        assert ready, f"no {needle!r} on stderr; got {seen!r}"
        chunk = os.read(fd, 65536)
        assert chunk, f"stderr closed before {needle!r}; got {seen!r}"
        seen += chunk
    return seen


def _vm(pid: int, key: str) -> int:
    """A ``/proc/PID/status`` memory figure in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"{key} not in /proc/{pid}/status")


def test_deeply_nested_line_is_skipped_and_run_start_still_works(project: Path) -> None:
    run = JsonRun(["run", "--output", "json"], project)
    run.send(b"[" * 200_000 + b"\n")
    run.message("run.start", {"path": "s.cli"})
    code, err = run.finish()
    assert (code, run.events[-1]["type"]) == (0, "run.completed")
    assert "nested deeper than" in err
    assert "Traceback" not in err


def test_50_mb_line_is_skipped_without_being_held(project: Path) -> None:
    run = JsonRun(["run", "--output", "json"], project)
    run.send(b"garbage\n")
    _wait_stderr(run, b"ignored input line")
    before = _vm(run.proc.pid, "VmRSS")
    chunk = b'{"v":"1","type":"run.input","payload":{"value":"' + b"x" * (MIB - 48)
    for _ in range(50):
        run.send(chunk)
    run.send(b'"}}\n')
    _wait_stderr(run, b"skipped")
    grown = _vm(run.proc.pid, "VmHWM") - before
    run.message("run.start", {"path": "s.cli"})
    code, err = run.finish()
    assert (code, run.events[-1]["type"]) == (0, "run.completed")
    assert grown < 8 * MIB, f"the reader's peak memory grew by {grown} bytes for one long line"
    assert "Traceback" not in err


@pytest.mark.parametrize(("signum", "expected"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_before_run_start_ends_the_process(project: Path, signum: int, expected: int) -> None:
    run = JsonRun(["run", "--output", "json"], project)
    run.send(b"not json\n")
    _wait_stderr(run, b"ignored input line")  # the process is up, waiting for run.start
    run.proc.send_signal(signum)
    code, _err = run.end(15, close_stdin=False)
    assert code == expected
    assert [e["type"] for e in run.events] == ["run.cancelled"]


@pytest.mark.parametrize("command", ["run", "apply"])
def test_unanswered_confirmation_is_cancelled_with_exit_130(tmp_path: Path, command: str) -> None:
    config(tmp_path, confirm="always")
    target = "s.cli" if command == "run" else "r.inbox"
    write(tmp_path / "s.cli", "touch made\n")
    write(tmp_path / "r.inbox", '[CREATE_FILE path="made"]\nx\n[/CREATE_FILE]\n')
    run = JsonRun([command, target, "--output", "json", "--question-timeout", "0.3"], tmp_path)
    run.wait_for(lambda e: e["type"] == "run.cancelled")
    code, _err = run.finish()
    assert code == 130
    assert not (tmp_path / "made").exists()
