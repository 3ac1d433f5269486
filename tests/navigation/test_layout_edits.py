"""heredoc_lsp.navigation.layout_edits: trailing blanks removed from structure lines, never from body lines."""

from __future__ import annotations

from heredoc_lsp.languages import Language
from heredoc_lsp.navigation.layout_edits import trailing_blank_deletions
from heredoc_lsp.syntax.cli import parse_cli
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.outbox import parse_outbox
from heredoc_lsp.syntax.text import split_lines


def test_cli_structure_lines_lose_trailing_blanks_bodies_keep_them() -> None:
    lines = split_lines("é😀 cat <<EOF \t\r\nbody é  \r\nEOF\f\r# c \rtail <<OPEN \nnever \n  \n")
    assert trailing_blank_deletions(Language.CLI, lines, parse_cli(lines)) == [
        (0, 12, 14),  # code points: é😀 are two columns
        (2, 3, 4),
        (3, 3, 4),
        (4, 11, 12),
        # the unclosed body runs to the end: its lines (the blank one too) are stdin
    ]


def test_inbox_tag_lines_only() -> None:
    lines = split_lines('[CREATE_FILE path="é"]  \nbody  \n[/CREATE_FILE] \nprose  \n')
    assert trailing_blank_deletions(Language.INBOX, lines, parse_inbox(lines)) == [(0, 22, 24), (2, 14, 15)]


def test_nothing_for_empty_documents_and_outboxes() -> None:
    assert trailing_blank_deletions(Language.CLI, [], parse_cli([])) == []
    lines = split_lines("=== HEADER ===  \n")
    assert trailing_blank_deletions(Language.OUTBOX, lines, parse_outbox(lines)) == []
