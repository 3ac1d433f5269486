"""The process runner with real processes, in both sandbox modes (bubblewrap and none)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest

from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.environment import build_environment
from heredoc_lsp.executor.process import run_process
from heredoc_lsp.executor.sandbox import ResourceLimits, bwrap_status

from .conftest import processes_with, shell_spec, unique_sleep


def test_bubblewrap_is_really_used() -> None:
    path, why = bwrap_status()
    assert path is not None, why


async def test_stdin_exit_code_and_both_streams(workspace: Path, mode: str) -> None:
    r = await run_process(shell_spec("cat; echo oops >&2; exit 3", workspace, mode, stdin=b"line 1\nline 2\n"))
    assert (r.exit_code, r.stdout.text, r.stderr.text, r.timed_out) == (3, "line 1\nline 2\n", "oops\n", False)


async def test_streams_are_read_concurrently(workspace: Path, mode: str) -> None:
    # 2 MB on stderr before anything on stdout: a runner reading stdout first would deadlock on the full stderr pipe.
    cmd = "head -c 2000000 /dev/zero | tr '\\0' e >&2; echo done"
    r = await run_process(shell_spec(cmd, workspace, mode, timeout_s=20))
    assert (r.exit_code, r.stdout.text, r.stderr.total_bytes) == (0, "done\n", 2_000_000)


async def test_command_that_never_reads_stdin(workspace: Path, mode: str) -> None:
    started = time.monotonic()
    r = await run_process(shell_spec("echo ignored", workspace, mode, stdin=b"x" * 5_000_000))
    assert (r.exit_code, r.stdout.text, r.timed_out) == (0, "ignored\n", False)
    assert time.monotonic() - started < 5


async def test_command_that_reads_more_than_the_heredoc_gives(workspace: Path, mode: str) -> None:
    r = await run_process(shell_spec("cat; cat; read x || echo eof", workspace, mode, stdin=b"only\n"))
    assert (r.exit_code, r.stdout.text) == (0, "only\neof\n")


async def test_empty_stdin_is_not_the_terminal(workspace: Path, mode: str) -> None:
    r = await run_process(shell_spec("test -t 0 && echo tty || echo pipe; wc -c", workspace, mode))
    assert r.stdout.text.split() == ["pipe", "0"]


async def test_timeout_kills_the_whole_tree(workspace: Path, mode: str) -> None:
    secs = unique_sleep()
    cmd = f"sleep {secs} & sleep {secs} & (sleep {secs}; echo) ; wait"
    started = time.monotonic()
    r = await run_process(shell_spec(cmd, workspace, mode, timeout_s=0.5))
    assert r.timed_out and not r.ok
    assert time.monotonic() - started < 5
    assert processes_with(f"sleep {secs}") == []


async def test_timeout_fires_while_a_grandchild_holds_the_pipe(workspace: Path, mode: str) -> None:
    """The origin bug: waiting for the pipes instead of the clock never times out."""
    secs = unique_sleep()
    cmd = f"(trap '' TERM; sleep {secs}) & exec sleep {secs}"
    started = time.monotonic()
    r = await run_process(shell_spec(cmd, workspace, mode, timeout_s=0.5))
    assert r.timed_out
    assert time.monotonic() - started < 5
    assert processes_with(f"sleep {secs}") == []


async def test_setsid_grandchild_that_closed_its_pipes_dies_on_timeout(workspace: Path, mode: str) -> None:
    secs = unique_sleep()
    cmd = f"setsid sh -c 'exec </dev/null >/dev/null 2>&1; sleep {secs}' & sleep 0.2; echo started; sleep {secs}"
    r = await run_process(shell_spec(cmd, workspace, mode, timeout_s=1.0))
    assert r.timed_out
    assert r.stdout.text == "started\n"
    assert processes_with(f"sleep {secs}") == []


async def test_double_forked_daemon_dies_on_cancel(workspace: Path, mode: str) -> None:
    secs = unique_sleep()
    cmd = f"(setsid sh -c 'sleep {secs} & exit' &) ; sleep 0.2; echo ready; sleep {secs}"
    control = RunControl()
    seen: list[str] = []

    def on_output(stream: str, text: str) -> None:
        seen.append(text)
        if "ready" in "".join(seen):
            control.cancel("stop it")

    r = await run_process(shell_spec(cmd, workspace, mode, timeout_s=20), control, on_output)
    assert (r.cancelled, r.cancel_reason, r.timed_out) == (True, "stop it", False)
    assert processes_with(f"sleep {secs}") == []


async def test_background_job_does_not_outlive_a_finished_command(workspace: Path, mode: str) -> None:
    secs = unique_sleep()
    started = time.monotonic()
    r = await run_process(shell_spec(f"sleep {secs} & echo bye", workspace, mode))
    assert (r.exit_code, r.stdout.text, r.timed_out) == (0, "bye\n", False)
    assert time.monotonic() - started < 3
    assert processes_with(f"sleep {secs}") == []


async def test_setsid_daemon_after_normal_exit_is_found_by_its_tag(workspace: Path, mode: str) -> None:
    secs = unique_sleep()
    r = await run_process(shell_spec(f"setsid sleep {secs} & echo bye", workspace, mode))
    assert (r.exit_code, r.stdout.text) == (0, "bye\n")
    assert processes_with(f"sleep {secs}") == []


async def test_setsid_daemon_that_closed_its_pipes_never_outlives_a_finished_command(
    workspace: Path, mode: str
) -> None:
    # Repeated: it raced the group kill (setsid before it: it survived, about one run in three).
    for _ in range(15):
        secs = unique_sleep()
        r = await run_process(shell_spec(f"setsid sleep {secs} </dev/null >/dev/null 2>&1 & echo bye", workspace, mode))
        assert (r.exit_code, r.stdout.text) == (0, "bye\n")
        assert processes_with(f"sleep {secs}") == []


async def test_cancel_before_start_runs_nothing(workspace: Path, mode: str) -> None:
    control = RunControl()
    control.cancel("never mind")
    r = await run_process(shell_spec("touch made", workspace, mode), control)
    assert (r.exit_code, r.cancelled, r.cancel_reason) == (None, True, "never mind")
    assert not (workspace / "made").exists()


async def test_outer_task_cancellation_still_kills_the_tree(workspace: Path, mode: str) -> None:
    secs = unique_sleep()
    task = asyncio.ensure_future(run_process(shell_spec(f"sleep {secs}", workspace, mode, timeout_s=30)))
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert processes_with(f"sleep {secs}") == []


async def test_resource_limits_apply(workspace: Path, mode: str) -> None:
    limits = ResourceLimits(cpu_s=7, address_space_bytes=1 << 30, file_size_bytes=1 << 20, open_files=64)
    r = await run_process(shell_spec("cat /proc/self/limits", workspace, mode, limits=limits))
    rows = {line[:26].strip(): line[26:].split()[:2] for line in r.stdout.text.splitlines()[1:]}
    assert rows["Max cpu time"] == ["7", "7"]
    assert rows["Max address space"] == [str(1 << 30)] * 2
    assert rows["Max file size"] == [str(1 << 20)] * 2
    assert rows["Max open files"] == ["64", "64"]
    assert rows["Max core file size"] == ["0", "0"]
    r = await run_process(shell_spec("head -c 2000000 /dev/zero > big; echo $?", workspace, mode, limits=limits))
    assert (workspace / "big").stat().st_size == 1 << 20
    assert r.stdout.text != "0\n"


async def test_environment_allowlist_and_redaction(workspace: Path, mode: str) -> None:
    parent = {
        "PATH": os.environ["PATH"],
        "HOME": "/root",
        "LC_ALL": "C.UTF-8",
        "GITHUB_TOKEN": "ghp_notpassed123",
        "MY_API_KEY": "passed-secret-value",
        "RANDOM_THING": "x",
    }
    env = build_environment(parent, extra_names=["MY_API_KEY"])
    assert sorted(env) == ["HOME", "LC_ALL", "MY_API_KEY", "PATH"]
    secrets = ["ghp_notpassed123", "passed-secret-value"]
    r = await run_process(shell_spec("env; echo $MY_API_KEY >&2", workspace, mode, env=env, redact=secrets))
    assert "GITHUB_TOKEN" not in r.stdout.text
    assert "RANDOM_THING" not in r.stdout.text
    assert "MY_API_KEY=[REDACTED]" in r.stdout.text
    assert "passed-secret-value" not in r.stdout.text
    assert r.stderr.text == "[REDACTED]\n"


async def test_redaction_in_live_output_split_across_chunks(workspace: Path, mode: str) -> None:
    seen: list[str] = []
    cmd = "printf 'abc-sec'; sleep 0.2; printf 'ret-value-xyz\\n'"
    r = await run_process(
        shell_spec(cmd, workspace, mode, redact=["sec" + "ret-value"]), on_output=lambda s, t: seen.append(t)
    )
    assert "".join(seen) == "abc-[REDACTED]-xyz\n"
    assert r.stdout.text == "abc-[REDACTED]-xyz\n"


SECRET = "tok-0123456789abcdef"


async def test_a_secret_cut_by_the_end_of_the_kept_head_is_hidden_live_and_in_the_result(
    workspace: Path, mode: str
) -> None:
    seen: list[str] = []
    # A 1 KiB head: the secret's first 8 characters are its last ones, the rest goes to the tail.
    cmd = f"head -c 1016 /dev/zero | tr '\\000' a; printf '%s\\n' {SECRET}"
    spec = replace(shell_spec(cmd, workspace, mode, redact=[SECRET]), capture_bytes=2048)
    r = await run_process(spec, on_output=lambda s, t: seen.append(t))
    live = "".join(seen)
    assert live == "a" * 1016 + "[REDACTED]"
    assert r.stdout.text == "a" * 1016 + "[REDACTED][REDACTED]\n"


async def test_a_secret_cut_by_the_dropped_middle_is_hidden_in_the_kept_tail(workspace: Path, mode: str) -> None:
    cmd = f"head -c 5000 /dev/zero | tr '\\000' a; printf %s {SECRET}; head -c 1014 /dev/zero | tr '\\000' b"
    spec = replace(shell_spec(cmd, workspace, mode, redact=[SECRET]), capture_bytes=2048)
    r = await run_process(spec)
    assert r.stdout.truncated
    assert r.stdout.tail == "[REDACTED]" + "b" * 1014
    assert SECRET[10:] not in r.stdout.text


async def test_a_secret_printed_half_on_stdout_and_half_on_stderr_is_hidden(workspace: Path, mode: str) -> None:
    cmd = f"printf %s {SECRET[:10]}; printf %s {SECRET[10:]} >&2"
    seen: list[str] = []
    r = await run_process(shell_spec(cmd, workspace, mode, redact=[SECRET]), on_output=lambda s, t: seen.append(t))
    assert SECRET not in "".join(seen)
    shown = r.stdout.text + r.stderr.text
    assert SECRET[:10] not in shown and SECRET[10:] not in shown, (r.stdout.text, r.stderr.text)
    assert "[REDACTED]" in shown


async def test_binary_and_ansi_output_is_clean_utf8(workspace: Path, mode: str) -> None:
    (workspace / "img.jpg").write_bytes(bytes.fromhex("ffd8ffe000104a4649460001") + bytes(range(256)))
    r = await run_process(shell_spec("cat img.jpg; printf '\\033[1;32mgreen\\033[0m\\n'", workspace, mode))
    r.stdout.text.encode("utf-8")
    assert r.stdout.text.endswith("green\n")
    assert "\x1b" not in r.stdout.text and "\x00" not in r.stdout.text


async def test_missing_program(workspace: Path, mode: str) -> None:
    r = await run_process(shell_spec("no-such-program-xyz", workspace, mode))
    assert r.exit_code == 127
    assert "no-such-program-xyz" in r.stderr.text


async def test_bwrap_isolation(workspace: Path) -> None:
    outside = workspace.parent / "outside.txt"  # under /tmp: the sandbox's private /tmp, not the host's
    cmd = (
        f"echo x > {outside}; echo x > /var/tmp/heredoc-lsp-probe 2>/dev/null || echo ro-outside; "
        "echo x > inside.txt && echo rw-inside; "
        "touch /tmp/private && echo tmp-ok; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; "
        "echo pid=$$; id -u"
    )
    r = await run_process(shell_spec(cmd, workspace, "bwrap"))
    lines = r.stdout.text.splitlines()
    assert lines[:4] == ["ro-outside", "rw-inside", "tmp-ok", "lo"]
    assert not outside.exists()
    assert not Path("/var/tmp/heredoc-lsp-probe").exists()
    assert (workspace / "inside.txt").read_text() == "x\n"
    assert not Path("/tmp/private").exists()
    # In its own pid namespace the shell has a tiny pid.
    assert int(lines[4].removeprefix("pid=")) < 10


async def test_bwrap_cannot_remount_root_writable_even_as_root(workspace: Path) -> None:
    cmd = "mount -o remount,rw / 2>&1; touch /etc/heredoc-lsp-probe 2>&1"
    r = await run_process(shell_spec(cmd, workspace, "bwrap"))
    assert not Path("/etc/heredoc-lsp-probe").exists()
    assert r.exit_code != 0


def test_flood_bounded_memory(tmp_path: Path) -> None:
    """300 MB of output: drained completely with the executor's peak RSS under 100 MB (measured in a fresh process)."""
    script = f"""
import asyncio, sys
# VmHWM is this process image's peak RSS (ru_maxrss would also count the parent's pages at fork/exec time).
def peak_kb():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM:")).split()[1])
from pathlib import Path
from tests.executor.conftest import shell_spec
from heredoc_lsp.executor.process import run_process
ws = Path({str(tmp_path)!r})
r = asyncio.run(run_process(shell_spec("yes 'flood é line' | head -c 300000000", ws, "none", timeout_s=120)))
print(r.exit_code, r.stdout.total_bytes, r.stdout.omitted_bytes > 0, peak_kb())
"""
    # The checkout's root makes `tests.executor` importable; PYTHONPATH keeps whichever heredoc_lsp this run uses.
    path = os.pathsep.join(p for p in (str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True, env=env
    )
    code, total, truncated, maxrss_kb = done.stdout.split()
    assert (code, total, truncated) == ("0", "300000000", "True")
    assert int(maxrss_kb) < 100 * 1024, f"peak RSS {int(maxrss_kb) // 1024} MB"


async def test_resource_limits_apply_to_any_argv(workspace: Path, mode: str) -> None:
    """Not only ``/bin/sh -c`` runners: any argv is started through the limits prologue and ``exec``."""
    from heredoc_lsp.executor.process import ProcessSpec
    from heredoc_lsp.executor.sandbox import SandboxMode, choose_sandbox, command_argv

    limits = ResourceLimits(cpu_s=9, open_files=77)
    choice = choose_sandbox(cast(SandboxMode, mode))
    argv = command_argv(["/bin/cat", "/proc/self/limits"], workspace, choice, limits, allow_network=False)
    r = await run_process(ProcessSpec(argv, workspace, build_environment()))
    rows = {line[:26].strip(): line[26:].split()[:2] for line in r.stdout.text.splitlines()[1:]}
    assert rows["Max cpu time"] == ["9", "9"]
    assert rows["Max open files"] == ["77", "77"]
    # A /bin/sh -c runner keeps its own $0 and exit status with the limits line merged into its script.
    argv = command_argv(["/bin/sh", "-c", "echo $0; exit 7"], workspace, choice, limits, allow_network=False)
    r = await run_process(ProcessSpec(argv, workspace, build_environment()))
    assert (r.exit_code, r.stdout.text) == (7, "/bin/sh\n")
