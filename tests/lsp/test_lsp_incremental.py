"""Suppression directive lines kept up to date from the edited lines only (the re-parse itself: tests/syntax)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from heredoc_lsp.lsp import incremental
from heredoc_lsp.lsp.documents import Document


def test_directive_lines_follow_edits() -> None:
    doc = Document("file:///t.cli", "a\n# heredoc-lsp: disable=x\nb\n", 1, "cli-script")
    found = incremental.directive_lines(doc.lines)
    assert found == (1,)
    edit = doc.replace_range((0, 0), (0, 0), "new\n", 2)
    found = incremental.update_directive_lines(found, doc.lines, edit)
    assert found == (2,) == incremental.directive_lines(doc.lines)


@given(st.lists(st.sampled_from(["", "x", "# heredoc-lsp: disable=a", "heredoc-lsp heredoc-lsp", "é😀"]), max_size=30))
def test_directive_lines_match_a_line_by_line_scan(lines: list[str]) -> None:
    assert incremental.directive_lines(lines) == tuple(i for i, line in enumerate(lines) if "heredoc-lsp" in line)
