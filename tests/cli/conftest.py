"""Run ``heredoc-lsp`` as a real process (``python -m heredoc_lsp``)."""

from __future__ import annotations

import os
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


@pytest.fixture
def cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_cli
