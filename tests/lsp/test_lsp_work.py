"""Guards on the work per keystroke: a one-character edit in the middle of a 100k-line script costs work that
follows the edit, not the document, in every feature, for a client that is pushed diagnostics (vscode) and one
that pulls them (nvim-0.11). The server counts its work (request ``heredoc-lsp/workCounts``); no timing here.

A second test types a few edits into a smaller script and checks that every spliced answer equals the answer for
the same text opened afresh.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from lsp_harness import RecordingClient, session
from lsprotocol import types

from heredoc_lsp.lsp.work import WORK_COUNTS

BLOCK = (
    "echo step {i}\n"
    "cat > out{i}.txt <<EOF\n"
    "body line {i}\n"
    "EOF\n"
    "# a note about {i}\n"
    "tool task <<EOF\n"
    "---TITLE---\n"
    "title {i}\n"
    "---DESCRIPTION---\n"
    "what {i} does\n"
    "PARAMS_END\n"
    "EOF\n"
)
BLOCK_LINES = BLOCK.count("\n")
BIG = 100_000
# What one edit may cost in each feature (the document has 100k lines, some 50k items and 250k tokens).
BOUNDS = {
    "lines_scanned": 200,
    "full_parses": 0,
    "diagnostics": 50,
    "symbols": 100,
    "folds": 100,
    "run_targets": 100,
    "lenses": 100,
    "tokens": 500,
}


def script(lines: int) -> str:
    return "".join(BLOCK.format(i=i) for i in range(lines // BLOCK_LINES))


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def counts(client: RecordingClient) -> dict[str, int]:
    result = await client.protocol.send_request_async(WORK_COUNTS, None)
    return {str(k): int(v) for k, v in _items(result)}


def _items(result: Any) -> list[tuple[Any, Any]]:
    if isinstance(result, Mapping):
        return list(result.items())
    return list(result._asdict().items())  # pygls hands unknown results over as named tuples


def supports_tokens(client: RecordingClient) -> bool:
    assert client.init_result is not None
    return client.init_result.capabilities.semantic_tokens_provider is not None


async def views(client: RecordingClient, uri: str, line: int, previous_tokens: str | None) -> dict[str, Any]:
    """Ask for every view an editor asks for after a pause in typing; the answers by name."""
    out: dict[str, Any] = {}
    out["diagnostics"] = await client.diagnostics_of(uri)
    out["symbols"] = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc(uri))
    )
    out["folds"] = await client.text_document_folding_range_async(types.FoldingRangeParams(text_document=doc(uri)))
    out["lenses"] = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(uri)))
    out["links"] = await client.text_document_document_link_async(types.DocumentLinkParams(text_document=doc(uri)))
    position = types.Position(line=line, character=2)
    out["hover"] = await client.text_document_hover_async(types.HoverParams(doc(uri), position))
    out["completion"] = await client.text_document_completion_async(types.CompletionParams(doc(uri), position))
    rng = types.Range(types.Position(max(0, line - 40), 0), types.Position(line + 40, 0))
    out["actions"] = await client.text_document_code_action_async(
        types.CodeActionParams(doc(uri), rng, types.CodeActionContext(diagnostics=[]))
    )
    if supports_tokens(client):
        out["range_tokens"] = await client.text_document_semantic_tokens_range_async(
            types.SemanticTokensRangeParams(doc(uri), rng)
        )
        if previous_tokens is None:
            out["tokens"] = await client.text_document_semantic_tokens_full_async(
                types.SemanticTokensParams(text_document=doc(uri))
            )
        else:
            out["tokens"] = await client.text_document_semantic_tokens_full_delta_async(
                types.SemanticTokensDeltaParams(text_document=doc(uri), previous_result_id=previous_tokens)
            )
    return out


@pytest.mark.parametrize("profile", ["vscode", "nvim-0.11"])
async def test_one_character_in_the_middle_of_100k_lines(profile: str, tmp_path: Path) -> None:
    text = script(BIG)
    async with session(profile, tmp_path) as client:
        uri = client.open(text)
        middle = (BIG // BLOCK_LINES // 2) * BLOCK_LINES
        first = await views(client, uri, middle + 2, None)
        assert first["symbols"] and first["folds"] and first["lenses"]
        before = await counts(client)
        # Type one character at the end of a heredoc body line in the middle of the document.
        body = middle + 2
        column = client.col(text.split("\n")[body], len(text.split("\n")[body]))
        client.replace(uri, (body, column), (body, column), "x")
        tokens = first.get("tokens")
        second = await views(client, uri, body, tokens.result_id if tokens is not None else None)
        after = await counts(client)
        spent = {key: after.get(key, 0) - before.get(key, 0) for key in BOUNDS}
        assert all(spent[key] <= bound for key, bound in BOUNDS.items()), spent
        # The work was done (a guard that counts nothing proves nothing).
        assert spent["lines_scanned"] > 0 and spent["symbols"] > 0 and spent["folds"] >= 0
        assert spent["run_targets"] > 0 and spent["lenses"] > 0
        if tokens is not None:
            assert spent["tokens"] > 0
            assert isinstance(second["tokens"], types.SemanticTokensDelta)


PY_BLOCK = "python3 - <<'PY'\nx{i} = {i}\nprint(\nPY\ncat > c{i}.json <<EOF\n{{\"a\": {i}}}\nEOF\n"


@pytest.mark.parametrize("profile", ["vscode", "nvim-0.11"])
async def test_typing_in_one_body_of_100k_lines_checks_that_body_only(profile: str, tmp_path: Path) -> None:
    blocks = BIG // PY_BLOCK.count("\n")
    text = "".join(PY_BLOCK.format(i=i) for i in range(blocks))
    async with session(profile, tmp_path) as client:
        uri = client.open(text)
        first = await client.diagnostics_of(uri)
        assert [d.code for d in first] == ["body_syntax"] * blocks
        before = await counts(client)
        body = (blocks // 2) * PY_BLOCK.count("\n") + 2  # the "print(" of a block in the middle
        client.replace(uri, (body, 6), (body, 6), ")")
        second = await client.diagnostics_of(uri)
        after = await counts(client)
        assert len(second) == blocks - 1 and all(d.range.start.line != body for d in second)
        assert after["bodies_checked"] - before["bodies_checked"] == 1
        assert after["full_parses"] == before["full_parses"]
        # Lines moved below the edit: nothing is parsed again, the diagnostics move with their bodies.
        client.replace(uri, (1, 0), (1, 0), "y = 0\n")
        third = await client.diagnostics_of(uri)
        final = await counts(client)
        assert final["bodies_checked"] - after["bodies_checked"] == 1  # (the first body changed)
        assert [d.range.start.line for d in third[1:]] == [d.range.start.line + 1 for d in second[1:]]


def apply_tokens(data: list[int], delta: Any) -> list[int]:
    if isinstance(delta, types.SemanticTokens):
        return list(delta.data)
    assert isinstance(delta, types.SemanticTokensDelta)
    out = list(data)
    for edit in sorted(delta.edits, key=lambda e: e.start, reverse=True):
        out[edit.start : edit.start + edit.delete_count] = list(edit.data or [])
    return out


EDITS = [
    ((30, 0), (30, 0), "x"),  # a command line
    ((26, 5), (26, 6), ""),  # a heredoc body line
    ((40, 0), (40, 0), "new line\n"),  # every later line moves
    ((52, 0), (53, 0), ""),  # a line removed
    ((61, 0), (61, 0), "# comment\n# comment\n"),  # comments that join a run
    ((70, 0), (70, 3), "EOF"),  # a terminator rewritten
    ((3, 0), (3, 3), ""),  # a terminator removed: the heredoc runs on
    ((3, 0), (3, 0), "EOF"),  # and closed again
]


@pytest.mark.parametrize("profile", ["vscode", "nvim-0.11"])
async def test_spliced_answers_equal_fresh_ones(profile: str, tmp_path: Path) -> None:
    text = script(240)
    async with session(profile, tmp_path) as client:
        uri = client.open(text)
        answers = await views(client, uri, 27, None)
        data = list(answers["tokens"].data) if "tokens" in answers else []
        lines = text.split("\n")
        for start, end, new in EDITS:
            # The harness's positions are client units; these lines are ASCII.
            head = "\n".join([*lines[: start[0]], lines[start[0]][: start[1]]])
            tail = "\n".join([lines[end[0]][end[1] :], *lines[end[0] + 1 :]])
            text = head + new + tail
            lines = text.split("\n")
            client.replace(uri, start, end, new)
            previous = answers.get("tokens")
            answers = await views(client, uri, 27, previous.result_id if previous is not None else None)
            fresh_uri = client.open(text)
            fresh = await views(client, fresh_uri, 27, None)
            client.close(fresh_uri)
            for name in ("diagnostics", "symbols", "folds", "range_tokens"):
                assert answers.get(name) == fresh.get(name), (new, name)
            assert [(lens.range, lens.command.title) for lens in answers["lenses"] or []] == [
                (lens.range, lens.command.title) for lens in fresh["lenses"] or []
            ], new
            if "tokens" in answers:
                data = apply_tokens(data, answers["tokens"])
                assert data == list(fresh["tokens"].data), new


async def test_first_answers_of_100k_lines_are_built_in_slices(tmp_path: Path) -> None:
    """Long work never holds the loop: the first outline, folds, tokens and lenses of a 100k-line script are built
    in slices with the loop's turn between them, so a hover asked after the outline is answered before it."""
    async with session("vscode", tmp_path) as client:
        uri = client.open(script(BIG))
        await client.diagnostics_of(uri)  # parsed: what follows is the views' own work
        before = await counts(client)
        finished: list[str] = []

        async def ask(name: str, request: Any) -> None:
            await request
            finished.append(name)

        position = types.Position(line=BIG // 2, character=2)
        await asyncio.gather(
            ask("symbols", client.text_document_document_symbol_async(types.DocumentSymbolParams(doc(uri)))),
            ask("hover", client.text_document_hover_async(types.HoverParams(doc(uri), position))),
        )
        assert finished == ["hover", "symbols"]
        await client.text_document_folding_range_async(types.FoldingRangeParams(text_document=doc(uri)))
        await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc(uri)))
        await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(text_document=doc(uri)))
        spent = {key: value - before.get(key, 0) for key, value in (await counts(client)).items()}
        # A slice at most doubles the one before (the first has 500 lines): at least 7 turns per 100k-line build,
        # however fast the machine; five builds here (symbols, folds, targets, lenses, tokens).
        assert spent["yields"] >= 5 * 7, spent
