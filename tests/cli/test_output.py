"""heredoc_lsp.cli.output.code_frame: the lines ``--output-format full`` draws under a problem."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from heredoc_lsp.cli.output import code_frame
from heredoc_lsp.syntax.diagnostics import Span, error, warning

Runner = Callable[..., subprocess.CompletedProcess[str]]


def test_the_line_and_a_caret_under_the_range() -> None:
    d = warning(Span(9, 2, 9, 11), "orphan_option", "m")
    lines = [""] * 9 + ["\t --verbose x"]
    assert code_frame(lines, d) == ["   |", "10 |   --verbose x", "   |   ^^^^^^^^^"]


def test_a_range_that_goes_on_is_underlined_to_the_end_of_its_first_line_and_the_fix_is_named() -> None:
    d = error(Span(0, 4, 2, 0), "unclosed_heredoc", "m")
    frame = code_frame(["cat <<EOF", "body"], d)
    assert frame[:3] == ["  |", "1 | cat <<EOF", "  |     ^^^^^"]
    assert frame[3].startswith("  = fix (unsafe): ")


def test_an_empty_range_gets_one_caret_and_a_line_with_escapes_none() -> None:
    assert code_frame(["echo"], warning(Span(0, 4, 0, 4), "no_effect", "m"))[2] == "  |     ^"
    assert code_frame(["echo \x1b[31m"], warning(Span(0, 0, 0, 4), "no_effect", "m")) == ["1 | echo \\x1b[31m"]
    assert code_frame([], warning(Span(3, 0, 3, 1), "no_effect", "m")) == []


def test_full_output_through_the_command(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "a.cli").write_text("echo start\ncd docs\n", encoding="utf-8")
    result = cli("check", "--output-format", "full", "a.cli", cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("a.cli:2:1: warning[no_effect] ")
    assert lines[1:4] == ["  |", "2 | cd docs", "  | ^^^^^^^"]
    concise = cli("check", "--output-format", "concise", "a.cli", cwd=tmp_path)
    assert len(concise.stdout.splitlines()) == 1
