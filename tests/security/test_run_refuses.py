"""``heredoc-lsp run`` runs only what a ``.cli`` script means (SPEC §2.2, §2.6, §2.8).

Every test runs the real command line (``run -y`` as a subprocess) in a fresh workspace and checks what happened on
disk: a file a command would create tells whether that command ran.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import RunCli

# An LLM's reply: prose, a tag block, more prose. Run as a script, the prose line `touch pwned` would run.
REPLY = "touch pwned\nSure thing, here is the change.\n[RUN_COMMAND]\ntouch also-pwned\n[/RUN_COMMAND]\n[DONE]\n"


@pytest.mark.parametrize("name", ["reply.inbox", "inbox/reply.txt", "notes.txt", "script.sh", "outbox.md"])
def test_run_refuses_every_file_that_is_not_a_cli_script(workspace: Path, run_cli: RunCli, name: str) -> None:
    path = workspace / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(REPLY, encoding="utf-8")
    result = run_cli("run", "-y", name)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert not (workspace / "pwned").exists(), "a prose line of the file ran as a command"
    assert not (workspace / "also-pwned").exists(), "a RUN_COMMAND of the file ran"
    assert "not a .cli script" in result.stderr or "is not a script" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_run_of_an_inbox_reply_says_to_use_apply(workspace: Path, run_cli: RunCli) -> None:
    (workspace / "reply.inbox").write_text(REPLY, encoding="utf-8")
    result = run_cli("run", "-y", "reply.inbox")
    assert result.returncode == 2
    assert "heredoc-lsp apply reply.inbox" in result.stderr, result.stderr
    assert not (workspace / "pwned").exists()


def test_heredoc_with_a_redirection_runs_the_command_with_the_body_as_stdin(workspace: Path, run_cli: RunCli) -> None:
    # Read as a plain command, `cat <<EOF > out.txt` leaves out.txt empty and runs `touch pwned` (a body line).
    (workspace / "script.cli").write_text(
        "cat <<EOF > out.txt\ntouch pwned\nsecond line\nEOF\ncat <<'PY' | tr a-z A-Z > upper.txt\nshout\nPY\n",
        encoding="utf-8",
    )
    result = run_cli("run", "-y", "script.cli")
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert (workspace / "out.txt").read_text(encoding="utf-8") == "touch pwned\nsecond line\n"
    assert (workspace / "upper.txt").read_text(encoding="utf-8") == "SHOUT\n"
    assert not (workspace / "pwned").exists(), "a body line ran as a command"


def test_heredoc_with_a_redirection_ending_in_crlf_lines(workspace: Path, run_cli: RunCli) -> None:
    (workspace / "script.cli").write_bytes(b"cat <<EOF >> out.txt\r\ntouch pwned\r\nbody\rEOF\r\n")
    result = run_cli("run", "-y", "script.cli")
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert (workspace / "out.txt").read_bytes() == b"touch pwned\nbody\n"
    assert not (workspace / "pwned").exists()


@pytest.mark.parametrize(
    "script",
    [
        "touch first\necho hi<<EOF\ntouch pwned\nEOF\n",  # no space before `<<`
        "touch first\ncat <<EOF extra\ntouch pwned\nEOF\n",  # a word, not a redirection, after the marker
    ],
)
def test_script_with_a_possible_heredoc_runs_nothing(workspace: Path, run_cli: RunCli, script: str) -> None:
    (workspace / "script.cli").write_text(script, encoding="utf-8")
    result = run_cli("run", "-y", "script.cli")
    assert result.returncode != 0, (result.stdout, result.stderr)
    assert not (workspace / "first").exists(), "a command ran although the script has a possible_heredoc"
    assert not (workspace / "pwned").exists(), "a would-be body line ran as a command"
    assert "possible_heredoc" in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


def test_a_suppressed_possible_heredoc_does_not_block_the_run(workspace: Path, run_cli: RunCli) -> None:
    (workspace / "script.cli").write_text(
        "touch first\n# heredoc-lsp: disable=possible_heredoc\necho x<<EOF\nEOF\n", encoding="utf-8"
    )
    result = run_cli("run", "-y", "script.cli")
    assert (workspace / "first").exists(), (result.returncode, result.stdout, result.stderr)
