"""heredoc_lsp.navigation.markers: renaming a heredoc's opener and terminator together, or refusing to."""

from __future__ import annotations

import pytest

from heredoc_lsp.navigation.markers import (
    Occurrence,
    RenameRefused,
    check_prepare,
    occurrences,
    rename_edits,
    rename_problem,
)
from heredoc_lsp.syntax.cli import Command, parse_cli
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.text import split_lines


def command(text: str) -> Command:
    item = parse_cli(split_lines(text)).items[0]
    assert isinstance(item, Command)
    return item


def test_occurrences_of_a_quoted_marker_and_an_indented_terminator() -> None:
    h = check_prepare(command("é <<'EOF'\nbody\n EOF \n"))
    assert occurrences(h) == [Occurrence(Span(0, 5, 0, 8), "opener"), Occurrence(Span(2, 1, 2, 4), "terminator")]


def test_unclosed_heredoc_has_only_the_opener() -> None:
    h = check_prepare(command("😀 <<OPEN\nbody\n"))
    assert [o.role for o in occurrences(h)] == ["opener"]
    assert rename_edits(h, "NEW") == [(Span(0, 4, 0, 8), "NEW")]


def test_rename_problems() -> None:
    h = check_prepare(command("é <<EOF\nbody\nDONE\nEOF\n"))
    assert rename_problem(h, "NEW") is None
    problem = rename_problem(h, "DONE")
    assert problem is not None and "line 3 of the heredoc body" in problem
    invalid = rename_problem(h, "a-b")
    assert invalid is not None and "not a valid heredoc marker" in invalid
    assert rename_problem(h, "") is not None
    assert rename_problem(h, "ÉOF") is not None


def test_only_heredoc_commands_can_be_renamed() -> None:
    with pytest.raises(RenameRefused, match="Only heredoc markers can be renamed"):
        check_prepare(command("echo hi\n"))


def test_marker_rename_edits_reparse_to_the_same_structure() -> None:
    text = "é <<-'EOF'\r\n\tbody\r\n\tEOF\r\nnext\r\n"
    lines = split_lines(text)
    item = parse_cli(lines).items[0]
    assert isinstance(item, Command) and item.heredoc is not None
    edits = rename_edits(item.heredoc, "DONE")
    for span, new in sorted(edits, reverse=True):
        line = lines[span.start_line]
        lines[span.start_line] = line[: span.start_col] + new + line[span.end_col :]
    assert lines == ["é <<-'DONE'", "\tbody", "\tDONE", "next"]
    again = parse_cli(lines).items
    assert [type(i).__name__ for i in again] == ["Command", "Command"]
