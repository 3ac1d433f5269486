"""The agent loop from the editor (docs/running.md, "The agent loop in the editor"): start a session, copy its
outbox, paste the reply (a pasted prompt or an applied reply refused, nothing written), preview it (a workspace
edit whose changes need confirmation, one annotation per file, in clients that support them; the preview as text
elsewhere), apply it from the preview, undo it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsprotocol import types

from heredoc_lsp.executor.protocol_text import protocol_text
from lsp.lsp_harness import RecordingClient, command, session

pytestmark = pytest.mark.asyncio(loop_scope="module")

REPLY = (
    "Here is the change.\n"
    '[CREATE_FILE path="src/a.py"]\n'
    'print("a")\n'
    "[/CREATE_FILE]\n"
    '[EDIT_FILE path="notes.txt" start_line="2" end_line="2"]\n'
    "TWO\n"
    "[/EDIT_FILE]\n"
    '[DELETE_FILE path="old.txt"]\n'
    "[RUN_COMMAND]\n"
    "cat src/a.py > copy.txt\n"
    "[/RUN_COMMAND]\n"
)


def ledger_states(root: Path) -> list[str]:
    file = root / ".heredoc-lsp" / "replies.json"
    if not file.exists():
        return []
    return [r["state"] for r in json.loads(file.read_text(encoding="utf-8"))["replies"]]


def previews(client: RecordingClient) -> bool:
    """The profile's client supports change annotations (VS Code): the preview is a workspace edit."""
    return client.profile == "vscode"


async def test_session_copy_paste_preview_apply_undo(client: RecordingClient) -> None:
    root = client.root / f"{client.profile}-loop"
    root.mkdir()
    (root / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (root / "old.txt").write_text("old\n", encoding="utf-8")
    started = await client.execute(command("newSession", uri=root.as_uri(), task="Make a.py"))
    assert started["status"] == "started", started
    session = started["session"]
    outbox = root / "outbox" / f"{session}_seq0001.txt"
    assert started["outbox"] == outbox.as_uri()
    text = outbox.read_text(encoding="utf-8")
    assert started["chars"] == len(text)
    assert client.capabilities is not None and client.capabilities.window is not None
    show = client.capabilities.window.show_document
    if show is not None and show.support:
        await client.wait_for(lambda: any(d.uri == outbox.as_uri() for d in client.shown_documents))

    copied = await client.execute(command("outboxText", uri=(root / "notes.txt").as_uri()))
    assert copied == {
        "status": "ok",
        "outbox": outbox.as_uri(),
        "text": text,
        "chars": len(text),
        "lines": text.count("\n"),  # the outbox ends with a newline
    }

    # The prompt pasted back (the outbox, the PROTOCOL text) and an empty clipboard are refused: nothing written.
    for pasted, why in (
        (text, "the pasted text is not a reply: line 1 is the outbox section marker '=== HEADER ==='"),
        (protocol_text(), "starts heredoc-lsp's PROTOCOL text"),
        (" \n", "the clipboard is empty"),
    ):
        refused = await client.execute(command("pasteReply", uri=root.as_uri(), text=pasted))
        assert refused["status"] == "refused" and why in refused["message"], refused
    assert list((root / "inbox").iterdir()) == []

    pasted = await client.execute(command("pasteReply", uri=root.as_uri(), text=REPLY))
    reply = root / "inbox" / f"{session}_seq0001_reply.txt"
    assert pasted == {"status": "pasted", "reply": reply.as_uri()}
    assert reply.read_text(encoding="utf-8") == REPLY
    uri = client.open(REPLY, language_id="agent-inbox", name=str(reply.relative_to(client.root)))
    assert [t for line, t in await client.lens_titles(uri) if line == 0] == ["▶ Apply reply", "Preview reply"]
    preview = await client.lens(uri, 0, "Preview reply")
    listed = {
        "files": [
            {
                "path": "src/a.py",
                "action": "create",
                "label": "CREATE_FILE src/a.py",
                "description": "block 1 (line 2) would create the file",
                "blocks": [0],
            },
            {
                "path": "notes.txt",
                "action": "edit",
                "label": "EDIT_FILE notes.txt",
                "description": "block 2 (line 5) would replace line 2",
                "blocks": [1],
            },
            {
                "path": "old.txt",
                "action": "delete",
                "label": "DELETE_FILE old.txt",
                "description": "block 3 (line 8) would delete the file",
                "blocks": [2],
            },
        ],
        "commands": ["cat src/a.py > copy.txt"],
    }
    untouched = sorted(p.name for p in root.iterdir())

    if not previews(client):
        # No change annotations: the preview is text, and nothing is written, nothing sent as an edit.
        shown = await client.execute(preview.command)
        assert shown["status"] == "preview" and {k: shown[k] for k in listed} == listed
        assert "--- a/notes.txt\n+++ b/notes.txt\n" in shown["text"]
        assert "    $ cat src/a.py > copy.txt" in shown["text"]
        assert client.applied_edits == []
        assert sorted(p.name for p in root.iterdir()) == untouched and ledger_states(root) == []
        return

    # Declined in the preview: nothing written, recorded or run.
    client.edit_answers.append(False)
    declined = await client.execute(preview.command)
    assert declined["status"] == "declined" and {k: declined[k] for k in listed} == listed
    edit = client.applied_edits[-1]
    assert edit.change_annotations is not None and edit.document_changes is not None
    assert [(k, a.label, a.needs_confirmation) for k, a in edit.change_annotations.items()] == [
        ("heredoc-lsp.file1", "CREATE_FILE src/a.py", True),
        ("heredoc-lsp.file2", "EDIT_FILE notes.txt", True),
        ("heredoc-lsp.file3", "DELETE_FILE old.txt", True),
    ]
    kinds = [(type(c).__name__, getattr(c, "annotation_id", None)) for c in edit.document_changes]
    assert kinds == [
        ("CreateFile", "heredoc-lsp.file1"),
        ("TextDocumentEdit", None),
        ("TextDocumentEdit", None),
        ("DeleteFile", "heredoc-lsp.file3"),
    ]
    text_edits = [c for c in edit.document_changes if isinstance(c, types.TextDocumentEdit)]
    # The created file's text, and the edited file's changed line only (its range in whole lines).
    assert [[(e.annotation_id, e.new_text) for e in c.edits] for c in text_edits] == [  # type: ignore[union-attr]
        [("heredoc-lsp.file1", 'print("a")')],
        [("heredoc-lsp.file2", "TWO\n")],
    ]
    line_2 = types.Range(start=types.Position(line=1, character=0), end=types.Position(line=2, character=0))
    assert text_edits[1].edits[0].range == line_2
    assert sorted(p.name for p in root.iterdir()) == untouched and ledger_states(root) == []
    assert not (root / "outbox" / f"{session}_seq0002.txt").exists()

    # Accepted: the client writes the files, the server asks to run the command, runs it, records the reply and
    # shows the next outbox.
    client.edits_to_disk = True
    client.answers.append("Run")
    done = await client.execute(preview.command)
    assert done["status"] == "applied", done
    assert [(f["path"], f["status"]) for f in done["files"]] == [
        ("src/a.py", "applied"),
        ("notes.txt", "applied"),
        ("old.txt", "applied"),
    ]
    assert client.questions[-1].message.startswith("Run the 1 command of the reply ")
    assert [r["text"] for r in done["results"]] == [
        "[OK] CREATE_FILE: Created 'src/a.py' in the editor",
        "[OK] EDIT_FILE: Edited 'notes.txt' in the editor",
        "[OK] DELETE_FILE: Deleted 'old.txt' in the editor",
        "[OK] RUN_COMMAND: Ran 'cat src/a.py > copy.txt' (exit code 0)",
    ]
    assert (root / "copy.txt").read_text(encoding="utf-8") == 'print("a")'
    assert ledger_states(root) == ["applied"]
    following = root / "outbox" / f"{session}_seq0002.txt"
    assert done["outbox"] == str(following) and following.exists()
    await client.wait_for(lambda: any(d.uri == following.as_uri() for d in client.shown_documents))

    # The same reply pasted again is refused; the applied reply offers its undo.
    again = await client.execute(command("pasteReply", uri=root.as_uri(), text=REPLY))
    assert again["status"] == "refused"
    assert f"the same reply as {reply.name}, which was applied at " in again["message"]
    undo = await client.lens(uri, 0, "↶ Undo last reply")
    # Asking for the lenses again reads the ledger and hashes the reply only when one of them changed.
    before = await client.work_counts()
    for _ in range(5):
        assert (0, "↶ Undo last reply") in await client.lens_titles(uri)
    after = await client.work_counts()
    assert (after.get("ledger_reads", 0), after.get("reply_keys", 0)) == (
        before.get("ledger_reads", 0),
        before.get("reply_keys", 0),
    )
    undone = await client.execute(undo.command)
    assert undone["status"] == "undone", undone
    assert (sorted(undone["restored"]), undone["removed"]) == (["notes.txt", "old.txt"], ["src/a.py"])
    assert (root / "notes.txt").read_text(encoding="utf-8") == "one\ntwo\nthree\n"
    assert (root / "old.txt").read_text(encoding="utf-8") == "old\n"
    assert not (root / "src" / "a.py").exists()
    restored = (root / undone["restored"][0]).as_uri()
    await client.wait_for(lambda: any(d.uri == restored for d in client.shown_documents))
    client.edits_to_disk = False


async def test_a_pasted_prompt_is_never_previewed(client: RecordingClient) -> None:
    root = client.root / f"{client.profile}-prompt"
    root.mkdir()
    started = await client.execute(command("newSession", uri=root.as_uri(), task="Anything"))
    outbox = root / "outbox" / f"{started['session']}_seq0001.txt"
    mistake = f"{root.name}/inbox/mistake.txt"
    uri = client.open_file(outbox.read_text(encoding="utf-8"), name=mistake, language_id="agent-inbox")
    edits = len(client.applied_edits)
    refused = await client.execute(command("previewReply", uri=uri))
    assert refused["status"] == "refused"
    assert "mistake.txt is not a reply: line 1 is the outbox section marker" in refused["message"]
    assert len(client.applied_edits) == edits
    assert sorted(p.name for p in root.iterdir()) == ["inbox", "outbox", "sessions"]


@pytest.mark.parametrize("name", ["newSession", "outboxText", "pasteReply", "previewReply"])
async def test_an_untrusted_workspace_refuses_the_loop(tmp_path: Path, name: str) -> None:
    (tmp_path / "sessions").mkdir()
    async with session("nvim-0.11", tmp_path, init_options={"trusted": False}) as own:
        arg = {"uri": tmp_path.as_uri(), "task": "x", "text": "[MESSAGE]\nhi\n[/MESSAGE]\n"}
        refused = await own.execute(command(name, **arg))
        assert refused["status"] == "refused" and "not trusted" in refused["message"], refused
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sessions"]
