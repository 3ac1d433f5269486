"""heredoc_lsp.navigation.outline: the symbol tree of each format, in code-point columns."""

from __future__ import annotations

from heredoc_lsp.languages import Language
from heredoc_lsp.navigation.outline import Symbol, first_text_line, outline, shorten, walk
from heredoc_lsp.syntax.cli import parse_cli
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.outbox import parse_outbox
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import split_lines

SCHEMAS = {"tool task": CommandSchema("tool task", "multi", ("TITLE", "DESCRIPTION"), ("TITLE",), None, "END")}
# CRLF, then a lone CR, then LF; an unclosed heredoc at the end
CLI = (
    "é😀 run <<EOF\r\nbody é😀\r\nEOF\r\n# a\r# b\rtool task <<END\n---TITLE---\nTitre é😀\nEND\ntail <<OPEN\nnever é\n"
)


def flat(symbols: list[Symbol]) -> list[tuple[str, str, Span, Span, str | None]]:
    return [(s.name, s.kind, s.span, s.selection, s.detail) for s in walk(symbols)]


def test_cli_outline_in_code_points_across_line_ends() -> None:
    lines = split_lines(CLI)
    assert flat(outline(Language.CLI, lines, parse_cli(lines, SCHEMAS))) == [
        ("é😀 run", "Function", Span(0, 0, 2, 3), Span(0, 0, 0, 6), None),
        ("heredoc", "String", Span(0, 7, 2, 3), Span(0, 9, 0, 12), "EOF"),
        ("tool task", "Function", Span(5, 0, 8, 3), Span(5, 0, 5, 9), None),
        ("heredoc", "String", Span(5, 10, 8, 3), Span(5, 12, 5, 15), "END"),
        ("TITLE", "Field", Span(6, 0, 7, 8), Span(6, 3, 6, 8), "required, 1 line"),
        # unclosed: to the end of the document, the error as detail
        ("tail", "Function", Span(9, 0, 10, 7), Span(9, 0, 9, 4), "unclosed heredoc"),
        ("heredoc", "String", Span(9, 5, 10, 7), Span(9, 7, 9, 11), "OPEN"),
    ]


def test_children_sit_inside_their_parent() -> None:
    lines = split_lines(CLI)
    for parent in walk(outline(Language.CLI, lines, parse_cli(lines, SCHEMAS))):
        for child in parent.children:
            assert (parent.span.start_line, parent.span.start_col) <= (child.span.start_line, child.span.start_col)
            assert (child.span.end_line, child.span.end_col) <= (parent.span.end_line, parent.span.end_col)


def test_empty_documents_have_no_symbols() -> None:
    assert outline(Language.CLI, [], parse_cli([])) == []
    assert outline(Language.INBOX, [], parse_inbox([])) == []


def test_inbox_outline() -> None:
    text = (
        'prose é😀\n[CREATE_FILE path="src/é.py"]  \nx 😀\n[/CREATE_FILE]\n[DELETE_FILE path="../b" /]\n[MESSAGE]\nhi\n'
    )
    lines = split_lines(text)
    assert flat(outline(Language.INBOX, lines, parse_inbox(lines))) == [
        ("CREATE_FILE", "File", Span(1, 0, 3, 14), Span(1, 0, 1, 29), "src/é.py"),
        ("DELETE_FILE", "File", Span(4, 0, 4, 27), Span(4, 0, 4, 27), "../b"),
        ("MESSAGE", "String", Span(5, 0, 6, 2), Span(5, 0, 5, 9), "hi"),
    ]


def test_outbox_outline() -> None:
    lines = split_lines("=== HEADER ===\nSession: 1234abcd\n\n=== PROMPT ===\ngo é😀\n")
    assert flat(outline(Language.OUTBOX, lines, parse_outbox(lines))) == [
        ("HEADER", "Module", Span(0, 0, 2, 0), Span(0, 0, 0, 14), "1 line"),
        ("Session", "Property", Span(1, 0, 1, 17), Span(1, 0, 1, 7), "1234abcd"),
        ("PROMPT", "Module", Span(3, 0, 4, 5), Span(3, 0, 3, 14), "1 line"),
    ]


def test_long_names_are_shortened_and_details_take_the_first_text_line() -> None:
    assert shorten("é" * 200) == "é" * 119 + "…"
    assert first_text_line("\n  \nsecond é\nthird") == "second é"
    assert first_text_line(None) is None
