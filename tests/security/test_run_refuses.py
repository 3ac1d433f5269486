"""``heredoc-lsp run`` runs only what a ``.cli`` script means (docs/formats.md).

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


# Trojan Source (CVE-2021-42574): shown as `ls` and a comment, it runs `rm -rf ./victim`.
TROJAN = "ls \u202e; rm -rf ./victim #\u202c"


def test_run_refuses_a_script_with_bidi_controls_until_suppressed(workspace: Path, run_cli: RunCli) -> None:
    (workspace / "victim").mkdir()
    (workspace / "s.cli").write_text(TROJAN + "\n", encoding="utf-8")
    result = run_cli("run", "-y", "--sandbox", "none", "s.cli")
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert (workspace / "victim").is_dir(), "the hidden command ran"
    assert "error[bidi_control]" in result.stderr and "<U+202E>" in result.stderr, result.stderr
    checked = run_cli("check", "s.cli")
    assert checked.returncode == 1 and "bidi_control" in checked.stdout
    (workspace / "s.cli").write_text("# heredoc-lsp: disable=bidi_control\n" + TROJAN + "\n", encoding="utf-8")
    assert run_cli("run", "-y", "--sandbox", "none", "s.cli").returncode == 0
    assert not (workspace / "victim").exists()


def test_apply_fails_a_run_command_or_path_with_hidden_characters(workspace: Path, run_cli: RunCli) -> None:
    (workspace / "victim").mkdir()
    (workspace / "r.inbox").write_text(
        f'[RUN_COMMAND]\n{TROJAN}\n[/RUN_COMMAND]\n[CREATE_FILE path="invoice\u202efdp.sh"]\nx\n[/CREATE_FILE]\n'
        '[CREATE_FILE path="a\u200b.txt"]\nx\n[/CREATE_FILE]\n',
        encoding="utf-8",
    )
    result = run_cli("apply", "-y", "--sandbox", "none", "r.inbox")
    assert (workspace / "victim").is_dir(), "the hidden command ran"
    # (.heredoc-lsp/ holds the ledger of applied replies)
    assert sorted(p.name for p in workspace.iterdir()) == [".heredoc-lsp", "r.inbox", "victim"]
    assert result.stdout.count("[FAILED]") == 3, result.stdout
