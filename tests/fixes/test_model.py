"""heredoc_lsp.fixes.model: where inserted lines go and what a line replacement keeps."""

from __future__ import annotations

from heredoc_lsp.analysis.suppress import TextEdit
from heredoc_lsp.fixes.model import Source, random_id
from heredoc_lsp.syntax.diagnostics import Span


def test_insert_line_before_a_line_and_after_the_last() -> None:
    src = Source(["a é", "b 😀"], "\r\n")
    assert src.insert_line(1, "X") == TextEdit(Span(1, 0, 1, 0), "X\r\n")
    # after the last line: at the end of its text, never past the final terminator
    assert src.insert_line(2, "X") == TextEdit(Span(1, 3, 1, 3), "\r\nX")
    assert src.insert_line(9, "X") == TextEdit(Span(1, 3, 1, 3), "\r\nX")
    assert Source([]).insert_line(0, "X") == TextEdit(Span(0, 0, 0, 0), "X\n")


def test_replace_line_text_keeps_indentation_and_trailing_blanks() -> None:
    src = Source(["\t é EOF \f", "   ", ""])
    assert src.replace_line_text(0, "NEW") == TextEdit(Span(0, 2, 0, 7), "NEW")
    assert src.replace_line_text(1, "NEW") == TextEdit(Span(1, 3, 1, 3), "NEW")
    assert src.replace_line_text(2, "NEW") == TextEdit(Span(2, 0, 2, 0), "NEW")


def test_random_id_is_eight_hex_digits() -> None:
    ids = {random_id() for _ in range(20)}
    assert len(ids) > 1 and all(len(i) == 8 and int(i, 16) >= 0 for i in ids)
