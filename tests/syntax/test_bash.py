"""syntax/bash.py: a command as bash runs it (diagnostics with their lines) and the rewrites the guard offers."""

from __future__ import annotations

import pytest

from heredoc_lsp.syntax.bash import bash_lines, near_miss, parse_bash, rewrite_bash
from heredoc_lsp.syntax.schema import CommandSchema


def codes(text: str) -> list[tuple[str, int]]:
    return [(d.code, d.span.start_line + 1) for d in parse_bash(text).diagnostics]


def test_bash_lines_end_at_newline_only() -> None:
    assert bash_lines("a\r\nb\rc\n") == ("a\r", "b\rc")
    assert bash_lines("") == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cat <<EOF\nx\nEOF\n", []),
        ("cat <<EOF\nx\n", [("unclosed_heredoc", 1)]),
        ("cat <<EOF\nx\n  EOF\n", [("inexact_terminator", 3)]),
        ("cat <<-EOF\n\tx\n  EOF\n", [("inexact_terminator", 3)]),
        ("cat <<EOF\nx\nEOF  \n", [("inexact_terminator", 3)]),
        ("cat <<EOF\nx\nEOF\r\n", [("inexact_terminator", 3)]),
        ("cat <<EOF\nx\nEOF | wc -l\n", [("terminator_not_alone", 3)]),
        ('x="$(cat <<EOF\nx\nEOF)"\n', [("terminator_not_alone", 3)]),
        ("cat <<EOF\na\nEOF\nb\nEOF\n", [("early_close", 5)]),
        ("gh pr create --body-file - <<EOF\nb\nEOF\n  --title t\n", [("orphan_option", 4)]),
        ('echo "a\n', [("shell_syntax", 1)]),
        # An unclosed heredoc explains the syntax error it causes: one diagnostic.
        ("x=$(cat <<EOF\nhi\n", [("unclosed_heredoc", 1)]),
        # Lines that only look like terminators inside a closed body are content.
        ("cat <<'O'\ncat <<EOF\n  EOF\nEOF)\nO\n", []),
    ],
)
def test_diagnostics(text: str, expected: list[tuple[str, int]]) -> None:
    assert codes(text) == expected


def test_messages_name_the_line_and_the_fix() -> None:
    (d,) = parse_bash("python3 - <<'PY'\nprint(1)\n  PY\n").diagnostics
    assert d.message.startswith("Line 3 is indented;")
    assert d.message.endswith("Write the line as exactly 'PY', at the start of the line.")
    assert [r.message for r in d.related] == ["the heredoc 'PY' opens here"]


def test_near_miss_kinds() -> None:
    def kind(text: str) -> str | None:
        command = parse_bash(text)
        found = near_miss(command.lines, command.heredocs[0])
        return found[1] if found else None

    assert kind("cat <<EOF\n EOF\n") == "indented"
    assert kind("cat <<-EOF\n EOF\n") == "spaces"
    assert kind("cat <<EOF\nEOF \n") == "trailing"
    assert kind("cat <<EOF\nEOF\r\n") == "cr"
    assert kind("cat <<EOF\nEOF;\n") == "glued"
    assert kind("cat <<EOF\nEOFX)\n") is None
    assert kind("cat <<EOF\nEOF 2>&1\n") is None


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("cat <<EOF\nx\n  EOF\necho after\n", "cat <<EOF\nx\nEOF\necho after\n"),
        ("cat <<EOF\nx\nEOF;\n", "cat <<EOF\nx\nEOF\n"),
        ("cat <<EOF\nx\nEOF; echo done\n", "cat <<EOF\nx\nEOF\necho done\n"),
        ('echo "$(cat <<EOF\nx\nEOF)"', 'echo "$(cat <<EOF\nx\nEOF\n)"'),
        ("cat <<'EOF'\na\nEOF\nb\nEOF", "cat <<'EOF_END'\na\nEOF\nb\nEOF_END"),
        # The fresh marker occurs in no line of the body, not even inside one.
        ("cat <<EOF\nEOF_END\nEOF\nEOF_2 x\nEOF\n", "cat <<EOF_3\nEOF_END\nEOF\nEOF_2 x\nEOF_3\n"),
        # A partly quoted marker stays quoted (no expansion in the body).
        ("cat <<E'O'F\n$a\nEOF\nb\nEOF", "cat <<'EOF_END'\n$a\nEOF\nb\nEOF_END"),
    ],
)
def test_rewrites(text: str, fixed: str) -> None:
    assert rewrite_bash(parse_bash(text)) == fixed


@pytest.mark.parametrize(
    "text",
    [
        "cat <<EOF\nx\n",  # where the body was meant to end is not visible
        "cat <<EOF\nx\nEOF | wc -l\n",  # the pipe would have to move to the opener's line
        'echo "a\n',
        "cat <<EOF\na\nEOF\ncat <<B\nb\nB\nEOF\n",  # another heredoc opens between the closes
        "gh x --body-file - <<EOF\nb\nEOF\n  --title t\n",
        "cat <<EOF\nx\nEOF\n",  # nothing to fix
    ],
)
def test_no_rewrite_unless_provably_safe(text: str) -> None:
    assert rewrite_bash(parse_bash(text)) is None


def test_structured_bodies_of_configured_commands_only() -> None:
    handoff = CommandSchema("chatroom handoff", "single", single_param="MESSAGE", terminator="CHATROOM_HANDOFF_END")
    schemas = {handoff.name: handoff}
    text = "X=1 chatroom  handoff --to b << 'CHATROOM_HANDOFF_END'\n\n  \nCHATROOM_HANDOFF_END\n"
    assert [d.code for d in parse_bash(text, schemas).diagnostics] == ["empty"]
    assert parse_bash(text).diagnostics == ()
    # Not guessed from a delimiter line without a configuration.
    assert parse_bash("cat <<EOF\n---TITLE---\nEOF\n").diagnostics == ()
