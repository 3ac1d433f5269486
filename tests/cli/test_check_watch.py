"""``check --watch``: a real file change triggers a new check (bounded waits, no fixed sleeps)."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

WAIT_S = 30


def _read_until(proc: subprocess.Popen[bytes], wanted: str, seen: list[str]) -> None:
    """Collect stderr lines into ``seen`` until one starts with ``wanted`` (at most WAIT_S seconds)."""
    assert proc.stderr is not None
    selector = selectors.DefaultSelector()
    selector.register(proc.stderr, selectors.EVENT_READ)
    deadline = time.monotonic() + WAIT_S
    buffer = b""
    try:
        while time.monotonic() < deadline:
            if not selector.select(timeout=deadline - time.monotonic()):
                break
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            seen.extend(line.decode() for line in lines)
            if any(line.startswith(wanted) for line in seen):
                return
    finally:
        selector.close()
    raise AssertionError(f"no line starting {wanted!r} within {WAIT_S} s; stderr so far: {seen}")


def test_watch_checks_again_after_a_change(tmp_path: Path) -> None:
    script = tmp_path / "a.cli"
    script.write_text("echo hi\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    # Ctrl-C reaches the foreground process of a terminal. A suite started as a background job of a shell
    # (`./.ci/run &`) has SIGINT ignored, and an ignored signal stays ignored in the children it starts: give
    # this one the default disposition, as a terminal's foreground process has.
    inherited = signal.getsignal(signal.SIGINT)
    if inherited == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "heredoc_lsp", "check", "--watch", "."],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    finally:
        signal.signal(signal.SIGINT, inherited)
    try:
        seen: list[str] = []
        _read_until(proc, "heredoc-lsp check: watching for changes", seen)
        assert seen[0] == "Checked 1 file: no problems"
        script.write_text("cat <<EOF\n", encoding="utf-8")
        _read_until(proc, "Checked 1 file: 1 error", seen)
        assert any(line.startswith("heredoc-lsp check: ") and "checking again" in line for line in seen)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode in (0, 130)
