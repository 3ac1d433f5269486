"""heredoc_lsp.cli.output.code_frame: the lines the default output draws under a problem (tabs, wide characters,
escapes, long lines, the fix), and the frames through the command."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Runner

from heredoc_lsp.analysis.suppress import TextEdit
from heredoc_lsp.cli.fix import Offer
from heredoc_lsp.cli.output import FRAME_WIDTH, code_frame
from heredoc_lsp.syntax.diagnostics import Span, error, warning


def test_the_line_and_a_caret_under_the_range_with_tabs_expanded_to_tab_stops() -> None:
    d = warning(Span(9, 2, 9, 11), "orphan_option", "m")
    lines = [""] * 9 + ["\t --verbose x"]
    assert code_frame(lines, d) == ["   |", "10 |      --verbose x", "   |      ^^^^^^^^^"]
    # a tab after text goes to the next stop of 4 cells
    assert code_frame(["ab\tcd"], warning(Span(0, 3, 0, 5), "no_effect", "m"))[1:] == ["1 | ab  cd", "  |     ^^"]


def test_wide_characters_take_two_cells_and_combining_marks_none() -> None:
    # 漢字 are East Asian wide, 😀 is wide, e + U+0301 (combining acute) is one cell
    line = "漢字 😀 e\u0301 <<EOF"
    d = error(Span(0, 10, 0, 13), "unclosed_heredoc", "m")
    assert line[10:13] == "EOF"
    frame = code_frame([line], d)
    assert frame[1] == f"1 | {line}"
    assert frame[2] == "  | " + " " * 12 + "^^^"  # 2+2+1+2+1+1+0+1+2 cells before EOF
    under_wide = code_frame([line], error(Span(0, 0, 0, 2), "unclosed_heredoc", "m"))
    assert under_wide[2] == "  | ^^^^"


def test_control_and_hidden_characters_are_drawn_as_escapes_and_the_carets_follow() -> None:
    # ESC ] 52 (clipboard write), a right-to-left override and a line separator: drawn, never obeyed
    line = "echo \x1b]52;c;aGk=\x07 \u202e x\u2028y <<EOF"
    start = line.index("<<") + 2
    frame = code_frame([line], error(Span(0, start, 0, start + 3), "unclosed_heredoc", "m"))
    drawn = "echo \\x1b]52;c;aGk=\\x07 <U+202E> x<U+2028>y <<EOF"
    assert frame[1] == f"1 | {drawn}"
    assert frame[2] == "  | " + " " * drawn.index("EOF") + "^^^"
    assert all(ch.isprintable() for row in frame for ch in row)
    # a range over an escaped character is underlined as wide as the escape is drawn
    assert code_frame(["a\x1bb"], warning(Span(0, 1, 0, 2), "no_effect", "m"))[2] == "  |  ^^^^"


def test_an_empty_range_gets_one_caret_and_a_missing_line_no_frame() -> None:
    assert code_frame(["echo"], warning(Span(0, 4, 0, 4), "no_effect", "m"))[2] == "  |     ^"
    assert code_frame([], warning(Span(3, 0, 3, 1), "no_effect", "m")) == []


def test_a_range_that_goes_on_is_underlined_to_the_end_of_its_first_line_and_the_fix_is_named() -> None:
    d = error(Span(0, 4, 2, 0), "unclosed_heredoc", "m")
    fix = Offer("Close the heredoc with a line 'EOF\x1b[2J'", "unsafe", (TextEdit(Span(1, 4, 1, 4), "\nEOF"),))
    assert code_frame(["cat <<EOF", "body"], d, fix) == [
        "  |",
        "1 | cat <<EOF",
        "  |     ^^^^^",
        "  = fix (unsafe): Close the heredoc with a line 'EOF\\x1b[2J'",
    ]
    assert len(code_frame(["cat <<EOF", "body"], d)) == 3  # no fix offered: no fix line


def test_a_long_line_is_shown_around_the_range() -> None:
    line = "x" * 5000 + " <<EOF " + "y" * 5000
    start = line.index("EOF")
    frame = code_frame([line], error(Span(0, start, 0, start + 3), "unclosed_heredoc", "m"))
    shown = frame[1].removeprefix("1 | ")
    assert shown.startswith("...") and shown.endswith("...") and "<<EOF" in shown
    assert len(shown) <= FRAME_WIDTH + 6
    assert frame[2].removeprefix("  | ").index("^^^") == shown.index("EOF")


def test_colour_marks_the_carets_only_when_asked() -> None:
    d = error(Span(0, 0, 0, 3), "unclosed_heredoc", "m")
    assert code_frame(["cat"], d, color=True)[2] == "  | \x1b[1;31m^^^\x1b[0m"


def test_the_default_output_has_frames_and_concise_one_line(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "a.cli").write_text("echo start\ncd docs\n", encoding="utf-8")
    result = cli("check", "a.cli", cwd=tmp_path)
    lines = result.stdout.split("\n")
    assert lines[0].startswith("a.cli:2:1: warning[no_effect] ")
    assert lines[1:5] == ["  |", "2 | cd docs", "  | ^^^^^^^", ""]
    assert cli("check", "--output-format", "full", "a.cli", cwd=tmp_path).stdout == result.stdout
    concise = cli("check", "--output-format", "concise", "a.cli", cwd=tmp_path)
    assert concise.stdout.count("\n") == 1
