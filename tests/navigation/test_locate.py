"""heredoc_lsp.navigation.locate: what is under a (line, code-point column) position."""

from __future__ import annotations

import pytest

from heredoc_lsp.languages import Language
from heredoc_lsp.navigation.locate import (
    AttrTarget,
    BodyTarget,
    CommandTarget,
    DelimiterTarget,
    MarkerTarget,
    SectionTarget,
    TagTarget,
    target_at,
)
from heredoc_lsp.syntax.cli import parse_cli
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.outbox import parse_outbox
from heredoc_lsp.syntax.text import split_lines

CLI = "é😀 run <<EOF\r\nbody é😀\r\nEOF\rtool task <<END\n---TITLE---\nEND\ntail <<OPEN\nnever é\n"


@pytest.mark.parametrize(
    ("point", "kind", "role", "span"),
    [
        ((0, 0), CommandTarget, None, Span(0, 0, 0, 6)),
        ((0, 6), CommandTarget, None, Span(0, 0, 0, 6)),  # right after the word still touches it
        ((0, 8), MarkerTarget, "operator", Span(0, 9, 0, 12)),
        ((0, 12), MarkerTarget, "opener", Span(0, 9, 0, 12)),
        ((1, 3), BodyTarget, None, None),
        ((2, 1), MarkerTarget, "terminator", Span(2, 0, 2, 3)),  # the line ended by a lone CR
        ((4, 1), DelimiterTarget, None, Span(4, 0, 4, 11)),
        ((7, 7), BodyTarget, None, None),  # inside an unclosed heredoc
    ],
)
def test_cli_targets(point: tuple[int, int], kind: type, role: str | None, span: Span | None) -> None:
    lines = split_lines(CLI)
    found = target_at(Language.CLI, lines, parse_cli(lines), point)
    assert isinstance(found, kind)
    assert getattr(found, "role", None) == role
    assert getattr(found, "span", None) == span


def test_nothing_outside_the_document_or_on_comments() -> None:
    lines = split_lines("# é😀\necho\n")
    script = parse_cli(lines)
    assert target_at(Language.CLI, lines, script, (0, 2)) is None
    assert target_at(Language.CLI, lines, script, (2, 0)) is None
    assert target_at(Language.CLI, lines, script, (-1, 0)) is None
    assert target_at(Language.CLI, [], parse_cli([]), (0, 0)) is None


def test_inbox_tags_and_attributes() -> None:
    lines = split_lines('prose é😀\n[CREATE_FILE path="src/é.py"]\nx\n[/CREATE_FILE]\n')
    reply = parse_inbox(lines)
    opener = target_at(Language.INBOX, lines, reply, (1, 2))
    assert isinstance(opener, TagTarget) and opener.role == "opener" and opener.span == Span(1, 1, 1, 12)
    name = target_at(Language.INBOX, lines, reply, (1, 14))
    assert isinstance(name, AttrTarget) and name.part == "name" and name.span == Span(1, 13, 1, 17)
    value = target_at(Language.INBOX, lines, reply, (1, 22))
    assert isinstance(value, AttrTarget) and value.part == "value" and value.span == Span(1, 19, 1, 27)
    closer = target_at(Language.INBOX, lines, reply, (3, 3))
    assert isinstance(closer, TagTarget) and closer.role == "closer"
    assert target_at(Language.INBOX, lines, reply, (0, 3)) is None  # prose


def test_outbox_sections() -> None:
    lines = split_lines("=== HEADER ===\nSession: 1\n=== PROMPT ===\ngo é😀\n")
    found = target_at(Language.OUTBOX, lines, parse_outbox(lines), (2, 5))
    assert isinstance(found, SectionTarget) and found.section.name == "PROMPT"
    assert target_at(Language.OUTBOX, lines, parse_outbox(lines), (3, 1)) is None
