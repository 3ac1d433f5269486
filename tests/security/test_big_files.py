"""A reply naming a huge file costs a bounded amount of memory and reading: in ``check``, in the language server
and in ``apply`` (docs/formats.md; the caps are in heredoc_lsp/analysis/workspace.py).

The file is 200 MB of line breaks (200 million lines): the worst case for anything that counts lines by building a
list. Memory is measured as the peak RSS of the child (``wait4``) or the server's ``VmHWM``; reading as ``rchar``
from ``/proc/<pid>/io``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.executor.conftest import processes_with

from lsp.lsp_harness import session

BIG_BYTES = 200_000_000
MAX_RSS_KB = 150 * 1024  # the file alone is 200 MB; reading it whole costs 1.7 GB
MAX_RCHAR = 60_000_000  # imports and config, not the file
CHILD_ADDRESS_SPACE = 3 << 30  # a runaway child fails instead of taking the machine's memory

REPLY = """\
[READ_FILE path="nl.txt" /]
[EDIT_FILE path="nl.txt" start_line="1" end_line="1"]
first
[/EDIT_FILE]
"""


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "nl.txt"
    block = b"\n" * 10_000_000
    with open(path, "wb") as f:
        for _ in range(BIG_BYTES // len(block)):
            f.write(block)
    return path


@pytest.fixture
def big_workspace(workspace: Path, big_file: Path) -> Path:
    os.link(big_file, workspace / "nl.txt")
    (workspace / "reply.inbox").write_text(REPLY, encoding="utf-8")
    return workspace


@dataclass(frozen=True)
class Measured:
    returncode: int
    stdout: str
    stderr: str
    max_rss_kb: int
    rchar: int


# Linux keeps a process's peak RSS across fork and exec, so a child forked from this (large) pytest process would
# report pytest's own peak. A small launcher forks the command afresh and reports the command's own figures. The
# bytes it read: a reaped child's I/O counters are added to its parent's, so the launcher's own ``rchar`` grows by
# the child's (a zombie's /proc/<pid>/io is readable by root only).
LAUNCHER = """
import json, os, resource, sys
def rchar():
    with open("/proc/self/io") as f:
        return int(f.read().split("rchar:")[1].split()[0])
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
before = rchar()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[3], sys.argv[3:])
_pid, status, usage = os.wait4(pid, 0)
read = rchar() - before
with open(sys.argv[1], "w") as f:
    json.dump({"code": os.waitstatus_to_exitcode(status), "maxrss": usage.ru_maxrss, "rchar": read}, f)
"""


def _measure(args: list[str], cwd: Path, env: Mapping[str, str]) -> Measured:
    """Run ``heredoc-lsp ARGS``; its own peak RSS (not this process's nor other children's) and the bytes it read."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        out, err = Path(tmp) / "out", Path(tmp) / "err"
        with open(out, "wb") as out_f, open(err, "wb") as err_f:
            launcher = [sys.executable, "-c", LAUNCHER, str(report), str(CHILD_ADDRESS_SPACE)]
            subprocess.run(
                [*launcher, sys.executable, "-m", "heredoc_lsp", *args],
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=out_f,
                stderr=err_f,
                timeout=120,
                check=True,
            )
        got = json.loads(report.read_text())
        return Measured(got["code"], out.read_text("utf-8"), err.read_text("utf-8"), got["maxrss"], got["rchar"])


def test_check_of_a_reply_naming_a_huge_file_is_bounded(big_workspace: Path, cli_env: dict[str, str]) -> None:
    m = _measure(["check", "--format", "json", "reply.inbox"], big_workspace, cli_env)
    assert m.max_rss_kb < MAX_RSS_KB, f"check peaked at {m.max_rss_kb} KiB"
    assert m.rchar < MAX_RCHAR, f"check read {m.rchar} bytes"
    assert m.returncode == 0, m.stderr
    diagnostics = json.loads(m.stdout)["diagnostics"]
    codes = [d["code"] for d in diagnostics]
    assert codes == ["file_too_large"], diagnostics  # READ_FILE is fine; EDIT_FILE of it is not range-checked
    assert "too large to edit" in diagnostics[0]["message"]


def test_apply_of_edit_file_on_a_huge_file_fails_without_reading_it(
    big_workspace: Path, cli_env: dict[str, str]
) -> None:
    (big_workspace / "edit.txt").write_text(REPLY.split("\n", 1)[1], encoding="utf-8")
    m = _measure(["apply", "edit.txt", "--yes", "--output", "json"], big_workspace, cli_env)
    assert m.max_rss_kb < MAX_RSS_KB, f"apply peaked at {m.max_rss_kb} KiB"
    assert m.rchar < MAX_RCHAR, f"apply read {m.rchar} bytes"
    events = [json.loads(line) for line in m.stdout.splitlines() if line.strip()]
    (done,) = [e for e in events if e["type"] == "run.completed"]
    (result,) = done["payload"]["results"]
    assert result["status"] == "failed", result
    assert "too large to edit" in result["summary"], result
    assert (big_workspace / "nl.txt").stat().st_size == BIG_BYTES


def _server_pid() -> int:
    """The language server this test started (a child of this process running ``heredoc_lsp lsp``)."""
    found = processes_with("heredoc_lsp lsp", parent=os.getpid())
    assert len(found) == 1, found
    return found[0]


def _proc_value(pid: int, file: str, key: str) -> int:
    with open(f"/proc/{pid}/{file}") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1])
    raise AssertionError(f"no {key} in /proc/{pid}/{file}")


async def test_language_server_stays_bounded_on_a_reply_naming_a_huge_file(big_workspace: Path) -> None:
    async with session("vscode", big_workspace) as client:
        pid = _server_pid()
        uri = client.open(REPLY, suffix=".inbox", language_id="agent-inbox")
        diagnostics = await client.diagnostics_of(uri)
        assert [d.code for d in diagnostics] == ["file_too_large"], diagnostics
        for _ in range(3):  # every keystroke re-checks the reply
            client.replace(uri, (2, 0), (2, 5), "first")
        assert await client.hover_text(uri, 0, 2) is not None
        await client.diagnostics_of(uri)
        hwm = _proc_value(pid, "status", "VmHWM:")
        rchar = _proc_value(pid, "io", "rchar:")
    assert hwm < MAX_RSS_KB, f"the server peaked at {hwm} KiB"
    assert rchar < MAX_RCHAR, f"the server read {rchar} bytes"
