"""A real Neovim 0.12 runs a command from its code lens, with the configuration documented in docs/editors.md and
docs/running.md: the lens is offered, the confirmation is answered through vim.ui.select, the command creates its
file, progress arrives as LspProgress events, and the result shows in the lens and the hover."""

from __future__ import annotations

import re
from pathlib import Path

from editors_harness import NVIM_012, run_nvim, snippet

# The Neovim configuration of docs/editors.md with the run keys of docs/running.md.
CONFIG = snippet("nvim-0.11") + "\n" + snippet("nvim-0.12", doc="running.md", marker="running-test")


def test_neovim_runs_a_command_from_its_lens(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "heredoc-lsp.toml").write_text("", encoding="utf-8")
    script = workspace / "make.cli"
    text = "# make a file from a heredoc\ncat > created.txt <<EOF\nmade by neovim é😀\nEOF\n"
    script.write_text(text, encoding="utf-8")
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
