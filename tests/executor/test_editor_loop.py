"""The agent loop as an editor drives it (executor/editor_loop.py, and the preview's per-file changes and the
editor-applied reply in executor/reply_preview.py): on real files of a real agent root."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from heredoc_lsp.config import DEFAULT_CONFIG
from heredoc_lsp.executor.agent import AgentPaths, OutboxSettings, ReplyLedger, load_session, start_session
from heredoc_lsp.executor.editor_loop import LoopRefused, agent_root, outbox_text, paste_reply
from heredoc_lsp.executor.environment import Redactor
from heredoc_lsp.executor.files import Workspace
from heredoc_lsp.executor.model import RunOptions
from heredoc_lsp.executor.protocol_text import protocol_text
from heredoc_lsp.executor.reply_apply import apply_reply
from heredoc_lsp.executor.reply_preview import EditorApplied, ReplyPreview, preview_reply
from heredoc_lsp.executor.undo import undo_last

OPTS = RunOptions(sandbox="none", kill_grace_s=0.3)
REPLY = (
    '[CREATE_FILE path="new.txt"]\nfirst\n[/CREATE_FILE]\n'
    '[EDIT_FILE path="new.txt" start_line="1" end_line="1"]\nFIRST\n[/EDIT_FILE]\n'
    '[EDIT_FILE path="b.txt" start_line="2" end_line="2"]\nTWO\n[/EDIT_FILE]\n'
    '[DELETE_FILE path="gone.txt"]\n'
    '[CREATE_FILE path="same.txt"]\nsame\n[/CREATE_FILE]\n'
    "[RUN_COMMAND]\necho ran > ran.txt\n[/RUN_COMMAND]\n"
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An agent root with a session, ``b.txt`` = one/two/three, ``gone.txt`` and ``same.txt``."""
    start_session(AgentPaths(tmp_path), "edit b.txt", OutboxSettings(redactor=Redactor()))
    (tmp_path / "b.txt").write_text("one\ntwo\nthree\n")
    (tmp_path / "gone.txt").write_text("bye\n")
    (tmp_path / "same.txt").write_text("same")
    return tmp_path


def session_id(root: Path) -> str:
    return next((root / "sessions").glob("*.json")).stem


def test_agent_root_is_the_nearest_folder_with_sessions(root: Path) -> None:
    (root / "src" / "deep").mkdir(parents=True)
    assert agent_root(root / "inbox" / "r.txt") == root
    assert agent_root(root / "src" / "deep") == root
    assert agent_root(root) == root
    # Not above the workspace folder.
    assert agent_root(root / "src" / "deep", folder=root / "src") is None
    assert agent_root(root.parent) is None


def test_outbox_text_is_the_active_sessions_newest_outbox(root: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    found = outbox_text(AgentPaths(root))
    assert found.path == root / "outbox" / f"{session_id(root)}_seq0001.txt"
    text = found.path.read_text(encoding="utf-8")
    assert (found.text, found.chars, found.lines) == (text, len(text), text.count("\n"))
    empty = tmp_path_factory.mktemp("empty")
    (empty / "sessions").mkdir()
    with pytest.raises(LoopRefused, match="no active agent session"):
        outbox_text(AgentPaths(empty))


def test_a_paste_is_saved_as_the_next_reply_of_the_session(root: Path) -> None:
    paths = AgentPaths(root)
    sid = session_id(root)
    first = paste_reply(paths, "[MESSAGE]\none\n[/MESSAGE]\n")
    assert first == root / "inbox" / f"{sid}_seq0001_reply.txt"
    assert first.read_bytes() == b"[MESSAGE]\none\n[/MESSAGE]\n"
    second = paste_reply(paths, "[MESSAGE]\ntwo\n[/MESSAGE]\n")
    assert second.name == f"{sid}_seq0001_reply2.txt"
    # A name used in inbox/processed/ is not used again.
    (root / "inbox" / "processed").mkdir()
    (root / "inbox" / "processed" / f"{sid}_seq0001_reply3.txt").write_text("x")
    assert paste_reply(paths, "[MESSAGE]\nthree\n[/MESSAGE]\n").name == f"{sid}_seq0001_reply4.txt"


@pytest.mark.parametrize(
    ("which", "why"),
    [
        ("outbox", "the pasted text is not a reply: line 1 is the outbox section marker '=== HEADER ==='"),
        ("protocol", "the pasted text is not a reply: line 1 starts heredoc-lsp's PROTOCOL text"),
        ("empty", "the clipboard is empty"),
        ("blank", "the clipboard is empty"),
    ],
)
def test_a_prompt_or_nothing_is_never_saved_as_a_reply(root: Path, which: str, why: str) -> None:
    paths = AgentPaths(root)
    outbox = (root / "outbox" / f"{session_id(root)}_seq0001.txt").read_text(encoding="utf-8")
    text = {"outbox": outbox, "protocol": protocol_text(), "empty": "", "blank": " \r\n\t\n"}[which]
    with pytest.raises(LoopRefused) as caught:
        paste_reply(paths, text)
    assert why in str(caught.value)
    assert list((root / "inbox").iterdir()) == []


def test_the_last_outbox_with_its_markers_removed_is_still_refused(root: Path) -> None:
    """Equal to the session's last outbox once normalised (line endings, trailing blanks)."""
    outbox = (root / "outbox" / f"{session_id(root)}_seq0001.txt").read_text(encoding="utf-8")
    with pytest.raises(LoopRefused, match="not a reply"):
        paste_reply(AgentPaths(root), outbox.replace("\n", "  \r\n"))
    assert list((root / "inbox").iterdir()) == []


def test_an_applied_reply_pasted_again_is_refused(root: Path) -> None:
    paths = AgentPaths(root)
    reply = paste_reply(paths, '[CREATE_FILE path="x.txt"]\nx\n[/CREATE_FILE]\n')
    outcome = asyncio.run(apply_reply(reply, config=DEFAULT_CONFIG, options=OPTS, workspace=root))
    assert outcome.status == "completed"
    with pytest.raises(LoopRefused) as caught:
        paste_reply(paths, '[CREATE_FILE path="x.txt"]\r\nx\r\n[/CREATE_FILE]\r\n')
    assert f"the same reply as {reply.name}, which was applied at " in str(caught.value)
    assert sorted(p.name for p in (root / "inbox").iterdir()) == [reply.name]


def previewed(root: Path) -> tuple[Path, ReplyPreview]:
    """REPLY in the inbox, and its preview."""
    reply = root / "inbox" / "r.txt"
    reply.write_text(REPLY)
    return reply, preview_reply(reply, config=DEFAULT_CONFIG, workspace=root)


def test_the_preview_lists_one_change_per_file(root: Path) -> None:
    _, preview = previewed(root)
    assert [(f.path, f.action, f.label, f.after) for f in preview.files] == [
        ("new.txt", "create", "CREATE_FILE + EDIT_FILE new.txt", "FIRST"),
        ("b.txt", "edit", "EDIT_FILE b.txt", "one\nTWO\nthree\n"),
        ("gone.txt", "delete", "DELETE_FILE gone.txt", None),
    ]  # same.txt: created with the content it has, no change
    assert preview.files[0].description == (
        "block 1 (line 1) would create the file; block 2 (line 4) would replace line 1"
    )
    assert preview.files[1].before is not None and preview.files[1].before.data == b"one\ntwo\nthree\n"
    assert preview.commands == ["echo ran > ran.txt"]


def write_as_the_editor(root: Path, skip: str = "") -> None:
    """What an editor does when the preview is accepted (``skip``: a file the user unchecked)."""
    if skip != "new.txt":
        (root / "new.txt").write_text("FIRST")
    if skip != "b.txt":
        (root / "b.txt").write_bytes(b"one\r\nTWO\r\nthree\r\n")  # an editor may change the line endings
    if skip != "gone.txt":
        (root / "gone.txt").unlink()


def test_a_reply_applied_by_the_editor_is_checked_recorded_run_and_undoable(root: Path) -> None:
    reply, preview = previewed(root)
    write_as_the_editor(root, skip="b.txt")
    outcome = asyncio.run(
        apply_reply(reply, config=DEFAULT_CONFIG, options=OPTS, workspace=root, editor=EditorApplied(preview))
    )
    assert [r.text() for r in outcome.results] == [
        "[OK] CREATE_FILE: Created 'new.txt' in the editor",
        "[OK] EDIT_FILE: Edited 'new.txt' in the editor",
        "[SKIPPED] EDIT_FILE: Not applied: 'b.txt' was left unchecked in the preview (or the editor did not save it)",
        "[OK] DELETE_FILE: Deleted 'gone.txt' in the editor",
        "[OK] CREATE_FILE: Created 'same.txt' (no change)",
        "[OK] RUN_COMMAND: Ran 'echo ran > ran.txt' (exit code 0)",
    ]
    assert (root / "ran.txt").read_text() == "ran\n"
    assert (root / "b.txt").read_text() == "one\ntwo\nthree\n"  # never written by the server
    assert [r.state for r in ReplyLedger(AgentPaths(root)).records()] == ["applied"]
    assert load_session(AgentPaths(root), session_id(root)).sequence_number == 2
    report = undo_last(Workspace(root, protected=("inbox", "outbox", "sessions", ".heredoc-lsp")))
    assert (report.restored, report.removed, report.refused) == (["gone.txt"], ["new.txt"], [])
    assert report.commands == ["echo ran > ran.txt"]
    assert (root / "gone.txt").read_text() == "bye\n" and not (root / "new.txt").exists()


def test_a_file_changed_otherwise_fails_its_block(root: Path) -> None:
    reply, preview = previewed(root)
    write_as_the_editor(root)
    (root / "b.txt").write_text("someone else's\n")
    editor = EditorApplied(preview)
    ws = Workspace(root)
    assert [editor.status(ws, f) for f in preview.files] == ["applied", "changed", "applied"]
    outcome = asyncio.run(apply_reply(reply, config=DEFAULT_CONFIG, options=OPTS, workspace=root, editor=editor))
    assert outcome.results[2].text() == (
        "[FAILED] EDIT_FILE: 'b.txt' does not hold what the preview showed: the file changed since"
    )


def test_declining_the_commands_after_the_edit_skips_them(root: Path) -> None:
    reply, preview = previewed(root)
    write_as_the_editor(root)
    editor = EditorApplied(preview, run_commands=False)
    outcome = asyncio.run(apply_reply(reply, config=DEFAULT_CONFIG, options=OPTS, workspace=root, editor=editor))
    last = outcome.results[-1]
    assert (last.status, last.summary) == (
        "skipped",
        "Not run: running the reply's commands was declined after its files were applied",
    )
    assert not (root / "ran.txt").exists()
    outbox = root / "outbox" / f"{session_id(root)}_seq0002.txt"
    assert "[SKIPPED] RUN_COMMAND: Not run" in outbox.read_text(encoding="utf-8")
    entry = json.loads(next((root / ".heredoc-lsp" / "undo").glob("*/entry.json")).read_text())
    assert entry["commands"] == []
