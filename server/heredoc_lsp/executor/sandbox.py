"""Isolation and resource limits for one command (SPEC §6).

``sandbox = "bwrap"`` (or ``"auto"`` when bubblewrap is installed and works) runs the command under bubblewrap:
the root file system read-only, the workspace the only writable place, a private ``/tmp``, no network unless
allowed, all capabilities dropped, a new session, ``--die-with-parent`` and a new pid namespace, so that killing
the sandbox kills everything started inside it (even a grandchild that called ``setsid``).

Resource limits (CPU seconds, address space, file size, open files, no core files) apply in every mode. They are
set by a ``/bin/sh`` prologue (``ulimit ... && exec "$@"``) rather than a Python ``preexec_fn``: that keeps
:mod:`subprocess` on its fast ``vfork`` path and is safe in a multi-threaded server.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SandboxMode = Literal["auto", "bwrap", "none"]
SHELL = "/bin/sh"
LIMITS_ARGV0 = "heredoc-lsp-limits"


@dataclass(frozen=True, slots=True)
class ResourceLimits:
    """Per-command limits; None leaves a limit as inherited."""

    cpu_s: int | None = 300
    address_space_bytes: int | None = 16 << 30
    file_size_bytes: int | None = 2 << 30
    open_files: int | None = 1024
    core_bytes: int | None = 0


class SandboxUnavailable(Exception):
    """``sandbox = "bwrap"`` was asked for but bubblewrap is missing or does not work here."""


@functools.lru_cache(maxsize=1)
def bwrap_status() -> tuple[str | None, str]:
    """(path to a working bwrap, or None; why not). Probed once per process with a trivial sandbox."""
    path = shutil.which("bwrap")
    if path is None:
        return None, "bubblewrap (bwrap) is not installed"
    probe = [path, *_bwrap_base(Path("/"), allow_network=False, writable=False), "--", "/bin/true"]
    try:
        done = subprocess.run(probe, stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"bubblewrap does not start: {exc}"
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, f"bubblewrap does not work here: {detail[-1] if detail else f'exit code {done.returncode}'}"
    return path, ""


@dataclass(frozen=True, slots=True)
class SandboxChoice:
    """The isolation actually used: ``"bwrap"`` or ``"none"``, and a note to show once when it fell back."""

    mode: Literal["bwrap", "none"]
    bwrap: str | None
    note: str | None = None


def choose_sandbox(mode: SandboxMode) -> SandboxChoice:
    """Resolve ``auto``; raise :class:`SandboxUnavailable` when ``bwrap`` is required but unusable."""
    if mode == "none":
        return SandboxChoice("none", None)
    path, why = bwrap_status()
    if path is not None:
        return SandboxChoice("bwrap", path)
    if mode == "bwrap":
        raise SandboxUnavailable(f'sandbox = "bwrap" but {why}')
    return SandboxChoice("none", None, f"{why}: commands run without isolation (resource limits still apply)")


def _bwrap_base(workspace: Path, *, allow_network: bool, writable: bool = True) -> list[str]:
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    if writable:
        ws = str(workspace)
        args += ["--bind", ws, ws, "--chdir", ws]
    # Everything --unshare-all does except the user namespace, which bwrap adds by itself when it is not privileged
    # (as root it only costs time: capabilities are dropped below).
    args += ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
    if not allow_network:
        args += ["--unshare-net"]
    args += ["--die-with-parent", "--new-session"]
    if os.geteuid() == 0:
        # Root keeps every capability in the sandbox otherwise, and could simply remount "/" writable.
        args += ["--cap-drop", "ALL"]
    args += ["--setenv", "TMPDIR", "/tmp"]
    return args


def bwrap_argv(bwrap: str, workspace: Path, argv: Sequence[str], *, allow_network: bool) -> list[str]:
    """``argv`` wrapped in bubblewrap with the workspace (a real path) as the only writable place."""
    return [bwrap, *_bwrap_base(workspace, allow_network=allow_network), "--", *argv]


def _clamp(resource_id: int, wanted: int) -> int:
    _soft, hard = resource.getrlimit(resource_id)
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


@functools.lru_cache(maxsize=32)
def limits_prologue(limits: ResourceLimits) -> str:
    """The ``ulimit`` commands for ``limits`` (units as POSIX sh: KiB for -v, 512-byte blocks for -f)."""
    steps: list[str] = []
    if limits.cpu_s is not None:
        steps.append(f"ulimit -t {_clamp(resource.RLIMIT_CPU, max(1, limits.cpu_s))}")
    if limits.address_space_bytes is not None:
        steps.append(f"ulimit -v {_clamp(resource.RLIMIT_AS, limits.address_space_bytes) // 1024}")
    if limits.file_size_bytes is not None:
        steps.append(f"ulimit -f {_clamp(resource.RLIMIT_FSIZE, limits.file_size_bytes) // 512}")
    if limits.open_files is not None:
        steps.append(f"ulimit -n {_clamp(resource.RLIMIT_NOFILE, max(16, limits.open_files))}")
    if limits.core_bytes is not None:
        steps.append(f"ulimit -c {_clamp(resource.RLIMIT_CORE, limits.core_bytes) // 512}")
    return " && ".join(steps)


def limited_argv(argv: Sequence[str], limits: ResourceLimits) -> list[str]:
    """``argv`` with the limits applied before it runs.

    ``/bin/sh -c SCRIPT [ARGS...]`` (the default runner) gets the ``ulimit`` line prepended to its own script: one
    process, no extra exec, and the command text is untouched (it is the script from its second line on). Any
    other argv is started through a shell that sets the limits and then ``exec``s it (no re-quoting: ``"$@"``).
    If a limit cannot be set the command does not run (exit code 125).
    """
    prologue = limits_prologue(limits)
    if not prologue:
        return list(argv)
    if len(argv) >= 3 and argv[0] == SHELL and argv[1] == "-c":
        return [SHELL, "-c", f"{prologue} || exit 125\n{argv[2]}", *argv[3:]]
    return [SHELL, "-c", f'{prologue} || exit 125\nexec "$@"', LIMITS_ARGV0, *argv]


def command_argv(
    argv: Sequence[str],
    workspace: Path,
    choice: SandboxChoice,
    limits: ResourceLimits,
    *,
    allow_network: bool,
) -> list[str]:
    """The full argv to spawn: limits inside, bubblewrap outside (when chosen)."""
    inner = limited_argv(argv, limits)
    if choice.mode == "bwrap" and choice.bwrap is not None:
        return bwrap_argv(choice.bwrap, workspace, inner, allow_network=allow_network)
    return inner
