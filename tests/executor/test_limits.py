"""Resource limits hold in every mode, for root and for an ordinary user (docs/security.md "Resource limits").

scripts/test-as-user runs this module again as an ordinary user, with dash and with bash as ``/bin/sh``: the limits
are set by a launcher before ``exec`` (``prlimit``), never by a shell builtin that dash lacks (``ulimit -u``).
"""

from __future__ import annotations

import asyncio
import os
import resource
from pathlib import Path

import pytest

from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.process import run_process
from heredoc_lsp.executor.sandbox import (
    ResourceLimits,
    choose_sandbox,
    command_argv,
    limit_plan,
    limited_argv,
    limits_note,
    trusted_program,
    userns_hint,
)

from .conftest import shell_spec


def _run(command: str, workspace: Path, mode: str, limits: ResourceLimits, timeout_s: float = 20) -> tuple[int, str]:
    spec = shell_spec(command, workspace, mode, limits=limits, timeout_s=timeout_s)
    done = asyncio.run(run_process(spec, RunControl()))
    return done.exit_code if done.exit_code is not None else -1, done.stdout.text + done.stderr.text


def test_the_limits_are_set_by_a_launcher_not_by_a_shell_builtin(workspace: Path) -> None:
    argv = limited_argv(["/bin/sh", "-c", "echo hi"], ResourceLimits())
    assert argv[0] == trusted_program("prlimit") == "/usr/bin/prlimit"
    assert not any("ulimit" in a for a in argv)
    assert argv[argv.index("--") + 1 :] == ["/bin/sh", "-c", "echo hi"]  # the command text is untouched
    assert limit_plan(ResourceLimits()).refused == ()
    assert limits_note(ResourceLimits()) is None  # everything applies here, so the run says nothing about it


def test_every_limit_is_in_force_inside_the_command(workspace: Path, mode: str) -> None:
    limits = ResourceLimits(
        cpu_s=77, address_space_bytes=900 << 20, file_size_bytes=3 << 20, open_files=99, core_bytes=0, processes=600
    )
    code, out = _run("ulimit -t; ulimit -v; ulimit -f; ulimit -n; ulimit -c; echo done", workspace, mode, limits)
    assert code == 0, out
    cpu, vmem, fsize, nofile, core, done = out.split("\n")[:6]
    assert (cpu, vmem, fsize, nofile, core, done) == ("77", str(900 << 10), str((3 << 20) // 512), "99", "0", "done")


def test_the_process_limit_counts_for_ordinary_users_and_root_alike(workspace: Path, mode: str) -> None:
    """An ordinary user gets RLIMIT_NPROC (its tasks now plus the allowance); root a pids cgroup."""
    limits = ResourceLimits(processes=40)
    probe = (
        "python3 -c 'import os, time\nn = 0\ntry:\n    while n < 200:\n        if os.fork() == 0:\n"
        "            time.sleep(3)\n            os._exit(0)\n        n += 1\nexcept OSError as e:\n"
        '    print("refused", e.errno)\nprint("forked", n)\''
    )
    code, out = _run(probe, workspace, mode, limits)
    assert code == 0, out
    forked = int(out.split("forked ", 1)[1].split()[0])
    assert 8 <= forked < 60, out
    assert "refused 11" in out  # EAGAIN


def test_cpu_seconds_stop_a_busy_loop(workspace: Path, mode: str) -> None:
    code, out = _run("while :; do :; done", workspace, mode, ResourceLimits(cpu_s=1), timeout_s=20)
    assert code != 0 and code != -1, out  # killed by SIGXCPU long before the 20 s deadline


def test_address_space_bounds_an_allocation(workspace: Path, mode: str) -> None:
    code, out = _run(
        "python3 -c 'bytearray(600 << 20)'", workspace, mode, ResourceLimits(address_space_bytes=256 << 20)
    )
    assert code != 0 and "MemoryError" in out, out


def test_file_size_bounds_a_write(workspace: Path, mode: str) -> None:
    _code, out = _run(
        "head -c 3000000 /dev/zero > big.bin; echo exit=$?", workspace, mode, ResourceLimits(file_size_bytes=1 << 20)
    )
    assert (workspace / "big.bin").stat().st_size <= 1 << 20, out
    assert "exit=0" not in out


def test_open_files_bound_a_descriptor_leak(workspace: Path, mode: str) -> None:
    leak = (
        'python3 -c \'import os\nfds = []\ntry:\n    while True:\n        fds.append(os.open("/dev/null", 0))\n'
        'except OSError as e:\n    print("stopped at", len(fds), e.errno)\''
    )
    code, out = _run(leak, workspace, mode, ResourceLimits(open_files=64))
    assert code == 0, out
    assert int(out.split("stopped at ", 1)[1].split()[0]) < 64, out


def test_a_limit_the_system_refuses_is_named_and_the_command_still_runs(workspace: Path) -> None:
    """Asking for more open files than the hard limit: clamped, never a failing run."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limits = ResourceLimits(open_files=hard + 1000 if hard != resource.RLIM_INFINITY else 1 << 20)
    code, out = _run("echo still-runs", workspace, "none", limits)
    assert code == 0 and "still-runs" in out


def test_the_limits_wrap_bubblewrap_from_outside(workspace: Path) -> None:
    choice = choose_sandbox("bwrap")
    argv = command_argv(["/bin/sh", "-c", "true"], workspace, choice, ResourceLimits(), allow_network=False)
    launcher = 0 if os.geteuid() != 0 else argv.index("/usr/bin/prlimit")
    assert argv[launcher] == "/usr/bin/prlimit"
    assert argv[argv.index("--", launcher) + 1] == choice.bwrap  # bubblewrap inherits the limits


@pytest.mark.parametrize(
    ("sysctls", "expected"),
    [
        ({"kernel/apparmor_restrict_unprivileged_userns": "1"}, "bwrap-userns-restrict"),
        ({"kernel/unprivileged_userns_clone": "0"}, "kernel.unprivileged_userns_clone=1"),
        ({"user/max_user_namespaces": "0"}, "user.max_user_namespaces"),
        ({"kernel/apparmor_restrict_unprivileged_userns": "0", "user/max_user_namespaces": "63000"}, None),
    ],
)
def test_a_bubblewrap_stopped_by_the_kernel_says_what_to_do(sysctls: dict[str, str], expected: str | None) -> None:
    hint = userns_hint(sysctls)
    if os.geteuid() == 0 or expected is None:
        assert hint is None  # root needs no user namespace of its own
    else:
        assert hint is not None and expected in hint
