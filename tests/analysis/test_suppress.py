"""``# heredoc-lsp: disable=`` directives: where they count, what they cover, and the quick-fix edit."""

from __future__ import annotations

from pathlib import Path

import pytest

from heredoc_lsp.analysis.core import Analysis, analyze
from heredoc_lsp.analysis.suppress import TextEdit, parse_directive
from heredoc_lsp.config import Config, parse_config_text
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.diagnostics import Span

CONFIG = parse_config_text('[commands."chatroom x"]\nparams = ["TITLE"]\n', Path("heredoc-lsp.toml"))


def codes_at(analysis: Analysis) -> list[tuple[str, int]]:
    return [(d.code, d.span.start_line) for d in analysis.diagnostics]


def cli(text: str, config: Config = CONFIG) -> Analysis:
    return analyze(text, Language.CLI, config)


def apply_edit(text: str, edit: TextEdit) -> str:
    lines = text.split("\n")
    s = edit.span
    before = "\n".join([*lines[: s.start_line], lines[s.start_line][: s.start_col]])
    after = "\n".join([lines[s.end_line][s.end_col :], *lines[s.end_line + 1 :]])
    return before + edit.new_text + after


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("# heredoc-lsp: disable=unknown", ("unknown",)),
        ("  #heredoc-lsp:disable=a,b", ("a", "b")),
        ("# heredoc-lsp : disable = a , b_c ,", ("a", "b_c")),
        ("\t# heredoc-lsp: disable=missing\t", ("missing",)),
        ("# heredoc-lsp: disable=", None),
        ("# heredoc-lsp: disable=a b", None),
        ("# heredoc-lsp: enable=a", None),
        ("echo # heredoc-lsp: disable=a", None),
    ],
)
def test_parse_directive(line: str, codes: tuple[str, ...] | None) -> None:
    assert parse_directive(line) == codes


def test_cli_directive_silences_the_next_line_only() -> None:
    text = "echo a\n# heredoc-lsp: disable=heredoc_without_command\n<<A\nA\n<<B\nB\n"
    analysis = cli(text)
    assert codes_at(analysis) == [("heredoc_without_command", 4)]
    assert [(d.code, d.span.start_line) for d in analysis.suppressed] == [("heredoc_without_command", 2)]


def test_other_codes_are_not_silenced() -> None:
    text = "echo a\n# heredoc-lsp: disable=possible_heredoc\n<<A\nA\n"
    assert codes_at(cli(text)) == [("heredoc_without_command", 2)]


def test_consecutive_directives_add_up() -> None:
    text = "echo a\n# heredoc-lsp: disable=possible_heredoc\n  # heredoc-lsp: disable=heredoc_without_command\n<<A\nA\n"
    assert codes_at(cli(text)) == []


def test_directive_before_the_first_command_covers_the_file() -> None:
    text = "# my script\n# heredoc-lsp: disable=heredoc_without_command\n\necho a\n<<A\nA\n\n<<B\nB\n"
    analysis = cli(text)
    assert codes_at(analysis) == []
    assert len(analysis.suppressed) == 2


def test_directive_above_a_command_covers_its_structured_body() -> None:
    text = "echo a\n# heredoc-lsp: disable=unknown\nchatroom x <<EOF\n---TITLE---\nt\n---BOGUS---\nb\nEOF\n"
    assert codes_at(cli(text)) == []


def test_directive_inside_a_heredoc_body_is_content() -> None:
    text = "chatroom x <<EOF\n---TITLE---\n# heredoc-lsp: disable=unknown\n---BOGUS---\ntext\nEOF\n"
    assert codes_at(cli(text)) == [("unknown", 3)]


def test_directive_inside_a_body_is_not_file_wide_either() -> None:
    # The body of the first command holds the directive: it is content, not a comment before any command.
    text = "cat <<EOF\n# heredoc-lsp: disable=heredoc_without_command\nEOF\n<<A\nA\n"
    assert codes_at(cli(text)) == [("heredoc_without_command", 3)]


def test_unclosed_heredoc_can_be_silenced_from_above() -> None:
    text = "echo a\n# heredoc-lsp: disable=unclosed_heredoc\ncat <<END\nrest\n"
    assert codes_at(cli(text)) == []


def test_inbox_prose_directive() -> None:
    text = '[CREATE_FILE path="a"]\nx\n[/CREATE_FILE]\n# heredoc-lsp: disable=stray_close\n[/DONE]\n[/MESSAGE]\n'
    analysis = analyze(text, Language.INBOX)
    assert codes_at(analysis) == [("stray_close", 5)]


def test_inbox_directive_in_a_block_body_is_content() -> None:
    text = '[CREATE_FILE path="a.md"]\n# heredoc-lsp: disable=stray_close\n[/CREATE_FILE]\n[/DONE]\n'
    assert codes_at(analyze(text, Language.INBOX)) == [("stray_close", 3)]


def test_inbox_directive_at_the_top_covers_the_reply(tmp_path: Path) -> None:
    text = 'Reading files.\n# heredoc-lsp: disable=file_not_found\n\n[READ_FILE path="a"]\n[READ_FILE path="b"]\n'
    analysis = analyze(text, Language.INBOX, workspace=tmp_path)
    assert codes_at(analysis) == []
    assert [d.code for d in analysis.suppressed] == ["file_not_found", "file_not_found"]


def test_inbox_directive_above_a_block_covers_nested_warnings() -> None:
    text = (
        '[READ_FILE path="x"]\n# heredoc-lsp: disable=nested_tag\n'
        '[CREATE_FILE path="doc.md"]\n[RUN_COMMAND]\n[/CREATE_FILE]\n'
    )
    assert codes_at(analyze(text, Language.INBOX)) == []


def test_outbox_has_no_directives() -> None:
    text = "# heredoc-lsp: disable=missing_section\n=== HEADER ===\nSession: 1234abcd\n"
    analysis = analyze(text, Language.OUTBOX)
    assert "missing_section" in {d.code for d in analysis.diagnostics}
    assert analysis.suppression_edit(analysis.diagnostics[0]) is None


# --- the quick-fix edit --------------------------------------------------------------------------------------------


def test_edit_inserts_a_directive_with_the_lines_indentation() -> None:
    text = "echo a\n  <<A\nA\n"
    analysis = cli(text)
    (diagnostic,) = analysis.diagnostics
    edit = analysis.suppression_edit(diagnostic)
    assert edit == TextEdit(Span(1, 0, 1, 0), "  # heredoc-lsp: disable=heredoc_without_command\n")
    assert edit is not None
    fixed = apply_edit(text, edit)
    assert fixed == "echo a\n  # heredoc-lsp: disable=heredoc_without_command\n  <<A\nA\n"
    assert cli(fixed).diagnostics == ()


def test_edit_extends_an_existing_directive() -> None:
    text = "echo a\n# heredoc-lsp: disable=possible_heredoc\n<<A\nA\n"
    analysis = cli(text)
    edit = analysis.suppression_edit(analysis.diagnostics[0])
    assert edit == TextEdit(Span(1, 0, 1, 39), "# heredoc-lsp: disable=possible_heredoc,heredoc_without_command")


def test_edit_for_a_body_diagnostic_goes_above_the_command() -> None:
    text = "echo a\nchatroom x <<EOF\n---TITLE---\nt\n---BOGUS---\nb\nEOF\n"
    analysis = cli(text)
    (diagnostic,) = analysis.diagnostics
    assert diagnostic.code == "unknown"
    edit = analysis.suppression_edit(diagnostic)
    assert edit == TextEdit(Span(1, 0, 1, 0), "# heredoc-lsp: disable=unknown\n")
    assert edit is not None
    assert cli(apply_edit(text, edit)).diagnostics == ()


def test_whole_file_edit_and_line_endings() -> None:
    text = "#!/usr/bin/env heredoc-lsp\r\necho a\r\n<<A\r\nA\r\n"
    analysis = cli(text)
    edit = analysis.suppression_edit(analysis.diagnostics[0], whole_file=True)
    assert edit == TextEdit(Span(1, 0, 1, 0), "# heredoc-lsp: disable=heredoc_without_command\r\n")


def test_whole_file_edit_extends_the_top_directive() -> None:
    text = "# heredoc-lsp: disable=possible_heredoc\necho a\n<<A\nA\n"
    analysis = cli(text)
    edit = analysis.suppression_edit(analysis.diagnostics[0], whole_file=True)
    assert edit == TextEdit(Span(0, 0, 0, 39), "# heredoc-lsp: disable=possible_heredoc,heredoc_without_command")


def test_inbox_edit() -> None:
    text = '[READ_FILE path="x"]\n   [/DONE]\n'
    analysis = analyze(text, Language.INBOX)
    (diagnostic,) = analysis.diagnostics
    edit = analysis.suppression_edit(diagnostic)
    assert edit == TextEdit(Span(1, 0, 1, 0), "   # heredoc-lsp: disable=stray_close\n")
    assert edit is not None
    assert analyze(apply_edit(text, edit), Language.INBOX).diagnostics == ()
