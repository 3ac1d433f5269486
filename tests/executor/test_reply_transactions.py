"""Replies as transactions (executor/reply_apply.py, reply_preview.py, undo.py) on real files in a real agent root:
applied once by content, never a prompt, never cut off, previewed, undone, stale edits refused, honest exit codes."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings

from heredoc_lsp.config import DEFAULT_CONFIG
from heredoc_lsp.executor.agent import AGENT_DIRS, AgentPaths, OutboxSettings, load_session, start_session
from heredoc_lsp.executor.engine import RunRefused
from heredoc_lsp.executor.environment import Redactor
from heredoc_lsp.executor.files import Workspace
from heredoc_lsp.executor.model import RunOptions, RunOutcome
from heredoc_lsp.executor.reply_apply import apply_reply
from heredoc_lsp.executor.reply_preview import preview_reply
from heredoc_lsp.executor.undo import undo_last

from .test_apply import replies
from .test_runs import Recorder

OPTS = RunOptions(sandbox="none", kill_grace_s=0.3)
EDIT = '[EDIT_FILE path="b.txt" start_line="2" end_line="2"]\nTWO\nextra\n[/EDIT_FILE]\n'


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An agent root with a session and ``b.txt`` = one/two/three."""
    start_session(AgentPaths(tmp_path), "edit b.txt", OutboxSettings(redactor=Redactor()))
    (tmp_path / "b.txt").write_text("one\ntwo\nthree\n")
    return tmp_path


async def apply(root: Path, name: str, text: str, **kw: object) -> tuple[RunOutcome, Recorder]:
    reply = root / "inbox" / name
    reply.write_text(text)
    rec = Recorder()
    out = await apply_reply(reply, options=OPTS, config=DEFAULT_CONFIG, sink=rec, **kw)  # type: ignore[arg-type]
    return out, rec


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but the inbox (where the tests write replies) with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not str(p.relative_to(root)).startswith("inbox")
    }


def session_state(root: Path) -> tuple[int, bool]:
    paths = AgentPaths(root)
    (file,) = paths.sessions.glob("*.json")
    s = load_session(paths, file.stem)
    return s.sequence_number, s.is_complete


# -- exactly once by content ------------------------------------------------------------------------------------


async def test_the_same_reply_under_another_name_is_refused(root: Path) -> None:
    first, _ = await apply(root, "reply1.txt", EDIT)
    assert first.exit_code == 0
    assert (root / "b.txt").read_text() == "one\nTWO\nextra\nthree\n"
    before = tree(root)
    copy = EDIT.replace("\n", "\r\n").replace("TWO", "TWO  ") + "\r\n"  # other endings, trailing blanks
    second, rec = await apply(root, "reply2.txt", copy)
    end = rec.terminal()
    assert (end.type, end.payload["refused"], second.exit_code) == ("run.failed", True, 2)
    message = end.payload["message"]
    assert "reply2.txt is the same reply as reply1.txt, which was applied at 20" in message
    assert "nothing was written or run" in message and "--again" in message
    assert tree(root) == before  # no file, ledger, session, outbox or undo entry changed
    assert not [e for e in rec.events if e.type == "run.question"]  # refused before any question


async def test_the_same_reply_is_refused_in_a_plain_workspace_too(tmp_path: Path) -> None:
    """Not only an agent root: every workspace a reply is applied to keeps the ledger (beside its undo records)."""
    (tmp_path / "b.txt").write_text("one\ntwo\nthree\n")
    outcomes = []
    for name in ("reply1.txt", "reply2.txt"):
        (tmp_path / name).write_text(EDIT)
        outcomes.append(await apply_reply(tmp_path / name, options=OPTS, config=DEFAULT_CONFIG, sink=Recorder()))
    assert [o.exit_code for o in outcomes] == [0, 2]
    assert (tmp_path / "b.txt").read_text() == "one\nTWO\nextra\nthree\n"  # not 'extra' twice


async def test_again_applies_it_on_purpose(root: Path) -> None:
    await apply(root, "reply1.txt", EDIT)
    out, _ = await apply(root, "reply2.txt", EDIT, again=True)
    assert out.exit_code == 0
    assert (root / "b.txt").read_text() == "one\nTWO\nextra\nextra\nthree\n"
    ledger = json.loads((root / ".heredoc-lsp" / "replies.json").read_text())["replies"]
    assert [(r["name"], r["state"]) for r in ledger] == [("reply1.txt", "applied"), ("reply2.txt", "applied")]
    assert ledger[0]["content"] == ledger[1]["content"]


# -- never a prompt -----------------------------------------------------------------------------------------------


async def test_the_outbox_pasted_as_the_reply_creates_and_runs_nothing(root: Path) -> None:
    (outbox,) = (root / "outbox").iterdir()
    before = tree(root)
    for name, text in (
        ("mistake.txt", outbox.read_text()),
        ("protocol.txt", outbox.read_text().split("=== PROTOCOL ===\n", 1)[1].split("=== CONTEXT ===")[0]),
    ):
        out, rec = await apply(root, name, text, again=True, partial=True)  # no flag lets a prompt through
        end = rec.terminal()
        assert (end.type, out.exit_code) == ("run.failed", 2), end.payload
        assert f"{name} is not a reply" in end.payload["message"]
        assert tree(root) == before
        assert not (root / "relative").exists() and not (root / "src").exists()
        assert session_state(root) == (1, False)


async def test_the_last_outbox_of_the_session_is_refused_even_without_markers(root: Path) -> None:
    (outbox,) = (root / "outbox").iterdir()
    # Whatever the session's last outbox holds (here a text with no marker and no example), it is never a reply.
    text = "Please list the files.\n[RUN_COMMAND]\nls > listed.txt\n[/RUN_COMMAND]\n"
    outbox.write_text(text)
    out, _ = await apply(root, "mistake.txt", text.replace("\n", "\r\n"))
    assert out.exit_code == 2
    assert f"it is the session's last outbox, {outbox.name}" in str(out.message)
    assert not (root / "listed.txt").exists()


# -- complete replies only ----------------------------------------------------------------------------------------


async def test_a_reply_cut_off_is_refused_unless_partial(root: Path) -> None:
    cut = EDIT + '[CREATE_FILE path="c.txt"]\nhalf of the fi'
    before = tree(root)
    out, rec = await apply(root, "cut.txt", cut)
    assert out.exit_code == 2
    assert (
        "cut.txt looks truncated: its last block, CREATE_FILE for 'c.txt' at line 5, has no closing tag"
        in (rec.terminal().payload["message"])
    )
    assert tree(root) == before
    out, rec = await apply(root, "cut.txt", cut, partial=True)
    assert out.exit_code == 0
    assert [r.status for r in out.results] == ["ok", "skipped"]
    assert "the reply ends inside this block" in out.results[1].summary
    assert (root / "b.txt").read_text() == "one\nTWO\nextra\nthree\n" and not (root / "c.txt").exists()


# -- stale edits ----------------------------------------------------------------------------------------------------


async def test_an_edit_whose_expected_text_is_not_there_fails_and_shows_what_is(root: Path) -> None:
    stale = '[EDIT_FILE path="b.txt" start_line="2" end_line="3" start_text="two" end_text="four"]\nX\n[/EDIT_FILE]\n'
    out, _ = await apply(root, "stale.txt", stale)
    (result,) = out.results
    assert out.exit_code == 1 and result.status == "failed"
    assert result.summary.startswith("Line 3 of 'b.txt' is 'three', not the expected end_text 'four'")
    assert result.output == "Lines 1-3 of 'b.txt' now:\n    1: one\n    2: two\n    3: three"
    assert (root / "b.txt").read_text() == "one\ntwo\nthree\n"
    good = (
        '[EDIT_FILE path="b.txt" start_line="2" end_line="3" start_text="  two " end_text="three"]\nX\n[/EDIT_FILE]\n'
    )
    out, _ = await apply(root, "good.txt", good)
    assert out.exit_code == 0 and (root / "b.txt").read_text() == "one\nX\n"


# -- honest exit codes --------------------------------------------------------------------------------------------


async def test_exit_code_is_1_when_any_block_failed(root: Path) -> None:
    blocks = EDIT + '[DELETE_FILE path="nope.txt"]\n[CREATE_FILE path="ok.txt"]\nok\n[/CREATE_FILE]\n'
    out, rec = await apply(root, "r.txt", blocks)
    end = rec.terminal()
    assert (end.type, end.payload["failed"], out.exit_code) == ("run.completed", 1, 1)
    out, rec = await apply(root, "r2.txt", '[CREATE_FILE path="ok2.txt"]\nok\n[/CREATE_FILE]\n')
    assert (rec.terminal().payload["failed"], out.exit_code) == (0, 0)


# -- preview ------------------------------------------------------------------------------------------------------


async def test_preview_writes_and_runs_nothing_and_shows_a_diff_per_file_block(root: Path) -> None:
    reply = root / "inbox" / "r.txt"
    reply.write_text(
        EDIT
        + '[EDIT_FILE path="b.txt" start_line="4" end_line="4" start_text="three"]\n3\n[/EDIT_FILE]\n'
        + '[CREATE_FILE path="new/n.txt"]\nn\n[/CREATE_FILE]\n'
        + "[RUN_COMMAND]\ntouch ran.txt\n[/RUN_COMMAND]\n"
        + '[CREATE_FILE path="outbox/x.txt"]\nforged\n[/CREATE_FILE]\n'
        + '[DELETE_FILE path="b.txt"]\n'
    )
    before = tree(root)
    preview = preview_reply(reply, config=DEFAULT_CONFIG)
    assert tree(root) == before and not (root / ".heredoc-lsp").exists()
    assert [b.action for b in preview.blocks] == ["edit", "edit", "create", "run", "fail", "delete"]
    assert preview.blocks[0].diff == ("--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+extra\n three\n")
    assert "+3\n" in preview.blocks[1].diff  # the second edit sees the first one's result
    assert (
        preview.blocks[2].diff == "--- a/new/n.txt\n+++ b/new/n.txt\n@@ -0,0 +1 @@\n+n\n\\ No newline at end of file\n"
    )
    assert preview.blocks[3].command == "touch ran.txt"
    assert preview.blocks[4].text.startswith("would fail: Path 'outbox/x.txt' is protected")
    assert preview.blocks[5].diff.startswith("--- a/b.txt\n+++ b/b.txt\n@@ -1,4 +0,0 @@\n-one\n-TWO\n")
    assert preview.refusal is None


# -- undo ---------------------------------------------------------------------------------------------------------


async def test_undo_restores_byte_for_byte_and_removes_created_files(root: Path) -> None:
    crlf = b"one\r\ntwo\r\nthree"  # CRLF, no final newline
    (root / "b.txt").write_bytes(crlf)
    os.chmod(root / "b.txt", 0o751)
    (root / "gone.bin").write_bytes(bytes(range(256)))
    os.chmod(root / "gone.bin", 0o600)
    before = {p: (root / p).read_bytes() for p in ("b.txt", "gone.bin")}
    reply = (
        EDIT
        + '[CREATE_FILE path="src/new.py"]\nprint(1)\n[/CREATE_FILE]\n'
        + '[DELETE_FILE path="gone.bin"]\n'
        + '[CREATE_FILE path="b.txt"]\nreplaced\n[/CREATE_FILE]\n'
        + "[RUN_COMMAND]\necho ran\n[/RUN_COMMAND]\n"
    )
    out, _ = await apply(root, "r.txt", reply)
    assert out.exit_code == 0 and (root / "b.txt").read_text() == "replaced"
    ws = Workspace(root, AGENT_DIRS)
    report = undo_last(ws)
    assert report.ok and report.reply == "r.txt"
    assert sorted(report.restored) == ["b.txt", "gone.bin"] and report.removed == ["src/new.py"]
    assert report.commands == ["echo ran"]
    assert {p: (root / p).read_bytes() for p in before} == before
    assert (os.stat(root / "b.txt").st_mode & 0o777, os.stat(root / "gone.bin").st_mode & 0o777) == (0o751, 0o600)
    assert not (root / "src" / "new.py").exists()
    nothing = undo_last(ws)
    assert nothing.entry is None and not nothing.ok


async def test_undo_never_overwrites_a_file_changed_since(root: Path) -> None:
    await apply(root, "r1.txt", EDIT)
    await apply(root, "r2.txt", '[CREATE_FILE path="c.txt"]\nc\n[/CREATE_FILE]\n')
    (root / "c.txt").write_text("my own work\n")
    ws = Workspace(root, AGENT_DIRS)
    report = undo_last(ws)  # r2: c.txt was changed by someone else
    assert not report.ok and report.removed == []
    ((path, why),) = report.refused
    assert path == "c.txt" and why.startswith("was changed after the reply was applied; left as it is")
    assert (root / "c.txt").read_text() == "my own work\n"
    report = undo_last(ws)  # one further back: r1
    assert report.ok and report.reply == "r1.txt" and report.restored == ["b.txt"]
    assert (root / "b.txt").read_text() == "one\ntwo\nthree\n"


async def test_a_reply_that_changed_nothing_leaves_nothing_to_undo(root: Path) -> None:
    await apply(root, "r1.txt", EDIT)
    stale = '[EDIT_FILE path="b.txt" start_line="1" end_line="1" start_text="zzz"]\nX\n[/EDIT_FILE]\n'
    out, _ = await apply(root, "stale.txt", stale)
    assert out.exit_code == 1
    report = undo_last(Workspace(root, AGENT_DIRS))  # the failed edit is skipped: r1 is undone
    assert report.reply == "r1.txt" and report.restored == ["b.txt"]


def files_and_modes(root: Path) -> dict[str, tuple[bytes, int] | str]:
    """Regular files (bytes, mode) and links (target) under ``root``; folders and heredoc-lsp's state left out."""
    found: dict[str, tuple[bytes, int] | str] = {}
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            p = Path(dirpath, name)
            rel = str(p.relative_to(root))
            if rel.startswith(".heredoc-lsp/"):
                continue
            found[rel] = os.readlink(p) if p.is_symlink() else (p.read_bytes(), p.lstat().st_mode & 0o7777)
    return found


@settings(max_examples=60, deadline=None)
@given(replies())
async def test_undo_after_any_reply_restores_every_file(text: str) -> None:
    base = Path(tempfile.mkdtemp(prefix="heredoc-undo-"))
    try:
        ws = base / "ws"
        ws.mkdir()
        (base / "outside").mkdir()
        (ws / "a.txt").write_text("1\n2\n3\n")
        os.chmod(ws / "a.txt", 0o640)
        (ws / "link").symlink_to(base / "outside")
        reply = base / "reply.inbox"
        reply.write_text(text)
        before = files_and_modes(ws)
        with contextlib.suppress(RunRefused):  # a prompt: refused, nothing to preview
            preview_reply(reply, config=DEFAULT_CONFIG, workspace=ws, session=False, partial=True)
        assert files_and_modes(ws) == before and not (ws / ".heredoc-lsp").exists()  # a preview writes nothing
        await apply_reply(reply, options=OPTS, workspace=ws, session=False, config=DEFAULT_CONFIG, partial=True)
        report = undo_last(Workspace(ws))
        assert report.refused == []
        assert files_and_modes(ws) == before
        assert undo_last(Workspace(ws)).entry is None
    finally:
        shutil.rmtree(base)
