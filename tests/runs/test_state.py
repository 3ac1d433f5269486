"""RunState (heredoc_lsp.runs.state): results per document and content key, pruning when a command is edited
away, active runs, and percent-encoding differences between URIs."""

from __future__ import annotations

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.languages import Language
from heredoc_lsp.runs.state import ActiveRun, RunState, TargetResult, document_key
from heredoc_lsp.runs.targets import RunTarget, targets_for

URI = "file:///w/caf%C3%A9.cli"


def targets(text: str) -> list[RunTarget]:
    analysis = analyze(text, Language.CLI)
    return targets_for(Language.CLI, analysis.tree, analysis.diagnostics)


def command(text: str, command_text: str) -> RunTarget:
    return next(t for t in targets(text) if t.command == command_text)


def active(run_id: str, keys: set[tuple[object, ...]], uri: str = URI) -> ActiveRun:
    return ActiveRun(run_id, uri, "command", "make", RunControl(), frozenset(keys))


def test_document_key_decodes_the_uri() -> None:
    assert document_key(URI) == document_key("file:///w/café.cli") == "file:///w/café.cli"


def test_a_result_follows_its_command_when_lines_move_and_vanishes_when_it_is_edited() -> None:
    state = RunState()
    old = "make\nls\n"
    make = command(old, "make")
    state.set_result(URI, make.key, TargetResult("ok", "r1", exit_code=0))

    moved = "# comment é😀\n\nls\nmake\n"
    assert not state.prune(URI, targets(moved))
    found = state.result("file:///w/café.cli", command(moved, "make").key)  # the other spelling of the URI
    assert found is not None and found.run_id == "r1"

    edited = "make all\nls\n"
    assert state.prune(URI, targets(edited))
    assert state.result(URI, make.key) is None and not state.has_results(URI)


def test_prune_keeps_the_result_of_a_running_target() -> None:
    state = RunState()
    make = command("make\n", "make")
    state.set_result(URI, make.key, TargetResult("running", "r1"))
    state.start(active("r1", {make.key}))
    assert state.running(URI, make.key) is not None
    assert not state.prune(URI, targets("other\n"))
    assert state.result(URI, make.key) is not None
    finished = state.finish("r1")
    assert finished is not None and finished.run_id == "r1"
    assert state.running(URI, make.key) is None and state.finish("r1") is None
    assert state.prune(URI, targets("other\n"))


def test_revision_counts_every_change() -> None:
    state = RunState()
    key = command("make\n", "make").key
    seen = [state.revision]
    state.set_result(URI, key, TargetResult("ok", "r1"))
    seen.append(state.revision)
    state.start(active("r2", {key}))
    seen.append(state.revision)
    state.finish("r2")
    seen.append(state.revision)
    state.forget(URI)
    seen.append(state.revision)
    assert seen == sorted(set(seen)) and len(seen) == 5
    assert state.results_of(URI) == {}


def test_runs_are_per_document() -> None:
    state = RunState()
    key = command("make\n", "make").key
    state.start(active("a", {key}))
    state.start(active("b", {key}, uri="file:///w/other.cli"))
    assert [r.run_id for r in state.runs_of("file:///w/café.cli")] == ["a"]
    assert state.running("file:///w/other.cli", key) is not None
    assert state.running("file:///w/third.cli", key) is None


def test_ok_counts_skipped_but_not_failures() -> None:
    assert TargetResult("ok", "r").ok and TargetResult("skipped", "r").ok
    for status in ("failed", "timeout", "cancelled", "rejected", "running"):
        assert not TargetResult(status, "r").ok
