"""The full log of every run started from the editor, written from the run's events.

Logs go to ``<workspace>/.heredoc-lsp/runs/<time>-<run id>.log`` (the directory gets a ``.gitignore`` of ``*`` so
nothing there is ever committed); when the workspace is not writable, to ``$TMPDIR/heredoc-lsp-runs/``. The newest
:data:`KEEP_LOGS` logs of a directory are kept. A log holds what a terminal would have shown: each command, its
output as it streamed (stdout and stderr interleaved), its result line, and how the run ended.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from heredoc_lsp.executor.events import ARTIFACT, CANCELLED, COMPLETED, FAILED, PROGRESS, STARTED, RunEvent

log = logging.getLogger(__name__)

STATE_DIR_NAME = ".heredoc-lsp"
RUNS_DIR_NAME = "runs"
KEEP_LOGS = 50
MAX_LOG_BYTES = 16 << 20  # a command that prints without end does not fill the disk


def runs_dir(workspace: Path | None) -> Path:
    """The directory for run logs (created, with its ``.gitignore``)."""
    if workspace is not None:
        state = workspace / STATE_DIR_NAME
        target = state / RUNS_DIR_NAME
        try:
            target.mkdir(parents=True, exist_ok=True)
            ignore = state / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# heredoc-lsp run logs and state\n*\n", encoding="utf-8")
            return target
        except OSError as exc:
            log.info("cannot write run logs under %s: %s", workspace, exc)
    fallback = Path(tempfile.gettempdir()) / "heredoc-lsp-runs"
    fallback.mkdir(parents=True, exist_ok=True)
    return fallback


def _prune(directory: Path) -> None:
    try:
        logs = sorted(directory.glob("*.log"), key=lambda p: p.stat().st_mtime)
    except OSError:
        return
    for old in logs[:-KEEP_LOGS]:
        with contextlib.suppress(OSError):
            old.unlink()


class RunLog:
    """Writes one run's log; feed it every event of the run (it closes itself on the terminal event)."""

    def __init__(self, workspace: Path | None, run_id: str, header: dict[str, str]) -> None:
        directory = runs_dir(workspace)
        _prune(directory)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.path = directory / f"{stamp}-{run_id}.log"
        self._file: IO[str] | None = None
        self._written = 0
        self._capped = False
        self._at_line_start = True
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            self._file = open(fd, "w", encoding="utf-8", errors="replace", newline="\n")  # noqa: SIM115
        except OSError as exc:
            log.warning("cannot write the run log %s: %s", self.path, exc)
            return
        self._line(f"# heredoc-lsp run {run_id}")
        for key, value in header.items():
            self._line(f"# {key}: {value}")

    # -- writing -----------------------------------------------------------------------------------------------
    def _write(self, text: str) -> None:
        if self._file is None or not text:
            return
        if self._written + len(text) > MAX_LOG_BYTES:
            if not self._capped:
                self._capped = True
                self._file.write(f"\n# log capped at {MAX_LOG_BYTES} bytes; the rest of the output is not kept\n")
            return
        self._written += len(text)
        self._file.write(text)
        self._at_line_start = text.endswith("\n")

    def _line(self, text: str) -> None:
        if not self._at_line_start:
            self._write("\n")
        self._write(text + "\n")

    # -- events ------------------------------------------------------------------------------------------------
    def feed(self, event: RunEvent) -> None:
        try:
            self._feed(event)
        except Exception:
            log.exception("writing the run log failed")

    def _feed(self, event: RunEvent) -> None:
        p: dict[str, Any] = dict(event.payload)
        if event.type == STARTED:
            self._line(f"# started {event.ts}")
        elif event.type == PROGRESS:
            kind = p.get("kind")
            if kind == "command":
                where = f"  (line {p['line']})" if p.get("line") else ""
                self._line("")
                self._line(f"$ {p.get('command', '')}{where}")
            elif kind in ("stdout", "stderr"):
                self._write(str(p.get("text", "")))
            elif kind == "status":
                result = p.get("result")
                if isinstance(result, dict):
                    self._result(result)
                else:
                    self._line(f"# {p.get('text', '')}")
        elif event.type == ARTIFACT:
            where = f" {p['path']}" if p.get("path") else ""
            self._line(f"# {p.get('kind', 'file')}: {p.get('name', '')}{where}")
        elif event.type == COMPLETED:
            self._line("")
            self._line(f"# completed {event.ts}: {p.get('summary', '')}")
            self.close()
        elif event.type == FAILED:
            self._line("")
            self._line(f"# failed {event.ts} ({p.get('code', '')}): {p.get('message', '')}")
            self.close()
        elif event.type == CANCELLED:
            self._line("")
            self._line(f"# cancelled {event.ts}: {p.get('reason', '')}")
            self.close()

    def _result(self, result: dict[str, Any]) -> None:
        if result.get("kind") != "command" and result.get("kind") != "RUN_COMMAND":
            self._line("")
        if result.get("output_truncated") and result.get("output"):
            self._line("# --- the output as kept by the executor (head and tail) ---")
            self._write(str(result["output"]))
        duration = result.get("duration_s")
        took = f" · {duration:.1f} s" if isinstance(duration, (int, float)) else ""
        self._line(f"{result.get('text', result.get('summary', ''))}{took}")

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
