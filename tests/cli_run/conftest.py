"""Helpers that drive ``heredoc-lsp run/apply/agent`` as real subprocesses."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")
TERMINAL = {"run.completed", "run.failed", "run.cancelled"}


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "heredoc_lsp", *args]


def env() -> dict[str, str]:
    e = dict(os.environ)
    e.pop("COLUMNS", None)
    return e


class JsonRun:
    """A ``--output json`` process: events read as they arrive, messages written to its stdin."""

    def __init__(self, args: list[str], cwd: Path, environ: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            cli(*args),
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environ if environ is not None else env(),
        )
        self.lines: list[bytes] = []
        self.events: list[dict[str, Any]] = []
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            event = json.loads(line)  # every line must parse
            self.events.append(event)
            self._queue.put(event)
        self._queue.put(None)

    def send(self, obj: Any) -> None:
        assert self.proc.stdin is not None
        data = obj if isinstance(obj, bytes) else (json.dumps(obj) + "\n").encode()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def message(self, type_: str, payload: dict[str, Any] | None = None, **extra: Any) -> None:
        self.send({"v": "1", "id": "msg_client", "type": type_, "payload": payload or {}, **extra})

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def wait_for(self, predicate: Any, timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"timed out waiting; events so far: {[e['type'] for e in self.events]}"
            try:
                event = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            assert event is not None, f"stream ended; events: {[e['type'] for e in self.events]}"
            if predicate(event):
                return event

    def finish(self, timeout: float = 30) -> tuple[int, str]:
        code, err = self.end(timeout)
        check_stream(self.events)
        return code, err

    def end(self, timeout: float = 30, *, close_stdin: bool = True) -> tuple[int, str]:
        """Wait for the exit (killing the process if it does not come), stdin closed first; exit code and stderr."""
        assert self.proc.stdin is not None
        if close_stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            if not self.proc.stdin.closed:
                self.proc.stdin.close()
        self._reader.join(timeout)
        assert self.proc.stderr is not None
        err = self.proc.stderr.read().decode()
        return code, err


def check_stream(events: list[dict[str, Any]]) -> dict[str, Any]:
    """Envelope of every event; run.started first (when present); exactly one terminal event, last."""
    assert events, "no events"
    for e in events:
        assert set(e) == {"v", "id", "ts", "type", "run_id", "payload"}, e
        assert e["v"] == "1" and e["id"].startswith("msg_") and RFC3339.fullmatch(e["ts"]), e
        assert isinstance(e["payload"], dict)
    terminal = [e for e in events if e["type"] in TERMINAL]
    assert len(terminal) == 1, [e["type"] for e in events]
    assert events[-1] is terminal[0]
    assert len({e["run_id"] for e in events}) == 1
    return terminal[0]


def run_text(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """A text-mode run, stdin closed: exit code, stdout, stderr."""
    done = subprocess.run(cli(*args), cwd=cwd, capture_output=True, timeout=60, env=env(), stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def run_json(
    args: list[str], cwd: Path, stdin: bytes = b"", timeout: float = 60
) -> tuple[int, list[dict[str, Any]], str]:
    done = subprocess.run(cli(*args), cwd=cwd, input=stdin, capture_output=True, timeout=timeout, env=env())
    events = [json.loads(line) for line in done.stdout.splitlines()]
    return done.returncode, events, done.stderr.decode()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def config(tmp_path: Path, confirm: str = "never", sandbox: str = "none", extra: str = "") -> Path:
    """The same ``[executor]`` settings in the workspace's ``heredoc-lsp.toml`` and in the user's own config (the
    test's private one, see tests/conftest.py), which may loosen the safety settings a workspace file may not."""
    text = f'[executor]\nconfirm = "{confirm}"\nsandbox = "{sandbox}"\n{extra}'
    write(Path(os.environ["XDG_CONFIG_HOME"]) / "heredoc-lsp" / "config.toml", text)
    return write(tmp_path / "heredoc-lsp.toml", text)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A workspace with the default ``config``."""
    config(tmp_path)
    return tmp_path
