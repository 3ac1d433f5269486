"""Text mode of ``run``/``apply``/``agent``: plain lines without a terminal, rich live progress on one."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import time
from pathlib import Path

from tests.executor.conftest import processes_with, unique_sleep

from heredoc_lsp.executor.sandbox import UNISOLATED_NOTE

from .conftest import cli, config, env, run_text, write

ANSI = re.compile(r"\x1b\[")


def test_plain_lines_without_a_terminal(project: Path) -> None:
    write(project / "s.cli", "echo one\ncat <<EOF\nbody\nEOF\nsh -c 'echo bad >&2; exit 4'\necho never\n")
    code, out, err = run_text(["run", "s.cli"], project)
    assert code == 1
    assert err == ""
    assert not ANSI.search(out)
    assert [re.sub(r"\d+\.\d\d s\)$", "<t>)", line) for line in out.splitlines()] == [
        f"Running {project / 's.cli'}",
        f'  sandbox = "none": {UNISOLATED_NOTE}',
        f"  4 commands in {project} (sandbox: none)",
        "[1/4] line 1: echo one",
        "[OK] line 1: echo one (exit 0, <t>)",
        "    one",
        "[2/4] line 2: cat",
        "[OK] line 2: cat (exit 0, <t>)",
        "    body",
        "[3/4] line 5: sh -c 'echo bad >&2; exit 4'",
        "[FAILED] line 5: sh -c 'echo bad >&2; exit 4' (exit 4, <t>)",
        "    [stderr]",
        "    bad",
        "Failed (command_failed): line 5: sh -c 'echo bad >&2; exit 4' (exit 4); 1 later command not run",
    ]


def test_parse_errors_go_to_stderr(project: Path) -> None:
    write(project / "s.cli", "cat <<EOF\nno end\n")
    code, out, err = run_text(["run", "s.cli"], project)
    assert code == 1
    assert err == (
        f"{project / 's.cli'}:1:7: error[unclosed_heredoc] Unclosed heredoc starting at line 1: expected 'EOF' "
        "but reached end of file\n"
    )
    assert out.splitlines()[-1].startswith("Failed (parse_error): s.cli has 1 error; nothing was run")


def test_confirmation_needs_a_terminal_or_yes(tmp_path: Path) -> None:
    config(tmp_path, confirm="always")
    write(tmp_path / "s.cli", "touch made\n")
    code, out, err = run_text(["run", "s.cli"], tmp_path)
    assert (code, out) == (2, "")
    assert err == (
        'heredoc-lsp: confirmation required (confirm = "always") but standard input is not a terminal: '
        "pass --yes to run\n"
    )
    assert not (tmp_path / "made").exists()
    code, _out, _err = run_text(["run", "s.cli", "--yes"], tmp_path)
    assert code == 0 and (tmp_path / "made").exists()


def _pty_run(args: list[str], cwd: Path, answer: bytes | None, timeout: float = 30) -> tuple[int, str]:
    pid, fd = pty.fork()
    if pid == 0:  # child: the CLI on a terminal
        os.chdir(cwd)
        os.environ["COLUMNS"] = "120"
        os.environ["TERM"] = "xterm-256color"
        os.execvp(cli()[0], cli(*args))
    chunks: list[bytes] = []
    answered = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
            if answer is not None and not answered and b"[y/n]" in b"".join(chunks):
                os.write(fd, answer)
                answered = True
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode("utf-8", "replace")


def test_live_progress_and_summary_on_a_terminal(tmp_path: Path) -> None:
    config(tmp_path, confirm="always")
    write(tmp_path / "s.cli", "echo first\nsleep 0.6; echo second\n")
    code, out = _pty_run(["run", "s.cli"], tmp_path, b"y\n")
    assert code == 0, out
    assert "Run 2 commands from s.cli" in out
    assert ANSI.search(out)  # colours and cursor movement: the live display
    plain = ANSI.sub("", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out))
    assert "[2/2] line 2: sleep 0.6; echo second" in plain
    assert re.search(r"\[OK\] line 1: echo first \(exit 0, \d+\.\d\d s\)", plain)
    assert re.search(r"#\s+line\s+step\s+status\s+time\s+summary", plain)
    assert "Completed: 2 commands: 2 OK" in plain


def test_declined_on_a_terminal(tmp_path: Path) -> None:
    config(tmp_path, confirm="always")
    write(tmp_path / "s.cli", "touch made\n")
    code, out = _pty_run(["run", "s.cli"], tmp_path, b"n\n")
    assert code == 130
    assert "Cancelled: not confirmed" in out
    assert not (tmp_path / "made").exists()


def _signalled(args: list[str], cwd: Path, secs: str, signum: int) -> tuple[int, str]:
    """Start ``heredoc-lsp ARGS`` and send it ``signum`` once its ``sleep SECS`` runs: the exit code and stdout."""
    proc = subprocess.Popen(cli(*args), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
    deadline = time.monotonic() + 20
    while not processes_with(f"sleep {secs}") and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signum)
    out, _ = proc.communicate(timeout=20)
    return proc.returncode, out.decode()


def test_sigterm_to_the_cli_kills_the_commands(project: Path) -> None:
    secs = unique_sleep()
    write(project / "s.cli", f"echo started; sleep {secs}\n")
    code, out = _signalled(["run", "s.cli"], project, secs, signal.SIGTERM)
    assert code == 143
    assert "[TERMINATED] line 1: echo started; sleep" in out
    assert "Terminated." in out
    assert processes_with(f"sleep {secs}") == []


def test_apply_text(project: Path) -> None:
    write(project / "r.inbox", '[CREATE_FILE path="x/y.txt"]\nhi\n[/CREATE_FILE]\n[READ_FILE path="/etc/passwd"]\n')
    code, out, _ = run_text(["apply", "r.inbox"], project)
    assert code == 1  # one block failed
    lines = out.splitlines()
    assert "[OK] CREATE_FILE: Created 'x/y.txt'" in lines
    assert (
        "[FAILED] READ_FILE: REJECTED: Path '/etc/passwd' is outside workspace: absolute paths are not allowed, "
        "use a path relative to the root"
    ) in lines
    assert lines[-1] == "Completed: 2 commands: 1 OK, 1 FAILED"


def test_agent_new_and_watch_once(project: Path) -> None:
    code, out, _ = run_text(["agent", "new", "Make a greeting file", "--output", "json"], project)
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert [e["type"] for e in events] == ["run.started", "run.artifact", "run.artifact", "run.completed"]
    session = events[-1]["payload"]["session"]
    first = project / "outbox" / f"{session}_seq0001.txt"
    assert events[-1]["payload"]["outbox"] == str(first)
    assert first.read_text().startswith(
        f"=== HEADER ===\nSession: {session}\nSequence: 1\nTask: Make a greeting file\n"
    )
    write(project / "inbox" / "a.txt", '[CREATE_FILE path="greet.txt"]\nhello\n[/CREATE_FILE]\n')
    time.sleep(0.01)
    write(project / "inbox" / "b.txt", "[DONE]\nmade greet.txt\n[/DONE]\n")
    os.utime(project / "inbox" / "a.txt", (1, 1))  # oldest first, whatever the names
    code, out, err = run_text(["agent", "watch", "--once"], project)
    assert (code, err) == (0, "")
    assert " ".join(out.split()).startswith(f"Processing {project / 'inbox'} once ") and "Ctrl-C" not in out
    assert out.index("Applying " + str(project / "inbox" / "a.txt")) < out.index("b.txt")
    assert "Next outbox: " + str(project / "outbox" / f"{session}_seq0002.txt") in out
    assert sorted(p.name for p in (project / "inbox" / "processed").iterdir()) == ["a.txt", "b.txt"]
    assert (project / "greet.txt").read_text() == "hello"
    state = json.loads((project / "sessions" / f"{session}.json").read_text())
    assert (state["isComplete"], state["sequenceNumber"]) == (True, 2)
    code, _out, err = run_text(["agent", "watch", "--once"], project / "inbox")
    assert code == 2 and "has no sessions/ folder" in err


def test_apply_of_a_file_with_no_commands_is_a_usage_error(project: Path) -> None:
    write(project / "notes.txt", "Just some prose, no [CREATE_FILE] block.\n")
    code, out, err = run_text(["apply", "notes.txt"], project)
    assert code == 2
    assert "notes.txt: not a reply: it holds no commands" in err
    assert "Completed" not in out


def test_ctrl_c_during_a_reply_says_interrupted(project: Path) -> None:
    secs = unique_sleep()
    write(project / "r.inbox", f"[RUN_COMMAND]\nsleep {secs}\n[/RUN_COMMAND]\n")
    code, out = _signalled(["apply", "r.inbox"], project, secs, signal.SIGINT)
    assert code == 130
    assert f"[INTERRUPTED] RUN_COMMAND: sleep {secs}\n" in out
    assert out.endswith("Interrupted.\n")
    assert "FAILED" not in out
    assert processes_with(f"sleep {secs}") == []


# Escape sequences an attacker may write: OSC 52 (set the clipboard), OSC 8 (a hyperlink), cursor up + erase line.
OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
OSC8 = "\x1b]8;;https://x.invalid\x1b\\click\x1b]8;;\x1b\\"
ERASE = "\x1b[1A\x1b[2K"


def test_escape_sequences_in_a_script_line_are_shown_not_obeyed(project: Path) -> None:
    write(project / "s.cli", f"true # {OSC52}{ERASE}\n")
    code, out, err = run_text(["run", "s.cli"], project)
    assert code == 0, (out, err)
    assert "\x1b" not in out + err and "\x07" not in out
    assert "true # \\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[1A\\x1b[2K" in out


def test_escape_sequences_in_a_reply_are_shown_not_obeyed(project: Path) -> None:
    write(
        project / "r.inbox",
        f"[RUN_COMMAND]\ntrue {OSC8}\n[/RUN_COMMAND]\n[MESSAGE]\nhi {OSC52}\n{ERASE}fake line\n[/MESSAGE]\n"
        f"[DONE]\nbye {OSC8}\n[/DONE]\n",
    )
    code, out, err = run_text(["apply", "r.inbox"], project)
    assert code == 1, (out, err)  # the command fails in the shell (the sequence's ';' splits it): a failed block
    assert "\x1b" not in out + err
    assert "\\x1b]8;;https://x.invalid" in out and "\\x1b]52;c;" in out and "\\x1b[1A\\x1b[2Kfake line" in out


def test_a_file_name_with_rich_markup_is_asked_about_as_written(tmp_path: Path) -> None:
    config(tmp_path, confirm="always")
    name = "deploy[link=https:x.invalid]now.cli"
    write(tmp_path / name, "true\n")
    code, out = _pty_run(["run", name], tmp_path, b"n\n")
    assert code == 130, out
    assert "\x1b]8;" not in out  # no hyperlink
    assert name in out.replace("\r\n", "")


def test_the_scripts_warnings_are_shown_before_it_runs(project: Path) -> None:
    write(project / "s.cli", "echo start\ncd docs\necho never\n")
    code, out, _ = run_text(["run", "s.cli"], project)
    assert code == 1
    lines = out.splitlines()
    warning = next(i for i, line in enumerate(lines) if "warning[no_effect]" in line)
    assert lines[warning].startswith("  s.cli:2:1: warning[no_effect] 'cd docs' has no effect")
    assert warning < next(i for i, line in enumerate(lines) if line.startswith("[1/3]"))
    assert "cd: can't cd to docs" in out or "No such file" in out
