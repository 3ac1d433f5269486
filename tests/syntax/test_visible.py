"""Hidden characters found and made visible (syntax/visible.py), and the parsers that report them."""

from __future__ import annotations

import pytest

from heredoc_lsp.syntax.cli import blocks_run, parse_cli
from heredoc_lsp.syntax.diagnostics import Severity
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.text import split_lines
from heredoc_lsp.syntax.visible import hidden_diagnostics, visible

RLO, PDF, ZWSP, LRI = "\u202e", "\u202c", "\u200b", "\u2066"
TROJAN = f"ls {RLO}; rm -rf ./victim #{PDF}"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b]52;c;aGk=\x07", "\\x1b]52;c;aGk=\\x07"),  # OSC 52: write the clipboard
        ("\x1b]8;;https://x.invalid\x1b\\link\x1b]8;;\x1b\\", "\\x1b]8;;https://x.invalid\\x1b\\link\\x1b]8;;\\x1b\\"),
        ("ok\x1b[1A\x1b[2Kfake", "ok\\x1b[1A\\x1b[2Kfake"),  # cursor up, erase line
        ("a\rb", "a\\rb"),
        ("\x9b31m", "\\x9b31m"),  # C1 CSI
        (f"invoice{RLO}fdp.sh", "invoice<U+202E>fdp.sh"),
        (f"a{ZWSP}b", "a<U+200B>b"),
        ("line one\n\tline two", "line one\n\tline two"),
        ("plain ascii", "plain ascii"),
        ("caf\u00e9 \u2713", "caf\u00e9 \u2713"),
    ],
)
def test_visible_makes_escape_sequences_and_hidden_characters_inert(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert "\x1b" not in visible(text) and "\r" not in visible(text)


def test_visible_one_line_escapes_line_breaks_too() -> None:
    assert visible("a\nb\tc", one_line=True) == "a\\nb\\tc"


def test_hidden_diagnostics_show_the_characters_and_span_them() -> None:
    (found,) = hidden_diagnostics(4, TROJAN, "a command line")
    assert found.code == "bidi_control" and found.severity == Severity.ERROR
    assert (found.span.start_line, found.span.start_col, found.span.end_col) == (4, 3, len(TROJAN))
    assert "<U+202E> <U+202C>" in found.message
    assert "'ls <U+202E>; rm -rf ./victim #<U+202C>'" in found.message
    assert RLO not in found.message
    both = hidden_diagnostics(0, f"{LRI}x{ZWSP}", "a path")
    assert sorted(d.code for d in both) == ["bidi_control", "invisible_character"]
    assert hidden_diagnostics(0, "na\u00efve \u00e9t\u00e9", "x") == []
    assert hidden_diagnostics(0, TROJAN, "x") and hidden_diagnostics(0, "caf\u00e9", "x") == []


def test_cli_script_reports_hidden_characters_in_commands_bodies_and_comments() -> None:
    script = parse_cli([TROJAN, "cat <<EOF", f"a{ZWSP}b", "EOF", f"# note {LRI}"])
    found = [(d.span.start_line, d.code) for d in script.diagnostics]
    assert found == [(0, "bidi_control"), (2, "invisible_character"), (4, "bidi_control")]
    assert all(blocks_run(d) for d in script.diagnostics)


def test_inbox_hidden_characters_fail_run_command_and_path_but_only_warn_in_file_text() -> None:
    reply = parse_inbox(
        split_lines(
            f'[RUN_COMMAND]\n{TROJAN}\n[/RUN_COMMAND]\n[CREATE_FILE path="invoice{RLO}fdp.sh"]\nx\n[/CREATE_FILE]\n'
            f'[CREATE_FILE path="notes.md"]\nzero{ZWSP}width\n[/CREATE_FILE]\n'
        )
    )
    run, planted, notes = reply.commands
    assert [d.code for d in run.errors] == ["bidi_control"] and not run.ok
    assert [d.code for d in planted.errors] == ["bidi_control"] and "invoice<U+202E>fdp.sh" in planted.errors[0].message
    assert notes.ok and [d.code for d in notes.warnings] == ["invisible_character"]
