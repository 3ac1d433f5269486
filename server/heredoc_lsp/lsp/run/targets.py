"""The run targets of each open document (:mod:`heredoc_lsp.runs.targets`), kept across edits.

A ``.cli`` script's command targets are built once and spliced after an edit (only the re-parsed items are built
again, :mod:`heredoc_lsp.lsp.splice`); repeated contents are renumbered only when an edit touched one of them.
Every view of the run feature (lenses, actions, hover, ``run_failed`` diagnostics) and every run read them here.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter

from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.documents import DocumentStore
from heredoc_lsp.lsp.splice import Build, Parts, View, ViewCache, update, update_sliced
from heredoc_lsp.lsp.work import WORK
from heredoc_lsp.runs.state import RunState, TargetResult
from heredoc_lsp.runs.targets import (
    RunTarget,
    TargetKey,
    cli_command_targets,
    content_of,
    errors_of,
    number_occurrences,
    script_target,
    targets_for,
)
from heredoc_lsp.syntax.cli import CliScript
from heredoc_lsp.syntax.diagnostics import Diagnostic


def _numbered(tree: CliScript, errors: list[Diagnostic], seen: dict[TargetKey, int]) -> Build[RunTarget]:
    """A first build of a script's command targets: built from its first line on, in order (at once or in
    slices), ``seen`` numbers repeated contents across the calls and ends as their counts."""

    def build(first: int, stop: int | None) -> tuple[list[int], list[RunTarget]]:
        made = cli_command_targets(tree, errors, first, stop, seen)
        WORK["run_targets"] += len(made)
        return [t.line for t in made], made

    return build


class RunTargets:
    """Run targets per document, computed once per snapshot; stale results are pruned from ``state`` on the way."""

    def __init__(self, views: ViewCache, state: RunState) -> None:
        self.state = state
        self._targets: dict[str, tuple[int, list[RunTarget]]] = {}
        # Per .cli document: its command targets and how often each content occurs (kept across edits).
        self._commands: View[tuple[Parts[RunTarget], Counter[TargetKey]]] = views.view()

    def __call__(self, snap: Snapshot) -> list[RunTarget]:
        """The run targets of ``snap``: the whole script or reply first, then its commands or blocks."""
        key = DocumentStore.key(snap.uri)
        cached = self._targets.get(key)
        if cached is not None and cached[0] == snap.serial:
            return cached[1]
        if isinstance(snap.tree, CliScript):
            commands = self._cli_commands(snap)
            found = [script_target(commands, errors_of(snap.tree.diagnostics, snap.diagnostics)), *commands]
        else:
            found = targets_for(snap.language, snap.tree, snap.diagnostics)
            WORK["run_targets"] += len(found)
        self._targets[key] = (snap.serial, found)
        self.state.prune(snap.uri, found)
        return found

    def results(self, snap: Snapshot) -> list[tuple[RunTarget, TargetResult]]:
        """The targets of ``snap`` that have a stored result, with it."""
        if not self.state.has_results(snap.uri):
            return []  # no run target is built for a document that never ran (every push asks)
        return [(t, r) for t in self(snap) if (r := self.state.result(snap.uri, t.key)) is not None]

    async def prepare(self, snap: Snapshot) -> None:
        """A script's first command targets, built in slices (50k of them in a 100k-line script)."""
        if not isinstance(snap.tree, CliScript) or self._commands.fits(snap):
            return
        seen: dict[TargetKey, int] = {}
        build = _numbered(snap.tree, errors_of(snap.tree.diagnostics, snap.diagnostics), seen)
        parts = await update_sliced(None, snap.serial, None, build, len(snap.lines))
        self._commands.keep(snap, (parts, Counter(seen)))

    def forget(self, uri: str) -> None:
        self._targets.pop(DocumentStore.key(uri), None)

    def _cli_commands(self, snap: Snapshot) -> list[RunTarget]:
        tree = snap.tree
        assert isinstance(tree, CliScript)
        errors = errors_of(tree.diagnostics, snap.diagnostics)
        previous, changed = self._commands.plan(snap)
        if previous is None or changed is None:
            seen: dict[TargetKey, int] = {}
            first = update(None, snap.serial, None, _numbered(tree, errors, seen))
            self._commands.keep(snap, (first, Counter(seen)))
            return first.values
        parts, counts = previous
        gone: list[RunTarget] = []

        def build(first: int, stop: int | None) -> tuple[list[int], list[RunTarget]]:
            i = bisect_left(parts.lines, first)
            j = len(parts.lines) if stop is None else bisect_left(parts.lines, stop)
            gone.extend(parts.values[i:j])
            made = cli_command_targets(tree, errors, first, stop)
            WORK["run_targets"] += len(made)
            return [t.line for t in made], made

        spliced = update(parts, snap.serial, changed, build)
        if spliced is parts:
            return parts.values
        k = bisect_left(spliced.lines, changed.start)
        made = spliced.values[k : k + spliced.rebuilt]
        before = {content_of(t): counts[content_of(t)] for t in (*gone, *made)}
        for t in gone:
            counts[content_of(t)] -= 1
        for t in made:
            counts[content_of(t)] += 1
        # A content seen more than once, now or before the edit, needs its copies renumbered.
        repeated = {c for c, n in before.items() if counts[c] > 0 and (n > 1 or counts[c] > 1)}
        commands = spliced.values
        if repeated:
            commands = number_occurrences(commands, repeated)
            spliced = Parts(spliced.serial, spliced.lines, commands, spliced.rebuilt)
        self._commands.keep(snap, (spliced, counts))
        return commands
