"""Hover with the last run's result and output of the command or block under the cursor: the run feature's
:meth:`~heredoc_lsp.lsp.feature.Feature.hover` part (Markdown or None), joined by :mod:`heredoc_lsp.lsp.hover`.
"""

from __future__ import annotations

from lsprotocol import types

from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.run.targets import RunTargets
from heredoc_lsp.runs.targets import target_at
from heredoc_lsp.runs.view import hover_markdown


def run_hover_markdown(targets_of: RunTargets, snap: Snapshot, position: types.Position) -> str | None:
    """Markdown describing the last run (or the current run) of the target under ``position``, else None."""
    state = targets_of.state
    if not state.results_of(snap.uri) and not state.runs_of(snap.uri):
        # Nothing ran yet: skip building every run target (seconds on a 100k-line script right after an edit).
        return None
    targets = targets_of(snap)
    if not targets:
        return None
    target = target_at(targets, position.line)
    if target is None and position.line == 0:
        target = targets[0]  # the whole script / reply
    if target is None:
        return None
    return hover_markdown(target, state.result(snap.uri, target.key), state.running(snap.uri, target.key))
