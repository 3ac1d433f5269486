"""Helpers of the packaging tests: a private environment (fake HOME, pip cache under the repository's .tmp/) for
the tools that build and install heredoc-lsp, the built distributions, and the check of an installed copy."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from heredoc_lsp import __version__

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
BAD = "echo start\ncat <<EOF\nbody\n"
MESSAGE = "Unclosed heredoc starting at line 2: expected 'EOF' but reached end of file"


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


def check_installed(exe: str, tmp_path: Path, env: dict[str, str]) -> Path:
    """The installed ``heredoc-lsp`` at ``exe`` answers --version and checks a good and a bad file in
    ``tmp_path/work``, which it returns."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "bad.cli").write_text(BAD, encoding="utf-8")
    (work / "good.cli").write_text("echo ok\ncat <<EOF\nbody\nEOF\n", encoding="utf-8")
    version = run([exe, "--version"], work, env)
    assert version.stdout.strip() == f"heredoc-lsp {__version__}", version.stdout + version.stderr
    good = run([exe, "check", "good.cli"], work, env)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = run([exe, "check", "."], work, env)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert f"bad.cli:2:7: error[unclosed_heredoc] {MESSAGE}" in bad.stdout, bad.stdout
    return work
