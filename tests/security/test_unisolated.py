"""Without bubblewrap (``--sandbox none``) a command runs as the person, and nothing else stops it; but it cannot read
heredoc-lsp's own environment (the secrets withheld from the command) through ``/proc/$PPID/environ``. As an
ordinary user (tests/ordinary_user.py), as people run it: root reads every process's files anyway."""

from __future__ import annotations

import os
import subprocess

from ordinary_user import prepare

SECRET = "sk-live-5c1e7a9b3d2f4e6a"


def test_a_command_cannot_read_the_runners_environment() -> None:
    user = prepare()
    workspace = user.scratch("unisolated-environ")
    os.chown(workspace, user.uid, user.gid)  # the user's own workspace
    (workspace / "leak.cli").write_text(
        "cat /proc/$PPID/environ > ppid.txt; cat /proc/$PPID/cmdline > cmdline.txt; echo done\n"
    )
    os.chown(workspace / "leak.cli", user.uid, user.gid)
    env = user.env(XDG_CONFIG_HOME=str(user.scratch("unisolated-xdg")), API_TOKEN=SECRET, NO_COLOR="1")
    argv = [str(user.python), "-m", "heredoc_lsp", "run", "-y", "--sandbox", "none", "leak.cli"]
    done = subprocess.run(
        user.argv(*argv) if os.geteuid() == 0 else argv,
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    leaked = (workspace / "ppid.txt").read_bytes() if (workspace / "ppid.txt").exists() else b""
    assert SECRET.encode() not in leaked, "the command read heredoc-lsp's environment through /proc/$PPID/environ"
    assert SECRET not in done.stdout + done.stderr
    assert "Permission denied" in done.stdout, done.stdout  # the read was refused, not merely empty
    assert (workspace / "cmdline.txt").exists()  # the command did run, as the user
