"""heredoc_lsp.fixes.heredoc: close an unclosed heredoc, rename an invalid marker, add a blank before ``<<``, give
a heredoc closed early by its own marker a fresh one, run a backgrounded heredoc command in the foreground."""

from __future__ import annotations

from fix_harness import case, fix_once

from heredoc_lsp.analysis.suppress import TextEdit
from heredoc_lsp.fixes import fixes_for
from heredoc_lsp.fixes.heredoc import unused_marker
from heredoc_lsp.syntax.diagnostics import Span


def test_close_unclosed_heredoc_appends_the_marker_line() -> None:
    before = case("cat <<EOF\nbody é😀\n")
    (fix,) = before.fixes("unclosed_heredoc")
    assert fix.preferred and fix.title == "Close the heredoc with a line 'EOF'"
    # after the last line's text (never past the final terminator), in code points
    assert fix.edits == (TextEdit(Span(1, 7, 1, 7), "\nEOF"),)
    after = before.apply(fix)
    assert after.text == "cat <<EOF\nbody é😀\nEOF\n" and after.codes() == []


def test_close_unclosed_heredoc_keeps_crlf_and_lone_cr() -> None:
    assert fix_once("cat <<EOF\r\nx\r\n", "unclosed_heredoc").text == "cat <<EOF\r\nx\r\nEOF\r\n"
    assert fix_once("cat <<EOF\rx\r", "unclosed_heredoc").text == "cat <<EOF\rx\rEOF\r"
    after = fix_once("cat <<-'END'\n\tx", "unclosed_heredoc")
    assert after.text == "cat <<-'END'\n\tx\nEND" and after.codes() == []


def test_rename_invalid_marker_renames_both_ends_to_an_unused_ascii_marker() -> None:
    before = case("cat <<'ÉOF'\nEOF\nÉOF\n")
    (fix,) = before.fixes("invalid_marker")
    assert fix.title == "Rename the marker 'ÉOF' to 'EOF_1'"  # EOF is a body line: it would end the heredoc
    after = before.apply(fix)
    assert after.text == "cat <<'EOF_1'\nEOF\nEOF_1\n" and after.codes() == []


def test_marker_glued_to_a_redirection_gets_a_blank() -> None:
    before = case("é😀 <<EOF>out\nx\nEOF\n")
    (fix,) = before.fixes("invalid_marker")
    assert fix.title == "Put a blank between the marker 'EOF' and '>out'"
    assert fix.edits == (TextEdit(Span(0, 8, 0, 8), " "),)  # code points: é😀 are two columns
    assert before.apply(fix).codes() == []


def test_no_rename_without_a_closing_line() -> None:
    assert case("cat <<ÉOF\nbody\n").fixes("invalid_marker") == []


def test_space_before_operator_makes_the_line_a_heredoc() -> None:
    before = case("cat<<EOF\nx\nEOF\n")
    (fix,) = before.fixes("possible_heredoc")
    assert not fix.preferred  # changes what runs: offered, never preferred
    after = before.apply(fix)
    assert after.text == "cat <<EOF\nx\nEOF\n" and after.codes() == []


def test_space_alone_is_not_offered_when_another_word_follows() -> None:
    before = case("cat<<EOF extra\nx\nEOF\n")
    assert before.fixes("possible_heredoc") == []


def test_unused_marker() -> None:
    assert unused_marker("ÉOF", ["x"]) == "EOF"
    assert unused_marker("ÉOF", ["EOF", "  EOF_1\t"]) == "EOF_2"  # body lines compare trimmed
    assert unused_marker("😀", []) == "EOF"
    assert unused_marker("a-b.c", []) == "abc"


def test_each_fix_is_idempotent() -> None:
    for text, code in (
        ("cat <<EOF\nx\n", "unclosed_heredoc"),
        ("cat <<'ÉOF'\nx\nÉOF\n", "invalid_marker"),
        ("cat<<EOF\nx\nEOF\n", "possible_heredoc"),
    ):
        after = fix_once(text, code)
        assert code not in after.codes(), (text, after.text)
        # nothing left to fix: applying "the fix" again is impossible, so the text stays as it is
        assert all(d.code != code for d in after.analysis.diagnostics)


def test_early_close_gets_a_marker_in_no_body_line_at_the_opener_and_the_last_stray_line() -> None:
    text = "cat > notes.md <<'EOF'\nSay EOF_1 here\nEOF\nmore é😀\n  EOF\nand more\nEOF\necho done\n"
    before = case(text)
    fixes = before.fixes("early_close")
    assert [f.title for f in fixes] == ["Rename the marker 'EOF' to 'EOF_2' so that the heredoc runs to line 7"]
    (fix,) = fixes
    assert fix.preferred
    assert {d.span.start_line for d in fix.diagnostics} == {4, 6}  # both stray lines are resolved by it
    assert fix.edits == (TextEdit(Span(0, 18, 0, 21), "EOF_2"), TextEdit(Span(6, 0, 6, 3), "EOF_2"))
    after = before.apply(fix)
    assert after.text == "cat > notes.md <<'EOF_2'\nSay EOF_1 here\nEOF\nmore é😀\n  EOF\nand more\nEOF_2\necho done\n"
    assert after.codes() == []
    command = after.analysis.tree.commands[0]
    assert command.stdin_text() == "Say EOF_1 here\nEOF\nmore é😀\n  EOF\nand more\n"


def test_early_close_from_the_first_stray_line_is_the_same_fix() -> None:
    before = case("cat <<-END\n\ta\n\tEND\n\tb\n\tEND\nc\nEND\n")
    first, last = (d for d in before.analysis.diagnostics if d.code == "early_close")
    texts = {before.apply(fixes_for(before.analysis, d, before.ctx, suppressions=False)[0]).text for d in (first, last)}
    assert texts == {"cat <<-END_1\n\ta\n\tEND\n\tb\n\tEND\nc\nEND_1\n"}


def test_background_stdin_removes_the_final_ampersand() -> None:
    before = case("é😀 cat <<EOF > é😀.txt \t&\nhello\nEOF\n")
    (fix,) = before.fixes("background_stdin")
    assert fix.edits == (TextEdit(Span(0, 21, 0, 24), ""),)  # code points: é😀 are two columns
    after = before.apply(fix)
    assert after.text == "é😀 cat <<EOF > é😀.txt\nhello\nEOF\n" and after.codes() == []
