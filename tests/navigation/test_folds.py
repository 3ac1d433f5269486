"""heredoc_lsp.navigation.folds: which lines fold, with which label."""

from __future__ import annotations

from heredoc_lsp.languages import Language
from heredoc_lsp.navigation.folds import Fold, folds
from heredoc_lsp.syntax.cli import parse_cli
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.outbox import parse_outbox
from heredoc_lsp.syntax.params import parse_params
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import split_lines

SCHEMAS = {"tool task": CommandSchema("tool task", "multi", ("TITLE", "DESCRIPTION"), ("TITLE",), None, "END")}


def test_cli_folds_keep_the_terminator_visible() -> None:
    text = (
        "é😀 run <<EOF\r\nbody é😀\r\nEOF\r\n# a\r# b\r"
        "tool task <<END\n---TITLE---\nTitre é😀\nEND\ntail <<OPEN\nnever é\n"
    )
    lines = split_lines(text)
    assert folds(Language.CLI, lines, parse_cli(lines, SCHEMAS)) == [
        Fold(0, 1, "region", "<<EOF … 1 line"),
        Fold(3, 4, "comment"),  # a CR alone ends a line: two comment lines
        Fold(5, 7, "region", "<<END … 2 lines"),
        Fold(6, 7, "region", "---TITLE--- … 1 line"),
        Fold(9, 10, "region", "<<OPEN … 1 line"),  # unclosed: to the end
    ]


def test_nothing_to_fold() -> None:
    for text in ("", "echo é\n", "# one comment\n", "cat <<EOF\nEOF\n"):
        lines = split_lines(text)
        assert folds(Language.CLI, lines, parse_cli(lines)) == [], text


def test_trailing_blank_body_lines_stay_visible_in_parameters() -> None:
    lines = split_lines("tool task <<END\n---TITLE---\nt\n\n\n---DESCRIPTION---\nd\nEND\n")
    found = folds(Language.CLI, lines, parse_cli(lines, SCHEMAS))
    assert Fold(1, 2, "region", "---TITLE--- … 1 line") in found


def test_inbox_outbox_and_stand_alone_body_folds() -> None:
    lines = split_lines(
        'é😀\n[CREATE_FILE path="a.txt"]\none\ntwo\n[/CREATE_FILE]\n[DELETE_FILE path="b" /]\n[MESSAGE]\nhi\n'
    )
    assert [(f.start, f.end) for f in folds(Language.INBOX, lines, parse_inbox(lines))] == [(1, 3), (6, 7)]
    lines = split_lines("=== HEADER ===\nSession: 1\n=== PROMPT ===\ngo\nnow\n")
    assert [(f.start, f.end) for f in folds(Language.OUTBOX, lines, parse_outbox(lines))] == [(0, 1), (2, 4)]
    lines = split_lines("---A---\nx é\ny\n---B---\nz\n")
    assert [(f.start, f.end) for f in folds(Language.PARAMS, lines, parse_params(lines))] == [(0, 2), (3, 4)]
