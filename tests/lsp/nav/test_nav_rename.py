"""Rename and document highlight of heredoc markers (opener and terminator together), and tag/delimiter pairs."""

from __future__ import annotations

import pytest
from lsprotocol import types
from nav_harness import doc, pos, rng
from pygls.exceptions import JsonRpcException

from lsp.lsp_harness import RecordingClient, apply_text_edits, edits_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

TEXT = """\
é😀 run <<'EOF'
body é😀
NEW
EOF
"""


async def prepare(client: RecordingClient, uri: str, text: str, line: int, col: int) -> object:
    return await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc(uri), position=pos(client, text, line, col))
    )


async def rename(client: RecordingClient, uri: str, text: str, line: int, col: int, name: str) -> types.WorkspaceEdit:
    result = await client.text_document_rename_async(
        types.RenameParams(text_document=doc(uri), position=pos(client, text, line, col), new_name=name)
    )
    assert result is not None
    return result


@pytest.mark.per_profile
async def test_prepare_rename_on_opener_and_terminator(client: RecordingClient) -> None:
    uri = client.open(TEXT)
    on_opener = await prepare(client, uri, TEXT, 0, 11)
    assert on_opener == types.PrepareRenamePlaceholder(range=rng(client, TEXT, 0, 10, 0, 13), placeholder="EOF")
    on_terminator = await prepare(client, uri, TEXT, 3, 0)
    assert on_terminator == types.PrepareRenamePlaceholder(range=rng(client, TEXT, 3, 0, 3, 3), placeholder="EOF")


async def test_prepare_rename_says_why_not(client: RecordingClient) -> None:
    uri = client.open(TEXT)
    with pytest.raises(JsonRpcException) as caught:
        await prepare(client, uri, TEXT, 1, 2)
    assert caught.value.code == types.LSPErrorCodes.RequestFailed
    assert caught.value.message == (
        "Only heredoc markers can be renamed here: put the cursor on the marker after '<<' or on the terminator line"
    )


@pytest.mark.per_profile
@pytest.mark.parametrize(("line", "col"), [(0, 12), (3, 2)])
async def test_rename_changes_both_ends(client: RecordingClient, line: int, col: int) -> None:
    uri = client.open(TEXT)
    edit = await rename(client, uri, TEXT, line, col, "BODY_END")
    edits = edits_of(client, edit, uri)
    assert sorted((e.range.start.line, e.new_text) for e in edits) == [(0, "BODY_END"), (3, "BODY_END")]
    assert apply_text_edits(TEXT, edits, client.encoding) == "é😀 run <<'BODY_END'\nbody é😀\nNEW\nBODY_END\n"


async def test_rename_refuses_invalid_and_colliding_names(client: RecordingClient) -> None:
    uri = client.open(TEXT)
    with pytest.raises(JsonRpcException) as invalid:
        await rename(client, uri, TEXT, 0, 11, "ÉOF")
    assert invalid.value.code == types.LSPErrorCodes.RequestFailed
    assert invalid.value.message == (
        "'ÉOF' is not a valid heredoc marker: use only letters A-Z or a-z, digits and '_' "
        "(quotes around the marker are kept)"
    )
    with pytest.raises(JsonRpcException) as collides:
        await rename(client, uri, TEXT, 0, 11, "NEW")
    assert collides.value.message == (
        "'NEW' occurs as line 3 of the heredoc body: that line would end the heredoc early"
    )


async def test_rename_an_unclosed_heredoc_changes_the_opener(client: RecordingClient) -> None:
    text = "é <<OPEN\nbody\n"
    uri = client.open(text)
    edits = edits_of(client, await rename(client, uri, text, 0, 5, "CLOSE"), uri)
    assert [(e.range, e.new_text) for e in edits] == [(rng(client, text, 0, 4, 0, 8), "CLOSE")]


async def highlights(client: RecordingClient, uri: str, text: str, line: int, col: int) -> list[object] | None:
    result = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(text_document=doc(uri), position=pos(client, text, line, col))
    )
    return None if result is None else [(h.range, h.kind) for h in result]


@pytest.mark.per_profile
async def test_highlight_marker_pair(client: RecordingClient) -> None:
    uri = client.open(TEXT)
    expected = [
        (rng(client, TEXT, 0, 10, 0, 13), types.DocumentHighlightKind.Write),
        (rng(client, TEXT, 3, 0, 3, 3), types.DocumentHighlightKind.Read),
    ]
    assert await highlights(client, uri, TEXT, 0, 13) == expected
    assert await highlights(client, uri, TEXT, 3, 1) == expected
    assert await highlights(client, uri, TEXT, 1, 1) is None


async def test_highlight_inbox_tags_and_delimiters(client: RecordingClient) -> None:
    inbox = "é😀 [MESSAGE]\n[MESSAGE]\nhi\n[/MESSAGE]\n"
    uri = client.open(inbox, suffix=".inbox", language_id="agent-inbox")
    text_kind = types.DocumentHighlightKind.Text
    assert await highlights(client, uri, inbox, 3, 2) == [
        (rng(client, inbox, 1, 1, 1, 8), text_kind),
        (rng(client, inbox, 3, 0, 3, 10), text_kind),
    ]
    cli = "tracker note <<X\n---TITLE---\na\n---BODY---\nb\n---TITLE---\nc\nX\n"
    uri = client.open(cli)
    assert await highlights(client, uri, cli, 5, 4) == [
        (rng(client, cli, 1, 3, 1, 8), text_kind),
        (rng(client, cli, 5, 3, 5, 8), text_kind),
    ]
