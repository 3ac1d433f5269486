"""A prompt pasted back as the reply, a saved reply copied under another name and a stale edit never act.

Each test drives the real command line (``apply``, ``agent watch``) and fails on the code before replies became
transactions: there the outbox's PROTOCOL examples were created and run and the session was marked complete, the
copy was applied a second time, and the stale edit replaced the wrong lines."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .conftest import RunCli

LOOSE = ("--yes", "--sandbox", "none")


def _state(root: Path) -> dict[str, object]:
    (session,) = (root / "sessions").glob("*.json")
    data = json.loads(session.read_text())
    return {
        "complete": data["isComplete"],
        "sequence": data["sequenceNumber"],
        "outboxes": len(list((root / "outbox").iterdir())),
    }


def _untouched(root: Path) -> None:
    assert not (root / "relative").exists() and not (root / "src").exists()
    assert (root / "f.txt").read_text() == "one\ntwo\nthree\n"
    assert _state(root) == {"complete": False, "sequence": 1, "outboxes": 1}


@pytest.mark.parametrize("part", ["whole", "protocol", "commands"])
def test_the_outbox_pasted_as_the_reply_runs_nothing(agent_root: Path, run_cli: RunCli, part: str) -> None:
    (outbox,) = (agent_root / "outbox").iterdir()
    text = outbox.read_text()
    if part == "protocol":  # the PROTOCOL section alone, without any marker line
        text = text.split("=== PROTOCOL ===\n", 1)[1].split("=== CONTEXT ===", 1)[0]
    elif part == "commands":  # from its COMMANDS heading on: the examples only
        text = text[text.index("COMMANDS") : text.index("=== CONTEXT ===")]
    (agent_root / "inbox" / "mistake.txt").write_text(text)
    done = run_cli("apply", "inbox/mistake.txt", *LOOSE)
    assert done.returncode == 2, done.stdout
    assert "mistake.txt is not a reply" in done.stdout
    _untouched(agent_root)
    again = run_cli("apply", "inbox/mistake.txt", "--again", "--partial", *LOOSE)  # no flag lets a prompt through
    assert again.returncode == 2
    _untouched(agent_root)


def test_agent_watch_never_applies_the_outbox(agent_root: Path, run_cli: RunCli) -> None:
    (outbox,) = (agent_root / "outbox").iterdir()
    shutil.copy(outbox, agent_root / "inbox" / "mistake.txt")
    done = run_cli("agent", "watch", "--once", "--settle", "0", *LOOSE)
    assert "mistake.txt is not a reply" in done.stdout
    assert f"[REFUSED] mistake.txt: moved to {agent_root / 'inbox' / 'refused' / 'mistake.txt'}" in done.stdout
    _untouched(agent_root)


def test_a_copy_under_another_name_is_not_applied_again(agent_root: Path, run_cli: RunCli) -> None:
    edit = '[EDIT_FILE path="f.txt" start_line="2" end_line="2"]\nTWO\nextra\n[/EDIT_FILE]\n'
    (agent_root / "inbox" / "reply1.txt").write_text(edit)
    assert run_cli("apply", "inbox/reply1.txt", *LOOSE).returncode == 0
    shutil.copy(agent_root / "inbox" / "reply1.txt", agent_root / "inbox" / "reply2.txt")
    done = run_cli("apply", "inbox/reply2.txt", *LOOSE)
    assert done.returncode == 2
    assert (agent_root / "f.txt").read_text() == "one\nTWO\nextra\nthree\n"


def test_a_stale_edit_never_lands_on_the_wrong_lines(agent_root: Path, run_cli: RunCli) -> None:
    (agent_root / "f.txt").write_text("zero\none\ntwo\nthree\n")  # a line was added since the LLM saw the file
    stale = '[EDIT_FILE path="f.txt" start_line="2" end_line="2" start_text="two"]\nTWO\n[/EDIT_FILE]\n'
    (agent_root / "inbox" / "r.txt").write_text(stale)
    done = run_cli("apply", "inbox/r.txt", *LOOSE)
    assert done.returncode == 1
    assert "Line 2 of 'f.txt' is 'one', not the expected start_text 'two'" in done.stdout
    assert (agent_root / "f.txt").read_text() == "zero\none\ntwo\nthree\n"


def test_a_reply_cut_off_writes_nothing(agent_root: Path, run_cli: RunCli) -> None:
    cut = '[CREATE_FILE path="src/app.py"]\nimport os\nos.remove(\n'
    (agent_root / "inbox" / "r.txt").write_text('[DELETE_FILE path="f.txt"]\n' + cut)
    done = run_cli("apply", "inbox/r.txt", *LOOSE)
    assert done.returncode == 2 and "looks truncated" in done.stdout
    _untouched(agent_root)
