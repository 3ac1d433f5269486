"""Semantic tokens: legend, full, delta and range, in the client's position encoding; only for clients that ask."""

from __future__ import annotations

import pytest
from lsprotocol import types
from nav_harness import doc, pos

from heredoc_lsp.syntax.text import split_lines
from lsp.lsp_harness import RecordingClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

TYPES = ["comment", "function", "operator", "keyword", "string", "parameter", "property", "namespace", "number"]

CLI = """\
# é😀 note
é😀 run <<EOF
body é😀
EOF
chatroom task-started <<PARAMS_END
---TITLE---
Titre
PARAMS_END
"""

# (line, start, end, type, modifiers) in code points
CLI_TOKENS = [
    (0, 0, 10, "comment", []),
    (1, 0, 2, "function", []),
    (1, 7, 9, "operator", []),
    (1, 9, 12, "keyword", ["declaration"]),
    (2, 0, 7, "string", []),
    (3, 0, 3, "keyword", []),
    (4, 0, 21, "function", []),
    (4, 22, 24, "operator", []),
    (4, 24, 34, "keyword", ["declaration"]),
    (5, 0, 3, "operator", []),
    (5, 3, 8, "parameter", ["declaration"]),
    (5, 8, 11, "operator", []),
    (6, 0, 5, "string", []),
    (7, 0, 10, "keyword", []),
]


def supports_tokens(client: RecordingClient) -> bool:
    caps = client.capabilities.text_document if client.capabilities else None
    return bool(caps and caps.semantic_tokens)


def expected(client: RecordingClient, text: str, tokens: list[tuple[int, int, int, str, list[str]]]) -> list[object]:
    lines = split_lines(text)
    out: list[object] = []
    for line, start, end, kind, mods in tokens:
        a, b = client.col(lines[line], start), client.col(lines[line], end)
        out.append((line, a, b - a, kind, mods))
    return out


def decode(data: list[int]) -> list[object]:
    out: list[object] = []
    line = col = 0
    for k in range(0, len(data), 5):
        dl, dc, length, kind, mods = data[k : k + 5]
        col = col + dc if dl == 0 else dc
        line += dl
        names = [m for i, m in enumerate(["declaration"]) if mods & (1 << i)]
        out.append((line, col, length, TYPES[kind], names))
    return out


async def full(client: RecordingClient, uri: str) -> types.SemanticTokens:
    result = await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(text_document=doc(uri)))
    assert isinstance(result, types.SemanticTokens)
    return result


@pytest.mark.per_profile
async def test_legend_only_for_clients_that_ask(client: RecordingClient) -> None:
    assert client.init_result is not None
    provider = client.init_result.capabilities.semantic_tokens_provider
    if not supports_tokens(client):
        assert provider is None  # eglot 1.9 profile: no semantic tokens
        return
    assert isinstance(provider, types.SemanticTokensOptions)
    assert list(provider.legend.token_types) == TYPES
    assert list(provider.legend.token_modifiers) == ["declaration"]
    assert provider.full == types.SemanticTokensFullDelta(delta=True)
    assert provider.range is True


@pytest.mark.per_profile
async def test_full_cli(client: RecordingClient) -> None:
    if not supports_tokens(client):
        return
    uri = client.open(CLI)
    result = await full(client, uri)
    assert decode(list(result.data)) == expected(client, CLI, CLI_TOKENS)
    again = await full(client, uri)
    assert again.result_id == result.result_id and again.data == result.data


@pytest.mark.per_profile
async def test_full_inbox_and_outbox(client: RecordingClient) -> None:
    if not supports_tokens(client):
        return
    inbox = 'é😀\n[CREATE_FILE path="é.txt" /]\nx\n[/CREATE_FILE]\n'
    uri = client.open(inbox, suffix=".inbox", language_id="agent-inbox")
    assert decode(list((await full(client, uri)).data)) == expected(
        client,
        inbox,
        [
            (1, 0, 12, "keyword", []),
            (1, 13, 17, "property", []),
            (1, 17, 18, "operator", []),
            (1, 18, 25, "string", []),
            (1, 26, 28, "keyword", []),
            (3, 0, 14, "keyword", []),
        ],
    )
    outbox = "=== HEADER ===\nTask: é😀\n=== PROMPT ===\n"
    uri = client.open(outbox, suffix=".outbox", language_id="agent-outbox")
    assert decode(list((await full(client, uri)).data)) == expected(
        client,
        outbox,
        [(0, 0, 14, "namespace", []), (1, 0, 4, "property", []), (1, 6, 8, "string", []), (2, 0, 14, "namespace", [])],
    )


@pytest.mark.per_profile
async def test_delta_after_an_edit(client: RecordingClient) -> None:
    if not supports_tokens(client):
        return
    uri = client.open(CLI)
    before = await full(client, uri)
    lines = split_lines(CLI)
    # insert a comment line before the structured command
    client.replace(uri, (4, 0), (4, 0), "# é😀 new\n")
    after_text = "\n".join([*lines[:4], "# é😀 new", *lines[4:]]) + "\n"
    result = await client.text_document_semantic_tokens_full_delta_async(
        types.SemanticTokensDeltaParams(text_document=doc(uri), previous_result_id=before.result_id or "")
    )
    assert isinstance(result, types.SemanticTokensDelta)
    assert result.result_id != before.result_id
    data = list(before.data)
    for edit in sorted(result.edits, key=lambda e: e.start, reverse=True):
        data[edit.start : edit.start + edit.delete_count] = list(edit.data or [])
    assert len(result.edits) == 1 and len(result.edits[0].data or []) <= 10  # only the new and the shifted token
    shifted = [(line + 1 if line >= 4 else line, *rest) for line, *rest in CLI_TOKENS]
    want = sorted([*shifted, (4, 0, 9, "comment", [])])
    assert decode(data) == expected(client, after_text, want)
    fresh = await full(client, uri)
    assert list(fresh.data) == data


@pytest.mark.per_profile
async def test_delta_with_unknown_previous_result_gives_full(client: RecordingClient) -> None:
    if not supports_tokens(client):
        return
    uri = client.open(CLI)
    result = await client.text_document_semantic_tokens_full_delta_async(
        types.SemanticTokensDeltaParams(text_document=doc(uri), previous_result_id="no-such-id")
    )
    assert isinstance(result, types.SemanticTokens)
    assert decode(list(result.data)) == expected(client, CLI, CLI_TOKENS)


@pytest.mark.per_profile
async def test_range(client: RecordingClient) -> None:
    if not supports_tokens(client):
        return
    uri = client.open(CLI)
    result = await client.text_document_semantic_tokens_range_async(
        types.SemanticTokensRangeParams(
            text_document=doc(uri),
            range=types.Range(start=pos(client, CLI, 2, 3), end=pos(client, CLI, 5, 0)),
        )
    )
    assert isinstance(result, types.SemanticTokens)
    assert decode(list(result.data)) == expected(client, CLI, [t for t in CLI_TOKENS if 2 <= t[0] <= 5])


@pytest.mark.per_profile
async def test_a_python_body_has_keyword_tokens(client: RecordingClient) -> None:
    if not supports_tokens(client):
        return
    text = "é😀 run <<'PY'\nimport os\ndef f(): return 'é😀'\nPY\n"
    uri = client.open(text)
    body = [t for t in decode(list((await full(client, uri)).data)) if t[0] in (1, 2)]  # type: ignore[index]
    assert body == expected(
        client,
        text,
        [(1, 0, 6, "keyword", []), (2, 0, 3, "keyword", []), (2, 9, 15, "keyword", []), (2, 16, 20, "string", [])],
    )
