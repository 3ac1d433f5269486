"""Folding ranges: heredoc bodies, structured parameters, comment runs, inbox blocks, outbox sections."""

from __future__ import annotations

import pytest
from lsprotocol import types
from nav_harness import doc

from lsp.lsp_harness import RecordingClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

R = types.FoldingRangeKind.Region
C = types.FoldingRangeKind.Comment

CLI = """\
# é😀 one
# two
# three
é😀 run <<EOF
body é😀
more
EOF
chatroom task-started <<PARAMS_END
---TITLE---
Titre é😀
second

---DESCRIPTION---
Desc
PARAMS_END
# lone comment
empty <<E
E
tail <<OPEN
never closed é
"""


async def folds(client: RecordingClient, uri: str) -> list[tuple[int, int, str | None]]:
    result = await client.text_document_folding_range_async(types.FoldingRangeParams(text_document=doc(uri)))
    assert result is not None
    for f in result:
        assert f.start_character is None and f.end_character is None
    return [(f.start_line, f.end_line, f.kind) for f in result]


async def test_cli_folds(client: RecordingClient) -> None:
    uri = client.open(CLI)
    assert await folds(client, uri) == [
        (0, 2, C),
        (3, 5, R),  # opener to last body line: the terminator stays visible
        (7, 13, R),
        (8, 10, R),  # ---TITLE--- to its last non-blank line
        (12, 13, R),
        (18, 19, R),  # unclosed: to the end of the document
    ]


@pytest.mark.per_profile
async def test_collapsed_text_only_for_clients_that_show_it(client: RecordingClient) -> None:
    uri = client.open(CLI)
    result = await client.text_document_folding_range_async(types.FoldingRangeParams(text_document=doc(uri)))
    assert result is not None
    texts = [f.collapsed_text for f in result]
    caps = client.capabilities.text_document if client.capabilities else None
    shows = bool(
        caps
        and caps.folding_range
        and caps.folding_range.folding_range
        and caps.folding_range.folding_range.collapsed_text
    )
    if shows:
        assert texts == [
            None,
            "<<EOF … 2 lines",
            "<<PARAMS_END … 6 lines",
            "---TITLE--- … 2 lines",
            "---DESCRIPTION--- … 1 line",
            "<<OPEN … 1 line",
        ]
    else:
        assert texts == [None] * 6


async def test_inbox_folds(client: RecordingClient) -> None:
    text = 'é😀\n[CREATE_FILE path="a.txt"]\none\ntwo\n[/CREATE_FILE]\n[DELETE_FILE path="b"]\n[MESSAGE]\nhi\n'
    uri = client.open(text, suffix=".inbox", language_id="agent-inbox")
    # the CREATE_FILE body (closer visible), the unclosed MESSAGE to the end; self-closing tags do not fold
    assert await folds(client, uri) == [(1, 3, R), (6, 7, R)]


async def test_outbox_folds(client: RecordingClient) -> None:
    text = (
        "=== HEADER ===\nSession: 1234abcd\nSequence: 1\nTask: é😀\n\n"
        "=== PROTOCOL ===\nrules\n=== CONTEXT ===\n=== PROMPT ===\ngo\nnow\n"
    )
    uri = client.open(text, suffix=".outbox", language_id="agent-outbox")
    assert await folds(client, uri) == [(0, 3, R), (5, 6, R), (8, 10, R)]
