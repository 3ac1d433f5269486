"""A real Neovim 0.12 runs a command from its code lens, with the configuration documented in docs/editors.md and
docs/running.md: the lens is offered, the confirmation is answered through vim.ui.select, the command creates its
file, progress arrives as LspProgress events, and the result shows in the lens and the hover; and quitting Neovim
while a run is going ends the server and the run's whole process tree (docs/running.md, "When the server ends")."""

from __future__ import annotations

import re
import time
from pathlib import Path

from editors_harness import NVIM_012, run_nvim, snippet, workspace_file
from tests.executor.conftest import processes_with, unique_sleep

# The Neovim configuration of docs/editors.md with the run keys of docs/running.md.
CONFIG = snippet("nvim-0.11") + "\n" + snippet("nvim-0.12", doc="running.md", marker="running-test")
# How long the server and the run's processes may outlive Neovim's :qa!.
GONE_WITHIN_S = 15.0


def test_neovim_runs_a_command_from_its_lens(tmp_path: Path) -> None:
    text = "# make a file from a heredoc\ncat > created.txt <<EOF\nmade by neovim é😀\nEOF\n"
    script = workspace_file(tmp_path, "make.cli", text)
    workspace = script.parent
    created = workspace / "created.txt"
    seen = run_nvim(
        NVIM_012,
        CONFIG,
        workspace,
        tmp_path / "home",
        "run",
        file=str(script),
        line=1,
        created=str(created),
        answer="Run",
    )
    assert seen.get("error") is None, seen
    assert seen["filetype"] == "cli-script"
    assert "heredoc-lsp.runCommand" in seen["commands"]
    assert [(t["line"], t["title"], t["command"]) for t in seen["before"]] == [
        (0, "▶ Run script", "heredoc-lsp.runScript"),
        (1, "▶ Run", "heredoc-lsp.runCommand"),
    ]
    # The confirmation went through vim.ui.select, and the command ran with its heredoc as stdin.
    assert seen["questions"] == [
        {
            "prompt": f"Run 'cat > created.txt' from make.cli in {workspace} (sandbox: auto)?: ",
            "choices": ["Run", "Run and don't ask again for this file", "Cancel"],
        }
    ]
    assert seen["created"] is True
    assert created.read_text(encoding="utf-8") == "made by neovim é😀\n"
    # Progress: begin (the command), end (the result).
    kinds = [p["kind"] for p in seen["progress"]]
    assert kinds[0] == "begin" and kinds[-1] == "end", seen["progress"]
    assert seen["progress"][0]["title"] == "Run 'cat > created.txt'"
    assert seen["progress"][-1]["message"] == "✓ 1 command: 1 OK"
    # The result in place: the lens title and the hover.
    assert seen["result_lens"] is True
    on_line = [t["title"] for t in seen["after"] if t["line"] == 1]
    assert on_line[0] == "▶ Run" and re.fullmatch(r"✓ exit 0 · \d+(\.\d+)? s", on_line[1]), seen["after"]
    assert "**Last run** ✓ exit 0" in seen["hover"]
    assert "Ran 'cat > created.txt' (exit code 0)" in seen["hover"]


def test_quitting_neovim_ends_the_server_and_the_whole_run(tmp_path: Path) -> None:
    # Unisolated (the user's own config, docs/configuration.md): under bubblewrap the run's processes die with
    # bwrap's pid namespace whatever the server does.
    user_config = tmp_path / "home" / "xdg_config_home" / "heredoc-lsp" / "config.toml"
    user_config.parent.mkdir(parents=True)
    user_config.write_text('[executor]\nsandbox = "none"\n', encoding="utf-8")
    m = unique_sleep()
    # As in tests/lsp/run/test_run_server_end.py: the run's shell dies on SIGTERM, below it a shell and its sleep
    # that ignore it; "started" appears once the sleep is going.
    script = workspace_file(
        tmp_path,
        "long.cli",
        f'# a long command\nsh -c \'trap "" TERM; sleep "$1" & echo > started; wait\' tree {m}; echo after\n',
    )
    workspace = script.parent
    seen = run_nvim(
        NVIM_012,
        CONFIG,
        workspace,
        tmp_path / "home",
        "quit",
        file=str(script),
        line=1,
        created=str(workspace / "started"),
        answer="Run",
    )
    assert seen.get("error") is None, seen
    assert seen["created"] is True, seen
    servers = [c["pid"] for c in seen["children"] if c["name"] == "heredoc-lsp"]
    assert len(servers) == 1, seen["children"]
    # Neovim has quit (run_nvim returned): the server follows within the deadline, and has killed the run's whole
    # tree before it exited (no waiting for the run).
    deadline = time.monotonic() + GONE_WITHIN_S
    while servers[0] in processes_with("heredoc-lsp lsp") and time.monotonic() < deadline:
        time.sleep(0.05)
    left = processes_with(m)
    assert servers[0] not in processes_with("heredoc-lsp lsp"), seen["log"]
    assert left == [], seen["log"]
