"""``apply`` / ``undo`` / ``agent watch`` as real processes: the terminal session of docs/running.md ("Replies are
transactions") — a reply applied, the same reply refused under another name, the outbox refused, a preview, an undo."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .conftest import config, run_text, write

EDIT = '[EDIT_FILE path="b.txt" start_line="2" end_line="2"]\nTWO\nextra\n[/EDIT_FILE]\n'


def agent_root(tmp_path: Path) -> str:
    config(tmp_path)
    code, out, err = run_text(["agent", "new", "edit b.txt", "--output", "json"], tmp_path)
    assert code == 0, err
    write(tmp_path / "b.txt", "one\ntwo\nthree\n")
    return str(json.loads(out.splitlines()[-1])["payload"]["session"])


def test_the_terminal_session(tmp_path: Path) -> None:
    session = agent_root(tmp_path)
    write(tmp_path / "inbox" / "reply1.txt", EDIT)
    code, out, _ = run_text(["apply", "inbox/reply1.txt"], tmp_path)
    assert code == 0 and "[OK] EDIT_FILE: Edited 'b.txt': line 2 replaced with 2 lines (now 4 lines)" in out
    assert (tmp_path / "b.txt").read_text() == "one\nTWO\nextra\nthree\n"

    shutil.copy(tmp_path / "inbox" / "reply1.txt", tmp_path / "inbox" / "reply2.txt")
    code, out, _ = run_text(["apply", "inbox/reply2.txt"], tmp_path)
    assert code == 2
    assert "Refused: reply2.txt is the same reply as reply1.txt, which was applied at " in out
    assert (tmp_path / "b.txt").read_text() == "one\nTWO\nextra\nthree\n"

    shutil.copy(tmp_path / "outbox" / f"{session}_seq0002.txt", tmp_path / "inbox" / "mistake.txt")
    code, out, _ = run_text(["apply", "inbox/mistake.txt"], tmp_path)
    assert code == 2 and "Refused: mistake.txt is not a reply: line 1 is the outbox section marker" in out
    assert not (tmp_path / "outbox" / f"{session}_seq0003.txt").exists()
    assert not (tmp_path / "src").exists() and not (tmp_path / "relative").exists()

    write(
        tmp_path / "inbox" / "reply3.txt",
        '[EDIT_FILE path="b.txt" start_line="3" end_line="3" start_text="extra"]\n3\n[/EDIT_FILE]\n'
        "[RUN_COMMAND]\ntouch ran\n[/RUN_COMMAND]\n",
    )
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code, out, _ = run_text(["apply", "inbox/reply3.txt", "--preview"], tmp_path)
    assert code == 0, out
    assert out.splitlines() == [
        f"Preview of reply3.txt for {tmp_path.resolve()}: nothing is written or run.",
        "[1] EDIT_FILE 'b.txt' (line 1): would replace line 3",
        "--- a/b.txt",
        "+++ b/b.txt",
        "@@ -1,4 +1,4 @@",
        " one",
        " TWO",
        "-extra",
        "+3",
        " three",
        "[2] RUN_COMMAND (line 4): would run (commands are never previewed by running them):",
        "    $ touch ran",
    ]
    assert sorted(p.name for p in tmp_path.rglob("*")) == before

    code, out, _ = run_text(["undo"], tmp_path)
    assert (code, out) == (
        0,
        "Undid reply1.txt (applied at " + out.split("at ", 1)[1].split(")")[0] + "):\n  restored b.txt\n",
    )
    assert (tmp_path / "b.txt").read_text() == "one\ntwo\nthree\n"
    code, out, _ = run_text(["undo"], tmp_path)
    assert code == 1 and out.startswith("Nothing to undo")


def test_preview_json_and_undo_json(tmp_path: Path) -> None:
    agent_root(tmp_path)
    write(tmp_path / "inbox" / "r.txt", '[CREATE_FILE path="n.txt"]\nn\n[/CREATE_FILE]\n')
    code, out, _ = run_text(["apply", "inbox/r.txt", "--preview", "--output", "json"], tmp_path)
    events = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [e["type"] for e in events] == ["run.started", "run.completed"]
    (block,) = events[-1]["payload"]["preview"]["blocks"]
    assert (block["action"], block["path"]) == ("create", "n.txt") and "+n\n" in block["diff"]
    assert not (tmp_path / "n.txt").exists()
    assert run_text(["apply", "inbox/r.txt"], tmp_path)[0] == 0
    code, out, _ = run_text(["undo", "--output", "json"], tmp_path)
    assert code == 0 and json.loads(out)["removed"] == ["n.txt"]


def test_agent_watch_skips_the_same_reply_under_another_name(tmp_path: Path) -> None:
    agent_root(tmp_path)
    write(tmp_path / "inbox" / "reply1.txt", EDIT)
    assert run_text(["agent", "watch", "--once", "--settle", "0"], tmp_path)[0] == 0
    write(tmp_path / "inbox" / "reply2.txt", EDIT.replace("\n", "\r\n"))
    code, out, err = run_text(["agent", "watch", "--once", "--settle", "0"], tmp_path)
    assert code == 0, err
    assert "[SKIPPED] reply2.txt is the same reply as reply1.txt, which was applied at " in out
    assert (tmp_path / "b.txt").read_text() == "one\nTWO\nextra\nthree\n"
    assert sorted(p.name for p in (tmp_path / "inbox" / "processed").iterdir()) == ["reply1.txt", "reply2.txt"]


def test_a_cut_off_reply_and_partial(tmp_path: Path) -> None:
    agent_root(tmp_path)
    write(tmp_path / "inbox" / "cut.txt", EDIT + '[CREATE_FILE path="c.txt"]\nhalf')
    code, out, _ = run_text(["apply", "inbox/cut.txt"], tmp_path)
    assert code == 2 and "cut.txt looks truncated" in out and "--partial" in out
    assert (tmp_path / "b.txt").read_text() == "one\ntwo\nthree\n"
    code, out, _ = run_text(["apply", "inbox/cut.txt", "--partial"], tmp_path)
    assert code == 0 and "[SKIPPED] CREATE_FILE: Skipped: the reply ends inside this block" in out
    assert (tmp_path / "b.txt").read_text() == "one\nTWO\nextra\nthree\n" and not (tmp_path / "c.txt").exists()
