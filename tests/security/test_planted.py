"""Code planted to run later, outside the sandbox: under bubblewrap a command creates no Git repository, direnv file
or editor settings anywhere in the workspace (heredoc_lsp/executor/planted.py). Real bubblewrap, real git, the real
command line; as root (CI) and, in scripts/test's second run, as an ordinary user."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .conftest import RunCli

PLANTING = (
    "git init -q . ; git config core.fsmonitor 'touch PWNED-root'",
    "git init -q vendor/lib && git -C vendor/lib config core.fsmonitor 'touch PWNED'",
    'mkdir -p a/b/.vscode && echo \'{"heredocLsp.python.path": "tools/python"}\' > a/b/.vscode/settings.json',
    "mkdir -p .idea sub && echo 'export X=1' > sub/.envrc",
    "printf '[core]\\n\\tfsmonitor = touch PWNED-old\\n' > old/.git/config",
    "mkdir -p c/.GIT && echo x > c/.GIT/config; touch made-it.txt",
)


def test_a_command_cannot_plant_a_repository_or_editor_settings_anywhere(workspace: Path, run_cli: RunCli) -> None:
    """Under bubblewrap no name that runs code outside the sandbox later can be created, at the root (masked) or
    deeper (removed after the command, which fails), and the existing ones deeper are read-only too."""
    (workspace / "vendor" / "lib").mkdir(parents=True)
    (workspace / "old" / ".git").mkdir(parents=True)
    reply = workspace / "r.inbox"
    reply.write_text("".join(f"[RUN_COMMAND]\n{c}\n[/RUN_COMMAND]\n" for c in PLANTING))
    for attempt in range(2):  # twice: the masks of the first run leave nothing behind that the second trips on
        again = ["--again"] if attempt else []  # the same reply on purpose (applied once by content otherwise)
        done = run_cli("apply", str(reply), "--yes", "--sandbox", "bwrap", *again)
        assert "Traceback" not in done.stderr, done.stderr
        found = sorted(
            os.path.relpath(os.path.join(folder, name), workspace)
            for folder, dirs, files in os.walk(workspace)
            for name in dirs + files
            if name.lower() in (".git", ".vscode", ".idea", ".envrc")
        )
        assert found == ["old/.git"], (attempt, found, done.stdout)
        assert list((workspace / "old" / ".git").iterdir()) == []
        assert (workspace / "made-it.txt").exists()  # the rest of the workspace stays writable
        assert done.stdout.count("[FAILED] RUN_COMMAND") == len(PLANTING), done.stdout
        assert "vendor/lib/.git, which would run code outside the sandbox later" in done.stdout, done.stdout
    git = subprocess.run(["git", "status"], cwd=workspace / "vendor" / "lib", capture_output=True, text=True)
    assert not list(workspace.rglob("PWNED*")), git.stdout + git.stderr
