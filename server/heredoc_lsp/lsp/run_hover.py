"""Hover with the last run's result and output of the command or block under the cursor: the run feature's
:meth:`~heredoc_lsp.lsp.feature.Feature.hover` part (Markdown or None), joined by :mod:`heredoc_lsp.lsp.hover`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.runs.targets import target_at
from heredoc_lsp.runs.view import hover_markdown

if TYPE_CHECKING:
    from heredoc_lsp.lsp.run_commands import RunFeature


def run_hover_markdown(feature: RunFeature, snap: Snapshot, position: types.Position) -> str | None:
    """Markdown describing the last run (or the current run) of the target under ``position``, else None."""
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
