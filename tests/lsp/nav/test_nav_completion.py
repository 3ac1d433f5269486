"""Completion: configured commands, delimiters, the closing marker, inbox tags, closers, attributes and paths."""

from __future__ import annotations

import pytest
from lsprotocol import types
from nav_harness import doc, pos, rng

from lsp.lsp_harness import RecordingClient

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def complete(
    client: RecordingClient, text: str, line: int, col: int, **open_args: str
) -> list[types.CompletionItem]:
    uri = client.open(text, **open_args)
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=doc(uri), position=pos(client, text, line, col))
    )
    assert isinstance(result, types.CompletionList)
    return list(result.items)


def snippets(client: RecordingClient) -> bool:
    caps = client.capabilities.text_document if client.capabilities else None
    item = caps.completion.completion_item if caps and caps.completion else None
    return bool(item and item.snippet_support)


def edit_of(item: types.CompletionItem) -> types.TextEdit:
    assert isinstance(item.text_edit, types.TextEdit)
    return item.text_edit


@pytest.mark.per_profile
async def test_configured_command_names(client: RecordingClient) -> None:
    text = "é😀 first\nchat"
    items = await complete(client, text, 1, 4)
    assert [(i.label, i.kind) for i in items] == [
        ("chatroom handoff", types.CompletionItemKind.Function),
        ("chatroom handoff <<CHATROOM_HANDOFF_END", types.CompletionItemKind.Snippet),
        ("chatroom task-started", types.CompletionItemKind.Function),
        ("chatroom task-started <<PARAMS_END", types.CompletionItemKind.Snippet),
    ]
    assert all(edit_of(i).range == rng(client, text, 1, 0, 1, 4) for i in items)
    skeleton = items[3]
    if snippets(client):
        assert skeleton.insert_text_format == types.InsertTextFormat.Snippet
        assert edit_of(skeleton).new_text == (
            "chatroom task-started <<${1:PARAMS_END}\n---TITLE---\n${2}\n---DESCRIPTION---\n${3}\n$1"
        )
    else:
        assert skeleton.insert_text_format == types.InsertTextFormat.PlainText
        assert edit_of(skeleton).new_text == (
            "chatroom task-started <<PARAMS_END\n---TITLE---\n\n---DESCRIPTION---\n\nPARAMS_END"
        )
    assert await complete(client, "é chat", 0, 6) == []  # not at the start of a command


@pytest.mark.per_profile
async def test_delimiters_of_unused_parameters_required_first(client: RecordingClient) -> None:
    text = "chatroom task-started <<PARAMS_END\n---TECH_SPECS---\né😀\n---\nPARAMS_END\n"
    items = await complete(client, text, 3, 3)
    labels = [i.label for i in sorted(items, key=lambda i: i.sort_text or "")]
    assert labels == ["---TITLE---", "---DESCRIPTION---"]
    assert all(edit_of(i).range == rng(client, text, 3, 0, 3, 3) for i in items)
    title = next(i for i in items if i.label == "---TITLE---")
    assert edit_of(title).new_text == ("---TITLE---\n$0" if snippets(client) else "---TITLE---")
    assert title.detail == "required parameter of chatroom task-started"


async def test_uuid_style_delimiters_keep_the_id(client: RecordingClient) -> None:
    text = "tracker note <<END\n---(UUID:1234abcd)NOTE---\né\n\nEND\n"
    items = await complete(client, text, 3, 0)
    assert [i.label for i in items] == ["---(UUID:1234abcd)BODY---"]


async def test_marker_closes_an_unclosed_heredoc(client: RecordingClient) -> None:
    text = "é😀 run <<DONE_MARK\nbody\nDO"
    items = await complete(client, text, 2, 2)
    assert [(i.label, edit_of(i).new_text, edit_of(i).range) for i in items] == [
        ("DONE_MARK", "DONE_MARK", rng(client, text, 2, 0, 2, 2))
    ]
    assert items[0].detail == "close the heredoc opened on line 1"


async def test_marker_after_the_operator(client: RecordingClient) -> None:
    text = "é\nchatroom task-started <<"
    items = await complete(client, text, 1, 24)
    assert [(i.label, edit_of(i).range) for i in items] == [("PARAMS_END", rng(client, text, 1, 24, 1, 24))]


@pytest.mark.per_profile
async def test_inbox_tags_with_required_attributes(client: RecordingClient) -> None:
    text = "Voilà 😀\n[ED"
    items = await complete(client, text, 1, 3, suffix=".inbox", language_id="agent-inbox")
    labels = [i.label for i in items]
    assert labels == [
        "[CREATE_FILE",
        "[EDIT_FILE",
        "[RUN_COMMAND",
        "[MESSAGE",
        "[DONE",
        "[DELETE_FILE",
        "[READ_FILE",
    ]
    edit = edit_of(items[1])
    assert edit.range == rng(client, text, 1, 0, 1, 3)
    if snippets(client):
        assert edit.new_text == '[EDIT_FILE path="${1}" start_line="${2}" end_line="${3}"]\n$0\n[/EDIT_FILE]'
    else:
        assert edit.new_text == '[EDIT_FILE path="" start_line="" end_line=""]\n\n[/EDIT_FILE]'


async def test_inbox_closer_of_the_open_block(client: RecordingClient) -> None:
    text = '[CREATE_FILE path="é😀.txt"]\nbody\n[/'
    items = await complete(client, text, 2, 2, suffix=".inbox", language_id="agent-inbox")
    assert [(i.label, edit_of(i).new_text) for i in items] == [("[/CREATE_FILE]", "[/CREATE_FILE]")]


@pytest.mark.per_profile
async def test_inbox_attribute_names(client: RecordingClient) -> None:
    text = '[EDIT_FILE note="é😀" path="a" st'
    items = await complete(client, text, 0, len(text), suffix=".inbox", language_id="agent-inbox")
    assert [i.label for i in items] == ["start_line", "end_line"]
    assert edit_of(items[0]).range == rng(client, text, 0, len(text) - 2, 0, len(text))
    assert edit_of(items[0]).new_text == ('start_line="$1"' if snippets(client) else 'start_line=""')


@pytest.mark.per_profile
async def test_inbox_workspace_paths(client: RecordingClient) -> None:
    text = '[CREATE_FILE note="é😀" path="src/'
    items = await complete(client, text, 0, len(text), suffix=".inbox", language_id="agent-inbox")
    assert [(i.label, i.kind) for i in items] == [
        ("src/main.py", types.CompletionItemKind.File),
        ("src/été.txt", types.CompletionItemKind.File),
    ]
    assert edit_of(items[0]).range == rng(client, text, 0, len(text) - 4, 0, len(text))
    top = await complete(client, '[READ_FILE path="', 0, 17, suffix=".inbox", language_id="agent-inbox")
    assert [i.label for i in top] == ["docs/", "src/", "heredoc-lsp.toml", "notes.md"]
    assert await complete(client, '[READ_FILE path="../', 0, 20, suffix=".inbox", language_id="agent-inbox") == []


async def test_outbox_missing_sections(client: RecordingClient) -> None:
    text = "=== HEADER ===\nTask: é😀\n=="
    items = await complete(client, text, 2, 2, suffix=".outbox", language_id="agent-outbox")
    assert [i.label for i in items] == ["=== PROTOCOL ===", "=== CONTEXT ===", "=== PROMPT ==="]
