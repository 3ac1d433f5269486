"""Code lenses: ``▶ Run`` above every runnable command, ``▶ Run script`` / ``▶ Apply reply`` at the top, ``▶ Run``
on every ``[RUN_COMMAND]`` block, and after a run its result (``✓ exit 0 · 0.3 s``; clicking it opens the log).

While a run goes on, its lens reads ``⏳ running 2.1 s · ■ Cancel`` and cancels it. A document whose errors make
the run refuse gets one lens at the top that says why (not clickable) and no run lens. Nothing is offered in an
untrusted workspace. Lenses are computed from the current snapshot, each command carrying the document version
the lens was made for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.documents import DocumentStore
from heredoc_lsp.lsp.positions import to_client
from heredoc_lsp.lsp.run_commands import (
    APPLY_REPLY,
    CANCEL_RUN,
    RUN_BLOCK,
    RUN_COMMAND,
    RUN_SCRIPT,
    SHOW_RUN_OUTPUT,
    RunFeature,
    feature_of,
)
from heredoc_lsp.lsp.run_state import ActiveRun
from heredoc_lsp.lsp.run_targets import RunTarget
from heredoc_lsp.lsp.run_view import APPLY_REPLY_TITLE, RUN_SCRIPT_TITLE, RUN_TITLE, result_title, running_title

if TYPE_CHECKING:
    from heredoc_lsp.lsp.server import HeredocLanguageServer

NOT_CLICKABLE = ""  # a lens whose command id is empty is shown as text (VS Code) and skipped by codelens.run (Neovim)
PROBLEM_CHARS = 200


def _lens(rng: types.Range, title: str, command: str, argument: dict[str, Any] | None = None) -> types.CodeLens:
    arguments: list[Any] | None = [argument] if argument is not None else None
    return types.CodeLens(range=rng, command=types.Command(title=title, command=command, arguments=arguments))


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


def lenses_for(feature: RunFeature, snap: Snapshot) -> list[types.CodeLens]:
    """Every lens of a document (pure given the feature's state)."""
    if not feature.gate.trusted():
        return []
    targets = feature.targets(snap)
    if not targets:
        return []
    codec = feature.server.position_codec
    out: list[types.CodeLens] = []
    steps = any(t.kind in ("command", "block") for t in targets)
    runs = feature.state.runs_of(snap.uri)
    results = feature.state.results_of(snap.uri)
    base = {"uri": snap.uri, "version": snap.version}
    for t in targets:
        rng = types.Range(
            start=to_client(codec, snap.lines, t.line, t.col), end=to_client(codec, snap.lines, t.line, t.end_col)
        )
        run = next((r for r in runs if t.key in r.keys), None) if runs else None
        if _shows_running(run, t):
            assert run is not None
            out.append(_lens(rng, running_title(run), CANCEL_RUN, {"runId": run.run_id}))
        elif run is not None:
            pass  # waiting for its turn in a script or reply run
        elif t.kind == "script":
            if t.runnable:
                out.append(_lens(rng, RUN_SCRIPT_TITLE, RUN_SCRIPT, base))
            elif steps and t.problem:
                out.append(_lens(rng, _problem_title(t.problem), NOT_CLICKABLE))
        elif t.kind == "reply":
            if t.runnable:
                out.append(_lens(rng, APPLY_REPLY_TITLE, APPLY_REPLY, base))
        elif t.runnable:
            command = RUN_COMMAND if t.kind == "command" else RUN_BLOCK
            out.append(_lens(rng, RUN_TITLE, command, {**base, "line": t.line}))
        elif t.kind == "block" and t.problem:
            out.append(_lens(rng, _problem_title(t.problem), NOT_CLICKABLE))
        result = results.get(t.key)
        if result is not None:
            argument: dict[str, Any] = {"runId": result.run_id}
            if result.file is not None:
                argument["file"] = str(result.file)  # the result of a file command opens the file
            out.append(_lens(rng, result_title(t, result), SHOW_RUN_OUTPUT, argument))
    return out


class LensCache:
    """The last lens list per document, reused while neither the text nor the run state changed.

    Editors ask for lenses often (Neovim on every refresh autocmd, VS Code after every change); building thousands
    of lens objects is the expensive part. Lists with a running lens are never reused (they show elapsed time).
    """

    def __init__(self) -> None:
        self._cache: dict[str, tuple[tuple[int, int, bool], list[types.CodeLens]]] = {}

    def get(self, feature: RunFeature, snap: Snapshot) -> list[types.CodeLens]:
        stamp = (snap.serial, feature.state.revision, feature.gate.trusted())
        key = DocumentStore.key(snap.uri)
        cached = self._cache.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        lenses = lenses_for(feature, snap)
        if feature.state.runs_of(snap.uri):
            self._cache.pop(key, None)
        else:
            self._cache[key] = (stamp, lenses)
        return lenses

    def forget(self, uri: str) -> None:
        self._cache.pop(DocumentStore.key(uri), None)


def register(server: HeredocLanguageServer) -> None:
    from heredoc_lsp.lsp.server import guarded

    cache = LensCache()
    server.hooks.closed.append(cache.forget)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    @guarded(server, default=[])
    def on_code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
        feature = feature_of(server)
        snap = server.analyses.get(params.text_document.uri)
        if feature is None or snap is None:
            return []
        return cache.get(feature, snap)
