"""``--output json``: the JSONL protocol of docs/jsonl.md over a real process's stdin and stdout."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tests.executor.conftest import processes_with, unique_sleep

from .conftest import JsonRun, check_stream, config, run_json, write


def test_completed_run_every_line_is_an_envelope(project: Path) -> None:
    write(project / "s.cli", "echo 'héllo 😀'\nprintf '\\033[1mbold\\033[0m\\377\\n' >&2\n")
    code, events, err = run_json(["run", "s.cli", "--output", "json"], project)
    assert (code, err) == (0, "")
    end = check_stream(events)
    assert events[0]["type"] == "run.started"
    assert end["type"] == "run.completed"
    assert [r["output"] for r in end["payload"]["results"]] == ["héllo 😀\n", "[stderr]\nbold\ufffd\n"]
    stdout_chunks = [e["payload"]["text"] for e in events if e["payload"].get("kind") == "stdout"]
    assert "".join(stdout_chunks) == "héllo 😀\n"


def test_run_start_from_stdin_keeps_client_run_id_despite_bad_lines(project: Path) -> None:
    write(project / "s.cli", "echo from-start\n")
    lines = [
        b"this is not json\n",
        b"[1, 2]\n",
        b'{"v": "1", "type": "run.dance", "payload": {}}\n',
        b'{"v": "1", "type": "run.input", "payload": {"question_id": "q_nope", "value": "yes"}}\n',
        b"\n",
        (
            json.dumps(
                {
                    "v": "1",
                    "id": "c1",
                    "type": "run.start",
                    "run_id": "client-42",
                    "extra": 1,
                    "payload": {"path": str(project / "s.cli"), "options": {"unknown": True}},
                }
            )
            + "\n"
        ).encode(),
    ]
    code, events, err = run_json(["run", "--output", "json"], project, stdin=b"".join(lines))
    assert code == 0
    end = check_stream(events)
    assert end["type"] == "run.completed" and end["run_id"] == "client-42"
    assert end["payload"]["results"][0]["output"] == "from-start\n"
    assert "ignored input line: not a JSON line" in err
    assert "ignored input line: not a JSON object" in err
    assert "unknown message type 'run.dance' ignored" in err
    assert "run.input ignored: no question 'q_nope' is waiting for an answer" in err


def test_eof_before_run_start(project: Path) -> None:
    code, events, _err = run_json(["run", "--output", "json"], project)
    end = check_stream(events)
    assert code == 1
    assert end["payload"] == {"code": "protocol_error", "message": "standard input was closed before run.start"}


def test_version_mismatch_before_start(project: Path) -> None:
    msg = {"v": "2", "type": "run.start", "run_id": "r-2", "payload": {"path": "s.cli"}}
    code, events, err = run_json(["run", "--output", "json"], project, stdin=(json.dumps(msg) + "\n").encode())
    end = check_stream(events)
    assert code == 1
    assert end["run_id"] == "r-2"
    assert end["payload"]["code"] == "unsupported_version"
    assert "unsupported protocol version '2'" in end["payload"]["message"]
    assert "unsupported protocol version" in err


def test_version_mismatch_during_run_kills_it(project: Path) -> None:
    secs = unique_sleep()
    write(project / "s.cli", f"sleep {secs}\n")
    run = JsonRun(["run", "s.cli", "--output", "json"], project)
    run.wait_for(lambda e: e["payload"].get("kind") == "command")
    time.sleep(0.3)
    run.send(b'{"v": "0.9", "type": "run.cancel", "payload": {}}\n')
    code, _err = run.finish()
    end = run.events[-1]
    assert (code, end["type"], end["payload"]["code"]) == (1, "run.failed", "unsupported_version")
    assert processes_with(f"sleep {secs}") == []


def test_eof_during_run_does_not_stop_it(project: Path) -> None:
    write(project / "s.cli", "sleep 0.3\necho still-here\n")
    code, events, _ = run_json(["run", "s.cli", "--output", "json"], project)
    end = check_stream(events)
    assert (code, end["type"]) == (0, "run.completed")
    assert end["payload"]["results"][1]["output"] == "still-here\n"


def test_failed_command_and_parse_error(project: Path) -> None:
    write(project / "bad.cli", "echo a\nfalse\n")
    code, events, _ = run_json(["run", "bad.cli", "--output", "json"], project)
    end = check_stream(events)
    assert (code, end["payload"]["code"]) == (1, "command_failed")
    write(project / "broken.cli", "echo a\n<<EOF\nx\nEOF\n")
    code, events, err = run_json(["run", "broken.cli", "--output", "json"], project)
    end = check_stream(events)
    assert [e["type"] for e in events] == ["run.started", "run.failed"]
    assert (code, end["payload"]["code"]) == (1, "parse_error")
    assert end["payload"]["diagnostics"][0]["code"] == "heredoc_without_command"
    assert err.startswith("broken.cli:2:1: error[heredoc_without_command] Heredoc '<<EOF' has no command")


def test_cancel_mid_command_kills_the_tree(tmp_path: Path) -> None:
    secs = unique_sleep()
    for sandbox in ("bwrap", "none"):
        project = tmp_path / sandbox
        config(project, sandbox=sandbox)
        write(project / "s.cli", f"(setsid sh -c 'exec >/dev/null 2>&1; sleep {secs}' &); sleep {secs}\necho never\n")
        run = JsonRun(["run", "s.cli", "--output", "json"], project)
        run.wait_for(lambda e: e["payload"].get("kind") == "command")
        time.sleep(0.5)
        run.message("run.cancel", {"reason": "client says stop"})
        code, _err = run.finish()
        end = run.events[-1]
        assert (code, end["type"], end["payload"]["reason"]) == (130, "run.cancelled", "client says stop")
        assert processes_with(f"sleep {secs}") == []


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("yes", "run.completed"), ("no", "run.cancelled"), (None, "run.cancelled"), ("eof", "run.cancelled")],
)
def test_confirmation_question(tmp_path: Path, answer: str | None, expected: str) -> None:
    config(tmp_path, confirm="always")
    write(tmp_path / "s.cli", "touch made\n")
    args = ["run", "s.cli", "--output", "json"]
    if answer is None:
        args += ["--question-timeout", "0.5"]
    run = JsonRun(args, tmp_path)
    q = run.wait_for(lambda e: e["type"] == "run.question")
    assert q["payload"]["kind"] == "confirm"
    assert q["payload"]["text"].startswith("Run 1 command from s.cli in ")
    if answer == "eof":
        run.close_stdin()
    elif answer is None:
        run.wait_for(lambda e: e["type"] == "run.cancelled")  # stdin stays open: only the timeout can end it
    else:
        run.send(b"garbage first\n")
        run.message("run.input", {"question_id": q["payload"]["question_id"], "value": answer})
    code, _err = run.finish()
    end = run.events[-1]
    assert (code, end["type"]) == (0 if answer == "yes" else 130, expected)
    assert (tmp_path / "made").exists() == (answer == "yes")
    if answer is None:
        assert "within 0.5s" in end["payload"]["reason"]
    if answer == "eof":
        assert end["payload"]["reason"] == "standard input was closed"


def test_yes_flag_skips_the_question(tmp_path: Path) -> None:
    config(tmp_path, confirm="always")
    write(tmp_path / "s.cli", "echo ok\n")
    code, events, _ = run_json(["run", "s.cli", "--output", "json", "--yes"], tmp_path)
    assert code == 0
    assert "run.question" not in [e["type"] for e in events]


def test_cancel_before_start(project: Path) -> None:
    code, events, _ = run_json(
        ["run", "--output", "json"], project, stdin=b'{"v":"1","type":"run.cancel","payload":{"reason":"nah"}}\n'
    )
    end = check_stream(events)
    assert (code, end["type"], end["payload"]["reason"]) == (130, "run.cancelled", "nah")


def test_apply_json_with_artifacts(project: Path) -> None:
    write(project / "r.inbox", '[CREATE_FILE path="a.txt"]\nhi\n[/CREATE_FILE]\n[DELETE_FILE path="zzz"]\n')
    code, events, _ = run_json(["apply", "r.inbox", "--output", "json"], project)
    end = check_stream(events)
    assert code == 1  # a block failed: the run completed, its exit code says so (docs/jsonl.md)
    assert (end["type"], end["payload"]["failed"]) == ("run.completed", 1)
    assert [r["text"] for r in end["payload"]["results"]] == [
        "[OK] CREATE_FILE: Created 'a.txt'",
        "[FAILED] DELETE_FILE: File 'zzz' not found",
    ]
    assert [e["payload"] for e in events if e["type"] == "run.artifact"] == [
        {"name": "a.txt", "kind": "created", "path": str((project / "a.txt").resolve())}
    ]


def test_usage_errors_exit_2(project: Path) -> None:
    code, events, err = run_json(["run", "missing.cli", "--output", "json"], project)
    assert code == 2 and "missing.cli: no such file" in err
    assert events[-1]["type"] == "run.failed"
    code, _events, err = run_json(["run", "--timeout", "0", "x.cli"], project)
    assert code == 2
    write(project / "x.cli", "true\n")
    code, _events, err = run_json(["run", "x.cli", "--timeout", "-1"], project)
    assert (code, err) == (2, "heredoc-lsp: --timeout must be a positive number of seconds\n")


def test_secrets_not_passed_and_redacted(tmp_path: Path) -> None:
    config(tmp_path, extra='env = ["API_SECRET"]\n')
    write(tmp_path / "s.cli", 'env | sort; echo "secret is $API_SECRET" >&2\n')
    import os
    import subprocess

    from .conftest import cli

    environ = {**os.environ, "GITHUB_TOKEN": "ghp_abcdefgh12345", "API_SECRET": "s3cr3t-value", "OTHER": "x"}
    done = subprocess.run(
        cli("run", "s.cli", "--output", "json"), cwd=tmp_path, env=environ, capture_output=True, timeout=60
    )
    events = [json.loads(line) for line in done.stdout.splitlines()]
    end = check_stream(events)
    output = end["payload"]["results"][0]["output"]
    names = [line.split("=", 1)[0] for line in output.split("[stderr]")[0].splitlines()]
    assert "GITHUB_TOKEN" not in names and "OTHER" not in names
    assert "API_SECRET=[REDACTED]" in output
    assert "secret is [REDACTED]" in output
    assert b"s3cr3t-value" not in done.stdout and b"ghp_abcdefgh12345" not in done.stdout


def test_agent_watch_json_one_terminal_event_per_reply(tmp_path: Path) -> None:
    config(tmp_path)
    code, events, _ = run_json(["agent", "new", "task", "--output", "json"], tmp_path)
    assert code == 0
    write(tmp_path / "inbox" / "1.txt", '[CREATE_FILE path="a"]\nx\n[/CREATE_FILE]\n')
    write(tmp_path / "inbox" / "2.txt", "[MESSAGE]\nhi\n[/MESSAGE]\n")
    code, events, _ = run_json(["agent", "watch", "--once", "--output", "json"], tmp_path)
    assert code == 0
    runs: dict[str, list[dict[str, object]]] = {}
    for e in events:
        runs.setdefault(e["run_id"], []).append(e)
    assert len(runs) == 2
    for run_events in runs.values():
        assert check_stream(run_events)["type"] == "run.completed"


def test_the_scripts_warnings_come_as_status_events_before_the_first_command(project: Path) -> None:
    write(project / "s.cli", "cd docs\necho hi\n")
    code, events, err = run_json(["run", "s.cli", "--output", "json", "--keep-going"], project)
    assert code == 1 and "no_effect" not in err  # the warning is an event, not a line on stderr
    check_stream(events)
    kinds = [e["payload"].get("kind") for e in events]
    warnings = [e["payload"] for e in events if "diagnostic" in e["payload"]]
    assert [w["diagnostic"]["code"] for w in warnings] == ["no_effect"]
    assert warnings[0]["diagnostic"]["line"] == 1 and warnings[0]["diagnostic"]["severity"] == "warning"
    assert warnings[0]["text"].startswith("s.cli:1:1: warning[no_effect] ")
    first_status = next(i for i, e in enumerate(events) if "diagnostic" in e["payload"])
    assert first_status < kinds.index("command")
