"""Inbox replies from the editor: apply a whole reply (results on each block, the next outbox opened) and run one
[RUN_COMMAND] block on its own (no session change)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from heredoc_lsp.executor.agent import AgentPaths, OutboxSettings, start_session
from lsp.lsp_harness import RUN, RecordingClient, command

pytestmark = pytest.mark.asyncio(loop_scope="module")

ASK_RUN = "Run"
ASK_ALWAYS = "Run and don't ask again for this file"


def reply_text(tag: str) -> str:
    return (
        "I will create the file, show it, read it, and edit a missing one.\n"  # 0
        f'[CREATE_FILE path="src/{tag}.py"]\n'  # 1
        'print("hi")\n'
        "[/CREATE_FILE]\n"
        "[RUN_COMMAND]\n"  # 4
        f"cat src/{tag}.py\n"
        "[/RUN_COMMAND]\n"
        f'[READ_FILE path="src/{tag}.py"]\n'  # 7
        '[EDIT_FILE path="missing.txt" start_line="1" end_line="1"]\n'  # 8
        "x\n"
        "[/EDIT_FILE]\n"
    )


def new_session(root: Path) -> str:
    session, _outbox = start_session(AgentPaths(root), "Say hi", OutboxSettings())
    return session.session_id


async def test_apply_reply_shows_results_on_blocks_and_opens_the_next_outbox(client: RecordingClient) -> None:
    root = client.root / client.profile
    root.mkdir()
    session_id = new_session(root)
    uri = client.open_file(reply_text("a"), name=f"{client.profile}/inbox/reply1.txt", language_id="agent-inbox")
    assert (await client.lens_titles(uri))[:3] == [(0, "▶ Apply reply"), (0, "Preview reply"), (4, RUN)]
    result = await client.run_lens(uri, 0, "▶ Apply reply", ASK_RUN)
    question = client.questions[-1].message
    what = "4 commands: files may be created, edited or deleted"
    assert question == f"Apply the reply reply1.txt ({what}) in {root} (sandbox: auto)?"
    assert result["status"] == "completed"
    assert [r["text"] for r in result["results"]] == [
        "[OK] CREATE_FILE: Created 'src/a.py'",
        "[OK] RUN_COMMAND: Ran 'cat src/a.py' (exit code 0)",
        "[OK] READ_FILE: Read 'src/a.py' (11 bytes); contents are included below",
        "[FAILED] EDIT_FILE: File 'missing.txt' not found",
    ]
    outbox = root / "outbox" / f"{session_id}_seq0002.txt"
    assert result["outbox"] == str(outbox)
    assert (root / "src" / "a.py").read_text(encoding="utf-8") == 'print("hi")'
    assert 'print("hi")' in outbox.read_text(encoding="utf-8")
    titles = await client.lens_titles(uri)
    by_line: dict[int, list[str]] = {}
    for line, title in titles:
        by_line.setdefault(line, []).append(title)
    assert by_line[0][:2] == ["▶ Apply reply", "Preview reply"]
    assert re.fullmatch(rf"✗ 3 ok, 1 failed · \d+(\.\d+)? s · {session_id}_seq0002.txt", by_line[0][2]), titles
    assert by_line[0][3:] == ["↶ Undo last reply"]  # the reply is in the ledger as applied
    assert by_line[1] == ["✓ Created 'src/a.py'"]
    assert by_line[4][0] == RUN and re.fullmatch(r"✓ exit 0 · \d+(\.\d+)? s", by_line[4][1]), titles
    assert by_line[7] == ["✓ Read 'src/a.py' (11 bytes); contents are included below"]
    assert by_line[8] == ["✗ File 'missing.txt' not found"]
    hover = await client.hover_text(uri, 5)
    assert hover is not None and '```text\nprint("hi")\n```' in hover
    # The result of [READ_FILE] (and of CREATE_FILE/EDIT_FILE) opens the file; other paths are refused.
    read_lens = next(lens for lens in await client.lenses(uri) if lens.range.start.line == 7)
    assert read_lens.command is not None
    assert (read_lens.command.arguments or [{}])[0]["file"] == str(root / "src" / "a.py")
    assert await client.execute(read_lens.command) == {"status": "shown", "file": str(root / "src" / "a.py")}
    forged = command("showRunOutput", runId=result["runId"], file="/etc/passwd")
    assert (await client.execute(forged))["status"] == "refused"
    # The next outbox is opened for the user (when the client can show documents).
    assert client.capabilities is not None and client.capabilities.window is not None
    show = client.capabilities.window.show_document
    if show is not None and show.support:
        await client.wait_for(lambda: any(d.uri == outbox.as_uri() for d in client.shown_documents))
    else:
        await client.wait_for(lambda: any(m.message == f"heredoc-lsp: open {outbox}" for m in client.log_messages))


async def test_run_one_block_leaves_the_session_alone(client: RecordingClient) -> None:
    root = client.root / f"{client.profile}-block"
    root.mkdir()
    session_id = new_session(root)
    (root / "src").mkdir()
    (root / "src" / "b.py").write_text("B\n", encoding="utf-8")
    uri = client.open_file(reply_text("b"), name=f"{client.profile}-block/inbox/reply.txt", language_id="agent-inbox")
    result = await client.run_lens(uri, 4, RUN, ASK_ALWAYS)
    assert result["status"] == "completed"
    assert [r["text"] for r in result["results"]] == ["[OK] RUN_COMMAND: Ran 'cat src/b.py' (exit code 0)"]
    assert "outbox" not in result
    assert sorted(p.name for p in (root / "outbox").iterdir()) == [f"{session_id}_seq0001.txt"]
    titles = await client.lens_titles(uri)
    assert [t for line, t in titles if line == 0] == ["▶ Apply reply", "Preview reply"]
    block = [t for line, t in titles if line == 4]
    assert block[0] == RUN and re.fullmatch(r"✓ exit 0 · \d+(\.\d+)? s", block[1]), titles
    hover = await client.hover_text(uri, 4)
    assert hover is not None and "```text\nB\n```" in hover


async def test_a_copy_of_an_applied_reply_and_a_pasted_outbox_are_refused(client: RecordingClient) -> None:
    root = client.root / f"{client.profile}-once"
    root.mkdir()
    session_id = new_session(root)
    text = '[CREATE_FILE path="n.txt"]\nn\n[/CREATE_FILE]\n'
    first = client.open_file(text, name=f"{client.profile}-once/inbox/reply1.txt", language_id="agent-inbox")
    assert (await client.run_lens(first, 0, "▶ Apply reply", ASK_RUN))["status"] == "completed"
    (root / "n.txt").write_text("mine\n", encoding="utf-8")
    copy = client.open_file(text, name=f"{client.profile}-once/inbox/reply2.txt", language_id="agent-inbox")
    result = await client.run_lens(copy, 0, "▶ Apply reply", ASK_RUN)
    assert (result["status"], result.get("refused")) == ("failed", True)
    assert "reply2.txt is the same reply as reply1.txt, which was applied at " in result["message"]
    assert (root / "n.txt").read_text(encoding="utf-8") == "mine\n"
    # Undo from the editor: n.txt was changed since the apply, so it is left as it is and named.
    undo = command("undoReply", uri=copy)
    undone = await client.execute(undo)
    assert (undone["status"], undone["reply"]) == ("partly undone", "reply1.txt")
    assert [r["path"] for r in undone["refused"]] == ["n.txt"]
    assert "NOT restored n.txt: was changed after the reply was applied" in undone["message"]
    assert (root / "n.txt").read_text(encoding="utf-8") == "mine\n"
    assert (await client.execute(undo))["status"] == "nothing"
    outbox = (root / "outbox" / f"{session_id}_seq0002.txt").read_text(encoding="utf-8")
    pasted = client.open_file(outbox, name=f"{client.profile}-once/inbox/mistake.txt", language_id="agent-inbox")
    assert await client.lens_titles(pasted) == []  # no Apply lens and no Run lens on the PROTOCOL's examples
