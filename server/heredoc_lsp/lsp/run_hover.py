"""Hover with the last run's result and output of the command or block under the cursor.

:func:`run_hover_markdown` is the pure part (markdown or None). pygls allows one ``textDocument/hover`` handler:
when the hover module offers a provider list (``server.hover_providers``), the run hover is added there; when no
hover handler exists at all, :func:`register` installs a handler that shows only run results.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.positions import span_to_range
from heredoc_lsp.lsp.run_commands import feature_of
from heredoc_lsp.runs.targets import target_at
from heredoc_lsp.runs.view import hover_markdown

if TYPE_CHECKING:
    from heredoc_lsp.lsp.server import HeredocLanguageServer

log = logging.getLogger(__name__)


def run_hover_markdown(server: HeredocLanguageServer, snap: Snapshot, position: types.Position) -> str | None:
    """Markdown describing the last run (or the current run) of the target under ``position``, else None."""
    feature = feature_of(server)
    if feature is None:
        return None
    if not feature.state.results_of(snap.uri) and not feature.state.runs_of(snap.uri):
        # Nothing ran yet: skip building every run target (seconds on a 100k-line script right after an edit).
        return None
    targets = feature.targets(snap)
    if not targets:
        return None
    target = target_at(targets, position.line)
    if target is None and position.line == 0:
        target = targets[0]  # the whole script / reply
    if target is None:
        return None
    return hover_markdown(
        target, feature.state.result(snap.uri, target.key), feature.state.running(snap.uri, target.key)
    )


def run_hover(server: HeredocLanguageServer, snap: Snapshot, position: types.Position) -> types.Hover | None:
    text = run_hover_markdown(server, snap, position)
    if text is None:
        return None
    feature = feature_of(server)
    target = target_at(feature.targets(snap), position.line) if feature is not None else None
    rng = span_to_range(server.position_codec, snap.lines, target.span) if target is not None else None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=rng)


def register(server: HeredocLanguageServer) -> None:
    providers = getattr(server, "hover_providers", None)
    if isinstance(providers, list):
        providers.append(lambda snap, position: run_hover_markdown(server, snap, position))
        return
    if types.TEXT_DOCUMENT_HOVER in server.protocol.fm.features:
        log.info("a hover handler exists without a provider list: run results are not added to hovers")
        return

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded(server, default=None)
    def on_hover(params: types.HoverParams) -> types.Hover | None:
        snap = server.analyses.get(params.text_document.uri)
        if snap is None:
            return None
        return run_hover(server, snap, params.position)
