"""Formatting removes trailing blanks from structure lines only; body content stays byte for byte."""

from __future__ import annotations

import pytest
from lsprotocol import types
from nav_harness import doc

from lsp.lsp_harness import RecordingClient, apply_text_edits

pytestmark = pytest.mark.asyncio(loop_scope="module")

OPTIONS = types.FormattingOptions(tab_size=4, insert_spaces=True)


async def formatted(client: RecordingClient, text: str, **open_args: str) -> str:
    uri = client.open(text, **open_args)
    edits = await client.text_document_formatting_async(
        types.DocumentFormattingParams(text_document=doc(uri), options=OPTIONS)
    )
    assert edits is not None
    assert all(e.new_text == "" and e.range.start.line == e.range.end.line for e in edits)
    return apply_text_edits(text, edits, client.encoding)


@pytest.mark.per_profile
async def test_cli_structure_lines_only(client: RecordingClient) -> None:
    text = (
        "# é😀 comment  \n"
        "é😀 run <<EOF \t\n"
        "body keeps its blanks é😀  \n"
        "EOF  \n"
        "   \n"
        "chatroom task-started <<PARAMS_END\n"
        "---TITLE---  \n"
        "Titre  \n"
        "  ---DESCRIPTION---  \n"
        "PARAMS_END\t\n"
    )
    assert await formatted(client, text) == (
        "# é😀 comment\n"
        "é😀 run <<EOF\n"
        "body keeps its blanks é😀  \n"
        "EOF\n"
        "\n"
        "chatroom task-started <<PARAMS_END\n"
        "---TITLE---  \n"  # a delimiter is stdin too: what the command reads is never changed
        "Titre  \n"
        "  ---DESCRIPTION---  \n"
        "PARAMS_END\n"
    )


async def test_inbox_tags_only(client: RecordingClient) -> None:
    text = 'prose é😀  \n[CREATE_FILE path="é.txt"]  \ncontent  \n[/CREATE_FILE] \n'
    assert await formatted(client, text, suffix=".inbox", language_id="agent-inbox") == (
        'prose é😀  \n[CREATE_FILE path="é.txt"]\ncontent  \n[/CREATE_FILE]\n'
    )
