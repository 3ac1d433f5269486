"""Properties of suppressions over generated ``.cli`` scripts and inbox replies."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.analysis.suppress import TextEdit
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.text import split_lines

CLI_LINES = [
    "echo a",
    "cat <<EOF",
    "EOF",
    "  <<A",
    "A",
    "cmd<<B",
    "B",
    "x <<C <<D",
    "D",
    "# comment",
    "",
    "\tindented <<-EOF",
    "# heredoc-lsp: disable=heredoc_without_command",
    "# heredoc-lsp: disable=possible_heredoc,unclosed_heredoc",
]
INBOX_LINES = [
    "prose",
    '[CREATE_FILE path="a"]',
    "[/CREATE_FILE]",
    "[RUN_COMMAND]",
    "[/RUN_COMMAND]",
    "[/DONE]",
    '[READ_FILE path="/abs"]',
    "[DONE]",
    "[/DONE]",
    "# heredoc-lsp: disable=stray_close",
    "# heredoc-lsp: disable=nested_tag,unclosed",
]


def apply_edit(text: str, edit: TextEdit) -> str:
    lines = split_lines(text)
    s = edit.span
    head = "".join(line + "\n" for line in lines[: s.start_line]) + lines[s.start_line][: s.start_col] if lines else ""
    tail = lines[s.end_line][s.end_col :] + "\n" if s.end_line < len(lines) else ""
    tail += "".join(line + "\n" for line in lines[s.end_line + 1 :])
    return head + edit.new_text + tail


def check_edit_silences(text: str, language: Language, whole_file: bool) -> None:
    analysis = analyze(text, language)
    for diagnostic in analysis.diagnostics:
        edit = analysis.suppression_edit(diagnostic, whole_file=whole_file)
        assert edit is not None
        after = analyze(apply_edit(text, edit), language)
        before_codes = Counter(d.code for d in analysis.diagnostics)
        after_codes = Counter(d.code for d in after.diagnostics)
        # The fix silences at least that diagnostic and never adds or changes any other problem.
        assert after_codes[diagnostic.code] < before_codes[diagnostic.code]
        assert after_codes - before_codes == Counter()
        if whole_file:
            assert after_codes[diagnostic.code] == 0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(CLI_LINES), max_size=14), st.booleans())
def test_cli_quick_fix_always_silences(lines: list[str], whole_file: bool) -> None:
    check_edit_silences("".join(line + "\n" for line in lines), Language.CLI, whole_file)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(INBOX_LINES), max_size=12), st.booleans())
def test_inbox_quick_fix_always_silences(lines: list[str], whole_file: bool) -> None:
    check_edit_silences("".join(line + "\n" for line in lines), Language.INBOX, whole_file)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([*CLI_LINES, "# heredoc-lsp: disable=heredoc_without_command"]), max_size=10))
def test_directives_in_a_heredoc_body_never_count(body: list[str]) -> None:
    body = [line for line in body if line.strip(" \t") != "EOF"]
    text = "echo first\ncat <<EOF\n" + "".join(line + "\n" for line in body) + "EOF\n<<Z\nZ\n"
    analysis = analyze(text, Language.CLI)
    last = len(split_lines(text)) - 2
    assert ("heredoc_without_command", last) in [(d.code, d.span.start_line) for d in analysis.diagnostics]
    assert analysis.suppressed == ()
