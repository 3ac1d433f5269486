"""syntax/shell.py: the shell lexer against real ``bash -n`` and ``dash -n`` (the corpus and oracle in data/),
heredocs read with bash's rules, and bounded work on hostile input."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from tests.conftest import load_oracle

from heredoc_lsp.syntax.shell import MAX_DEPTH, ShellHeredoc, incomplete, scan

DATA = Path(__file__).resolve().parent / "data"


ORACLE = load_oracle(DATA / "shell_oracle.py")
ENTRIES: list[dict[str, object]] = json.loads((DATA / "shell_oracle.json").read_text(encoding="utf-8"))


def test_oracle_data_covers_the_corpus() -> None:
    """shell_oracle.json was rebuilt after the last change of shell_cases.txt."""
    assert [e["case"] for e in ENTRIES] == ORACLE.read_cases()
    assert len(ENTRIES) >= 200
    # Both verdicts occur for both shells: the corpus tests acceptance and rejection.
    for shell in ("bash", "dash"):
        assert {e[shell] for e in ENTRIES} == {True, False}


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_oracle_data_is_what_the_shells_say(shell: str) -> None:
    """The stored verdicts are the installed shells' (a sample of every 7th case, to stay quick)."""
    assert shutil.which(shell), f"{shell} is installed by scripts/install"
    for entry in ENTRIES[::7]:
        assert ORACLE.accepts(shell, entry["case"]) == entry[shell], entry["case"]


@pytest.mark.parametrize(("shell", "dialect"), [("bash", "bash"), ("dash", "sh")])
def test_incomplete_agrees_with_the_shell(shell: str, dialect: str) -> None:
    wrong = []
    for entry in ENTRIES:
        case = str(entry["case"])
        reason = incomplete(case, dialect=dialect)  # type: ignore[arg-type]
        if (reason is None) != entry[shell]:
            wrong.append((case, entry[shell], reason))
    assert wrong == []


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('echo "hello', "unterminated double quote (opened on line 1)"),
        ("echo 'hello", "unterminated single quote (opened on line 1)"),
        ("echo \"$(cat <<'EOF'", "'$(' without ')' (opened on line 1)"),
        ("echo `date", "backquote never closed (opened on line 1)"),
        ("if true; then echo", "'if' without 'fi' (opened on line 1)"),
        ("{ echo a", "'{' without '}' (opened on line 1)"),
        ("case x in a) echo;;", "'case' without 'esac' (opened on line 1)"),
        ("for i in 1 2; do echo", "'for' without 'done' (opened on line 1)"),
        ("echo a |", "'|' needs a command after it"),
        ("echo >", "'>' needs a file name after it"),
        ("fi", "'fi' without 'if'"),
        ("echo ${HOME", "'${' is never closed with '}' (opened on line 1)"),
    ],
)
def test_reasons(text: str, reason: str) -> None:
    assert incomplete(text) == reason


def test_here_string_is_bash_only() -> None:
    assert incomplete("cat <<<hi", dialect="bash") is None
    reason = incomplete("cat <<<hi", dialect="sh")
    assert reason is not None and "bash only" in reason


def heredocs(text: str) -> list[tuple[int, str, bool, bool, int, int, bool]]:
    return [(h.line, h.marker, h.quoted, h.strip_tabs, h.body_start, h.body_end, h.closed) for h in scan(text).heredocs]


def test_heredoc_markers_quoted_unquoted_partly_quoted() -> None:
    text = "cat <<'A' <<\"B\" <<C <<E\\OF <<'P'Q\na\nA\nb\nB\nc\nC\nd\nEOF\ne\nPQ\n"
    assert heredocs(text) == [
        (0, "A", True, False, 1, 2, True),
        (0, "B", True, False, 3, 4, True),
        (0, "C", False, False, 5, 6, True),
        (0, "EOF", True, False, 7, 8, True),
        (0, "PQ", True, False, 9, 10, True),
    ]


def test_no_heredoc_in_here_strings_arithmetic_quotes_comments() -> None:
    for text in (
        "cat <<<EOF",
        "echo $((1<<3))",
        "((x = 1<<3))",
        "echo '<<EOF'",
        'echo "<<EOF"',
        "echo a # <<EOF",
        "# cat <<EOF",
        "x=$(( y << 2 ))",
    ):
        assert scan(text).heredocs == (), text


def test_strip_tabs_only_with_dash_operator() -> None:
    assert heredocs("\tcat <<-EOF\n\tbody\n\t\tEOF\n") == [(0, "EOF", False, True, 1, 2, True)]
    # Spaces are not stripped: the body runs to the end.
    assert heredocs("cat <<-EOF\n  body\n  EOF\n") == [(0, "EOF", False, True, 1, 3, False)]
    # Without '-', an indented marker is body.
    assert heredocs("cat <<EOF\n\tEOF\n") == [(0, "EOF", False, False, 1, 2, False)]


def test_exact_terminator_lines() -> None:
    # Trailing blanks and carriage returns keep the line in the body.
    assert heredocs("cat <<EOF\nEOF \n")[0][-1] is False
    assert heredocs("cat <<EOF\nx\nEOF\r\n")[0][-1] is False
    # ... as for bash, where a marker word ending in CR is closed by a line ending in CR.
    assert heredocs("cat <<EOF\r\nx\r\nEOF\r\n")[0][1:] == ("EOF\r", False, False, 1, 2, True)
    assert heredocs("cat <<EOF\nx\nEOF")[0][-1] is True  # no newline after the terminator


def test_unquoted_body_joins_backslash_lines() -> None:
    # bash and dash: `a \` + `EOF` is one body line "a EOF"; with a quoted marker it is not joined.
    assert heredocs("cat <<EOF\na \\\nEOF\nEOF\n") == [(0, "EOF", False, False, 1, 3, True)]
    assert heredocs("cat <<'EOF'\na \\\nEOF\n") == [(0, "EOF", True, False, 1, 2, True)]
    assert heredocs("cat <<EOF\na \\\\\nEOF\n") == [(0, "EOF", False, False, 1, 2, True)]


def test_bodies_in_order_after_the_newline_token() -> None:
    # The newline inside the quoted string is no token: the body starts after `b"`.
    text = 'cat <<EOF; echo "a\nb"\nbody\nEOF\n'
    assert heredocs(text) == [(0, "EOF", False, False, 2, 3, True)]
    assert scan(text).error is None


def test_heredoc_in_command_substitution_pipeline_and_compounds() -> None:
    text = (
        "git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"\n"
        "cat <<A | grep x\na\nA\n"
        "if true; then\n  cat <<B\n  b\nB\nfi\n"
        "f() {\n  cat <<C\nc\nC\n}\n"
        "for i in 1; do cat <<D; done\nd\nD\n"
    )
    found = scan(text)
    assert found.error is None
    assert [(h.marker, h.closed, h.in_substitution) for h in found.heredocs] == [
        ("EOF", True, True),
        ("A", True, False),
        ("B", True, False),
        ("C", True, False),
        ("D", True, False),
    ]


def test_glued_terminator_inside_substitution() -> None:
    text = 'echo "$(cat <<EOF\nhi\nEOF)"\n'
    bash = scan(text, dialect="bash")
    assert bash.error is None
    assert [(h.closed, h.glued, h.body_end) for h in bash.heredocs] == [(True, True, 2)]
    assert scan(text, dialect="sh").error is not None


def test_unclosed_heredoc_in_substitution_says_so() -> None:
    reason = incomplete("x=$(cat <<EOF\nhi\n", dialect="bash")
    assert reason == "the here-document 'EOF' of line 1 is never closed, so '$(' without ')' (opened on line 1)"


def test_strays_are_closed_markers_alone_on_command_lines() -> None:
    text = "cat > notes.md <<EOF\nSome text\nEOF\nmore text\nEOF\n"
    found = scan(text)
    assert [(s.line, s.heredoc) for s in found.strays] == [(4, 0)]
    # A second heredoc with the same marker is no stray.
    assert scan("cat <<EOF\na\nEOF\ncat <<EOF\nb\nEOF\n").strays == ()
    # An argument equal to the marker is no stray.
    assert scan("cat <<EOF\na\nEOF\necho EOF\n").strays == ()


def test_error_lines() -> None:
    found = scan("echo a\necho b\nif true; then\necho c\n")
    assert (found.error, found.error_line) == ("'if' without 'fi' (opened on line 3)", 2)


def test_deep_nesting_gives_up_without_recursion() -> None:
    for text in ("( " * 100_000, "$(" * 100_000, '"$(' * 100_000, "{ " * 100_000, "if true; then " * 50_000):
        found = scan(text)
        assert found.gave_up and found.error is None
        assert incomplete(text) is None
    assert scan("( " * (MAX_DEPTH - 2) + ")" * (MAX_DEPTH - 2)).error == "'()' holds no command"
    assert scan("( " * (MAX_DEPTH - 2) + "x" + ")" * (MAX_DEPTH - 2)).error is None


def test_binary_and_huge_input_is_linear() -> None:
    blob = bytes(range(256)).decode("latin-1") * 200
    scan(blob)  # no exception
    line = "echo 'some quoted text' \"and $HOME\" | grep -v x > /dev/null\n"
    small = line * 2_000
    big = line * 40_000
    t0 = time.perf_counter()
    scan(small)
    t1 = time.perf_counter()
    found = scan(big)
    t2 = time.perf_counter()
    assert found.error is None and found.line_count == 40_000
    # 20x the text: well under 60x the time (a quadratic lexer takes 400x).
    assert (t2 - t1) < 60 * max(t1 - t0, 1e-4)


def test_record_fields() -> None:
    (h,) = scan("cat <<-'EOF'\n\tx\n\tEOF\n").heredocs
    assert h == ShellHeredoc(0, 4, "EOF", True, True, 1, 2, True, False, False, "cat", 7, 12)


def test_heredoc_command_text() -> None:
    text = "X=1 chatroom handoff --to b << 'END' | tee x\nbody\nEND\n>out cat <<A; <<B cat\na\nA\nb\nB\n"
    assert [h.command for h in scan(text).heredocs] == ["X=1 chatroom handoff --to b", "cat", ""]


def test_bash_gives_no_body_to_a_heredoc_whose_substitution_closes_first() -> None:
    text = 'echo "$(cat <<EOF)"\nbody\nEOF\n'
    (h,) = scan(text, dialect="bash").heredocs
    assert (h.closed, h.cut, h.body_start, h.body_end) == (False, True, 0, 0)
    assert [(s.line, s.heredoc) for s in scan(text, dialect="bash").strays] == []
    # dash too (it runs the body lines as commands).
    (h,) = scan(text, dialect="sh").heredocs
    assert (h.closed, h.cut) == (False, True)
