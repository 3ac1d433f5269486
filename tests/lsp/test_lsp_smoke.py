from __future__ import annotations

import pytest
from lsp_harness import RecordingClient, expect_range
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_unclosed_heredoc_after_non_ascii(client: RecordingClient) -> None:
    text = "é😀 <<EOF\nbody é😀\n"
    uri = client.open(text)
    diags = await client.diagnostics_of(uri)
    lines = text.split("\n")
    assert [(d.code, d.message) for d in diags] == [
        ("unclosed_heredoc", "Unclosed heredoc starting at line 1: expected 'EOF' but reached end of file")
    ]
    assert diags[0].range == expect_range(client, lines, 0, 5, 8)
    assert diags[0].severity == types.DiagnosticSeverity.Error
