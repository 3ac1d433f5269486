"""``analysis.incremental``: suppression directive lines kept up to date from the edited lines only, and the
analysis of an edit equal to a whole one (the re-parse itself: tests/syntax)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from heredoc_lsp.analysis.core import analyze_lines
from heredoc_lsp.analysis.incremental import analyze_edit, directive_lines, update_directive_lines
from heredoc_lsp.config import DEFAULT_CONFIG
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.text import LineEdit


def test_directive_lines_follow_edits() -> None:
    lines = ["a", "# heredoc-lsp: disable=x", "b"]
    found = directive_lines(lines)
    assert found == (1,)
    lines.insert(0, "new")
    found = update_directive_lines(found, lines, LineEdit(0, 0, 1))
    assert found == (2,) == directive_lines(lines)


@given(st.lists(st.sampled_from(["", "x", "# heredoc-lsp: disable=a", "heredoc-lsp heredoc-lsp", "é😀"]), max_size=30))
def test_directive_lines_match_a_line_by_line_scan(lines: list[str]) -> None:
    assert directive_lines(lines) == tuple(i for i, line in enumerate(lines) if "heredoc-lsp" in line)


def test_an_edit_is_reparsed_from_the_edit_and_equals_a_whole_analysis() -> None:
    before = ("echo a", "# heredoc-lsp: disable=no_effect", "cd", "cat <<EOF", "body", "EOF", "cd")
    first = analyze_edit(before, Language.CLI, DEFAULT_CONFIG, newline="\n", workspace=None)
    assert first.reparse is None and first.directives == (1,)
    after = (*before[:2], "cd", "echo z", *before[3:])  # line 2 replaced by two lines
    edited = analyze_edit(
        after,
        Language.CLI,
        DEFAULT_CONFIG,
        newline="\n",
        workspace=None,
        previous=first,
        edit=LineEdit(2, 1, 2),
    )
    assert edited.reparse is not None
    whole = analyze_lines(after, Language.CLI, DEFAULT_CONFIG)
    assert [d.span.start_line for d in whole.diagnostics] == [7]  # the suppressed "cd" is not reported
    assert [d.span.start_line for d in whole.suppressed] == [2]
    assert edited.analysis.diagnostics == whole.diagnostics
    assert edited.analysis.suppressed == whole.suppressed
    assert edited.directives == (1,)
