"""The examples of README.md, checked by the real command: the script, the reply and the configuration pass
``check`` with no error, and the command-line summary names only subcommands that exist."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from heredoc_lsp.cli.main import SUBCOMMANDS

Runner = Callable[..., subprocess.CompletedProcess[str]]
README = Path(__file__).resolve().parents[2] / "README.md"


def block_after(marker: str, fence: str = "```") -> str:
    """The first fenced block after the line holding ``marker``."""
    text = README.read_text(encoding="utf-8")
    start = text.index(marker)
    m = re.compile(rf"^{re.escape(fence)}\n(.*?)^```$", re.MULTILINE | re.DOTALL).search(text, start)
    assert m is not None, marker
    return m.group(1)


def test_the_script_example_is_clean(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "example.cli").write_text(block_after("**`.cli` scripts**"), encoding="utf-8")
    result = cli("check", "example.cli", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, ""), result.stdout


def test_the_reply_example_has_no_error(cli: Runner, tmp_path: Path) -> None:
    # Its READ_FILE and EDIT_FILE name files of the reader's project: here they do not exist (warnings only).
    (tmp_path / "reply.inbox").write_text(block_after("**Inbox replies**"), encoding="utf-8")
    result = cli("check", "reply.inbox", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert "error[" not in result.stdout, result.stdout


def test_the_configuration_example_loads_without_a_problem(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "heredoc-lsp.toml").write_text(block_after("examples/heredoc-lsp.toml", "```toml"), encoding="utf-8")
    (tmp_path / "a.cli").write_text("echo hi\n", encoding="utf-8")
    result = cli("check", "--strict", "a.cli", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


def test_the_command_line_summary_names_real_subcommands() -> None:
    usage = block_after("## Command line")
    named = {line.split()[1] for line in usage.splitlines() if line.startswith("heredoc-lsp ")}
    assert named and named <= set(SUBCOMMANDS), named - set(SUBCOMMANDS)
