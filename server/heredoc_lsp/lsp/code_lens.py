"""Code lenses: ``▶ Run`` above every runnable command, ``▶ Run script`` / ``▶ Apply reply`` at the top, ``▶ Run``
on every ``[RUN_COMMAND]`` block, and after a run its result (``✓ exit 0 · 0.3 s``; clicking it opens the log).

While a run goes on, its lens reads ``⏳ running 2.1 s · ■ Cancel`` and cancels it. A script with errors gets a
lens at the top that says why (not clickable); each command without an error of its own keeps its ``▶ Run``
(SPEC §10). Nothing is offered in an untrusted workspace. Lenses are computed from the current snapshot, each
command carrying the document version the lens was made for, and sent as JSON text kept per target.

:class:`CodeLensFeature` answers ``textDocument/codeLens`` and ``codeLens/resolve`` with every feature's
:meth:`~heredoc_lsp.lsp.feature.Feature.code_lenses`; the run feature makes its lenses with :class:`LensCache`.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from heredoc_lsp.lsp.analysis import Changed, Snapshot
from heredoc_lsp.lsp.commands import APPLY_REPLY, CANCEL_RUN, RUN_BLOCK, RUN_COMMAND, RUN_SCRIPT, SHOW_RUN_OUTPUT
from heredoc_lsp.lsp.documents import DocumentStore
from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.protocol import Prerendered
from heredoc_lsp.lsp.splice import Build, Parts, update, update_sliced
from heredoc_lsp.lsp.wire import range_text
from heredoc_lsp.lsp.work import WORK
from heredoc_lsp.runs.state import ActiveRun, TargetResult
from heredoc_lsp.runs.targets import RunTarget
from heredoc_lsp.runs.view import APPLY_REPLY_TITLE, RUN_SCRIPT_TITLE, RUN_TITLE, result_title, running_title

if TYPE_CHECKING:
    from heredoc_lsp.lsp.feature import Server
    from heredoc_lsp.lsp.run_commands import RunFeature

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
    t: RunTarget, runs: Sequence[ActiveRun], results: Mapping[Any, TargetResult], base: str, steps: bool
) -> list[tuple[str, str, str]]:
    """The lenses of target ``t`` as (title, command id, JSON text of the argument or "")."""
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
    return out


def lens_texts(
    feature: RunFeature, snap: Snapshot, targets: Sequence[RunTarget], steps: bool, lazy: int | None = None
) -> list[str]:
    """The lenses of ``targets`` as JSON texts, in order, with :data:`VERSION` where the document version goes
    (``steps``: the document has commands or blocks; pure given the feature's state). ``lazy`` (a document
    number): lenses without their command, which ``codeLens/resolve`` adds (:func:`resolve_lens`)."""
    return [text for texts in lenses_per_target(feature, snap, targets, steps, lazy) for text in texts]


def lenses_per_target(
    feature: RunFeature, snap: Snapshot, targets: Sequence[RunTarget], steps: bool, lazy: int | None = None
) -> list[list[str]]:
    """:func:`lens_texts` of each target."""
    codec = feature.server.position_codec
    lines = snap.lines
    out: list[list[str]] = []
    runs = feature.state.runs_of(snap.uri)
    results = feature.state.results_of(snap.uri)
    base = f'"uri":{json.dumps(snap.uri)},"version":{VERSION}'
    for t in targets:
        specs = _lens_specs(t, runs, results, base, steps)
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


def resolve_lens(feature: RunFeature, snap: Snapshot, version: int, line: int, k: int) -> str | None:
    """The JSON text of lens ``k`` of the target on ``line`` with its command, made for ``version`` (a run from
    a lens of an older version is refused as stale), or None when there is no such lens any more."""
    targets = feature.targets(snap)
    i = bisect_left(targets, line, 1, key=_line_of)
    if i >= len(targets) or targets[i].line != line:
        return None
    texts = lens_texts(feature, snap, targets[i : i + 1], len(targets) > 1)
    return texts[k].replace(VERSION, str(version)) if k < len(texts) else None


class LensCache:
    """The lenses of each document as JSON texts, per target (:mod:`heredoc_lsp.lsp.splice`).

    Editors ask for lenses often (Neovim on every refresh autocmd, VS Code after every change); a 100k-line script
    has some 50k of them. While the run state is the same, an edit rebuilds the lenses of the re-parsed commands
    only; lists with a running lens are never kept (they show elapsed time).
    """

    def __init__(self, server: Server) -> None:
        self.server = server
        # per document: (run state revision, lazy) and the lenses of its command or block targets
        self._parts: dict[str, tuple[tuple[int, bool], Parts[list[str]]]] = {}
        self.numbers: dict[str, int] = {}  # document key -> its number in lazy lenses' data
        self.uris: dict[int, str] = {}

    def get(self, feature: RunFeature, snap: Snapshot) -> str:
        """The lenses of ``snap`` as one JSON array."""
        key = DocumentStore.key(snap.uri)
        if not feature.gate.trusted():
            self._parts.pop(key, None)
            return "[]"
        targets = feature.targets(snap)
        if not targets:
            return "[]"
        steps = len(targets) > 1
        head = lens_texts(feature, snap, targets[:1], steps)  # the whole-document lens depends on every line
        stamp, previous, changed, build = self._plan(feature, snap, targets)
        done = update(previous, snap.serial, changed, build)
        self._keep(feature, snap, stamp, done)
        texts = [*head, *(text for texts in done.values for text in texts)]
        return ("[" + ",".join(texts) + "]").replace(VERSION, str(snap.version))

    async def prepare(self, feature: RunFeature, snap: Snapshot) -> None:
        """Build the lenses of ``snap`` in slices when there is no answer to splice them into."""
        if not feature.gate.trusted():
            return
        targets = feature.targets(snap)
        if not targets:
            return
        stamp, previous, changed, build = self._plan(feature, snap, targets)
        if previous is not None and changed is not None:
            return  # an edit's window: get() splices it at once
        done = await update_sliced(previous, snap.serial, changed, build, len(snap.lines))
        if self.server.documents.get(snap.uri) is not None:
            self._keep(feature, snap, stamp, done)

    def _keep(self, feature: RunFeature, snap: Snapshot, stamp: tuple[int, bool], done: Parts[list[str]]) -> None:
        key = DocumentStore.key(snap.uri)
        if feature.state.runs_of(snap.uri):
            self._parts.pop(key, None)
            return
        cached = self._parts.get(key)
        if cached is None or cached[0] != stamp or cached[1].serial <= done.serial:
            self._parts[key] = (stamp, done)

    def _plan(
        self, feature: RunFeature, snap: Snapshot, targets: list[RunTarget]
    ) -> tuple[tuple[int, bool], Parts[list[str]] | None, Changed | None, Build[list[str]]]:
        """What :func:`update` needs for the lenses of ``snap``'s command or block ``targets``, and the stamp
        (run state revision, lazy) their parts are kept under."""
        key = DocumentStore.key(snap.uri)
        steps = len(targets) > 1
        lazy = len(targets) > LAZY_LENSES
        number: int | None = None
        if lazy:
            number = self.numbers.setdefault(key, len(self.numbers) + 1)
            self.uris[number] = snap.uri

        def build(first: int, stop: int | None) -> tuple[list[int], list[list[str]]]:
            lo = bisect_left(targets, first, 1, key=_line_of)
            hi = len(targets) if stop is None else bisect_left(targets, stop, lo, key=_line_of)
            chosen = targets[lo:hi]
            return [t.line for t in chosen], lenses_per_target(feature, snap, chosen, steps, number)

        stamp = (feature.state.revision, lazy)
        cached = self._parts.get(key)
        previous = cached[1] if cached is not None and cached[0] == stamp else None
        changed = None if previous is None else self.server.analyses.changes_since(snap, previous.serial)
        return stamp, previous, changed, build

    def forget(self, uri: str) -> None:
        key = DocumentStore.key(uri)
        self._parts.pop(key, None)
        number = self.numbers.pop(key, None)
        if number is not None:
            self.uris.pop(number, None)


def _line_of(target: RunTarget) -> int:
    return target.line


class CodeLensFeature(Feature):
    """Every feature's lenses in one answer (``FEATURES`` order)."""

    def register(self) -> None:
        server = self.server

        @server.feature(types.CODE_LENS_RESOLVE)
        @guarded(server)
        def on_resolve(lens: types.CodeLens) -> types.CodeLens | Prerendered:
            if lens.command is not None:
                return lens
            found = [text for text in server.each(lambda f: f.resolve_code_lens(lens), "resolve_code_lens") if text]
            return Prerendered(found[0]) if found else lens

        @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
        @guarded(server, default=[])
        async def on_code_lens(params: types.CodeLensParams) -> list[types.CodeLens] | Prerendered:
            snap = await server.prepared(params.text_document.uri)
            if snap is None:
                return []
            found = [text for text in server.each(lambda f: f.code_lenses(snap), "code_lenses") if text]
            if len(found) == 1:
                return Prerendered(found[0])
            items = [text[1:-1] for text in found if text != "[]"]
            return Prerendered("[" + ",".join(items) + "]")
