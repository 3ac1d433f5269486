"""The repository as a Neovim plugin (ftdetect/, lsp/heredoc_lsp.lua, lua/heredoc_lsp/): real headless Neovim 0.7.2
and 0.12 started with ``--clean`` and only the checkout on 'runtimepath', as a plugin manager pointed at the
repository would load it, plus the one line of docs/neovim/README.md that turns the server on."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from editors_harness import NVIM_012, NVIM_07, REPO, nvim_filetypes, nvim_lua_json, run_nvim_plugin, workspace_file

from heredoc_lsp import __version__
from heredoc_lsp.languages import Language, language_from_id, language_from_path

TEXT = "echo start\né😀 cat <<EOF\nbody é😀\n"
MESSAGE = "Unclosed heredoc starting at line 2: expected 'EOF' but reached end of file"
FIX = "Close the heredoc with a line 'EOF'"
ENABLE = "vim.lsp.enable('heredoc_lsp')"
SETUP = "require('heredoc_lsp').setup()"

# Relative to a workspace, and the file type Neovim gives it with the plugin.
FILETYPES = {
    "a.cli": "cliscript",
    "reply.inbox": "agentinbox",
    "msg.outbox": "agentoutbox",
    "inbox/reply.txt": "agentinbox",
    "outbox/5f3a9c1e_seq0001.txt": "agentoutbox",
    "outbox/notes.txt": "text",
    "notes.txt": "text",
    "a.cli.txt": "text",
}


@pytest.mark.parametrize(
    ("nvim", "setup", "encoding"),
    [
        pytest.param(NVIM_07, SETUP, "utf-16", id="nvim-0.7.2-setup"),
        pytest.param(NVIM_012, ENABLE, "utf-8", id="nvim-0.12-lsp-enable"),
        pytest.param(NVIM_012, SETUP, "utf-8", id="nvim-0.12-setup"),
    ],
)
def test_plugin_shows_and_fixes_unclosed_heredoc(tmp_path: Path, nvim: str, setup: str, encoding: str) -> None:
    file = workspace_file(tmp_path, "sub/script.cli", TEXT)
    result = run_nvim_plugin(nvim, setup, tmp_path / "ws", file, FIX, tmp_path / "home")
    assert result.get("error") is None, result
    assert result["filetype"] == "cliscript"
    assert result["offset_encoding"] == encoding
    assert [(d["lnum"], d["code"], d["message"]) for d in result["before"]] == [(1, "unclosed_heredoc", MESSAGE)], (
        result
    )
    assert FIX in result["titles"]
    assert result["after"] == [], result
    assert result["lines"] == ["echo start", "é😀 cat <<EOF", "body é😀", "EOF"]


@pytest.mark.parametrize("nvim", [pytest.param(NVIM_07, id="nvim-0.7.2"), pytest.param(NVIM_012, id="nvim-0.12")])
def test_plugin_filetypes(tmp_path: Path, nvim: str) -> None:
    files = {}
    for name in FILETYPES:
        path = tmp_path / "ws" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n", encoding="utf-8")
        files[name] = path
    seen = nvim_filetypes(nvim, list(files.values()), tmp_path / "home")
    assert {name: seen[str(path)] for name, path in files.items()} == FILETYPES


def test_plugin_filetypes_agree_with_the_server() -> None:
    """Each file type the plugin sets is a language id the server accepts, for the language it infers itself."""
    expected = {"cliscript": Language.CLI, "agentinbox": Language.INBOX, "agentoutbox": Language.OUTBOX}
    for name, filetype in FILETYPES.items():
        if filetype in expected:
            assert language_from_id(filetype) == expected[filetype]
            assert language_from_path(Path("/ws") / name) == expected[filetype]
        else:
            assert language_from_path(Path("/ws") / name) is None


def test_submission_files_match_the_plugin(tmp_path: Path) -> None:
    """docs/neovim's nvim-lspconfig entry is the plugin's configuration; the mason package installs this version
    from PyPI and names that entry."""
    plugin, entry = nvim_lua_json(
        NVIM_012,
        f"{{ dofile([==[{REPO / 'lsp' / 'heredoc_lsp.lua'}]==]), "
        f"dofile([==[{REPO / 'docs' / 'neovim' / 'nvim-lspconfig' / 'lsp' / 'heredoc_lsp.lua'}]==]) }}",
        tmp_path / "home",
    )
    assert plugin == entry
    assert plugin == {
        "cmd": ["heredoc-lsp", "lsp"],
        "filetypes": ["cliscript", "agentinbox", "agentoutbox"],
        "root_markers": ["heredoc-lsp.toml", ".git"],
    }
    package = REPO / "docs" / "neovim" / "mason-registry" / "packages" / "heredoc-lsp" / "package.yaml"
    mason = yaml.safe_load(package.read_text(encoding="utf-8"))
    assert mason["name"] == "heredoc-lsp"
    assert mason["source"]["id"] == f"pkg:pypi/heredoc-lsp@{__version__}"
    assert mason["bin"] == {"heredoc-lsp": "pypi:heredoc-lsp"}
    assert mason["neovim"] == {"lspconfig": "heredoc_lsp"}
    assert mason["licenses"] == ["MIT"]
