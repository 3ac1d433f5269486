"""The README's tool installs from a checkout, ``pipx install .`` and ``uv tool install .``, each into a private
tool home, give a ``heredoc-lsp`` command whose ``check`` works."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging_harness import BIN, REPO, run, tool_env

from heredoc_lsp import __version__

BAD = "echo start\ncat <<EOF\nbody\n"
GOOD = "echo ok\ncat <<EOF\nbody\nEOF\n"
MESSAGE = "Unclosed heredoc starting at line 2: expected 'EOF' but reached end of file"

# The command of README.md's install section, and the variables that keep the tool's files under a test folder.
TOOLS = {
    "pipx": ([str(BIN / "pipx"), "install", "."], {"PIPX_HOME": "tools", "PIPX_BIN_DIR": "bin"}),
    "uv": (
        [str(BIN / "uv"), "tool", "install", "."],
        {"UV_TOOL_DIR": "tools", "UV_TOOL_BIN_DIR": "bin", "UV_CACHE_DIR": "cache"},
    ),
}


def test_readme_documents_the_commands() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "pipx install heredoc-lsp" in readme and "uv tool install heredoc-lsp" in readme
    assert "`pipx install .` or `uv tool install .`" in readme


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_tool_install_from_checkout(tool: str, tmp_path: Path) -> None:
    command, dirs = TOOLS[tool]
    env = tool_env(tmp_path / "home") | {name: str(tmp_path / sub) for name, sub in dirs.items()}
    env["UV_PYTHON_DOWNLOADS"] = "never"  # uv uses the Python it finds, as pipx does
    installed = run(command, REPO, env, 600)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    exe = str(tmp_path / "bin" / "heredoc-lsp")
    work = tmp_path / "work"
    work.mkdir()
    (work / "bad.cli").write_text(BAD, encoding="utf-8")
    (work / "good.cli").write_text(GOOD, encoding="utf-8")

    version = run([exe, "--version"], work, env)
    assert version.stdout.strip() == f"heredoc-lsp {__version__}", version.stdout + version.stderr
    good = run([exe, "check", "good.cli"], work, env)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = run([exe, "check", "."], work, env)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert f"bad.cli:2:7: error[unclosed_heredoc] {MESSAGE}" in bad.stdout, bad.stdout
