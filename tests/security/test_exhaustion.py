"""Files planted in a workspace cannot hang or crash the command line: a FIFO where a script, a reply or a config
file is read, a TOML nested 3,000 deep in heredoc-lsp.toml or in a pyproject.toml a reply edits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from .conftest import RunCli, StartCli

DEEP_ARRAY = "x = " + "[" * 3000 + "]" * 3000 + "\n"


def test_a_config_nested_3000_deep_is_a_config_error_for_check_and_run(workspace: Path, run_cli: RunCli) -> None:
    (workspace / "heredoc-lsp.toml").write_text(DEEP_ARRAY)
    (workspace / "a.cli").write_text("echo hi\n")
    checked = run_cli("check", ".")
    assert "Traceback" not in checked.stderr and "RecursionError" not in checked.stderr, checked.stderr[-1500:]
    assert checked.returncode == 1
    assert "heredoc-lsp.toml:1:105: error[config_error] invalid TOML: arrays or tables nested deeper" in checked.stdout
    ran = run_cli("run", "-y", "--sandbox", "none", "a.cli")
    assert "Traceback" not in ran.stderr and "RecursionError" not in ran.stderr, ran.stderr[-1500:]
    assert ran.returncode == 2 and "nested deeper than 100 levels" in ran.stderr


def test_a_reply_editing_a_pyproject_nested_3000_deep_is_applied(workspace: Path, run_cli: RunCli) -> None:
    (workspace / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (workspace / "r.inbox").write_text(f'[CREATE_FILE path="pyproject.toml"]\n{DEEP_ARRAY}[/CREATE_FILE]\n')
    result = run_cli("apply", "-y", "--sandbox", "none", "r.inbox")
    assert "Traceback" not in result.stderr and "internal" not in result.stdout.lower(), (result.stdout, result.stderr)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert (workspace / "pyproject.toml").read_text() == DEEP_ARRAY.rstrip("\n")


def _exit_code(proc: subprocess.Popen[str], signum: int) -> int | None:
    """The exit code within 10 s, else once ``signum`` was sent (None: still running 10 s later; then killed)."""
    try:
        return proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.send_signal(signum)
    try:
        return proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_fifo_named_as_a_script_is_refused_at_once(
    workspace: Path, start_cli: StartCli, signum: signal.Signals
) -> None:
    os.mkfifo(workspace / "check.cli")
    proc = start_cli("run", "-y", "--sandbox", "none", "check.cli", stdin=False)
    code = _exit_code(proc, signum)
    assert code == 2, f"run on a FIFO: {code} (None: hung and deaf to {signum.name})"
    assert proc.stderr is not None and "not a regular file" in proc.stderr.read()


def test_a_fifo_named_by_run_start_is_refused_at_once(workspace: Path, start_cli: StartCli) -> None:
    os.mkfifo(workspace / "check.cli")
    start = {"v": "1", "type": "run.start", "run_id": "r1", "payload": {"path": "check.cli"}}
    proc = start_cli("run", "--output", "json", "-y", "--sandbox", "none")
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(start) + "\n")
    proc.stdin.flush()
    code = _exit_code(proc, signal.SIGTERM)
    assert code == 1, f"run.start of a FIFO: {code} (None: hung and deaf to SIGTERM)"
    assert proc.stdout is not None
    events = [json.loads(line) for line in proc.stdout.read().splitlines()]
    assert events[-1]["type"] == "run.failed" and "not a regular file" in events[-1]["payload"]["message"]


def test_check_of_a_reply_editing_a_fifo_named_pyproject_does_not_hang(workspace: Path, run_cli: RunCli) -> None:
    os.mkfifo(workspace / "pyproject.toml")
    os.mkfifo(workspace / ".gitignore")
    (workspace / "r.inbox").write_text(
        '[EDIT_FILE path="pyproject.toml" start_line="1" end_line="1"]\nx\n[/EDIT_FILE]\n'
    )
    result = run_cli("check", ".", timeout=20)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1), (result.stdout, result.stderr)
