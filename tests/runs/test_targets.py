"""Run targets (heredoc_lsp.runs.targets) on analysed snapshots: what runs, what is refused and why, and the content
keys that carry a result along when lines move and drop it when the command changes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.languages import Language
from heredoc_lsp.runs.targets import RunTarget, number_occurrences, short, target_at, targets_for
from heredoc_lsp.syntax.diagnostics import Span


def cli(text: str) -> list[RunTarget]:
    analysis = analyze(text, Language.CLI)
    return targets_for(Language.CLI, analysis.tree, analysis.diagnostics)


def inbox(text: str) -> list[RunTarget]:
    analysis = analyze(text, Language.INBOX)
    return targets_for(Language.INBOX, analysis.tree, analysis.diagnostics)


def commands(targets: list[RunTarget]) -> dict[str, RunTarget]:
    return {t.command: t for t in targets if t.kind == "command"}


SCRIPT = "# é😀 setup\necho é😀\ncat <<EOF\nbody é😀\nEOF\n\nls -l\n"


def test_script_target_first_then_each_command_with_its_lines_and_span() -> None:
    targets = cli(SCRIPT)
    assert [(t.kind, t.line, t.end_line, t.command) for t in targets] == [
        ("script", 0, 0, ""),
        ("command", 1, 1, "echo é😀"),
        ("command", 2, 4, "cat"),  # the heredoc's lines belong to its command
        ("command", 6, 6, "ls -l"),
    ]
    script = targets[0]
    assert script.runnable and script.problem is None and script.label == "3 commands"
    # the lens/result span covers the command text in code points (é and 😀 are one column each)
    assert targets[1].span == Span(1, 0, 1, 7)
    assert all(t.runnable and t.problem is None for t in targets)


def test_an_unclosed_heredoc_refuses_its_command_and_the_script_with_the_reason() -> None:
    targets = cli("echo ok\ncat <<EOF\nnever closed\n")
    script, ok, cat = targets
    assert ok.runnable
    assert not cat.runnable and cat.problem is not None
    assert cat.problem.startswith("This command has errors: line 2: Unclosed heredoc")
    assert not script.runnable and script.problem is not None
    assert script.problem.startswith("The script has errors: line 2:")
    assert script.label == "1 command"  # the runnable ones


def test_a_possible_heredoc_blocks_the_lines_up_to_its_terminator_only() -> None:
    found = commands(cli("echo before\ncat<<EOF\nrm -rf x\nEOF\necho after\n"))
    assert found["echo before"].runnable and found["echo after"].runnable
    for text in ("cat<<EOF", "rm -rf x", "EOF"):
        problem = found[text].problem
        assert not found[text].runnable and problem is not None
        assert problem.startswith("This command has a warning that blocks a run: line 2:"), problem


def test_an_early_close_blocks_its_heredoc_up_to_the_stray_line_only() -> None:
    found = commands(cli("echo before\ncat <<EOF\nSome text\nEOF\nmore text\nEOF\necho after\n"))
    assert found["echo before"].runnable and found["echo after"].runnable
    for text in ("cat", "more text", "EOF"):
        problem = found[text].problem
        assert not found[text].runnable and problem is not None
        assert problem.startswith("This command has a warning that blocks a run: line 6: 'EOF' closes no heredoc"), (
            problem
        )
    script = cli("cat <<EOF\na\nEOF\nb\nEOF\n")[0]
    assert not script.runnable and script.problem is not None
    assert script.problem.startswith("The script has a warning that blocks a run: line 5:")


def test_a_suppressed_possible_heredoc_no_longer_blocks() -> None:
    targets = cli("# heredoc-lsp: disable=possible_heredoc\ncat<<EOF\nls\nEOF\n")
    assert all(t.runnable for t in targets), [t.problem for t in targets]


def test_warnings_that_do_not_block_keep_the_run() -> None:
    script, cd = cli("cd /tmp\n")  # no_effect is a warning, not a reason to refuse
    assert cd.runnable and script.runnable


def test_empty_and_comment_only_scripts_have_nothing_to_run() -> None:
    for text in ("", "# only a comment\n\n", "\r\n"):
        (script,) = cli(text)
        assert not script.runnable and script.problem == "The script has no commands"


def test_crlf_and_lone_cr_are_line_ends() -> None:
    assert [(t.line, t.command) for t in cli("a\r\nb\rc\n")[1:]] == [(0, "a"), (1, "b"), (2, "c")]


def test_reply_targets_only_run_command_blocks_run() -> None:
    text = (
        "prose é😀\n[RUN_COMMAND]\nls\n[/RUN_COMMAND]\n"
        '[CREATE_FILE path="a.py"]\nx\n[/CREATE_FILE]\n[RUN_COMMAND]\n  \n[/RUN_COMMAND]\n'
    )
    reply, run, create, empty = inbox(text)
    assert (reply.kind, reply.runnable, reply.label) == ("reply", True, "3 commands")
    assert (run.kind, run.runnable, run.command, run.label, run.index) == ("block", True, "ls", "ls", 0)
    # a file block shows its result but has no run of its own, and no problem to report either
    assert (create.runnable, create.problem, create.label, create.command) == (False, None, "CREATE_FILE a.py", "")
    assert not empty.runnable and empty.problem is not None and "has no command" in empty.problem


def test_a_reply_without_blocks_cannot_be_applied() -> None:
    (reply,) = inbox("just prose\n")
    assert not reply.runnable and reply.problem == "The reply has no commands"


def test_outboxes_and_bodies_have_no_targets() -> None:
    for language, text in ((Language.OUTBOX, "=== PROMPT ===\ngo\n"), (Language.PARAMS, "---A---\nx\n")):
        analysis = analyze(text, language)
        assert targets_for(language, analysis.tree, analysis.diagnostics) == []


def test_target_at_finds_the_command_covering_a_line_never_the_script() -> None:
    targets = cli(SCRIPT)
    assert target_at(targets, 0) is None  # a comment line: the script target is not "at" line 0
    assert target_at(targets, 3) is targets[2]  # inside the heredoc body
    assert target_at(targets, 5) is None  # blank line between commands
    assert target_at(targets, 6) is targets[3]
    assert target_at(targets, 99) is None
    blocked = cli("cat <<EOF\nx\n")
    assert target_at(blocked, 1) is blocked[1]
    assert target_at(blocked, 1, runnable_only=True) is None


def test_short_labels() -> None:
    assert short("echo hi") == "echo hi"
    assert short("first\nsecond") == "first …"
    assert short("x" * 70) == "x" * 59 + "…"
    assert len(short("😀" * 70)) == 60


# -- content keys ----------------------------------------------------------------------------------------------


def keys(text: str) -> dict[str, tuple[object, ...]]:
    return {t.command: t.key for t in cli(text) if t.kind == "command"}


def test_keys_follow_a_command_when_lines_move() -> None:
    before = keys("echo a\ncat <<EOF\nbody\nEOF\n")
    after = keys("# a new comment\n\necho b\ncat <<EOF\nbody\nEOF\n\necho a\n")
    assert after["cat"] == before["cat"] and after["echo a"] == before["echo a"]


def test_keys_change_when_the_command_or_its_stdin_is_edited() -> None:
    base = keys("cat <<EOF\nbody\nEOF\n")["cat"]
    assert keys("cat <<EOF\nbody 2\nEOF\n")["cat"] != base  # stdin changed
    assert keys("cat <<END\nbody\nEOF\nEND\n")["cat"] != base
    assert base not in keys("cat -n <<EOF\nbody\nEOF\n").values()  # arguments changed


def test_repeated_commands_get_distinct_numbered_keys() -> None:
    targets = [t for t in cli("make\nmake\nls\nmake\n") if t.kind == "command"]
    assert [t.key[-1] for t in targets] == [0, 1, 0, 2]
    assert len({t.key for t in targets}) == 4
    # renumbering an already numbered list changes nothing (and returns the same list)
    assert number_occurrences(targets) is targets


def test_reply_block_keys_follow_the_block_and_change_with_its_body() -> None:
    block = "[RUN_COMMAND]\nls\n[/RUN_COMMAND]\n"
    first = inbox(block)[1].key
    assert inbox("prose\n\nmore prose\n" + block)[1].key == first
    assert inbox("[RUN_COMMAND]\nls -a\n[/RUN_COMMAND]\n")[1].key != first


FILLER = st.lists(st.sampled_from(["", "   ", "# é😀 comment", "\t"]), max_size=6)
COMMANDS = st.lists(st.sampled_from(["echo é😀", "make", "ls -l", "cat <<EOF\nbody\nEOF"]), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(COMMANDS, FILLER, st.data())
def test_keys_are_stable_under_blank_and_comment_lines_anywhere(
    cmds: list[str], filler: list[str], data: st.DataObject
) -> None:
    plain = "\n".join(cmds) + "\n"
    pieces = list(cmds)
    for line in filler:
        pieces.insert(data.draw(st.integers(0, len(pieces))), line)
    moved = "\n".join(pieces) + "\n"
    old = [t for t in cli(plain) if t.kind == "command"]
    new = [t for t in cli(moved) if t.kind == "command"]
    assert [t.key for t in new] == [t.key for t in old]
    assert cli(moved)[0].key == cli(plain)[0].key  # the whole-script key too
