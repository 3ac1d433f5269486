"""heredoc_lsp.navigation.complete: candidates and the range they replace, in code points."""

from __future__ import annotations

from pathlib import Path

from heredoc_lsp.languages import Language
from heredoc_lsp.navigation.complete import Candidate, candidates, snippet_escape
from heredoc_lsp.syntax.cli import parse_cli
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.outbox import parse_outbox
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import split_lines

SCHEMAS = {"tool task": CommandSchema("tool task", "multi", ("TITLE", "DESCRIPTION"), ("TITLE",), None, "END")}


def cli(text: str, point: tuple[int, int]) -> list[Candidate]:
    lines = split_lines(text)
    return candidates(Language.CLI, lines, parse_cli(lines, SCHEMAS), point, SCHEMAS, None)


def test_command_names_at_the_start_of_a_line_and_in_an_empty_file() -> None:
    for text, point in (("", (0, 0)), ("echo é😀\n", (1, 0))):
        found = cli(text, point)
        assert [(c.label, c.kind) for c in found] == [("tool task", "Function"), ("tool task <<END", "Snippet")]
        assert all(c.replace == Span(point[0], 0, point[0], 0) for c in found)
    assert cli("", (0, 0))[1].text == "tool task <<END\n---TITLE---\n\nEND"


def test_delimiters_of_unused_parameters() -> None:
    found = cli("tool task <<END\r\n---TITLE---\r\nTitre é😀\r\n\r\nEND\r\n", (3, 0))
    assert [(c.label, c.kind, c.replace) for c in found] == [("---DESCRIPTION---", "Field", Span(3, 0, 3, 0))]


def test_marker_after_the_operator_and_to_close_an_unclosed_heredoc() -> None:
    after_operator = cli("é😀 cat <<", (0, 9))
    assert after_operator and all(c.replace.start_line == 0 and c.replace.end_col == 9 for c in after_operator)
    closing = cli("é😀 run <<DONE_MARK\nbody\nDO", (2, 2))
    assert [(c.label, c.replace) for c in closing] == [("DONE_MARK", Span(2, 0, 2, 2))]


def test_inbox_and_outbox_candidates_hold_the_cursor(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    text = '[CREATE_FILE note="é😀" path="s'
    lines = split_lines(text)
    found = candidates(Language.INBOX, lines, parse_inbox(lines), (0, len(text)), {}, tmp_path)
    assert [(c.text, c.replace) for c in found] == [("src/", Span(0, len(text) - 1, 0, len(text)))]
    lines = split_lines("=== HEADER ===\nSession: 1\n\n")
    sections = candidates(Language.OUTBOX, lines, parse_outbox(lines), (2, 0), {}, None)
    assert sections and all(c.label.startswith("=== ") for c in sections)


def test_nothing_past_the_end_of_other_languages() -> None:
    lines = split_lines("x\n")
    assert candidates(Language.INBOX, lines, parse_inbox(lines), (5, 0), {}, None) == []


def test_snippet_escape() -> None:
    assert snippet_escape("a$b}c\\d") == "a\\$b\\}c\\\\d"
