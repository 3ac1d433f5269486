"""Shared fixtures for the hostile-reply suite: a private user config home, the real command line (the workspace
fixture is in tests/conftest.py)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

RunCli = Callable[..., subprocess.CompletedProcess[str]]
StartCli = Callable[..., "subprocess.Popen[str]"]


@pytest.fixture
def user_config_home(tmp_path: Path) -> Path:
    """A private $XDG_CONFIG_HOME, so the real user's heredoc-lsp config never takes part."""
    home = tmp_path / "xdg"
    (home / "heredoc-lsp").mkdir(parents=True)
    return home


@pytest.fixture
def cli_env(user_config_home: Path) -> dict[str, str]:
    """The environment of a command-line run: the test's own, with the private config home."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR")}
    env["XDG_CONFIG_HOME"] = str(user_config_home)
    env["NO_COLOR"] = "1"
    return env


@pytest.fixture
def run_cli(workspace: Path, cli_env: dict[str, str]) -> RunCli:
    """Runs ``python -m heredoc_lsp ARGS`` as a real subprocess in the workspace."""

    def run(
        *args: str,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        input: str = "",
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "heredoc_lsp", *args],
            cwd=cwd or workspace,
            env={**cli_env, **(env or {})},
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    return run


@pytest.fixture
def start_cli(workspace: Path, cli_env: dict[str, str]) -> Iterator[StartCli]:
    """Starts ``python -m heredoc_lsp ARGS`` in the workspace, its three streams piped (``stdin=False``: none, text
    mode unless ``text=False``); what still runs when the test ends is killed."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: str, cwd: Path | None = None, stdin: bool = True, text: bool = True) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "heredoc_lsp", *args],
            cwd=cwd or workspace,
            env=cli_env,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=text,
        )
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


@pytest.fixture
def agent_root(workspace: Path, run_cli: RunCli) -> Path:
    """A workspace with an agent session and a three-line ``f.txt``."""
    done = run_cli("agent", "new", "edit f.txt", "--yes", "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    (workspace / "f.txt").write_text("one\ntwo\nthree\n")
    return workspace
