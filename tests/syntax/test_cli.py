"""docs/formats.md: the .cli scanner — items, heredocs, stdin, every diagnostic with exact code, message and span."""

from __future__ import annotations

from typing import Any

import pytest
from syntax_schemas import HANDOFF, TASK, TOOL

from heredoc_lsp.syntax.cli import CliScript, Command, Comment, Heredoc, parse_cli, reparse_cli
from heredoc_lsp.syntax.diagnostics import Related, Severity, Span
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import split_lines

SCHEMAS = {s.name: s for s in (TASK, HANDOFF, TOOL)}


def parse(text: str, **kw: Any) -> CliScript:
    return parse_cli(split_lines(text), **kw)


def diags(text: str, **kw: Any) -> list[tuple[str, tuple[int, int, int, int], str]]:
    return [
        (d.code, (d.span.start_line, d.span.start_col, d.span.end_line, d.span.end_col), d.message)
        for d in parse(text, **kw).diagnostics
    ]


def codes(text: str, **kw: Any) -> list[str]:
    return [d.code for d in parse(text, **kw).diagnostics]


def runs(text: str, **kw: Any) -> list[tuple[int, str, str]]:
    """(line, command text, stdin) of every runnable command."""
    return [(c.line, c.text, c.stdin_text()) for c in parse(text, **kw).commands]


# --------------------------------------------------------------------------------------------------------------
# Commands, comments and heredoc bodies (no diagnostics)

CLEAN = [
    ("comment_and_commands", "# setup\n\n  echo a  \ncmd # x\n", [(2, "echo a", ""), (3, "cmd # x", "")]),
    ("indented_comment", "   # indented comment\necho", [(1, "echo", "")]),
    ("heredoc", "cat <<EOF\nhello\n  world\nEOF\n", [(0, "cat", "hello\n  world\n")]),
    ("crlf", "cat <<EOF\r\nx\r\nEOF\r\necho\r\n", [(0, "cat", "x\n"), (3, "echo", "")]),
    ("lone_cr", "cat <<EOF\rx\rEOF\recho", [(0, "cat", "x\n"), (3, "echo", "")]),
    ("trailing_spaces_on_opener_and_marker", "cat <<EOF  \t\nx\nEOF \t \n", [(0, "cat", "x\n")]),
    ("indented_terminator_closes", "cat <<EOF\nx\n   EOF\necho", [(0, "cat", "x\n"), (3, "echo", "")]),
    ("marker_mid_line_does_not_close", "cat <<EOF\nsay EOF now\nEOF\n", [(0, "cat", "say EOF now\n")]),
    ("marker_is_case_sensitive", "cat <<EOF\neof\nEOF\n", [(0, "cat", "eof\n")]),
    ("empty_body", "cat <<EOF\nEOF\n", [(0, "cat", "")]),
    ("no_final_newline", "cat <<EOF\nx\nEOF", [(0, "cat", "x\n")]),
    ("body_keeps_comments_blanks", "cat <<EOF\n# not a comment\n\n  \nEOF", [(0, "cat", "# not a comment\n\n  \n")]),
    ("body_keeps_trailing_spaces_and_cr_free", "cat <<EOF\r\n a \t\r\nEOF", [(0, "cat", " a \t\n")]),
    ("single_quoted", "cat << 'EOF'\nx\nEOF", [(0, "cat", "x\n")]),
    ("single_quoted_no_space", "cat <<'EOF'\nx\nEOF", [(0, "cat", "x\n")]),
    ("double_quoted", 'cat <<"EOF"\nx\nEOF', [(0, "cat", "x\n")]),
    ("space_before_unquoted_marker", "cat <<  EOF\nx\nEOF", [(0, "cat", "x\n")]),
    ("strip_tabs", "cat <<-EOF\n\t\tx\n\t y\n \tz\n\tEOF\n", [(0, "cat", "x\n y\n \tz\n")]),
    ("strip_tabs_quoted", "cat <<- 'EOF'\n\tx\nEOF", [(0, "cat", "x\n")]),
    ("tab_before_operator", "cat\t<<EOF\nx\nEOF", [(0, "cat", "x\n")]),
    ("marker_digits_underscore", "cat <<END_2\nx\nEND_2", [(0, "cat", "x\n")]),
    ("numeric_marker", "cat <<123\nx\n123", [(0, "cat", "x\n")]),
    ("plain_without_later_marker", "cmd<<EOF\necho", [(0, "cmd<<EOF", ""), (1, "echo", "")]),
    ("operator_inside_command_text", "echo a<<b <<EOF\nx\nEOF", [(0, "echo a<<b", "x\n")]),
    ("two_heredocs_in_sequence", "a <<X\n1\nX\nb <<Y\n2\nY", [(0, "a", "1\n"), (3, "b", "2\n")]),
    ("other_marker_inside_body", "a <<X\nb <<Y\nX\nY", [(0, "a", "b <<Y\n"), (3, "Y", "")]),
    ("hash_after_opener_is_marker_error_free", "cat <<EOF # c", [(0, "cat <<EOF # c", "")]),
    ("nbsp_is_not_blank", "\u00a0echo\u00a0", [(0, "\u00a0echo\u00a0", "")]),
    ("form_feed_and_vtab_trim", "\f\vecho\f", [(0, "echo", "")]),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CLEAN], ids=[c[0] for c in CLEAN])
def test_clean_scripts(text: str, expected: list[tuple[int, str, str]]) -> None:
    script = parse(text)
    assert script.diagnostics == ()
    assert runs(text) == expected


def test_here_string_is_a_plain_command() -> None:
    # (a here-string is bash-only: under the default /bin/sh runner it is a `bashism`)
    assert parse("cat <<<EOF\nEOF", shell="bash").diagnostics == ()
    assert runs("cat <<<EOF\nEOF", shell="bash") == [(0, "cat <<<EOF", ""), (1, "EOF", "")]


def test_items_include_comments_in_order() -> None:
    script = parse("# one\n  echo a\n\n\t# two\ncat <<EOF\nbody\nEOF\n")
    items = script.items
    assert [type(i).__name__ for i in items] == ["Comment", "Command", "Comment", "Command"]
    assert items[0] == Comment(0, 0, "# one")
    assert items[0].span == Span(0, 0, 0, 5)
    assert items[1] == Command(1, 2, "echo a", None, 1)
    assert items[1].span == Span(1, 2, 1, 8)
    assert items[2] == Comment(3, 1, "# two")
    cmd = items[3]
    assert isinstance(cmd, Command)
    assert (cmd.line, cmd.col, cmd.text, cmd.end_line, cmd.error) == (4, 0, "cat", 6, None)


def test_heredoc_fields() -> None:
    script = parse("  run it << 'END'  \n\tline\nEND\n")
    (cmd,) = script.commands
    h = cmd.heredoc
    assert h is not None
    assert cmd.span == Span(0, 2, 0, 8)
    assert h.operator_span == Span(0, 9, 0, 11)
    assert h.marker == "END"
    assert h.marker_span == Span(0, 13, 0, 16)
    assert (h.quoted, h.quote, h.strip_tabs) == (True, "'", False)
    assert (h.body_start, h.body, h.body_end) == (1, ("\tline",), 2)
    assert (h.terminator_line, h.terminator_span, h.closed) == (2, Span(2, 0, 2, 3), True)
    assert cmd.stdin_text() == "\tline\n"
    # Items are filled through slot setters: they must equal (and hash like) normally constructed ones.
    expected = Command(
        0,
        2,
        "run it",
        Heredoc(Span(0, 9, 0, 11), "END", Span(0, 13, 0, 16), True, "'", False, 1, ("\tline",), 2, Span(2, 0, 2, 3)),
        2,
    )
    assert cmd == expected
    assert hash(cmd) == hash(expected)


def test_strip_tabs_fields() -> None:
    (cmd,) = parse('x <<-"E"\n\t\ta\n\tE').commands
    h = cmd.heredoc
    assert h is not None
    assert h.operator_span == Span(0, 2, 0, 5)
    assert h.marker_span == Span(0, 6, 0, 7)
    assert (h.quote, h.strip_tabs, h.body) == ('"', True, ("a",))
    assert h.terminator_span == Span(2, 1, 2, 2)


def test_non_ascii_before_marker_columns_are_code_points() -> None:
    (cmd,) = parse("é😀 <<EOF\nx\nEOF").commands
    h = cmd.heredoc
    assert h is not None
    assert cmd.text == "é😀"
    assert h.operator_span == Span(0, 3, 0, 5)
    assert h.marker_span == Span(0, 5, 0, 8)


def test_command_without_heredoc_has_empty_stdin() -> None:
    (cmd,) = parse("echo hi").commands
    assert cmd.heredoc is None
    assert cmd.stdin_text() == ""


def test_empty_document() -> None:
    script = parse("")
    assert (script.items, script.commands, script.diagnostics) == ((), (), ())


# --------------------------------------------------------------------------------------------------------------
# Errors and warnings

UNCLOSED = "Unclosed heredoc starting at line {}: expected '{}' but reached end of file"
NO_COMMAND = "Heredoc '{}' has no command: write the command before '<<' on this line"
INVALID_MARKER = "Invalid heredoc marker '{}': a marker is letters A-Z or a-z, digits and '_', optionally quoted"
TWO_HEREDOCS = (
    "Only one heredoc per command is supported, this line has 2 ('<<A', '<<B'); the body runs to the last marker 'B'"
)
NO_SPACE = "it needs a space before '<<'"
FOLLOWED_BY = "it is followed by '{}', and only a redirection, a pipe, '&&', '||' or ';' may follow a marker"


def possible_heredoc(marker: str, why: str) -> str:
    return (
        f"'<<{marker}' is not a heredoc opener ({why}), so line 3 ('{marker}') would run as a command: the script "
        "does not run while this warning stands"
    )


DIAGNOSTICS = [
    (
        "unclosed",
        "echo hi\ncat <<EOF\nx\n",
        [("unclosed_heredoc", (1, 6, 1, 9), UNCLOSED.format(2, "EOF"))],
    ),
    (
        "unclosed_quoted_span_is_word",
        "cat << 'END'\n",
        [("unclosed_heredoc", (0, 8, 0, 11), UNCLOSED.format(1, "END"))],
    ),
    (
        "unclosed_non_ascii",
        "é😀 <<EOF\nbody",
        [("unclosed_heredoc", (0, 5, 0, 8), UNCLOSED.format(1, "EOF"))],
    ),
    (
        "unclosed_case_differs",
        "cat <<EOF\neof\n",
        [("unclosed_heredoc", (0, 6, 0, 9), UNCLOSED.format(1, "EOF"))],
    ),
    (
        "heredoc_without_command",
        "<<EOF\nx\nEOF\necho\n",
        [("heredoc_without_command", (0, 0, 0, 5), NO_COMMAND.format("<<EOF"))],
    ),
    (
        "heredoc_without_command_indented_quoted",
        "  << 'EOF'\nEOF",
        [("heredoc_without_command", (0, 2, 0, 10), NO_COMMAND.format("<< 'EOF'"))],
    ),
    ("invalid_marker", "cmd <<ÉOF\nbody\nÉOF\necho", [("invalid_marker", (0, 6, 0, 9), INVALID_MARKER.format("ÉOF"))]),
    (
        "invalid_marker_quoted_with_space",
        "cmd << 'A B'\nbody\nA B\necho",
        [("invalid_marker", (0, 7, 0, 12), INVALID_MARKER.format("'A B'"))],
    ),
    (
        "missing_marker",
        "cmd <<\necho",
        [("invalid_marker", (0, 4, 0, 6), "Missing heredoc marker after '<<'")],
    ),
    (
        "missing_marker_dash",
        "cmd <<-  \necho",
        [("invalid_marker", (0, 4, 0, 7), "Missing heredoc marker after '<<-'")],
    ),
    ("multiple_heredocs", "cmd <<A <<B\nA\nB\necho\n", [("multiple_heredocs", (0, 4, 0, 11), TWO_HEREDOCS)]),
    (
        "possible_heredoc_no_space",
        "cmd<<EOF\nx\nEOF\n",
        [("possible_heredoc", (0, 3, 0, 8), possible_heredoc("EOF", NO_SPACE))],
    ),
    (
        "possible_heredoc_word_after_marker",
        "cmd <<EOF extra\nx\n  EOF \n",
        [("possible_heredoc", (0, 4, 0, 9), possible_heredoc("EOF", FOLLOWED_BY.format("extra")))],
    ),
    (
        "possible_heredoc_ignores_earlier_lines",
        "EOF\ncmd<<EOF\n",
        [],
    ),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in DIAGNOSTICS], ids=[c[0] for c in DIAGNOSTICS])
def test_diagnostics(text: str, expected: list[tuple[str, tuple[int, int, int, int], str]]) -> None:
    assert diags(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("echo hi\ncat <<EOF\nx\n", [(0, "echo hi", "")]),
        ("<<EOF\nx\nEOF\necho\n", [(3, "echo", "")]),
        ("cmd <<ÉOF\nbody\nÉOF\necho", [(3, "echo", "")]),
        ("cmd << 'A B'\nbody\nA B\necho", [(3, "echo", "")]),
        # No line closes the invalid marker: nothing is consumed, later lines stay commands.
        ("cmd <<ÉOF\necho", [(1, "echo", "")]),
        ("cmd <<\necho", [(1, "echo", "")]),
        ("cmd <<A <<B\nA\nB\necho\n", [(3, "echo", "")]),
        ("cmd <<A <<B\nA\necho\n", []),
        ("cmd<<EOF\nx\nEOF\n", [(0, "cmd<<EOF", ""), (1, "x", ""), (2, "EOF", "")]),
    ],
)
def test_errors_produce_no_command_and_consume_their_body(text: str, expected: list[tuple[int, str, str]]) -> None:
    assert runs(text) == expected


def test_unclosed_details() -> None:
    script = parse("echo hi\ncat <<EOF\nx\nlast line")
    (d,) = script.diagnostics
    assert d.severity == Severity.ERROR
    assert d.related == (Related(Span(3, 9, 3, 9), "end of file reached without a line 'EOF'"),)
    assert d.data == {"marker": "EOF", "opener_line": 1, "insert_line": 4}
    item = script.items[1]
    assert isinstance(item, Command)
    assert item.error == "unclosed_heredoc"
    assert item.heredoc is not None
    assert item.heredoc.body == ("x", "last line")
    assert (item.heredoc.terminator_line, item.end_line) == (None, 3)
    assert script.has_errors


def test_unclosed_at_last_line() -> None:
    script = parse("cat <<EOF")
    (d,) = script.diagnostics
    assert d.span == Span(0, 6, 0, 9)
    assert d.related[0].span == Span(0, 9, 0, 9)
    item = script.items[0]
    assert isinstance(item, Command)
    assert item.heredoc is not None and item.heredoc.body == ()


def test_every_problem_is_reported() -> None:
    text = "cmd<<Z\n<<EOF\nEOF\nx <<ÉOF\nÉOF\na <<A <<B\nB\nZ\nopen <<NEVER\n"
    assert codes(text) == [
        "possible_heredoc",
        "heredoc_without_command",
        "invalid_marker",
        "multiple_heredocs",
        "unclosed_heredoc",
    ]
    script = parse(text)
    assert [(i.line, i.error) for i in script.items if isinstance(i, Command)] == [
        (0, None),
        (1, "heredoc_without_command"),
        (3, "invalid_marker"),
        (5, "multiple_heredocs"),
        (7, None),
        (8, "unclosed_heredoc"),
    ]


def test_unclosed_erroneous_heredoc_reports_both() -> None:
    assert codes("<<EOF\nx") == ["heredoc_without_command", "unclosed_heredoc"]
    assert codes("a <<A <<B\nx") == ["multiple_heredocs", "unclosed_heredoc"]


def test_diagnostic_data_for_quick_fixes() -> None:
    (d,) = parse("cmd<<EOF\nEOF").diagnostics
    assert d.severity == Severity.WARNING
    assert d.data == {"marker": "EOF", "terminator_line": 1, "operator_col": 3, "needs_space": True}
    (d,) = parse("a <<A <<B\nB").diagnostics
    assert d.data == {"markers": ["A", "B"], "marker": "B"}


# --------------------------------------------------------------------------------------------------------------
# arca-cli portability hints

COMPAT_MESSAGE = (
    "arca-cli's cli.script runs this line as a plain command: it only understands '<<{}' at the end of the line "
    "(no quotes, no '-', no space after '<<', nothing after the marker)"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cat <<EOF\nEOF", []),
        ("cat << 'EOF'\nEOF", [("compat_arca_cli", (0, 4, 0, 12), COMPAT_MESSAGE.format("EOF"))]),
        ('cat <<"EOF"\nEOF', [("compat_arca_cli", (0, 4, 0, 11), COMPAT_MESSAGE.format("EOF"))]),
        ("cat <<-EOF\nEOF", [("compat_arca_cli", (0, 4, 0, 10), COMPAT_MESSAGE.format("EOF"))]),
        ("cat << EOF\nEOF", [("compat_arca_cli", (0, 4, 0, 10), COMPAT_MESSAGE.format("EOF"))]),
    ],
)
def test_arca_cli_hints(text: str, expected: list[tuple[str, tuple[int, int, int, int], str]]) -> None:
    assert diags(text, compat="arca-cli") == expected
    assert all(d.severity == Severity.INFORMATION for d in parse(text, compat="arca-cli").diagnostics)
    assert diags(text) == []


def test_arca_hint_on_commands_not_for_errors() -> None:
    assert codes("<< 'EOF'\nEOF", compat="arca-cli") == ["heredoc_without_command"]


# --------------------------------------------------------------------------------------------------------------
# Structured heredoc bodies inside scripts


def test_unconfigured_structured_body_at_script_lines() -> None:
    text = "echo\ncmd <<EOF\n\n---TITLE---\nx\n---TITLE---\ny\nEOF\n"
    assert diags(text) == [
        ("duplicate", (5, 0, 5, 11), "Duplicate parameter 'TITLE' found at line 4"),
    ]
    (d,) = parse(text).diagnostics
    assert d.related == (Related(Span(3, 0, 3, 11), "'TITLE' first defined here"),)
    cmd = parse(text).commands[1]
    assert cmd.params is not None and cmd.params.values is None


def test_unconfigured_body_without_leading_delimiter_is_plain() -> None:
    script = parse("cmd <<EOF\nhello\n---TITLE---\n---TITLE---\nEOF")
    assert script.diagnostics == ()
    assert script.commands[0].params is None


def test_unconfigured_structured_values() -> None:
    (cmd,) = parse("cmd <<EOF\n---A---\n  one\n\n---B_C---\ntwo\nEOF").commands
    assert cmd.params is not None
    assert cmd.params.values == {"A": "  one", "B_C": "two"}
    assert cmd.params.delimiter_lines == (1, 4)


def test_configured_multi_body() -> None:
    text = "# t\nchatroom task-started --role=b << 'PARAMS_END'\n---TITLE---\nT\n---FOO---\nz\nPARAMS_END\n"
    assert diags(text, schemas=SCHEMAS) == [
        ("missing", (2, 0, 5, 1), "Required parameter 'DESCRIPTION' is missing"),
        ("unknown", (4, 3, 4, 6), "Unknown parameter 'FOO'. Expected one of: TITLE, DESCRIPTION, TECH_SPECS"),
    ]
    cmd = parse(text, schemas=SCHEMAS).commands[0]
    assert cmd.schema == TASK


def test_configured_body_with_tab_stripping_maps_columns() -> None:
    text = "chatroom task-started <<-EOF\n\t---TITLE---\n\tT\n\t  ---TITLE---\n\t---DESCRIPTION---\n\t\t\n\tEOF"
    assert diags(text, schemas=SCHEMAS) == [
        (
            "collision",
            (3, 3, 3, 14),
            "Indented '---TITLE---' is content, not a delimiter; it collides with parameter 'TITLE' "
            "(switch to UUID-prefixed delimiters or rephrase)",
        ),
        ("empty", (4, 1, 4, 18), "Parameter 'DESCRIPTION' is empty. Each parameter must have content."),
    ]
    cmd = parse(text, schemas=SCHEMAS).commands[0]
    assert cmd.params is not None
    assert cmd.params.params[0].delimiter_span == Span(1, 1, 1, 12)
    assert cmd.params.params[0].name_span == Span(1, 4, 1, 9)


def test_configured_non_ascii_columns() -> None:
    text = "chatroom task-started <<EOF\n---TITLE---\né😀\n---DÉSC---\nEOF"
    # `---DÉSC---` is no delimiter (É is not A-Z): it is content of TITLE.
    assert codes(text, schemas=SCHEMAS) == ["missing"]


def test_configured_command_not_matching_is_plain_even_with_delimiters() -> None:
    script = parse("other <<EOF\n---X---\n---X---\nEOF", schemas=SCHEMAS)
    assert script.diagnostics == ()
    assert script.commands[0].params is None
    assert script.commands[0].schema is None


def test_longest_prefix_at_word_boundary() -> None:
    schemas = {"chatroom": CommandSchema("chatroom", "text", terminator="X"), **SCHEMAS}
    script = parse("chatroom handoff 1 <<EOF\nhi\nEOF\nchatroomx <<EOF\nX\nEOF\nchatroom y <<E\nX\nE", schemas=schemas)
    assert [c.schema.name if c.schema else None for c in script.commands] == ["chatroom handoff", None, "chatroom"]
    assert [d.code for d in script.diagnostics] == ["terminator_collision"]
    assert script.diagnostics[0].span == Span(7, 0, 7, 1)


def test_single_mode_body() -> None:
    text = "chatroom handoff x <<EOF\n\n---MESSAGE---\n\n## Summary\n---TITLE---\nEOF"
    (cmd,) = parse(text, schemas=SCHEMAS).commands
    assert cmd.params is not None
    assert cmd.params.values == {"MESSAGE": "## Summary\n---TITLE---"}
    assert diags("chatroom handoff <<EOF\n  \nEOF", schemas=SCHEMAS) == [
        ("empty", (1, 0, 1, 2), "Parameter 'MESSAGE' is empty. Each parameter must have content."),
    ]


def test_text_mode_checks_only_the_terminator() -> None:
    text = "tool run <<EOF\n---X---\n  TOOL_END \nEOF"
    assert diags(text, schemas=SCHEMAS) == [
        (
            "terminator_collision",
            (2, 2, 2, 10),
            "Line 'TOOL_END' is the heredoc terminator of 'tool run': it would end the heredoc early when run "
            "from a shell",
        )
    ]


def test_plain_command_gets_schema_for_hover() -> None:
    (cmd,) = parse("chatroom handoff now", schemas=SCHEMAS).commands
    assert cmd.schema == HANDOFF and cmd.params is None


def test_erroneous_heredoc_body_is_not_checked() -> None:
    assert codes("chatroom task-started <<EOF\n---FOO---\n") == ["unclosed_heredoc"]
    assert codes("<<EOF\n---A---\n---A---\nEOF") == ["heredoc_without_command"]


def test_diagnostics_sorted_by_position() -> None:
    text = "a <<E\n---A---\nv\n---A---\nE\ncmd<<Z\nZ\n"
    spans = [d.span for d in parse(text).diagnostics]
    assert spans == sorted(spans)
    assert codes(text) == ["duplicate", "possible_heredoc"]


def test_one_possible_heredoc_per_line() -> None:
    assert diags("a<<X b<<Y\nY\nX") == [("possible_heredoc", (0, 1, 0, 4), possible_heredoc("X", NO_SPACE))]


def test_multiple_heredocs_message_is_capped() -> None:
    (d,) = parse("x <<A <<B <<C <<D <<E <<F\nF").diagnostics
    assert d.message == (
        "Only one heredoc per command is supported, this line has 6 ('<<A', '<<B', '<<C', ... 2 more, '<<F'); "
        "the body runs to the last marker 'F'"
    )
    assert d.data == {"markers": ["A", "B", "C", "D", "E", "F"], "marker": "F"}


@pytest.mark.parametrize(
    "line",
    [
        "x " + "<< a" * 20000,
        "x << " + "a" * 100000 + " b",
        "<<" * 50000,
        "x <<" + "'" * 50000,
        'x << "' + "a" * 50000,
        "x" + "<<a" * 20000,
        "x " + "<<A " * 20000 + "<<B",
    ],
    ids=["many_ops", "long_token", "shift_soup", "quotes", "open_dq", "loose", "heredoc_tokens"],
)
def test_pathological_lines_stay_small(line: str) -> None:
    script = parse_cli([line, "b", "A", "a", "B"])
    assert len(script.diagnostics) <= 2
    assert all(len(d.message) < 300 for d in script.diagnostics)
    assert len(script.items) >= 1


def test_scan_from_a_top_level_line() -> None:
    lines = ["echo a", "cat <<EOF", "x", "EOF", "echo b", "open <<Z"]
    script = parse_cli(lines, start_line=4)
    assert [(i.line, i.error) for i in script.items if isinstance(i, Command)] == [
        (4, None),
        (5, "unclosed_heredoc"),
    ]
    assert [d.span.start_line for d in script.diagnostics] == [5]
    assert script.start_line == 4


def test_resume_line_and_reparse() -> None:
    old = ["echo a", "cat <<EOF", "x", "EOF", "", "echo b"]
    previous = parse_cli(old)
    assert [previous.resume_line(n) for n in range(7)] == [0, 1, 1, 1, 1, 5, 5]
    new = ["echo a", "cat <<EOF", "EOF", "EOF", "", "echo b"]  # line 2 edited: the heredoc now closes there
    updated = reparse_cli(previous, new, 2)
    assert [(c.line, c.text, c.stdin_text()) for c in updated.commands] == [
        (0, "echo a", ""),
        (1, "cat", ""),
        (3, "EOF", ""),
        (5, "echo b", ""),
    ]
    # A line that looked ahead (possible_heredoc) makes later edits restart from it.
    looked = parse_cli(["cmd<<EOF", "echo", "echo"])
    assert looked.resume_line(2) == 0


# --------------------------------------------------------------------------------------------------------------
# docs/formats.md: an opener followed by a redirection, pipe or list operator; the runner gets the text before `<<`, one
# space and the tail.

TAILS = [
    ("redirect", "cat <<EOF > out.txt\nx\nEOF\n", "cat > out.txt", "> out.txt"),
    ("redirect_glued_target", "cat <<EOF >out.txt\nx\nEOF\n", "cat >out.txt", ">out.txt"),
    ("append", "cat <<EOF >> log\nx\nEOF\n", "cat >> log", ">> log"),
    ("stdin_redirect", "cmd <<EOF < in\nx\nEOF\n", "cmd < in", "< in"),
    ("fd_redirect", "cmd <<EOF 2> err\nx\nEOF\n", "cmd 2> err", "2> err"),
    ("dup_to_stderr", "cmd <<EOF >&2\nx\nEOF\n", "cmd >&2", ">&2"),
    ("both_streams", "cmd <<EOF &>/dev/null\nx\nEOF\n", "cmd &>/dev/null", "&>/dev/null"),
    ("quoted_pipe", "python3 - <<'PY' | tee out\nx\nPY\n", "python3 - | tee out", "| tee out"),
    ("dash_or", "cat <<-END || exit 1\n\tx\nEND\n", "cat || exit 1", "|| exit 1"),
    ("and", "cat <<EOF && echo ok\nx\nEOF\n", "cat && echo ok", "&& echo ok"),
    ("semicolon", "cat <<EOF ; echo ok\nx\nEOF\n", "cat ; echo ok", "; echo ok"),
    ("space_and_dquotes", 'cat << "E" 2>&1 >> log\nx\nE\n', "cat 2>&1 >> log", "2>&1 >> log"),
    ("blanks_collapse", "  cat   <<EOF \t >  o  \nx\nEOF\n", "cat >  o", ">  o"),
    ("non_ascii", "écho ü <<FIN > ö.txt\nx\nFIN\n", "écho ü > ö.txt", "> ö.txt"),
    ("crlf", "cat <<EOF > o.txt\r\nx\r\nEOF\r\n", "cat > o.txt", "> o.txt"),
    ("lone_cr", "cat <<EOF > o.txt\rx\rEOF\r", "cat > o.txt", "> o.txt"),
]


@pytest.mark.parametrize(("text", "run_text", "tail"), [c[1:] for c in TAILS], ids=[c[0] for c in TAILS])
def test_opener_with_a_tail(text: str, run_text: str, tail: str) -> None:
    script = parse(text, shell="bash")  # (under /bin/sh, `&>` is a `bashism`: tests/syntax/test_cli_lints.py)
    assert script.diagnostics == ()
    (command,) = script.commands
    assert command.heredoc is not None
    assert (command.run_text, command.heredoc.tail, command.stdin_text()) == (run_text, tail, "x\n")
    assert command.text == run_text[: len(command.text)]  # `text` stays the part before the operator


def test_opener_without_a_tail_runs_its_text() -> None:
    (command,) = parse("cat <<EOF\nx\nEOF\n").commands
    assert command.heredoc is not None
    assert (command.run_text, command.heredoc.tail) == ("cat", "")


NOT_OPENERS = [
    # Any other word after the marker: a plain command, and the would-be body runs (so the warning blocks a run).
    (
        "word_after_marker",
        "echo a <<EOF extra\nx\nEOF\n",
        (0, 7, 0, 12),
        possible_heredoc("EOF", FOLLOWED_BY.format("extra")),
    ),
    ("background", "cmd <<EOF &\nx\nEOF\n", (0, 4, 0, 9), possible_heredoc("EOF", FOLLOWED_BY.format("&"))),
    ("shell_comment", "cmd <<EOF # note\nx\nEOF\n", (0, 4, 0, 9), possible_heredoc("EOF", FOLLOWED_BY.format("#"))),
    (
        "glued_list_operator",
        "cat <<EOF; echo ok\nx\nEOF\n",
        (0, 4, 0, 9),
        possible_heredoc("EOF", "the marker is glued to ';': put a blank between them"),
    ),
    (
        "non_ascii_crlf",
        "écho ü <<FIN après\r\nx\r\nFIN\r\n",
        (0, 7, 0, 12),
        possible_heredoc("FIN", FOLLOWED_BY.format("après")),
    ),
]


@pytest.mark.parametrize(("text", "span", "message"), [c[1:] for c in NOT_OPENERS], ids=[c[0] for c in NOT_OPENERS])
def test_word_after_marker_makes_a_plain_command(text: str, span: tuple[int, int, int, int], message: str) -> None:
    assert diags(text) == [("possible_heredoc", span, message)]
    assert [c.heredoc for c in parse(text).commands] == [None, None, None]


TAIL_ERRORS = [
    ("second_opener_in_tail", "cat <<A > f <<B\nb\nB\necho", [("multiple_heredocs", (0, 4, 0, 15), TWO_HEREDOCS)]),
    (
        "second_opener_after_pipe",
        "cat <<A | tee <<'B'\nb\nB\necho",
        [("multiple_heredocs", (0, 4, 0, 19), TWO_HEREDOCS)],
    ),
    (
        "marker_glued_to_redirection",
        "cat <<EOF>out\nx\nEOF\necho",
        [
            (
                "invalid_marker",
                (0, 6, 0, 13),
                "Invalid heredoc marker 'EOF>out': put a blank between the marker 'EOF' and '>out' (a redirection or "
                "pipe after the marker must be separated from it)",
            )
        ],
    ),
    (
        "invalid_marker_before_tail",
        "cmd <<ÉOF > out\nx\nÉOF\necho",
        [("invalid_marker", (0, 6, 0, 9), INVALID_MARKER.format("ÉOF"))],
    ),
    (
        "no_command_before_tail",
        "<<EOF > out\r\nx\r\nEOF\r\necho",
        [("heredoc_without_command", (0, 0, 0, 5), NO_COMMAND.format("<<EOF > out"))],
    ),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in TAIL_ERRORS], ids=[c[0] for c in TAIL_ERRORS])
def test_tail_errors_run_nothing_and_consume_the_body(
    text: str, expected: list[tuple[str, tuple[int, int, int, int], str]]
) -> None:
    assert diags(text) == expected
    assert runs(text) == [(3, "echo", "")]


def test_arca_hint_for_an_opener_with_a_tail() -> None:
    assert diags("cat <<EOF > out\nx\nEOF\n", compat="arca-cli") == [
        ("compat_arca_cli", (0, 4, 0, 15), COMPAT_MESSAGE.format("EOF")),
    ]


# --------------------------------------------------------------------------------------------------------------
# docs/formats.md lint warnings: `no_effect` (a line that only changes the shell's own state) and `line_continuation`.


def _no_effect(shown: str, what: str, joiner: str = " && ") -> str:
    return (
        f"'{shown}' has no effect: every line runs in a shell of its own, so {what} does not carry over to the next "
        f"lines; put it on the line of the command that needs it ('{shown}{joiner}<command>')"
    )


NO_EFFECT = [
    ("cd", "cd /tmp\n", (0, 0, 0, 7), "cd", _no_effect("cd /tmp", "the change of directory")),
    ("cd_indented_alone", "  cd  \n", (0, 2, 0, 4), "cd", _no_effect("cd", "the change of directory")),
    ("export", "export X=1\n", (0, 0, 0, 10), "export", _no_effect("export X=1", "the variable")),
    ("assignment", "X=1\n", (0, 0, 0, 3), "assignment", _no_effect("X=1", "the variable", " ")),
    (
        "assignments_quoted",
        'X=1 Y="a b"\n',
        (0, 0, 0, 11),
        "assignment",
        _no_effect('X=1 Y="a b"', "the variable", " "),
    ),
    ("set_e", "set -e\n", (0, 0, 0, 6), "set", _no_effect("set -e", "the shell option")),
    ("alias", "alias ll='ls -l'\n", (0, 0, 0, 16), "alias", _no_effect("alias ll='ls -l'", "the alias")),
    ("source", "source ./env.sh\n", (0, 0, 0, 15), "source", _no_effect("source ./env.sh", "what it defines")),
    ("dot", ". ./env.sh\n", (0, 0, 0, 10), ".", _no_effect(". ./env.sh", "what it defines")),
    ("non_ascii_crlf", "cd ü\r\necho\r\n", (0, 0, 0, 4), "cd", _no_effect("cd ü", "the change of directory")),
    ("lone_cr", "echo\r\tcd d\r", (1, 1, 1, 5), "cd", _no_effect("cd d", "the change of directory")),
]


@pytest.mark.parametrize(
    ("text", "span", "command", "message"), [c[1:] for c in NO_EFFECT], ids=[c[0] for c in NO_EFFECT]
)
def test_no_effect(text: str, span: tuple[int, int, int, int], command: str, message: str) -> None:
    (d,) = parse(text).diagnostics
    assert (d.code, d.severity, (d.span.start_line, d.span.start_col, d.span.end_line, d.span.end_col)) == (
        "no_effect",
        Severity.WARNING,
        span,
    )
    assert d.message == message
    assert d.data == {"command": command}


@pytest.mark.parametrize(
    "text",
    [
        "cd /tmp && make",  # the change of directory is used on the same line
        "cd /tmp; ls",
        "X=1 make",  # an environment prefix
        "echo X=1",
        "export -p",  # prints
        "set -o",
        "set",
        "alias ll",
        "cd $(mktemp -d)",
        "cdx",
        "exporter X=1",
        "export",
        "# cd /tmp",  # a comment
        "cat <<EOF\ncd /tmp\nX=1\nEOF",  # body lines are stdin, not commands
    ],
)
def test_no_effect_only_for_lines_that_only_change_shell_state(text: str) -> None:
    assert codes(text) == []


LINE_CONTINUATION = (
    "Line ends with '\\' but lines are never joined: the next line runs on its own (or is heredoc body) and this "
    "command gets a dangling '\\'; write the whole command on one line"
)


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("ls \\\n-l\n", (0, 3, 0, 4)),
        ("  ls -l \\  \n-a\n", (0, 8, 0, 9)),  # trailing blanks after the backslash are trimmed away
        ("ls \\\\\\\nx\n", (0, 5, 0, 6)),  # three backslashes: the last one is unescaped
        ("écho ü \\\r\nx\r\n", (0, 7, 0, 8)),
        ("ls \\\rx\r", (0, 3, 0, 4)),
        ("cat <<EOF > out \\\nx\nEOF\n", (0, 16, 0, 17)),  # an opener's tail
    ],
)
def test_line_continuation(text: str, span: tuple[int, int, int, int]) -> None:
    # (a next line starting with '-' is also an `orphan_option`: tests/syntax/test_cli_lints.py)
    found = [d for d in diags(text) if d[0] != "orphan_option"]
    assert found == [("line_continuation", span, LINE_CONTINUATION)]
    script = parse(text)
    assert script.diagnostics[0].data == {"next_line": span[0] + 1}
    # The next line is not joined: it stays its own command or body line.
    assert [c.line for c in script.commands] == ([0] if script.commands[0].heredoc else [0, 1])


@pytest.mark.parametrize("text", ["ls \\\\", "ls # note \\", "echo '\\'", "cat <<EOF\nx \\\nEOF"])
def test_no_line_continuation(text: str) -> None:
    assert codes(text) == []


# --------------------------------------------------------------------------------------------------------------
# docs/formats.md: configured commands after `NAME=value` prefixes, blanks read as one space.


@pytest.mark.parametrize(
    "opener",
    [
        "CHATROOM_URL=http://x chatroom handoff j1 <<EOF",
        "CHATROOM_URL=http://x   chatroom \t handoff <<EOF",
        'A=1 B="x y" chatroom  handoff <<EOF > out',
        "chatroom  handoff <<EOF | tee log",
    ],
)
def test_configured_command_after_env_prefix_and_blank_runs(opener: str) -> None:
    script = parse(f"{opener}\n\nhello\nEOF\n", schemas=SCHEMAS)
    (command,) = script.commands
    assert command.schema is HANDOFF
    assert command.params is not None
    assert script.diagnostics == ()


@pytest.mark.parametrize("opener", ["CHATROOM_URL=x chatroomhandoff <<EOF", "echo chatroom handoff <<EOF"])
def test_env_prefix_does_not_widen_the_match(opener: str) -> None:
    (command,) = parse(f"{opener}\nhello\nEOF\n", schemas=SCHEMAS).commands
    assert command.schema is None
