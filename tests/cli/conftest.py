"""Run ``heredoc-lsp`` as a real process (``python -m heredoc_lsp``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run_cli(
    *args: str, cwd: Path | str = REPO, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "heredoc_lsp", *args],
        cwd=cwd,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


Runner = Callable[..., subprocess.CompletedProcess[str]]
Files = Callable[..., Path]


@pytest.fixture
def cli() -> Runner:
    return run_cli


def write(path: Path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path``, its parents created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> Files:
    """``files({"a.cli": "text", "sub/b.cli": b"bytes"})`` writes them under ``tmp_path`` (parents created) and
    returns ``tmp_path``."""

    def put(contents: dict[str, str | bytes]) -> Path:
        for name, data in contents.items():
            write(tmp_path / name, data)
        return tmp_path

    return put


_PROBLEM_LINE = re.compile(r"[^ \n].*?:\d+:\d+: (?:error|warning|info|hint)\[")


def problems(stdout: str) -> list[str]:
    """The problem lines of ``check``'s default output, without the code frame drawn under each."""
    return [line for line in stdout.split("\n") if _PROBLEM_LINE.match(line) and not line[:1].isspace()]
