"""Semantic tokens, full (with delta) and range, for clients that ask for them (Neovim highlights with these).

The tokens come from the analysis snapshot (:mod:`heredoc_lsp.navigation.tokens`); nothing is parsed again. The
legend uses LSP's standard token types. Registered only when the client advertises
``textDocument.semanticTokens``. A full result is kept per document (its ``resultId`` is the serial of the snapshot
that first produced those tokens): asking again for the same version is free, and a delta request answers with one
edit covering the tokens between the unchanged head and tail.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from lsprotocol import types

from heredoc_lsp.lsp.analysis import Changed, Snapshot
from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.positions import column_to_client, from_client
from heredoc_lsp.lsp.protocol import Prerendered
from heredoc_lsp.lsp.splice import View, in_slices
from heredoc_lsp.lsp.wire import compact_json
from heredoc_lsp.lsp.work import WORK
from heredoc_lsp.navigation.tokens import TOKEN_MODIFIERS, TOKEN_TYPES, tokens
from heredoc_lsp.syntax.cli import CliScript
from heredoc_lsp.syntax.text import common_prefix, common_suffix

if TYPE_CHECKING:
    from pygls.workspace import PositionCodec

    from heredoc_lsp.lsp.feature import Server

LEGEND = types.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))


def encode(absolute: Sequence[int], lines: Sequence[str], codec: PositionCodec, prev_line: int = 0) -> list[int]:
    """Absolute code-point tokens as LSP's relative data in the client's position encoding (``prev_line``: the
    line of the token before them, on an earlier line)."""
    out: list[int] = []
    extend = out.extend
    prev_col = 0
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


def delta(old: list[int], new: list[int]) -> types.SemanticTokensEdit | None:
    """One edit turning ``old`` into ``new`` (None when equal), on whole-token boundaries."""
    if old == new:
        return None
    p = common_prefix(old, new) // 5 * 5
    s = common_suffix(old, new, p) // 5 * 5
    return types.SemanticTokensEdit(start=p, delete_count=len(old) - p - s, data=new[p : len(new) - s])


@dataclass(frozen=True, slots=True)
class Encoded:
    """The tokens of one snapshot: absolute (code points) and as sent (relative, client units), token for token."""

    serial: int
    result_id: str
    absolute: list[int]
    data: list[int]
    data_json: str | None = None  # ``data`` as JSON numbers without brackets, when built with it


def _visible(absolute: list[int]) -> list[int]:
    """The tokens that are sent (a zero-length token is not)."""
    if min(absolute[2::5], default=1) > 0:
        return absolute
    return [x for k in range(0, len(absolute), 5) if absolute[k + 2] > 0 for x in absolute[k : k + 5]]


def _first_token_at(absolute: list[int], line: int) -> int:
    """Index (in tokens) of the first token on ``line`` or after."""
    return bisect_left(range(len(absolute) // 5), line, key=lambda k: absolute[5 * k])


def splice(
    old: Encoded, serial: int, changed: Changed, window: list[int], lines: Sequence[str], codec: PositionCodec
) -> tuple[Encoded, types.SemanticTokensEdit | None]:
    """``old`` with the tokens of the old lines ``[changed.start, changed.stop - changed.delta)`` replaced by
    ``window`` (absolute tokens of the new lines ``[changed.start, changed.stop)``), and the one edit that turns
    the old data into the new (None: the same). The tokens after the window keep their relative data; only the
    first one's line delta changes (and, when lines moved, their absolute lines)."""
    count = len(old.absolute) // 5
    i = _first_token_at(old.absolute, changed.start)
    j = _first_token_at(old.absolute, changed.stop - changed.delta)
    window = _visible(window)
    prev_line = old.absolute[5 * i - 5] if i else 0
    encoded = encode(window, lines, codec, prev_line)
    tail = old.absolute[5 * j :]
    if changed.delta and tail:
        tail[0::5] = [x + changed.delta for x in tail[0::5]]
    absolute = old.absolute[: 5 * i] + window + tail
    deleted = 5 * (j - i)
    if j < count:
        # The first token after the window follows a new previous token: only its line delta changes.
        head = old.data[5 * j : 5 * j + 5]
        head[0] = tail[0] - (window[-5] if window else prev_line)
        encoded += head
        deleted += 5
        data = old.data[: 5 * i] + encoded + old.data[5 * j + 5 :]
    else:
        data = old.data[: 5 * i] + encoded
    WORK["tokens"] += len(encoded) // 5
    # The window is the re-parsed items, often more than what changed: send only the tokens that differ.
    edit = delta(old.data[5 * i : 5 * i + deleted], encoded)
    if edit is not None:
        edit = types.SemanticTokensEdit(start=5 * i + edit.start, delete_count=edit.delete_count, data=edit.data)
    return Encoded(serial, str(serial), absolute, data), edit


def full_json(done: Encoded) -> Prerendered:
    """A full ``SemanticTokens`` answer as JSON text (a 100k-line script has 250k integers: converting them as
    lsprotocol values and encoding them again would hold the loop for tens of milliseconds)."""
    numbers = done.data_json if done.data_json is not None else compact_json(done.data)[1:-1]
    return Prerendered(f'{{"resultId":{json.dumps(done.result_id)},"data":[{numbers}]}}')


class SemanticTokensFeature(Feature):
    def __init__(self, server: Server) -> None:
        super().__init__(server)
        self.last: View[Encoded] = server.views.view()  # the last full answer per document

    def initialize(self, params: types.InitializeParams) -> None:
        if not self.server.client.semantic_tokens:
            return
        server = self.server
        server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)(guarded(server)(self.on_full))
        server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, LEGEND)(guarded(server)(self.on_delta))
        server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, LEGEND)(guarded(server)(self.on_range))

    def config_changed(self) -> None:
        # Configured command names are highlighted: a new configuration can change tokens of unchanged text.
        if self.server.client.semantic_tokens_refresh:
            self.server.workspace_semantic_tokens_refresh(None)

    def register(self) -> None:
        """The handlers are declared at ``initialize``, for clients that ask for semantic tokens."""
        server = self.server
        last = self.last

        async def build(snap: Snapshot) -> Encoded:
            codec = server.position_codec
            lines = snap.lines
            absolute: list[int] = []
            data: list[int] = []
            texts: list[str] = []

            def window(first: int, stop: int | None) -> None:
                last = None if stop is None else stop - 1
                part = _visible(tokens(snap.language, lines, snap.tree, snap.config.commands, first, last))
                # Slices of lines in order: the tokens follow each other as the whole document's would.
                encoded = encode(part, lines, codec, absolute[-5] if absolute else 0)
                if encoded:
                    texts.append(compact_json(encoded)[1:-1])
                data.extend(encoded)
                absolute.extend(part)

            await in_slices(window, 0, None, len(lines))
            WORK["tokens"] += len(data) // 5
            return Encoded(snap.serial, str(snap.serial), absolute, data, ",".join(texts))

        async def current(
            snap: Snapshot,
        ) -> tuple[Encoded, Encoded | None, list[types.SemanticTokensEdit] | None]:
            """(the tokens of ``snap``, the previous answer, the edits from it when known)."""
            hit, changed = last.plan(snap)
            if hit is not None and hit.serial == snap.serial:
                return hit, None, None
            if hit is not None and changed is not None and isinstance(snap.tree, CliScript):
                window = (
                    tokens(snap.language, snap.lines, snap.tree, snap.config.commands, changed.start, changed.stop - 1)
                    if changed.stop > changed.start
                    else []
                )
                done, edit = splice(hit, snap.serial, changed, window, snap.lines, server.position_codec)
                last.keep(snap, done)
                return done, hit, [edit] if edit is not None else []
            done = await build(snap)
            if hit is not None and hit.data == done.data:
                done = replace(done, result_id=hit.result_id)  # same tokens: same resultId
            last.keep(snap, done)
            return done, hit, None

        async def on_full(params: types.SemanticTokensParams) -> Prerendered | None:
            snap = await server.analyses.latest(params.text_document.uri)
            if snap is None:
                return None
            async with last.building(snap.uri):
                done, _, _ = await current(snap)
            return full_json(done)

        async def on_delta(
            params: types.SemanticTokensDeltaParams,
        ) -> Prerendered | types.SemanticTokensDelta | None:
            snap = await server.analyses.latest(params.text_document.uri)
            if snap is None:
                return None
            async with last.building(snap.uri):
                done, previous, edits = await current(snap)
            if done.result_id == params.previous_result_id:
                return types.SemanticTokensDelta(edits=[], result_id=done.result_id)
            if previous is None or previous.result_id != params.previous_result_id:
                return full_json(done)
            if edits is None:
                edit = delta(previous.data, done.data)
                edits = [edit] if edit is not None else []
            return types.SemanticTokensDelta(edits=edits, result_id=done.result_id)

        async def on_range(params: types.SemanticTokensRangeParams) -> types.SemanticTokens | None:
            snap = await server.analyses.latest(params.text_document.uri)
            if snap is None:
                return None
            codec = server.position_codec
            first = from_client(codec, snap.lines, params.range.start)[0]
            last_line = from_client(codec, snap.lines, params.range.end)[0]
            absolute = tokens(snap.language, snap.lines, snap.tree, snap.config.commands, first, last_line)
            data = encode(absolute, snap.lines, codec)
            WORK["tokens"] += len(data) // 5
            return types.SemanticTokens(data=data)

        self.on_full = on_full
        self.on_delta = on_delta
        self.on_range = on_range
