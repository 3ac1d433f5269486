"""Secret values never reach an outbox, a live event or a run log in clear (docs/security.md Environment/Output).

Every test runs the real command line (``run`` / ``apply`` / ``agent new`` as subprocesses) with a secret-looking
variable in its environment, named in the user's config and the workspace's (so that it is passed to commands).
"""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path
from typing import Any

import pytest

from heredoc_lsp.executor.events import RunEvent
from heredoc_lsp.lsp.run.log import RunLog

from .conftest import RunCli

HALF_MIB = 512 * 1024
NAMING = '[executor]\nenv = ["MY_TOKEN"]\n'


@pytest.fixture
def secret(workspace: Path, user_config_home: Path, cli_env: dict[str, str]) -> str:
    """A fresh secret in ``MY_TOKEN``, which both config files name for passing to commands."""
    value = "tok-" + secrets.token_hex(18)  # 40 characters
    cli_env["MY_TOKEN"] = value
    (user_config_home / "heredoc-lsp" / "config.toml").write_text(NAMING, encoding="utf-8")
    (workspace / "heredoc-lsp.toml").write_text(NAMING, encoding="utf-8")
    return value


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def _streamed(events: list[dict[str, Any]]) -> str:
    """The live output in the order the events came (what a terminal or a run log shows)."""
    return "".join(
        e["payload"]["text"]
        for e in events
        if e["type"] == "run.progress" and e["payload"].get("kind") in ("stdout", "stderr")
    )


def _result_outputs(events: list[dict[str, Any]]) -> str:
    final = [e for e in events if e["type"] in ("run.completed", "run.failed")]
    assert final, events[-3:]
    return "\n".join(str(r.get("output", "")) for r in final[-1]["payload"].get("results", []))


def _run_log(events: list[dict[str, Any]], where: Path) -> str:
    """The editor's run log written from these events (the log is one more sink of the same stream)."""
    log = RunLog(where, events[0]["run_id"], {"file": "script.cli"})
    for e in events:
        log.feed(RunEvent(e["type"], e["run_id"], e["payload"], e["id"], e["ts"]))
    log.close()
    logs = sorted((where / ".heredoc-lsp" / "runs").glob("*.log"))
    assert logs
    return logs[-1].read_text(encoding="utf-8")


def _assert_hidden(text: str, secret: str, what: str) -> None:
    assert secret not in text, f"the secret is in clear in {what}"
    half = len(secret) // 2
    assert secret[:half] not in text, f"the secret's first half is in {what}"
    assert secret[half:] not in text, f"the secret's second half is in {what}"


def test_secret_straddling_the_kept_head_is_hidden_in_events_log_and_result(
    workspace: Path, run_cli: RunCli, secret: str, tmp_path: Path
) -> None:
    half = len(secret) // 2
    # The secret starts ``half`` characters before the 512 KiB point of stdout: the live view stops inside it.
    (workspace / "script.cli").write_text(
        f"head -c {HALF_MIB - half} /dev/zero | tr '\\000' a; printf '%s\\n' \"$MY_TOKEN\"\n", encoding="utf-8"
    )
    done = run_cli("run", "script.cli", "--yes", "--output", "json")
    assert done.returncode == 0, done.stderr
    events = _events(done.stdout)
    streamed = _streamed(events)
    assert len(streamed) >= HALF_MIB - half  # the live view did reach the secret
    _assert_hidden(streamed, secret, "the live stdout events")
    _assert_hidden(done.stdout, secret, "the JSONL stream")
    _assert_hidden(_run_log(events, tmp_path), secret, "the run log")
    _assert_hidden(_result_outputs(events), secret, "the command's result")


def test_secret_split_between_stdout_and_stderr_is_hidden(workspace: Path, run_cli: RunCli, secret: str) -> None:
    half = len(secret) // 2
    first, second = secret[:half], secret[half:]
    (workspace / "script.cli").write_text(f"printf '%s' {first}; printf '%s' {second} >&2\n", encoding="utf-8")
    done = run_cli("run", "script.cli", "--yes", "--output", "json")
    assert done.returncode == 0, done.stderr
    events = _events(done.stdout)
    assert secret not in _streamed(events)
    output = _result_outputs(events)
    assert secret not in output.replace("\n[stderr]\n", "").replace("[stderr]\n", "")
    assert first not in output and second not in output, output
    assert "[REDACTED]" in output


def test_secret_in_a_file_and_a_file_name_is_hidden_in_the_outbox(
    workspace: Path, run_cli: RunCli, secret: str
) -> None:
    started = run_cli("agent", "new", "look around")
    assert started.returncode == 0, started.stderr
    (session,) = [p.stem for p in (workspace / "sessions").glob("*.json")]
    reply = workspace / "inbox" / "reply.txt"
    reply.write_text(
        "[RUN_COMMAND]\n"
        'printf \'token=%s\\n\' "$MY_TOKEN" > leak.txt; : > "name-$MY_TOKEN.txt"; echo "$MY_TOKEN"\n'
        "[/RUN_COMMAND]\n"
        '[READ_FILE path="leak.txt" /]\n',
        encoding="utf-8",
    )
    done = run_cli("apply", str(reply), "--yes", "--output", "json")
    assert done.returncode == 0, done.stderr
    assert (workspace / "leak.txt").read_text(encoding="utf-8") == f"token={secret}\n"  # the command did run
    outbox = (workspace / "outbox" / f"{session}_seq0002.txt").read_text(encoding="utf-8")
    _assert_hidden(outbox, secret, "the outbox")
    assert "token=[REDACTED]" in outbox  # READ_FILE contents
    assert re.search(r"^  name-\[REDACTED\]\.txt \(0 bytes\)$", outbox, re.MULTILINE), outbox  # the listing
    _assert_hidden(done.stdout, secret, "the JSONL stream")
    listing = run_cli("agent", "new", "again")
    assert listing.returncode == 0, listing.stderr
    for first in (workspace / "outbox").glob("*_seq0001.txt"):
        _assert_hidden(first.read_text(encoding="utf-8"), secret, first.name)


def test_secret_cut_by_the_read_file_cap_is_hidden(
    workspace: Path, run_cli: RunCli, secret: str, user_config_home: Path
) -> None:
    run_cli("agent", "new", "read")
    (session,) = [p.stem for p in (workspace / "sessions").glob("*.json")]
    # Default cap: 100 000 characters; the secret starts 20 characters before it.
    (workspace / "big.txt").write_text("b" * (100_000 - 20) + secret + "\n", encoding="utf-8")
    reply = workspace / "inbox" / "reply.txt"
    reply.write_text('[READ_FILE path="big.txt" /]\n', encoding="utf-8")
    done = run_cli("apply", str(reply), "--yes", "--output", "json")
    assert done.returncode == 0, done.stderr
    outbox = (workspace / "outbox" / f"{session}_seq0002.txt").read_text(encoding="utf-8")
    assert "[... truncated: showing the first 100000 characters" in outbox
    assert secret[:20] not in outbox
    assert "b[REDACTED]\n" in outbox
