"""Shared helpers for the executor tests: real processes, real bubblewrap."""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from heredoc_lsp.executor.environment import Redactor, build_environment
from heredoc_lsp.executor.process import ProcessSpec
from heredoc_lsp.executor.sandbox import ResourceLimits, choose_sandbox, command_argv

MODES = ["bwrap", "none"]


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def shell_spec(
    command: str,
    workspace: Path,
    mode: str,
    *,
    stdin: bytes = b"",
    timeout_s: float | None = 10.0,
    env: dict[str, str] | None = None,
    redact: Sequence[str] = (),
    limits: ResourceLimits | None = None,
    allow_network: bool = False,
) -> ProcessSpec:
    choice = choose_sandbox(mode)  # type: ignore[arg-type]
    argv = command_argv(
        ["/bin/sh", "-c", command], workspace, choice, limits or ResourceLimits(), allow_network=allow_network
    )
    return ProcessSpec(
        argv=argv,
        cwd=workspace,
        env=build_environment() if env is None else env,
        stdin=stdin,
        timeout_s=timeout_s,
        kill_grace_s=0.5,
        redactor=Redactor(redact),
    )


def tree(root: Path) -> dict[str, bytes | str]:
    """Everything under ``root``: a file's bytes, a link's target, ``b""`` for a folder."""
    found: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            found[str(p.relative_to(root))] = (
                os.readlink(p) if p.is_symlink() else (b"" if p.is_dir() else p.read_bytes())
            )
    return found


def unique_sleep() -> str:
    """A sleep duration nobody else uses, so leftover processes can be found by their command line."""
    return f"{random.randint(1000, 9999)}.{random.randint(100000, 999999)}"


def processes_with(marker: str, parent: int | None = None) -> list[int]:
    """Live processes whose command line (arguments joined by spaces) contains ``marker`` (children of ``parent``
    only, when given): the one /proc scanner of the tests."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open(f"/proc/{name}/stat", "rb") as f:
                state, ppid = f.read().rsplit(b")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue
        if parent is not None and int(ppid) != parent:
            continue
        if marker in cmdline and state not in (b"Z", b"X") and int(name) != os.getpid():
            found.append(int(name))
    return found
