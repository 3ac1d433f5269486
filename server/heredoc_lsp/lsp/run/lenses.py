"""Code lenses: ``▶ Run`` above every runnable command, ``▶ Run script`` / ``▶ Apply reply`` and ``Preview reply``
at the top, ``▶ Run`` on every ``[RUN_COMMAND]`` block, and after a run its result (``✓ exit 0 · 0.3 s``; clicking it
opens the log); ``↶ Undo last reply`` at the top of a reply that was applied.

While a run goes on, its lens reads ``⏳ running 2.1 s · ■ Cancel`` and cancels it. A script with errors gets a
lens at the top that says why (not clickable); each command without an error of its own keeps its ``▶ Run``
(docs/running.md). Nothing is offered in an untrusted workspace. Lenses are computed from the current snapshot, each
command carrying the document version the lens was made for, and sent as JSON text kept per target.

The run feature's :meth:`~heredoc_lsp.lsp.feature.Feature.code_lenses` contribution (:class:`Lenses`), joined with
every other feature's by :mod:`heredoc_lsp.lsp.code_lens`.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pygls.workspace import PositionCodec

from heredoc_lsp.lsp.analysis import Changed, Snapshot
from heredoc_lsp.lsp.commands import (
    APPLY_REPLY,
    CANCEL_RUN,
    PREVIEW_REPLY,
    RUN_BLOCK,
    RUN_COMMAND,
    RUN_SCRIPT,
    SHOW_RUN_OUTPUT,
    UNDO_REPLY,
)
from heredoc_lsp.lsp.documents import DocumentStore
from heredoc_lsp.lsp.run.gate import RunGate
from heredoc_lsp.lsp.run.targets import RunTargets
from heredoc_lsp.lsp.splice import Build, Parts, View, ViewCache, update, update_sliced
from heredoc_lsp.lsp.wire import range_text
from heredoc_lsp.lsp.work import WORK
from heredoc_lsp.runs.state import ActiveRun, RunState, TargetResult
from heredoc_lsp.runs.targets import RunTarget
from heredoc_lsp.runs.view import (
    APPLY_REPLY_TITLE,
    PREVIEW_REPLY_TITLE,
    RUN_SCRIPT_TITLE,
    RUN_TITLE,
    UNDO_REPLY_TITLE,
    result_title,
    running_title,
)

# Above this many run targets, lenses are sent without their command (a 100k-line script has 50k of them, 12 MB
# of JSON) and each is resolved when the editor shows it (codeLens/resolve: VS Code, Neovim).
LAZY_LENSES = 2000
NOT_CLICKABLE = ""  # a lens whose command id is empty is shown as text (VS Code) and skipped by codelens.run (Neovim)
PROBLEM_CHARS = 200


def _problem_title(problem: str) -> str:
    text = problem.split("\n", 1)[0]
    if len(text) > PROBLEM_CHARS:
        text = text[: PROBLEM_CHARS - 1] + "…"
    return f"⚠ {text}"


def _shows_running(run: ActiveRun | None, target: RunTarget) -> bool:
    if run is None:
        return False
    if run.kind == target.kind:
        return True
    # Inside a script or reply run, only the step running now says so.
    return run.current_line == target.line + 1


VERSION = "\x00"  # stands for the document version in a lens's JSON text (JSON text never holds a raw NUL)


def _lens_specs(
    t: RunTarget,
    runs: Sequence[ActiveRun],
    results: Mapping[Any, TargetResult],
    base: str,
    steps: bool,
    applied: bool = False,
) -> list[tuple[str, str, str]]:
    """The lenses of target ``t`` as (title, command id, JSON text of the argument or ""); ``applied``: the reply
    was applied (an undo is offered)."""
    out: list[tuple[str, str, str]] = []
    run = next((r for r in runs if t.key in r.keys), None) if runs else None
    if _shows_running(run, t):
        assert run is not None
        out.append((running_title(run), CANCEL_RUN, json.dumps({"runId": run.run_id})))
    elif run is not None:
        pass  # waiting for its turn in a script or reply run
    elif t.kind == "script":
        if t.runnable:
            out.append((RUN_SCRIPT_TITLE, RUN_SCRIPT, f"{{{base}}}"))
        elif steps and t.problem:
            out.append((_problem_title(t.problem), NOT_CLICKABLE, ""))
    elif t.kind == "reply":
        if t.runnable:
            out.append((APPLY_REPLY_TITLE, APPLY_REPLY, f"{{{base}}}"))
            out.append((PREVIEW_REPLY_TITLE, PREVIEW_REPLY, f"{{{base}}}"))
    elif t.runnable:
        command = RUN_COMMAND if t.kind == "command" else RUN_BLOCK
        out.append((RUN_TITLE, command, f'{{{base},"line":{t.line}}}'))
    elif t.kind == "block" and t.problem:
        out.append((_problem_title(t.problem), NOT_CLICKABLE, ""))
    result = results.get(t.key)
    if result is not None:
        argument: dict[str, Any] = {"runId": result.run_id}
        if result.file is not None:
            argument["file"] = str(result.file)  # the result of a file command opens the file
        out.append((result_title(t, result), SHOW_RUN_OUTPUT, json.dumps(argument)))
    if applied and t.kind == "reply" and run is None:
        uri_only = base.split(',"version":', 1)[0]  # undo names the reply's workspace, not a version of it
        out.append((UNDO_REPLY_TITLE, UNDO_REPLY, f"{{{uri_only}}}"))
    return out


def lenses_per_target(
    codec: PositionCodec,
    state: RunState,
    snap: Snapshot,
    targets: Sequence[RunTarget],
    steps: bool,
    lazy: int | None = None,
    applied: bool = False,
) -> list[list[str]]:
    """The lenses of each of ``targets`` as JSON texts, with :data:`VERSION` where the document version goes
    (``steps``: the document has commands or blocks; pure given the run ``state``). ``lazy`` (a document number):
    lenses without their command, which ``codeLens/resolve`` adds (:meth:`Lenses.resolve`). ``applied``: the document
    is a reply that was applied (its top lens offers "Undo last reply")."""
    lines = snap.lines
    out: list[list[str]] = []
    runs = state.runs_of(snap.uri)
    results = state.results_of(snap.uri)
    base = f'"uri":{json.dumps(snap.uri)},"version":{VERSION}'
    for t in targets:
        specs = _lens_specs(t, runs, results, base, steps, applied)
        if not specs:
            out.append([])
            continue
        rng = range_text(codec, lines, t.span)
        if lazy is not None:
            out.append([f'{{"range":{rng},"data":[{lazy},{VERSION},{t.line},{k}]}}' for k in range(len(specs))])
            continue
        texts = []
        for title, command, argument in specs:
            arguments = f',"arguments":[{argument}]' if argument else ""
            texts.append(
                f'{{"range":{rng},"command":{{"title":{json.dumps(title)},"command":"{command}"{arguments}}}}}'
            )
        out.append(texts)
    WORK["lenses"] += len(targets)
    return out


_Stamp = tuple[int, bool]  # (run state revision, lazy): what a document's kept lenses were made under


class Lenses:
    """The lenses of each document as JSON texts, per target (:mod:`heredoc_lsp.lsp.splice`).

    Editors ask for lenses often (Neovim on every refresh autocmd, VS Code after every change); a 100k-line script
    has some 50k of them. While the run state is the same, an edit rebuilds the lenses of the re-parsed commands
    only; lists with a running lens are never kept (they show elapsed time).
    """

    def __init__(
        self,
        views: ViewCache,
        codec: Callable[[], PositionCodec],
        targets: RunTargets,
        state: RunState,
        gate: RunGate,
        applied: Callable[[Snapshot], bool] | None = None,
    ) -> None:
        self.analyses = views.analyses
        self.codec = codec
        self.targets = targets
        self.state = state
        self.gate = gate
        self.applied = applied or (lambda snap: False)  # whether a reply was applied (the Undo lens)
        self._parts: View[Parts[list[str]]] = views.view()
        self.numbers: dict[str, int] = {}  # document key -> its number in lazy lenses' data
        self.uris: dict[int, str] = {}

    def texts(self, snap: Snapshot, targets: Sequence[RunTarget], steps: bool, lazy: int | None = None) -> list[str]:
        """The lenses of ``targets`` as JSON texts, in order (:func:`lenses_per_target`)."""
        applied = bool(targets) and targets[0].kind == "reply" and self.applied(snap)
        found = lenses_per_target(self.codec(), self.state, snap, targets, steps, lazy, applied)
        return [text for texts in found for text in texts]

    def get(self, snap: Snapshot) -> str:
        """The lenses of ``snap`` as one JSON array."""
        if not self.gate.trusted():
            self._parts.drop(snap.uri)
            return "[]"
        targets = self.targets(snap)
        if not targets:
            return "[]"
        steps = len(targets) > 1
        head = self.texts(snap, targets[:1], steps)  # the whole-document lens depends on every line
        stamp, previous, changed, build = self._plan(snap, targets)
        done = update(previous, snap.serial, changed, build)
        self._keep(snap, stamp, done)
        texts = [*head, *(text for texts in done.values for text in texts)]
        return ("[" + ",".join(texts) + "]").replace(VERSION, str(snap.version))

    async def prepare(self, snap: Snapshot) -> None:
        """Build the lenses of ``snap`` in slices when there is no answer to splice them into."""
        if not self.gate.trusted():
            return
        targets = self.targets(snap)
        if not targets:
            return
        stamp, previous, changed, build = self._plan(snap, targets)
        if previous is not None and changed is not None:
            return  # an edit's window: get() splices it at once
        done = await update_sliced(previous, snap.serial, changed, build, len(snap.lines))
        self._keep(snap, stamp, done)

    def resolve(self, number: int, version: int, line: int, k: int) -> str | None:
        """The JSON text of lens ``k`` of the target on ``line`` of document ``number`` with its command, made
        for ``version`` (a run from a lens of an older version is refused as stale), or None when there is no such
        lens any more."""
        uri = self.uris.get(number)
        snap = self.analyses.get(uri) if uri is not None else None
        if snap is None:
            return None
        targets = self.targets(snap)
        i = bisect_left(targets, line, 1, key=_line_of)
        if i >= len(targets) or targets[i].line != line:
            return None
        texts = self.texts(snap, targets[i : i + 1], len(targets) > 1)
        return texts[k].replace(VERSION, str(version)) if k < len(texts) else None

    def _keep(self, snap: Snapshot, stamp: _Stamp, done: Parts[list[str]]) -> None:
        if self.state.runs_of(snap.uri):
            self._parts.drop(snap.uri)
        else:
            self._parts.keep(snap, done, stamp=stamp)

    def _plan(
        self, snap: Snapshot, targets: list[RunTarget]
    ) -> tuple[_Stamp, Parts[list[str]] | None, Changed | None, Build[list[str]]]:
        """What :func:`update` needs for the lenses of ``snap``'s command or block ``targets``, and the stamp
        their parts are kept under."""
        key = DocumentStore.key(snap.uri)
        steps = len(targets) > 1
        lazy = len(targets) > LAZY_LENSES
        number: int | None = None
        if lazy:
            number = self.numbers.setdefault(key, len(self.numbers) + 1)
            self.uris[number] = snap.uri
        codec = self.codec()

        def build(first: int, stop: int | None) -> tuple[list[int], list[list[str]]]:
            lo = bisect_left(targets, first, 1, key=_line_of)
            hi = len(targets) if stop is None else bisect_left(targets, stop, lo, key=_line_of)
            chosen = targets[lo:hi]
            return [t.line for t in chosen], lenses_per_target(codec, self.state, snap, chosen, steps, number)

        stamp = (self.state.revision, lazy)
        previous, changed = self._parts.plan(snap, stamp=stamp)
        return stamp, previous, changed, build

    def forget(self, uri: str) -> None:
        number = self.numbers.pop(DocumentStore.key(uri), None)
        if number is not None:
            self.uris.pop(number, None)


def _line_of(target: RunTarget) -> int:
    return target.line
