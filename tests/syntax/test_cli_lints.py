"""The ``.cli`` lints for mistakes that would run something nobody meant (docs/checking.md): ``early_close``,
``shell_syntax``, ``orphan_option``, ``bashism`` and ``background_stdin`` — spans, messages, related information,
the runner's dialect, the incremental re-parse, and the scanner's fast paths held against real ``dash -n`` and
``bash -n``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lsp.config.model import DEFAULT_RUNNER, Config, runner_shell
from heredoc_lsp.syntax.cli import (
    _SIMPLE,
    SHELL_SYNTAX_MAX,
    STATS,
    CliScript,
    _needs_shell_look,
    blocks_run,
    parse_cli,
    reparse,
)
from heredoc_lsp.syntax.diagnostics import Related, Severity, Span
from heredoc_lsp.syntax.text import LineEdit, split_lines

DATA = Path(__file__).resolve().parent / "data"


def parse(text: str, **kw: Any) -> CliScript:
    return parse_cli(split_lines(text), **kw)


def found(text: str, **kw: Any) -> list[tuple[str, tuple[int, int, int, int]]]:
    return [
        (d.code, (d.span.start_line, d.span.start_col, d.span.end_line, d.span.end_col))
        for d in parse(text, **kw).diagnostics
    ]


def codes(text: str, **kw: Any) -> list[str]:
    return [d.code for d in parse(text, **kw).diagnostics]


# --------------------------------------------------------------------------------------------------------------
# early_close

NOTES = "cat > notes.md <<EOF\nSome text\nEOF\nmore text meant for the file\nEOF\n"


def test_early_close_at_the_stray_marker_with_the_opener_and_the_closing_line() -> None:
    (d,) = parse(NOTES).diagnostics
    assert (d.code, d.severity, d.span) == ("early_close", Severity.WARNING, Span(4, 0, 4, 3))
    assert d.message == (
        "'EOF' closes no heredoc: the heredoc opened at line 1 already ended at line 3, a body line equal to its "
        "marker, so the lines after that run as commands; give the heredoc a marker that occurs in no line of its "
        "body"
    )
    assert d.related == (
        Related(Span(0, 17, 0, 20), "heredoc 'EOF' opened here"),
        Related(Span(2, 0, 2, 3), "its body ended here, at a line 'EOF'"),
    )
    assert d.data == {"marker": "EOF", "opener_line": 0, "closed_line": 2}
    assert blocks_run(d)


def test_an_indented_marker_in_a_python_body_closes_it() -> None:
    text = "python3 - <<'PY'\nif True:\n  PY = 1\n  PY\nprint('after')\nPY\n"
    # (the rest of the program, run as shell, is no shell either)
    assert codes(text) == ["shell_syntax", "early_close"]
    d = parse(text).diagnostics[1]
    assert (d.code, d.span) == ("early_close", Span(5, 0, 5, 2))
    assert [r.span for r in d.related] == [Span(0, 13, 0, 15), Span(3, 2, 3, 4)]


def test_every_stray_marker_line_is_reported_against_the_latest_heredoc_of_its_marker() -> None:
    text = "cat <<EOF\na\nEOF\nb\n  EOF\ncat <<EOF\nc\nEOF\nEOF\n"
    diagnostics = parse(text).diagnostics
    assert [(d.code, d.span.start_line, (d.data or {})["opener_line"]) for d in diagnostics] == [
        ("early_close", 4, 0),
        ("early_close", 8, 5),
    ]
    assert diagnostics[0].span == Span(4, 2, 4, 5)  # the marker word, not the indentation


@pytest.mark.parametrize(
    "text",
    [
        "EOF\ncat <<EOF\nx\nEOF\n",  # before the heredoc
        "cat <<EOF\nx\nEOF\nEOF2\nEOF x\n",  # other words
        "cat <<EOF\nx\nEOF\ncat <<END\nEOF\nEND\n",  # inside a later body
        "cat <<EOF\nx\n",  # unclosed: nothing after it is a command
        "cat<<EOF\nEOF\n",  # no heredoc (a possible_heredoc)
        "cat <<A\nx\nA\neof\n",  # markers are case-sensitive
    ],
)
def test_no_early_close(text: str) -> None:
    assert "early_close" not in codes(text)


# --------------------------------------------------------------------------------------------------------------
# orphan_option


def test_orphan_option_after_a_heredoc() -> None:
    text = 'gh issue create --body-file - <<EOF\nbody\nEOF\n  --title "x"\n'
    (d,) = parse(text).diagnostics
    assert (d.code, d.span, d.data) == ("orphan_option", Span(3, 2, 3, 9), {"option": "--title"})
    assert d.message.startswith("'--title \"x\"' starts with '--title': this line runs as a command of its own")


def test_orphan_option_on_any_command_line_and_never_in_a_body() -> None:
    assert found("-v\n- <<EOF\n-x\nEOF\necho a -b\n") == [
        ("orphan_option", (0, 0, 0, 2)),
        ("orphan_option", (1, 0, 1, 1)),
    ]


# --------------------------------------------------------------------------------------------------------------
# bashism and background_stdin


@pytest.mark.parametrize(
    ("text", "construct", "span"),
    [
        ("cat <<EOF &> all.log\nx\nEOF\n", "&>", (0, 10, 0, 12)),
        ("make &>/dev/null", "&>", (0, 5, 0, 7)),
        ("cat <<< hello", "<<<", (0, 4, 0, 7)),
        ("[[ -f x ]] && echo yes", "[[", (0, 0, 0, 2)),
        ("if [[ $a == b ]]; then echo y; fi", "[[", (0, 3, 0, 5)),
        ("test -f x || [[ -d y ]]", "[[", (0, 13, 0, 15)),
        ("é😀 &> log", "&>", (0, 3, 0, 5)),
    ],
)
def test_bashism_under_sh(text: str, construct: str, span: tuple[int, int, int, int]) -> None:
    (d,) = parse(text).diagnostics
    assert (d.code, d.span, d.data) == ("bashism", Span(*span), {"construct": construct})
    assert d.message.startswith(f"'{construct}' is bash-only syntax and the runner is /bin/sh: ")
    assert d.message.endswith(
        'or run the script with bash: script.runner = ["bash", "-c", "{command}"] in your own config '
        "($XDG_CONFIG_HOME/heredoc-lsp/config.toml) or your editor's user settings"
    )
    assert parse(text, shell="bash").diagnostics == ()
    assert parse(text, shell=None).diagnostics == ()


@pytest.mark.parametrize(
    "text",
    [
        "echo \"&> <<< [[\" '&>' \\&>x",  # quoted or escaped
        "echo [[ x",  # not a command word
        "cmd >&2 2>&1",
        "echo $((1<<3))",
    ],
)
def test_no_bashism(text: str) -> None:
    assert codes(text) == []


def test_one_bashism_per_construct_and_line() -> None:
    assert found("a &> x; b &> y; c <<< z") == [("bashism", (0, 2, 0, 4)), ("bashism", (0, 18, 0, 21))]


def test_background_stdin() -> None:
    (d,) = parse("cat <<EOF > out.txt &\nhello\nEOF\n").diagnostics
    assert (d.code, d.span) == ("background_stdin", Span(0, 20, 0, 21))
    assert "/dev/null as stdin, so the heredoc body never reaches it" in d.message
    for fine in ("cat <<EOF && echo ok\nx\nEOF\n", "cat <<EOF > o 2>&1\nx\nEOF\n", "cat <<EOF | tee x\nx\nEOF\n"):
        assert codes(fine) == [], fine


# --------------------------------------------------------------------------------------------------------------
# shell_syntax

IDIOM = "echo \"$(cat <<'EOF'\nhello\nEOF\n)\"\n"


def test_the_command_substitution_idiom() -> None:
    first, last = parse(IDIOM).diagnostics
    assert (first.code, first.span, last.code, last.span) == (
        "shell_syntax",
        Span(0, 0, 0, 19),
        "shell_syntax",
        Span(3, 0, 3, 2),
    )
    assert first.message.startswith(
        "'echo \"$(cat' is not complete shell on its own for /bin/sh (dash): '$(' without ')'. Every line runs in a "
        "shell of its own"
    )
    assert "git commit -F - <<'EOF'" in first.message
    assert (first.data or {})["shell"] == "sh"
    assert [d.code for d in parse(IDIOM, shell="bash").diagnostics] == ["shell_syntax", "shell_syntax"]
    assert parse(IDIOM, shell=None).diagnostics == ()


@pytest.mark.parametrize(
    ("line", "sh", "bash"),
    [
        ("if true", True, True),
        ("for f in *; do", True, True),
        ("echo 'unterminated", True, True),
        ("echo `date", True, True),
        ("echo a |", True, True),
        ("{ echo a", True, True),
        ("arr=(a b c)", True, False),  # bash arrays
        ("echo ok; echo fine", False, False),
        ("if true; then echo y; fi", False, False),
        ('echo "$(date)" > "$HOME/x"', False, False),
    ],
)
def test_shell_syntax_for_each_dialect(line: str, sh: bool, bash: bool) -> None:
    assert ("shell_syntax" in codes(line)) is sh
    assert ("shell_syntax" in codes(line, shell="bash")) is bash


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ("fi x", "shell_syntax"),
        ("! fi x", "shell_syntax"),
        ("if true", "shell_syntax"),
        ("done", "shell_syntax"),
        ("[[ -n x", "bashism"),
        ("echo 'a", "shell_syntax"),
        ('echo "a', "shell_syntax"),
        ("echo $(a", "shell_syntax"),
    ],
)
def test_the_command_of_a_plain_heredoc_opener_is_judged(command: str, code: str) -> None:
    # `cmd <<WORD` openers take the scanner's fast path: its cheap filter must let every such command through
    assert codes(f"{command} <<EOF\nbody\nEOF\n") == [code]


def test_plain_command_lines_never_reach_the_shell_lints() -> None:
    # The scanner's cheap filter: command lines and heredoc openers with nothing the shell could read otherwise
    # (no quote left open, no substitution, operator or group, no reserved word) are not looked at more closely.
    plain = [
        'echo "step 1: deploy"',
        "connect --host db2.example.net --port 5002",
        'job-run nightly-3 --retries "$retries"',
        "retries=3",
        "-v",
        "sql-exec --db main2 <<SQL",
        "SELECT 1;",
        "SQL",
        "\tsend-mail --to ops@example.net <<MSG",
        "if this was data",
        "MSG",
    ]
    STATS["shell_looks"] = 0
    parse_cli(plain * 500)
    assert STATS["shell_looks"] == 0
    parse_cli([*plain, "echo $(date", "fi <<EOF", "EOF"])
    assert STATS["shell_looks"] == 2


def test_a_command_longer_than_the_limit_is_not_judged() -> None:
    long = "echo '" + "x" * SHELL_SYNTAX_MAX
    assert codes(long[: SHELL_SYNTAX_MAX - 1]) == ["shell_syntax"]
    assert codes(long) == []
    assert codes("echo " + "x" * SHELL_SYNTAX_MAX + " &> log") == ["bashism"]


def _single_line_cases() -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((DATA / "shell_oracle.json").read_text(encoding="utf-8"))
    return [
        e
        for e in entries
        if "\n" not in e["case"]
        and e["case"].strip(" \t")
        and not e["case"].lstrip(" \t").startswith("#")
        and ("<<" not in e["case"] or "<<<" in e["case"])  # (a .cli heredoc is no shell heredoc)
    ]


CASES = _single_line_cases()


def test_the_corpus_has_single_line_cases() -> None:
    assert len(CASES) >= 100


@pytest.mark.parametrize("entry", CASES, ids=[str(k) for k in range(len(CASES))])
def test_shell_lints_agree_with_dash_and_bash(entry: dict[str, Any]) -> None:
    """The corpus of syntax/shell.py's tests, with its bash -n and dash -n verdicts: a line of a .cli script gets
    `shell_syntax` exactly when the runner's shell rejects it (under /bin/sh, a `bashism` may say so instead)."""
    line = entry["case"]
    sh = codes(line)
    assert ("shell_syntax" in sh) <= (not entry["dash"])
    assert (not entry["dash"]) <= ("shell_syntax" in sh or "bashism" in sh)
    assert ("shell_syntax" in codes(line, shell="bash")) == (not entry["bash"])


TOKENS = [
    "echo", "x", "a=1", "'q q'", '"d $x"', '"$HOME"', "$x", "${x}", "$(date)", "`d`", "(", ")", "{", "}", ";",
    "&", "&&", "|", "||", ">", ">>", "<", "2>&1", ">&2", "if", "then", "fi", "do", "done", "!", "[[", "]]", "#",
    "\\", "*", "'", '"', "-n", "é", "in", "case", "esac", "for", "while", "until", "time", "coproc", "else", "[",
    "]", "a[1]", "$", "2>", "1>&2", "%", "?", "/x", "--",
]  # fmt: skip


def _accepts(shell: str, line: str) -> bool:
    done = subprocess.run([shell, "-n"], input=line.encode(), capture_output=True, timeout=10, check=False)
    return done.returncode == 0


@settings(max_examples=250, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TOKENS), st.sampled_from([" ", "", "  "])), min_size=1, max_size=7))
def test_the_fast_paths_only_clear_lines_dash_and_bash_accept(parts: list[tuple[str, str]]) -> None:
    """The scanner clears most lines without the lexer (no special character, or the fast-accept pattern): every
    line it clears must be complete for both shells."""
    line = "".join(token + blank for token, blank in parts).strip(" ")
    if not line or line.startswith("#") or "<<" in line:
        return
    if not _needs_shell_look(line) or _SIMPLE.fullmatch(line) is not None:
        assert _accepts("dash", line), line
        assert _accepts("bash", line), line


@pytest.mark.parametrize("line", ["! fi x", "!\tfi x", "  ! done", "! then"])
def test_a_reserved_word_after_a_negation_is_judged(line: str) -> None:
    # `!` is a reserved word of one character: the scanner's filter of plain command lines must let it through
    assert not _accepts("dash", line) and not _accepts("bash", line)
    assert codes(line) == ["shell_syntax"]
    assert codes(line, shell="bash") == ["shell_syntax"]


PAIRS = [a + blank + b for a in TOKENS for b in TOKENS for blank in (" ", "\t", "")]


def test_the_scanner_hands_a_plain_command_to_the_shell_lints_exactly_when_it_needs_a_look() -> None:
    # The scanner's filter of plain command lines (inline, helped by the marks of each line: cli._marks) is
    # _needs_shell_look: every pair of tokens, one line at a time and all in one script.
    lines = [line for line in PAIRS if not line.startswith("#") and "<<" not in line]
    expected = [line for line in lines if _needs_shell_look(line)]
    looked = []
    for line in lines:
        STATS["shell_looks"] = 0
        parse_cli([line])
        assert STATS["shell_looks"] in (0, 1)
        if STATS["shell_looks"]:
            looked.append(line)
    assert looked == expected
    STATS["shell_looks"] = 0
    parse_cli(lines)
    assert STATS["shell_looks"] == len(expected)


# --------------------------------------------------------------------------------------------------------------
# The runner's dialect


@pytest.mark.parametrize(
    ("runner", "shell"),
    [
        (DEFAULT_RUNNER, "sh"),
        (("sh", "-c", "{command}"), "sh"),
        (("/usr/bin/dash", "-c", "{command}"), "sh"),
        (("bash", "-c", "{command}"), "bash"),
        (("/usr/bin/env", "-i", "bash", "-c", "{command}"), "bash"),
        (("python3", "-c", "{command}"), None),
        ((), None),
    ],
)
def test_runner_shell(runner: tuple[str, ...], shell: str | None) -> None:
    assert runner_shell(runner) == shell
    assert Config(script_runner=runner).shell == shell


# --------------------------------------------------------------------------------------------------------------
# Incremental re-parse: early_close looks back, and lines far apart depend on each other


def _same(a: CliScript, b: CliScript) -> None:
    assert [(d, d.data) for d in a.diagnostics] == [(d, d.data) for d in b.diagnostics]
    assert a.items == b.items


def _edit(lines: list[str], start: int, removed: int, new: list[str]) -> LineEdit:
    lines[start : start + removed] = new
    return LineEdit(start, removed, len(new))


FILLER = "".join(f"step{i} --now\nrun{i} <<DATA\nrow {i}\nDATA\n" for i in range(500))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("cat <<EOF", "cat <<END"),  # the opener's marker changes: the stray far below is no early_close any more
        ("cat <<END", "cat <<EOF"),  # and the other way round
        ("x", "EOF"),  # the closing line goes: the heredoc runs on to the stray line
    ],
)
def test_an_edit_far_above_a_stray_marker_line(before: str, after: str) -> None:
    text = f"cat <<EOF\nx\nEOF\n{FILLER}EOF\n"
    lines = split_lines(text.replace("cat <<EOF", before, 1) if before.startswith("cat") else text)
    script = parse_cli(tuple(lines))
    at = 0 if before.startswith("cat") else 1
    edit = _edit(lines, at, 1, [after])
    result = reparse(script, tuple(lines), edit)
    _same(result.script, parse_cli(tuple(lines)))


def test_typing_in_a_body_keeps_the_window_small_with_a_stray_marker_far_below() -> None:
    lines = split_lines(f"cat <<EOF\nx\nEOF\n{FILLER}EOF\n{FILLER}")
    script = parse_cli(tuple(lines))
    assert [d.code for d in script.diagnostics] == ["early_close"]
    edit = _edit(lines, 1, 1, ["xy"])
    result = reparse(script, tuple(lines), edit)
    assert result.stop < len(lines) and result.scanned < 100  # spliced, not scanned to the end
    _same(result.script, parse_cli(tuple(lines)))
    edit = _edit(lines, 1, 0, ["new body line"])  # later lines move
    result = reparse(result.script, tuple(lines), edit)
    _same(result.script, parse_cli(tuple(lines)))


def test_a_new_heredoc_above_a_bare_command_far_below() -> None:
    lines = split_lines(f"echo start\n{FILLER}make\n")
    script = parse_cli(tuple(lines))
    edit = _edit(lines, 0, 1, ["cat <<make", "x", "make"])
    result = reparse(script, tuple(lines), edit)
    assert [d.code for d in result.script.diagnostics] == ["early_close"]
    _same(result.script, parse_cli(tuple(lines)))


def test_a_stray_line_typed_in_the_window_finds_a_heredoc_before_it() -> None:
    lines = split_lines(f"cat <<EOF\nx\nEOF\n{FILLER}echo end\n{FILLER}")
    script = parse_cli(tuple(lines))
    edit = _edit(lines, 3 + FILLER.count("\n"), 1, ["EOF"])
    result = reparse(script, tuple(lines), edit)
    assert result.stop < len(lines)  # spliced, not scanned to the end
    assert [(d.code, (d.data or {})["opener_line"]) for d in result.script.diagnostics] == [("early_close", 0)]
    _same(result.script, parse_cli(tuple(lines)))


def test_the_dialect_goes_through_the_reparse() -> None:
    lines = split_lines("echo a\narr=(1 2)\n")
    script = parse_cli(tuple(lines), shell="bash")
    edit = _edit(lines, 0, 1, ["echo b"])
    assert reparse(script, tuple(lines), edit, shell="bash").script.diagnostics == ()
    assert [d.code for d in reparse(parse_cli(tuple(lines)), tuple(lines), edit).script.diagnostics] == ["shell_syntax"]
