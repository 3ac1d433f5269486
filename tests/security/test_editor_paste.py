"""The editor's agent loop never turns the prompt into actions: a pasted outbox (whole, its PROTOCOL section alone,
or its example commands alone) is not saved by "Paste reply", and saved by hand as an inbox file it is never
previewed as an edit, so no file is created and no command is run, even by a client that accepts every edit.

Driven through the real language server (the one LSP client, tests/lsp/lsp_harness.py) with VS Code's capabilities
(the client that gets previews as workspace edits). Before the editor loop the commands did not exist; with the
paste check or the preview's prompt check removed these tests fail (the prompt is saved as a reply, or its
examples are sent as an edit and applied)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp.lsp_harness import RecordingClient, command, session

PARTS = ["whole", "protocol", "commands"]


def part_of(outbox: str, part: str) -> str:
    if part == "protocol":  # the PROTOCOL section alone, without any marker line
        return outbox.split("=== PROTOCOL ===\n", 1)[1].split("=== CONTEXT ===", 1)[0]
    if part == "commands":  # from its COMMANDS heading on: the examples only
        return outbox[outbox.index("COMMANDS") : outbox.index("=== CONTEXT ===")]
    return outbox


async def start(client: RecordingClient, root: Path) -> tuple[str, str]:
    started = await client.execute(command("newSession", uri=root.as_uri(), task="edit b.txt"))
    assert started["status"] == "started", started
    (root / "b.txt").write_text("one\ntwo\nthree\n")
    outbox = root / "outbox" / f"{started['session']}_seq0001.txt"
    return started["session"], outbox.read_text(encoding="utf-8")


def untouched(root: Path, session_id: str) -> None:
    assert not (root / "relative").exists() and not (root / "src").exists()
    assert (root / "b.txt").read_text() == "one\ntwo\nthree\n"
    data = json.loads((root / "sessions" / f"{session_id}.json").read_text())
    assert (data["isComplete"], data["sequenceNumber"]) == (False, 1)
    assert [p.name for p in (root / "outbox").iterdir()] == [f"{session_id}_seq0001.txt"]
    assert not (root / ".heredoc-lsp" / "replies.json").exists()


@pytest.mark.asyncio
@pytest.mark.parametrize("part", PARTS)
async def test_a_pasted_outbox_is_never_saved_as_a_reply(workspace: Path, part: str) -> None:
    async with session("vscode", workspace) as client:
        session_id, outbox = await start(client, workspace)
        refused = await client.execute(command("pasteReply", uri=workspace.as_uri(), text=part_of(outbox, part)))
        assert refused["status"] == "refused", refused
        assert "the pasted text is not a reply" in refused["message"]
        assert list((workspace / "inbox").iterdir()) == []
        untouched(workspace, session_id)


@pytest.mark.asyncio
@pytest.mark.parametrize("part", PARTS)
async def test_a_saved_outbox_is_never_previewed_nor_applied(workspace: Path, part: str) -> None:
    async with session("vscode", workspace) as client:
        session_id, outbox = await start(client, workspace)
        uri = client.open_file(part_of(outbox, part), name="inbox/mistake.txt", language_id="agent-inbox")
        client.edits_to_disk = True  # a client that accepts and saves whatever it is sent
        client.answers += ["Run", "Run"]
        preview = await client.execute(command("previewReply", uri=uri))
        assert preview["status"] == "refused", preview
        assert "mistake.txt is not a reply" in preview["message"]
        assert client.applied_edits == []
        applied = await client.execute(command("applyReply", uri=uri, version=1))
        assert applied.get("refused") is True or applied["status"] == "refused", applied
        assert client.applied_edits == []
        untouched(workspace, session_id)
