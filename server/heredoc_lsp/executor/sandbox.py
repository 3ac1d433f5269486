"""Isolation and resource limits for one command (docs/security.md).

``sandbox = "bwrap"`` (or ``"auto"`` when bubblewrap is installed and works) runs the command under bubblewrap,
which sees only what it needs: the system's program and library folders (``/usr``, ``/bin``, ``/sbin``, ``/lib*``)
and ``/etc`` read-only, with the secrets in ``/etc`` (:data:`ETC_SECRETS`) masked; the workspace writable, with
its protected paths (:data:`WORKSPACE_READ_ONLY`) bound read-only on top; a fresh tmpfs HOME (:data:`SANDBOX_HOME`)
and ``/tmp``; a minimal ``/dev``; its own ``/proc`` in a new pid namespace; no network unless allowed; all
capabilities dropped, a new session and ``--die-with-parent``, so that killing the sandbox kills everything started
inside it. Everything else (``/home``, ``/root``, ``/run``, ``/var``, ``/mnt``, ``/media``, ``/srv``, ``/opt``, host
sockets) is absent.

Resource limits (CPU seconds, address space, file size, open files, processes, no core files) apply in every mode.
They are set by a launcher that the command is ``exec``'d from, ``prlimit`` (util-linux; a few lines of Python where
it is missing), never by a shell builtin (dash, Debian's and Ubuntu's ``/bin/sh``, has no ``ulimit -u``) and never by
a Python ``preexec_fn`` (unsafe in a multi-threaded server). The process limit is ``RLIMIT_NPROC`` for an ordinary
user; the kernel ignores that limit for root, so as root the command runs in a fresh ``pids`` cgroup with
``pids.max`` instead (see :func:`pids_cgroup`). A limit the system refuses is left out and the run says so first
(:func:`limits_note`). docs/security.md has the table of which limit holds for whom.

Without bubblewrap, every run says so first (:data:`UNISOLATED_NOTE`).
"""

from __future__ import annotations

import contextlib
import functools
import glob
import os
import resource
import secrets
import subprocess
import sys
import time
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
    processes: int | None = 512  # processes and threads a command may add (see :func:`process_limit_argv`)


class SandboxUnavailable(Exception):
    """``sandbox = "bwrap"`` was asked for but bubblewrap is missing or does not work here."""


@functools.lru_cache(maxsize=1)
def bwrap_status() -> tuple[str | None, str]:
    """(path to a working bwrap, or None; why not). Probed once per process with a trivial sandbox."""
    path = trusted_program("bwrap")
    if path is None:
        return None, "bubblewrap (bwrap) is not installed"
    probe = [path, *_bwrap_base(Path("/"), allow_network=False, writable=False), "--", "/bin/true"]
    try:
        done = subprocess.run(probe, stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"bubblewrap does not start: {exc}"
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().split("\n")
        detail = lines[-1] if lines and lines[-1] else f"exit code {done.returncode}"
        hint = userns_hint(_read_sysctls())
        return None, f"bubblewrap does not work here: {detail}" + (f" ({hint})" if hint else "")
    return path, ""


# Kernel switches that stop an ordinary user's bubblewrap from making its user namespace.
USERNS_SYSCTLS = (
    "kernel/apparmor_restrict_unprivileged_userns",  # Ubuntu 23.10 and later
    "kernel/unprivileged_userns_clone",  # Debian's patch, 0 on Debian 10 and older
    "user/max_user_namespaces",
)


def _read_sysctls() -> dict[str, str]:
    values: dict[str, str] = {}
    for name in USERNS_SYSCTLS:
        with contextlib.suppress(OSError):
            values[name] = Path("/proc/sys", name).read_text().strip()
    return values


def userns_hint(sysctls: dict[str, str]) -> str | None:
    """What to do when a kernel setting forbids unprivileged user namespaces, or None when none does."""
    if os.geteuid() == 0:
        return None
    if sysctls.get("kernel/apparmor_restrict_unprivileged_userns") == "1":
        return (
            "AppArmor restricts unprivileged user namespaces (Ubuntu 24.04 and later): load the AppArmor profile for "
            "bwrap, on 24.04 with 'sudo apt install apparmor-profiles' then 'sudo install -m 0644 "
            "/usr/share/apparmor/extra-profiles/bwrap-userns-restrict /etc/apparmor.d/' and 'sudo apparmor_parser -r "
            "/etc/apparmor.d/bwrap-userns-restrict' (25.04 ships it loaded); see docs/security.md"
        )
    if sysctls.get("kernel/unprivileged_userns_clone") == "0":
        return "unprivileged user namespaces are off: set 'kernel.unprivileged_userns_clone=1' with sysctl"
    if sysctls.get("user/max_user_namespaces") == "0":
        return "user namespaces are off: set 'user.max_user_namespaces' above 0 with sysctl"
    return None


@dataclass(frozen=True, slots=True)
class SandboxChoice:
    """The isolation actually used: ``"bwrap"`` or ``"none"``, and a note to show once when it fell back."""

    mode: Literal["bwrap", "none"]
    bwrap: str | None
    note: str | None = None


def choose_sandbox(mode: SandboxMode) -> SandboxChoice:
    """Resolve ``auto``; raise :class:`SandboxUnavailable` when ``bwrap`` is required but unusable."""
    if mode == "none":
        return SandboxChoice("none", None, f'sandbox = "none": {UNISOLATED_NOTE}')
    path, why = bwrap_status()
    if path is not None:
        return SandboxChoice("bwrap", path)
    if mode == "bwrap":
        raise SandboxUnavailable(f'sandbox = "bwrap" but {why}')
    return SandboxChoice("none", None, f"{why}: {UNISOLATED_NOTE}")


# Secrets in /etc that a command never needs: masked by an empty file or folder.
ETC_SECRETS = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/security/opasswd",
    "/etc/ssl/private",
    "/etc/krb5.keytab",
    "/etc/NetworkManager/system-connections",
    "/etc/wpa_supplicant",
    "/etc/ssh/ssh_host_*_key",
)
# System folders bound read-only (a symbolic link such as /bin -> usr/bin on merged-/usr systems stays a link).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Paths of the workspace bound read-only over the writable workspace when they exist (docs/security.md "Protected
# paths"; the reply-side list is heredoc_lsp/syntax/protected.py). Top-level ones; the .git, .envrc, .vscode and .idea
# found deeper, and the masks of absent ones, come from heredoc_lsp/executor/planted.py (one walk around each command).
WORKSPACE_READ_ONLY = (
    "inbox",
    "outbox",
    "sessions",
    ".heredoc-lsp",
    ".git",
    ".envrc",
    ".vscode",
    ".idea",
    "heredoc-lsp.toml",
    "pyproject.toml",  # only when it has a [tool.heredoc-lsp] table
)
SANDBOX_HOME = "/home/sandbox"
UNISOLATED_NOTE = (
    "commands run WITHOUT isolation: they can read and write everything this user can, "
    "including other processes' environments under /proc"
)


def _system_binds() -> list[str]:
    args: list[str] = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    args += ["--ro-bind", "/etc", "/etc"]
    for pattern in ETC_SECRETS:
        for path in sorted(glob.glob(pattern)) if "*" in pattern else [pattern]:
            if os.path.islink(path) or not os.path.lexists(path):
                continue
            if os.path.isdir(path):
                args += ["--tmpfs", path]
            else:
                args += ["--ro-bind", "/dev/null", path]
    return args


def _resolver_binds() -> list[str]:
    """With network: /etc/resolv.conf often links into /run (systemd-resolved), which is otherwise absent."""
    target = os.path.realpath("/etc/resolv.conf")
    if target.startswith("/run/") and os.path.exists(target):
        folder = os.path.dirname(target)
        return ["--ro-bind", folder, folder]
    return []


PYPROJECT_NAME = "pyproject.toml"


def _configures_us(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return b"heredoc" in f.read()
    except OSError:
        return True  # unreadable here: keep it read-only


def _read_only_workspace_paths(workspace: Path) -> list[str]:
    args: list[str] = []
    root = str(workspace)
    for name in WORKSPACE_READ_ONLY:
        path = os.path.join(root, name)
        if not os.path.lexists(path):
            continue
        real = os.path.realpath(path)
        if not real.startswith(root.rstrip(os.sep) + os.sep):
            continue  # a link out of the workspace: its target is not mounted at all
        if name == PYPROJECT_NAME and not _configures_us(real):
            continue  # only its [tool.heredoc-lsp] table is protected: tools may edit the rest
        args += ["--ro-bind", real, real]
    return args


# Never bound for a PATH entry, whatever PATH says: homes, runtime state, and what the sandbox makes itself.
_NEVER_BOUND = ("/home", "/root", "/run", "/var/run", "/tmp", "/var/tmp", "/proc", "/sys", "/dev", "/mnt", "/media")


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _toolchain_binds(search_path: str | None, workspace: Path | None) -> list[str]:
    """Read-only binds for the folders of ``PATH`` entries outside the system folders (``/opt/go/bin`` binds
    ``/opt/go``), so toolchains installed there keep working; nothing in a home or in runtime state is bound."""
    args: list[str] = []
    bound: list[str] = []
    for entry in (search_path or "").split(":"):
        if not entry.startswith("/") or not os.path.isdir(entry):
            continue
        real = os.path.realpath(entry)
        if real == "/" or any(_under(real, top) for top in (*SYSTEM_DIRS, "/etc", *_NEVER_BOUND)):
            continue
        if workspace is not None and _under(real, str(workspace)):
            continue
        prefix = os.path.dirname(real) if os.path.basename(real) == "bin" else real
        if prefix.count("/") < 2:  # never a whole top-level folder such as /opt or /snap
            prefix = real
        if any(_under(prefix, done) for done in bound):
            continue
        bound.append(prefix)
        args += ["--ro-bind", prefix, prefix]
    return args


def _bwrap_base(
    workspace: Path,
    *,
    allow_network: bool,
    writable: bool = True,
    search_path: str | None = None,
    extra_binds: Sequence[str] = (),
) -> list[str]:
    args = _system_binds()
    args += _toolchain_binds(search_path, workspace if writable else None)
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", SANDBOX_HOME]
    if allow_network:
        args += _resolver_binds()
    if writable:
        ws = str(workspace)
        args += ["--bind", ws, ws, *_read_only_workspace_paths(workspace), *extra_binds, "--chdir", ws]
    # Everything --unshare-all does except the user namespace, which bwrap adds by itself when it is not privileged
    # (as root it only costs time: capabilities are dropped below).
    args += ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
    if not allow_network:
        args += ["--unshare-net"]
    args += ["--die-with-parent", "--new-session"]
    if os.geteuid() == 0:
        # Root keeps every capability in the sandbox otherwise, and could simply remount "/" writable.
        args += ["--cap-drop", "ALL"]
    args += ["--setenv", "TMPDIR", "/tmp", "--setenv", "HOME", SANDBOX_HOME]
    return args


def bwrap_argv(
    bwrap: str,
    workspace: Path,
    argv: Sequence[str],
    *,
    allow_network: bool,
    search_path: str | None = None,
    extra_binds: Sequence[str] = (),
) -> list[str]:
    """``argv`` wrapped in bubblewrap with the workspace (a real path) as the only writable place.

    ``search_path``: the command's ``PATH``; toolchain folders it names outside the system folders are bound
    read-only (see :func:`_toolchain_binds`). ``extra_binds``: more options on top of the workspace (the protected
    names found deeper in it and the masks of absent ones, heredoc_lsp/executor/planted.py).
    """
    base = _bwrap_base(workspace, allow_network=allow_network, search_path=search_path, extra_binds=extra_binds)
    return [bwrap, *base, "--", *argv]


def _clamp(resource_id: int, wanted: int) -> int:
    _soft, hard = resource.getrlimit(resource_id)
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


# Programs that run outside the sandbox are taken from the system's own folders only: an empty or relative entry in
# the person's PATH (the workspace, where a reply may plant a file) never supplies one.
TRUSTED_DIRS = ("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin")


def trusted_program(name: str) -> str | None:
    """The absolute path of ``name`` in :data:`TRUSTED_DIRS`, or None."""
    for folder in TRUSTED_DIRS:
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


# prlimit(1)'s option for each resource (util-linux, on every Debian and Ubuntu system); the fallback launcher below
# reads the same options.
RLIMIT_OPTIONS = {
    "cpu": resource.RLIMIT_CPU,
    "as": resource.RLIMIT_AS,
    "fsize": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
    "core": resource.RLIMIT_CORE,
    "nproc": resource.RLIMIT_NPROC,
}
LIMIT_NAMES = {
    "cpu": "CPU seconds",
    "as": "address space",
    "fsize": "file size",
    "nofile": "open files",
    "core": "core files",
    "nproc": "processes",
}
# Used only where prlimit(1) is missing: sets each limit (soft and hard) in this process, then execs the command.
_LAUNCHER = """\
import os, resource, sys
args = sys.argv[1:]
cut = args.index("--")
for opt in args[:cut]:
    name, value = opt[2:].split("=", 1)
    n = int(value)
    resource.setrlimit(getattr(resource, "RLIMIT_" + name.upper()), (n, n))
os.execvp(args[cut + 1], args[cut + 1 :])
"""


def _launcher() -> list[str]:
    prlimit = trusted_program("prlimit")
    if prlimit is not None:
        return [prlimit]
    return [sys.executable, "-I", "-S", "-c", _LAUNCHER]


def _user_task_count(uid: int) -> int:
    """How many tasks (processes and threads) ``uid`` has now: RLIMIT_NPROC counts them all, not only the command's.

    A process's ``task`` folder has one entry per thread, and its link count is that number plus two.
    """
    count = 0
    try:
        entries = os.scandir("/proc")
    except OSError:
        return 0
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    count += max(1, os.stat(f"/proc/{entry.name}/task").st_nlink - 2)
            except OSError:
                continue
    return count


def _static_limits(limits: ResourceLimits) -> tuple[tuple[str, int], ...]:
    """The limits whose value does not change from one command to the next, in prlimit's units (bytes, seconds)."""
    wanted: list[tuple[str, int | None]] = [
        ("cpu", None if limits.cpu_s is None else max(1, limits.cpu_s)),
        ("as", limits.address_space_bytes),
        ("fsize", limits.file_size_bytes),
        ("nofile", None if limits.open_files is None else max(16, limits.open_files)),
        ("core", limits.core_bytes),
    ]
    return tuple((name, _clamp(RLIMIT_OPTIONS[name], value)) for name, value in wanted if value is not None)


def _nproc_limit(limits: ResourceLimits) -> int | None:
    """RLIMIT_NPROC for an ordinary user: the tasks it has now plus the command's allowance.

    Root is exempt from RLIMIT_NPROC (the kernel skips the check for the initial user namespace's root), so as
    root the limit is a pids cgroup instead (:func:`pids_cgroup`).
    """
    if limits.processes is None or os.geteuid() == 0:
        return None
    wanted = _user_task_count(os.getuid()) + max(8, limits.processes)
    return _clamp(resource.RLIMIT_NPROC, wanted)


def _options(settings: Sequence[tuple[str, int]]) -> list[str]:
    return [f"--{name}={value}" for name, value in settings]


def _applies(launcher: tuple[str, ...], settings: Sequence[tuple[str, int]]) -> bool:
    probe = [*launcher, *_options(settings), "--", "/bin/true"]
    try:
        done = subprocess.run(probe, stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@dataclass(frozen=True, slots=True)
class LimitPlan:
    """How limits are set: the launcher (prlimit or the Python fallback), the limits that hold, those that cannot."""

    launcher: tuple[str, ...]
    static: tuple[tuple[str, int], ...]
    refused: tuple[str, ...]  # prlimit option names this system does not let us set
    nproc: bool  # whether RLIMIT_NPROC can be set (ordinary users)


@functools.lru_cache(maxsize=8)
def limit_plan(limits: ResourceLimits) -> LimitPlan:
    """Probe once per process which limits this kernel or container lets us set (a trivial command under each)."""
    launcher = tuple(_launcher())
    static = _static_limits(limits)
    nproc_value = _nproc_limit(limits)
    nproc = [("nproc", nproc_value)] if nproc_value is not None else []
    if _applies(launcher, [*static, *nproc]):
        return LimitPlan(launcher, static, (), bool(nproc))
    kept = tuple(item for item in static if _applies(launcher, [item]))
    refused = tuple(name for name, _value in static if all(name != k for k, _v in kept))
    nproc_ok = bool(nproc) and _applies(launcher, nproc)
    if nproc and not nproc_ok:
        refused += ("nproc",)
    return LimitPlan(launcher, kept, refused, nproc_ok)


def limits_note(limits: ResourceLimits) -> str | None:
    """A line for the run's first output when a limit cannot be applied here (the command still runs)."""
    plan = limit_plan(limits)
    refused = [LIMIT_NAMES[name] for name in plan.refused]
    if limits.processes is not None and os.geteuid() == 0 and _own_writable_pids_cgroup() is None:
        refused.append("processes (as root the process limit needs a writable pids cgroup, which is missing here)")
    if not refused:
        return None
    return "resource limits that this system does not allow to set, so they do not apply: " + ", ".join(refused)


def limited_argv(argv: Sequence[str], limits: ResourceLimits) -> list[str]:
    """``argv`` started with the limits set on its process before it runs (``prlimit --cpu=N … -- argv``).

    The limits are set by a launcher that ``exec``s the command, never by a shell builtin: ``ulimit -u`` does not
    exist in dash, Debian's and Ubuntu's ``/bin/sh``. A limit the system refuses is left out (see
    :func:`limits_note`), so a run never fails because of its own safety net.
    """
    plan = limit_plan(limits)
    settings = list(plan.static)
    if plan.nproc:
        value = _nproc_limit(limits)
        if value is not None:
            settings.append(("nproc", value))
    if not settings:
        return list(argv)
    return [*plan.launcher, *_options(settings), "--", *argv]


CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_PREFIX = "heredoc-lsp-"
CGROUP_GRACE_S = 60.0
_MADE_AT: dict[str, float] = {}  # this process's cgroups (by name) -> when they were made


def _own_pids_cgroup() -> Path | None:
    """The folder of this process's cgroup in a hierarchy with the pids controller (v1 ``pids`` or v2), if any."""
    try:
        lines = Path("/proc/self/cgroup").read_text().split("\n")
    except OSError:
        return None
    v2: Path | None = None
    for line in lines:
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        _id, controllers, where = fields
        if "pids" in controllers.split(","):
            return CGROUP_ROOT / "pids" / where.lstrip("/")
        if controllers == "":
            v2 = CGROUP_ROOT / where.lstrip("/")
    if v2 is not None:
        try:
            if "pids" in (v2 / "cgroup.subtree_control").read_text().split():
                return v2
        except OSError:
            return None
    return None


def _sweep_cgroups(parent: Path) -> None:
    """Remove this process's empty cgroups from earlier commands, and those of heredoc-lsp processes that died."""
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(CGROUP_PREFIX):
            continue
        owner = entry.name[len(CGROUP_PREFIX) :].split("-", 1)[0]
        if not owner.isdigit():
            continue
        if int(owner) == os.getpid():
            made = _MADE_AT.get(entry.name)
            # A cgroup made a moment ago may still be waiting for its command to move in (concurrent runs).
            if made is None or time.monotonic() - made < CGROUP_GRACE_S:
                continue
        elif os.path.exists(f"/proc/{owner}"):
            continue
        with contextlib.suppress(OSError):
            entry.rmdir()  # fails while a process is still in it
            _MADE_AT.pop(entry.name, None)


def _own_writable_pids_cgroup() -> Path | None:
    parent = _own_pids_cgroup()
    return parent if parent is not None and os.access(parent, os.W_OK) else None


def pids_cgroup(max_processes: int) -> Path | None:
    """A fresh pids cgroup allowing ``max_processes`` tasks: its ``cgroup.procs`` file, or None when unavailable.

    Used as root, whom RLIMIT_NPROC does not limit. Empty ones are removed when the next one is made.
    """
    parent = _own_writable_pids_cgroup()
    if parent is None:
        return None
    _sweep_cgroups(parent)
    group = parent / f"{CGROUP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        group.mkdir()
    except OSError:
        return None
    _MADE_AT[group.name] = time.monotonic()
    try:
        (group / "pids.max").write_text(f"{max_processes}\n")
    except OSError:
        with contextlib.suppress(OSError):
            group.rmdir()
        return None
    return group / "cgroup.procs"


def process_limit_argv(argv: Sequence[str], limits: ResourceLimits) -> list[str]:
    """As root, ``argv`` started inside a fresh pids cgroup (the shell moves itself there, then ``exec``s)."""
    if limits.processes is None or os.geteuid() != 0:
        return list(argv)
    procs = pids_cgroup(max(8, limits.processes))
    if procs is None:
        return list(argv)
    return [SHELL, "-c", 'echo $$ > "$1" || exit 125\nshift\nexec "$@"', LIMITS_ARGV0, str(procs), *argv]


def command_argv(
    argv: Sequence[str],
    workspace: Path,
    choice: SandboxChoice,
    limits: ResourceLimits,
    *,
    allow_network: bool,
    search_path: str | None = None,
    extra_binds: Sequence[str] = (),
) -> list[str]:
    """The full argv to spawn: bubblewrap (when chosen) started with the limits set, as root in a pids cgroup.

    The limits are set outside bubblewrap so that the launcher never needs to be visible inside it; they are
    inherited by bubblewrap and everything it starts.
    """
    inner = list(argv)
    if choice.mode == "bwrap" and choice.bwrap is not None:
        network = allow_network
        inner = bwrap_argv(
            choice.bwrap, workspace, inner, allow_network=network, search_path=search_path, extra_binds=extra_binds
        )
    return process_limit_argv(limited_argv(inner, limits), limits)
