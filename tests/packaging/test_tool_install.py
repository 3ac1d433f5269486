"""The README's tool installs from a checkout, ``pipx install .`` and ``uv tool install .``, each into a private
tool home, give a ``heredoc-lsp`` command whose ``check`` works."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging_harness import BIN, REPO, Dist, check_installed, run, tool_env

from heredoc_lsp import __version__

# The command of README.md's install section, and the variables that keep the tool's files under a test folder.
TOOLS = {
    "pipx": ([str(BIN / "pipx"), "install", "."], {"PIPX_HOME": "tools", "PIPX_BIN_DIR": "bin"}),
    "uv": (
        [str(BIN / "uv"), "tool", "install", "."],
        {"UV_TOOL_DIR": "tools", "UV_TOOL_BIN_DIR": "bin", "UV_CACHE_DIR": "cache"},
    ),
}


WHEEL = f"dist/heredoc_lsp-{__version__}-py3-none-any.whl"


def test_readme_documents_the_commands_that_work_today() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    install = readme[readme.index("## Install") :]
    install = install[: install.index("\n## ", 1)]
    assert "pipx install .                       # or: uv tool install ." in install
    assert f"`pipx install\n{WHEEL}`" in install
    # The registry install is named only as the future form, with what it does today.
    assert "It is not on PyPI yet" in install and "until then it fails" in install
    for doc in ("README.md", "docs/ci.md", "docs/editors.md", "docs/guard.md", "docs/neovim/README.md"):
        text = re.sub(r"Once a release is on\s+PyPI[^.]*\.", "", (REPO / doc).read_text(encoding="utf-8"))
        assert "install heredoc-lsp" not in text, doc


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_tool_install_from_checkout(tool: str, tmp_path: Path) -> None:
    command, dirs = TOOLS[tool]
    env = tool_env(tmp_path / "home") | {name: str(tmp_path / sub) for name, sub in dirs.items()}
    env["UV_PYTHON_DOWNLOADS"] = "never"  # uv uses the Python it finds, as pipx does
    installed = run(command, REPO, env, 600)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    check_installed(str(tmp_path / "bin" / "heredoc-lsp"), tmp_path, env)


def test_pipx_install_of_the_built_wheel(dist: Dist, tmp_path: Path) -> None:
    env = tool_env(tmp_path / "home") | {"PIPX_HOME": str(tmp_path / "tools"), "PIPX_BIN_DIR": str(tmp_path / "bin")}
    installed = run([str(BIN / "pipx"), "install", str(dist.wheel)], tmp_path, env, 600)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    check_installed(str(tmp_path / "bin" / "heredoc-lsp"), tmp_path, env)
