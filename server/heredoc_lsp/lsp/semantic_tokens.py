"""Semantic tokens, full (with delta) and range, for clients that ask for them (Neovim highlights with these).

The tokens come from the analysis snapshot (:mod:`heredoc_lsp.navigation.tokens`); nothing is parsed again. The
legend uses LSP's standard token types. Registered only when the client advertises
``textDocument.semanticTokens``. A full result is kept per document (its ``resultId`` is the serial of the snapshot
that first produced those tokens): asking again for the same version is free, and a delta request answers with one
edit covering the tokens between the unchanged head and tail.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.capabilities import get_capability

from heredoc_lsp.lsp.positions import column_to_client, from_client
from heredoc_lsp.navigation.tokens import TOKEN_MODIFIERS, TOKEN_TYPES, tokens

if TYPE_CHECKING:
    from pygls.workspace import PositionCodec

    from heredoc_lsp.lsp.analysis import Snapshot
    from heredoc_lsp.lsp.server import HeredocLanguageServer

LEGEND = types.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))
_CHUNK = 4096


def encode(absolute: Sequence[int], lines: Sequence[str], codec: PositionCodec) -> list[int]:
    """Absolute code-point tokens as LSP's relative data in the client's position encoding."""
    out: list[int] = []
    extend = out.extend
    prev_line = prev_col = 0
    text_line = -1
    text = ""
    ascii_line = True
    for k in range(0, len(absolute), 5):
        line, col, length, kind, mods = absolute[k : k + 5]
        if line != text_line:
            text_line = line
            text = lines[line]
            ascii_line = text.isascii()
        if not ascii_line:
            start = column_to_client(codec, text, col)
            length = column_to_client(codec, text, col + length) - start
            col = start
        if length <= 0:
            continue
        extend((line - prev_line, col - prev_col if line == prev_line else col, length, kind, mods))
        prev_line, prev_col = line, col
    return out


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i : i + _CHUNK] == b[i : i + _CHUNK]:
        i += _CHUNK
    i = min(i, n)
    while i < n and a[i] == b[i]:
        i += 1
    return i


def delta(old: list[int], new: list[int]) -> types.SemanticTokensEdit | None:
    """One edit turning ``old`` into ``new`` (None when equal), on whole-token boundaries."""
    if old == new:
        return None
    p = _common_prefix(old, new) // 5 * 5
    s = _suffix_fast(old, new, p) // 5 * 5
    return types.SemanticTokensEdit(start=p, delete_count=len(old) - p - s, data=new[p : len(new) - s])


def _suffix_fast(a: list[int], b: list[int], limit: int) -> int:
    """Common suffix length (not reaching into the first ``limit`` ints), compared in chunks first."""
    n = min(len(a), len(b)) - limit
    s = 0
    while s + _CHUNK <= n and a[len(a) - s - _CHUNK : len(a) - s] == b[len(b) - s - _CHUNK : len(b) - s]:
        s += _CHUNK
    while s < n and a[len(a) - s - 1] == b[len(b) - s - 1]:
        s += 1
    return s


def register(server: HeredocLanguageServer) -> None:
    from heredoc_lsp.lsp.server import guarded

    # uri -> (snapshot serial, resultId, data) of the last full answer
    last: dict[str, tuple[int, str, list[int]]] = {}

    def full_data(snap: Snapshot) -> tuple[str, list[int]]:
        hit = last.get(snap.uri)
        if hit is not None and hit[0] == snap.serial:
            return hit[1], hit[2]
        absolute = tokens(snap.language, snap.lines, snap.tree, snap.config.commands)
        data = encode(absolute, snap.lines, server.position_codec)
        # Same tokens as before (e.g. a new snapshot after a configuration reload): same resultId.
        result_id = hit[1] if hit is not None and hit[2] == data else str(snap.serial)
        last[snap.uri] = (snap.serial, result_id, data)
        return result_id, data

    def on_full(params: types.SemanticTokensParams) -> types.SemanticTokens | None:
        snap = server.analyses.get(params.text_document.uri)
        if snap is None:
            return None
        result_id, data = full_data(snap)
        return types.SemanticTokens(data=data, result_id=result_id)

    def on_delta(
        params: types.SemanticTokensDeltaParams,
    ) -> types.SemanticTokens | types.SemanticTokensDelta | None:
        snap = server.analyses.get(params.text_document.uri)
        if snap is None:
            return None
        previous = last.get(snap.uri)
        result_id, data = full_data(snap)
        if previous is None or previous[1] != params.previous_result_id:
            return types.SemanticTokens(data=data, result_id=result_id)
        edit = delta(previous[2], data)
        return types.SemanticTokensDelta(edits=[edit] if edit is not None else [], result_id=result_id)

    def on_range(params: types.SemanticTokensRangeParams) -> types.SemanticTokens | None:
        snap = server.analyses.get(params.text_document.uri)
        if snap is None:
            return None
        codec = server.position_codec
        first = from_client(codec, snap.lines, params.range.start)[0]
        last_line = from_client(codec, snap.lines, params.range.end)[0]
        absolute = tokens(snap.language, snap.lines, snap.tree, snap.config.commands, first, last_line)
        return types.SemanticTokens(data=encode(absolute, snap.lines, codec))

    def register_when_asked(params: types.InitializeParams) -> None:
        if get_capability(params.capabilities, "text_document.semantic_tokens", None) is None:
            return
        server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)(guarded(server)(on_full))
        server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, LEGEND)(guarded(server)(on_delta))
        server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, LEGEND)(guarded(server)(on_range))

    def refresh() -> None:
        # Configured command names are highlighted: a new configuration can change tokens of unchanged text.
        if get_capability(server.client_capabilities, "workspace.semantic_tokens.refresh_support", False):
            server.workspace_semantic_tokens_refresh(None)

    server.hooks.initialize.append(register_when_asked)
    server.hooks.config_changed.append(refresh)

    def forget(uri: str) -> None:
        last.pop(uri, None)

    server.hooks.closed.append(forget)
