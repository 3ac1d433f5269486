"""Helpers of the packaging tests: a private environment (fake HOME, pip cache under the repository's .tmp/) for
the tools that build and install heredoc-lsp, and the built distributions."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Dist:
    sdist: Path
    wheel: Path


def tool_env(home: Path) -> dict[str, str]:
    """The environment without this checkout's PYTHONPATH (an installed copy must work alone), with a fake HOME
    and a pip cache that survives between runs (.tmp/ is ignored by git)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home)
    env["PIP_CACHE_DIR"] = str(REPO / ".tmp" / "pip-cache")
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
