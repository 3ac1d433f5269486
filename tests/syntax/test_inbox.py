"""docs/formats.md: inbox replies, parsed without a workspace."""

from __future__ import annotations

from typing import Any

import pytest

from heredoc_lsp.syntax.diagnostics import Severity, Span
from heredoc_lsp.syntax.inbox import (
    InboxAttr,
    InboxReply,
    escape_attr_value,
    match_closer,
    match_opener,
    parse_inbox,
)
from heredoc_lsp.syntax.text import split_lines


def at(line: int, text: str, fragment: str, nth: int = 0) -> Span:
    """The span of the ``nth`` occurrence of ``fragment`` in ``text`` (which is line ``line``)."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(fragment, start + 1)
    return Span.at(line, start, start + len(fragment))


def short_id(value: object) -> str | None:
    """Readable test ids for cases with very long values."""
    return repr(value)[:40] if isinstance(value, (str, list)) else None


def diags(reply: InboxReply) -> list[tuple[str, str, Span]]:
    return [(d.code, d.message, d.span) for d in reply.diagnostics]


def codes(reply: InboxReply) -> list[str]:
    return [d.code for d in reply.diagnostics]


def summary(reply: InboxReply) -> list[tuple[str, dict[str, str], str | None]]:
    return [(c.name, dict(c.attrs), c.body) for c in reply.commands]


# --- §4.1/§4.2 the opener rule --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('[CREATE_FILE path="a"]', (0, "CREATE_FILE")),
        ('  \t[CREATE_FILE path="a"]  ', (3, "CREATE_FILE")),
        ("[DONE]", (0, "DONE")),
        ("[DONE/]", (0, "DONE")),
        ("[DONE\t]", (0, "DONE")),
        ('[READ_FILE\tpath="a"]', (0, "READ_FILE")),
        ("[RUN_COMMAND junk", (0, "RUN_COMMAND")),  # an opener (with a bad_attr), not prose
        ("[CREATE_FILE", None),  # nothing after the name: the opener rule of docs/formats.md read literally
        ("[CREATE_FILE   ", None),
        ('[create_file path="a"]', None),
        ('[Create_File path="a"]', None),
        ("[CREATE_FILES]", None),
        ("[CREATE_FILE2]", None),
        ("[DONE_X]", None),
        ("[UNKNOWN]", None),
        ('x [CREATE_FILE path="a"]', None),
        ("[/CREATE_FILE]", None),
        ("\u00a0[DONE]", None),  # NBSP is not a blank: text before the tag
        ("", None),
    ],
)
def test_match_opener(line: str, expected: tuple[int, str] | None) -> None:
    assert match_opener(line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[/CREATE_FILE]", "CREATE_FILE"),
        ("  [/DONE] \t", "DONE"),
        ("[/READ_FILE]", "READ_FILE"),
        ("[/create_file]", None),
        ("[/CREATE_FILE] x", None),
        ("[/ CREATE_FILE]", None),
        ("[/FOO]", None),
    ],
)
def test_match_closer(line: str, expected: str | None) -> None:
    assert match_closer(line) == expected


def test_lowercase_and_unknown_tags_are_prose_without_diagnostics() -> None:
    reply = parse_inbox(['[create_file path="a"]', "x", "[/create_file]", "[FOO]", "[/FOO]", "[Done]"])
    assert reply.commands == ()
    assert reply.diagnostics == ()
    assert reply.prose == ((0, 6),)


# --- every command, the tree ----------------------------------------------------------------------------------------

SAMPLE = [
    "Sure! Here is the plan.",  # 0
    '[CREATE_FILE path="src/a.py"]',  # 1
    "def f():",  # 2
    "    return 1",  # 3
    "[/CREATE_FILE]",  # 4
    "",  # 5
    '  [EDIT_FILE path="src/a.py" start_line="2" end_line="2"]',  # 6
    "    return 2",  # 7
    "  [/EDIT_FILE]  ",  # 8
    '[DELETE_FILE path="old.txt"]',  # 9
    '[READ_FILE path="README.md" /]',  # 10
    "[RUN_COMMAND]",  # 11
    "  python -m pytest -q  ",  # 12
    "[/RUN_COMMAND]",  # 13
    "[MESSAGE]",  # 14
    "",  # 15
    "Tests added.",  # 16
    "",  # 17
    "[/MESSAGE]",  # 18
    "[DONE]",  # 19
    "Implemented f.",  # 20
    "[/DONE]",  # 21
    "Bye.",  # 22
]


def test_every_command_kind() -> None:
    reply = parse_inbox(SAMPLE)
    assert reply.diagnostics == ()
    assert not reply.has_errors
    assert summary(reply) == [
        ("CREATE_FILE", {"path": "src/a.py"}, "def f():\n    return 1"),
        ("EDIT_FILE", {"path": "src/a.py", "start_line": "2", "end_line": "2"}, "    return 2"),
        ("DELETE_FILE", {"path": "old.txt"}, None),
        ("READ_FILE", {"path": "README.md"}, None),
        ("RUN_COMMAND", {}, "python -m pytest -q"),
        ("MESSAGE", {}, "Tests added."),
        ("DONE", {}, "Implemented f."),
    ]
    lines = [(c.line, c.end_line, c.body_lines, c.close_line, c.self_closing) for c in reply.commands]
    assert lines == [
        (1, 4, (2, 4), 4, False),
        (6, 8, (7, 8), 8, False),
        (9, 9, None, None, True),
        (10, 10, None, None, True),
        (11, 13, (12, 13), 13, False),
        (14, 18, (15, 18), 18, False),
        (19, 21, (20, 21), 21, False),
    ]
    assert reply.prose == ((0, 1), (5, 6), (22, 23))
    edit = reply.commands[1]
    assert edit.tag_span == Span.at(6, 2, 57)
    assert edit.name_span == Span.at(6, 3, 12)
    assert edit.close_span == Span.at(8, 2, 14)
    assert [a.name for a in edit.attr_list] == ["path", "start_line", "end_line"]
    assert edit.attr_list[1] == InboxAttr(
        name="start_line",
        value="2",
        span=at(6, SAMPLE[6], 'start_line="2"'),
        name_span=at(6, SAMPLE[6], "start_line"),
        value_span=Span.at(6, 41, 42),
    )
    assert edit.attr_list[1].quoted_span == Span.at(6, 40, 43)
    assert edit.attr("START_LINE") is edit.attr_list[1]
    assert edit.attr("missing") is None
    assert edit.path == "src/a.py"
    assert edit.line_range == (2, 2)
    assert reply.commands[0].line_range is None
    assert reply.commands[3].tag_span == Span.at(10, 0, 30)
    assert all(c.ok and c.errors == () and c.warnings == () for c in reply.commands)


def test_empty_document() -> None:
    reply = parse_inbox([])
    assert reply == InboxReply(commands=(), prose=(), diagnostics=())


# --- §4.2 attributes ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tag", "attrs"),
    [
        ('[READ_FILE path="a b]c"]', {"path": "a b]c"}),
        ('[READ_FILE path="say \\"hi\\""]', {"path": 'say "hi"'}),
        ('[READ_FILE path="a\\\\b"]', {"path": "a\\b"}),
        ('[READ_FILE path="a\\nb"]', {"path": "a\\nb"}),  # other backslashes are literal
        ('[READ_FILE path="a\\\\\\"b"]', {"path": 'a\\"b'}),
        ('[READ_FILE PATH="a"]', {"path": "a"}),
        ('[READ_FILE Path="a" Extra_1="x y"]', {"path": "a", "extra_1": "x y"}),
        ('[READ_FILE path="a"/]', {"path": "a"}),
        ('[READ_FILE path="a" /]', {"path": "a"}),
        ('[READ_FILE   path="a"\t ]', {"path": "a"}),
        ('[READ_FILE _x="" path="a"]', {"_x": "", "path": "a"}),
        ('[READ_FILE path="é😀.txt"]', {"path": "é😀.txt"}),
        ('[READ_FILE path="it\'s"]', {"path": "it's"}),
    ],
)
def test_attribute_values(tag: str, attrs: dict[str, str]) -> None:
    reply = parse_inbox([tag])
    assert reply.diagnostics == ()
    assert summary(reply) == [("READ_FILE", attrs, None)]


def test_attribute_spans_are_code_points() -> None:
    line = '[READ_FILE path="é😀" x="\\"y\\""]'
    (command,) = parse_inbox([line]).commands
    path, x = command.attr_list
    assert path.value_span == Span.at(0, 17, 19)  # é and 😀 are one column each (code points)
    assert path.span == Span.at(0, 11, 20)
    assert x.value == '"y"'
    assert x.value_span == Span.at(0, 24, 29)  # the raw (escaped) text between the quotes


SINGLE_QUOTES = "Attribute 'path' uses single quotes; use double quotes"
SPACED = "Attribute 'path' has spaces around '='; write path=\"...\""
UNEXPECTED = "Unexpected '{}' in READ_FILE tag; attributes are written name=\"value\""


@pytest.mark.parametrize(
    ("line", "fragment", "message"),
    [
        ("[READ_FILE path='a.txt']", "path='a.txt'", SINGLE_QUOTES),
        ("[READ_FILE path='a b.txt' x=\"1\"]", "path='a b.txt'", SINGLE_QUOTES),
        ("[READ_FILE path='a b.txt]", "path='a b.txt]", SINGLE_QUOTES),
        ("[READ_FILE path=a.txt]", "path=a.txt", "Attribute 'path' value must be in double quotes"),
        ('[READ_FILE path="a.txt]', 'path="a.txt]', "Attribute 'path' has an unterminated quoted value"),
        ('[READ_FILE path="a\\"]', 'path="a\\"]', "Attribute 'path' has an unterminated quoted value"),
        ('[READ_FILE path="a.txt"', '[READ_FILE path="a.txt"', "READ_FILE tag has no closing ']'"),
        ("[READ_FILE path]", "path", "Attribute 'path' has no value; write path=\"...\""),
        ('[READ_FILE path = "a.txt"]', 'path = "a.txt"', SPACED),
        ('[READ_FILE path= "a.txt"]', 'path= "a.txt"', SPACED),
        ('[READ_FILE path ="a b"]', 'path ="a b"', SPACED),
        ('[READ_FILE path = "a b]', 'path = "a b]', SPACED),
        ('[READ_FILE 1x="2" path="a"]', '1x="2"', UNEXPECTED.format('1x="2"')),
        ('[READ_FILE path="a" / ]', "/", UNEXPECTED.format("/")),
        ('[READ_FILE path="a"x="b"]', "x", "Missing whitespace before 'x' in READ_FILE tag; separate attributes"),
    ],
)
def test_bad_attr(line: str, fragment: str, message: str) -> None:
    reply = parse_inbox([line])
    assert diags(reply) == [("bad_attr", message, at(0, line, fragment))]
    (command,) = reply.commands  # a tag with bad attributes is still a command, reported FAILED
    assert command.errors == reply.diagnostics
    assert not command.ok


def test_bad_attr_without_a_name_leaves_path_missing() -> None:
    line = '[READ_FILE "a.txt"]'
    assert diags(parse_inbox([line])) == [
        ("missing_attr", "READ_FILE is missing the required attribute 'path'", Span.at(0, 1, 10)),
        ("bad_attr", UNEXPECTED.format('"a.txt"'), at(0, line, '"a.txt"')),
    ]


def test_bad_attr_data_for_quick_fixes() -> None:
    reply = parse_inbox(["[DELETE_FILE path='x']"])
    assert reply.diagnostics[0].data == {"kind": "single_quoted", "attr": "path", "command": "DELETE_FILE"}


def test_bad_attr_on_non_ascii_line() -> None:
    line = "[READ_FILE path=\"é😀\" x='y']"
    assert diags(parse_inbox([line])) == [
        ("bad_attr", "Attribute 'x' uses single quotes; use double quotes", Span.at(0, 21, 26)),
    ]


@pytest.mark.parametrize(
    ("line", "second"),
    [
        ('[READ_FILE path="a" path="b"]', 'path="b"'),
        ('[READ_FILE path="a" PATH="b"]', 'PATH="b"'),
    ],
)
def test_duplicate_attr(line: str, second: str) -> None:
    reply = parse_inbox([line])
    assert diags(reply) == [
        (
            "duplicate_attr",
            "Duplicate attribute 'path' in READ_FILE tag (first at column 12); the first value is used",
            at(0, line, second),
        )
    ]
    assert reply.diagnostics[0].related[0].span == Span.at(0, 11, 19)
    (command,) = reply.commands
    assert command.attrs == {"path": "a"}
    assert [a.value for a in command.attr_list] == ["a", "b"]


def test_unknown_attributes_are_kept_on_any_command() -> None:
    reply = parse_inbox(['[RUN_COMMAND timeout="5"]', "ls", "[/RUN_COMMAND]"])
    assert reply.diagnostics == ()
    assert summary(reply) == [("RUN_COMMAND", {"timeout": "5"}, "ls")]


# --- §4.2 inline content --------------------------------------------------------------------------------------------

INLINE = "Text after the {} tag on the same line; the line is ignored. Put the body on the following lines"


def test_inline_content_opens_no_block() -> None:
    lines = ['[CREATE_FILE path="a.txt"] hello', "body", "[/CREATE_FILE]"]
    reply = parse_inbox(lines)
    assert reply.commands == ()
    assert diags(reply) == [
        ("inline_content", INLINE.format("CREATE_FILE"), Span.at(0, 27, 32)),
        ("stray_close", "[/CREATE_FILE] has no matching [CREATE_FILE] opener; it is ignored", Span.at(2, 0, 14)),
    ]
    assert reply.prose == ((0, 3),)


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("[DONE] All done.", "All done."),
        ('[READ_FILE path="a"] please', "please"),
        ('[READ_FILE path="a"/]x', "x"),
        ("[MESSAGE]hi[/MESSAGE]  ", "hi[/MESSAGE]"),
        ("[RUN_COMMAND] é😀 ", "é😀"),
    ],
)
def test_inline_content(line: str, fragment: str) -> None:
    reply = parse_inbox([line])
    assert reply.commands == ()
    name = match_opener(line)
    assert name is not None
    assert diags(reply) == [("inline_content", INLINE.format(name[1]), at(0, line, fragment))]


def test_inline_content_with_bad_attr_reports_both() -> None:
    line = "[READ_FILE path='a'] x"
    assert codes(parse_inbox([line])) == ["bad_attr", "inline_content"]
    assert parse_inbox([line]).commands == ()


# --- §4.3 closers and unclosed blocks -------------------------------------------------------------------------------


def missing_closer(name: str, path: str | None = None) -> str:
    about = "" if path is None else f" for '{path}'"
    return f"{name}{about} missing closing tag: add [/{name}] on a line of its own"


def test_closer_is_the_first_trimmed_exact_line() -> None:
    lines = ["[MESSAGE]", "[/MESSAGE] not yet", "[/message]", " \t[/MESSAGE]\t ", "after", "[/MESSAGE]"]
    reply = parse_inbox(lines)
    assert summary(reply) == [("MESSAGE", {}, "[/MESSAGE] not yet\n[/message]")]
    assert reply.commands[0].close_line == 3
    assert diags(reply) == [
        ("stray_close", "[/MESSAGE] has no matching [MESSAGE] opener; it is ignored", Span.at(5, 0, 10)),
    ]


def test_unclosed_consumes_the_rest_and_never_rescans_it() -> None:
    lines = [
        "Here:",
        '[CREATE_FILE path="notes.md"]',
        "# Notes",
        '[DELETE_FILE path="important.db"]',
        "[RUN_COMMAND]",
        "rm -rf ~",
        "[/RUN_COMMAND]",
        "[DONE]",
        "[/DONE]",
    ]
    reply = parse_inbox(lines)
    assert len(reply.commands) == 1
    command = reply.commands[0]
    assert command.name == "CREATE_FILE"
    assert command.body == "\n".join(lines[2:])
    assert (command.end_line, command.body_lines, command.close_line, command.close_span) == (8, (2, 9), None, None)
    assert diags(reply) == [
        ("unclosed", missing_closer("CREATE_FILE", "notes.md"), Span.at(1, 1, 12)),
        ("nested_tag", "[DELETE_FILE inside the CREATE_FILE body is body text, not a command", Span.at(3, 0, 12)),
        ("nested_tag", "[RUN_COMMAND inside the CREATE_FILE body is body text, not a command", Span.at(4, 0, 12)),
        ("nested_tag", "[DONE inside the CREATE_FILE body is body text, not a command", Span.at(7, 0, 5)),
    ]
    unclosed = reply.diagnostics[0]
    assert unclosed.severity == Severity.ERROR
    assert unclosed.data == {"name": "CREATE_FILE", "closer": "[/CREATE_FILE]", "insert_line": 3}
    assert command.errors == (unclosed,)
    assert [d.code for d in command.warnings] == ["nested_tag"] * 3
    assert reply.prose == ((0, 1),)


@pytest.mark.parametrize(
    ("lines", "message", "span", "insert_line"),
    [
        (["[RUN_COMMAND]", "ls"], missing_closer("RUN_COMMAND"), Span.at(0, 1, 12), 2),
        (["[DONE]"], missing_closer("DONE"), Span.at(0, 1, 5), 1),
        (["[DONE /]"], missing_closer("DONE"), Span.at(0, 1, 5), 1),  # "/" does not make a block self-closing
        (
            ['  [EDIT_FILE path="é😀.py" start_line="1" end_line="1"]', "x", "", "[/CREATE_FILE]"],
            missing_closer("EDIT_FILE", "é😀.py"),
            Span.at(0, 3, 12),
            3,
        ),
        (['[CREATE_FILE path="a\\tb"]'], missing_closer("CREATE_FILE", "a\\tb"), Span.at(0, 1, 12), 1),
    ],
)
def test_unclosed_message(lines: list[str], message: str, span: Span, insert_line: int) -> None:
    reply = parse_inbox(lines)
    unclosed = [d for d in reply.diagnostics if d.code == "unclosed"]
    assert [(d.message, d.span) for d in unclosed] == [(message, span)]
    assert unclosed[0].data is not None and unclosed[0].data["insert_line"] == insert_line
    assert reply.commands[-1].end_line == len(lines) - 1


def test_unclosed_with_attribute_errors_still_consumes_its_body() -> None:
    lines = ["[CREATE_FILE path='a']", "[RUN_COMMAND]", "ls", "[/RUN_COMMAND]"]
    reply = parse_inbox(lines)
    assert [c.name for c in reply.commands] == ["CREATE_FILE"]
    assert codes(reply) == ["unclosed", "bad_attr", "nested_tag"]
    assert reply.diagnostics[0].message == missing_closer("CREATE_FILE")


def test_opener_with_errors_consumes_its_closed_body() -> None:
    lines = ['[CREATE_FILE path="/etc/passwd"]', "[RUN_COMMAND]", "x", "[/RUN_COMMAND]", "[/CREATE_FILE]", "tail"]
    reply = parse_inbox(lines)
    assert [c.name for c in reply.commands] == ["CREATE_FILE"]
    assert reply.commands[0].body == "[RUN_COMMAND]\nx\n[/RUN_COMMAND]"
    assert codes(reply) == ["path_outside_workspace", "nested_tag"]
    assert reply.prose == ((5, 6),)


# --- §4.4 bodies ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "body"),
    [
        # A CREATE_FILE body is verbatim.
        ('[CREATE_FILE path="a"]\r\nx\r\n  y \r\n[/CREATE_FILE]\r\n', "x\n  y "),
        ('[CREATE_FILE path="a"]\rx\r\ry\r[/CREATE_FILE]', "x\n\ny"),
        ('[CREATE_FILE path="a"]\n\n x\n\n[/CREATE_FILE]', "\n x\n"),  # verbatim: blank lines kept
        ('[CREATE_FILE path="a"]\n[/CREATE_FILE]', ""),
        ('[CREATE_FILE path="a"]\n\n[/CREATE_FILE]', ""),
        ('[CREATE_FILE path="a"]\n\n\n[/CREATE_FILE]', "\n"),
        ('[CREATE_FILE path="a"]\nlast\n[/CREATE_FILE]', "last"),  # no final newline added
        ('[CREATE_FILE path="a"]\n\tTab\u00a0\n[/CREATE_FILE]', "\tTab\u00a0"),
        ('[CREATE_FILE path="a"]\na\x0bb\x0cc\x1cd\u2028e\n[/CREATE_FILE]', "a\x0bb\x0cc\x1cd\u2028e"),
        # Text bodies (RUN_COMMAND, MESSAGE, DONE) are trimmed.
        ("[RUN_COMMAND]\n  ls -la  \n[/RUN_COMMAND]", "ls -la"),
        ("[RUN_COMMAND]\r\n\r\n\t make \\\r\n   all\r\n\r\n[/RUN_COMMAND]", "make \\\n   all"),
        ("[MESSAGE]\n\n  Hello\n\n  world  \n \n[/MESSAGE]", "Hello\n\n  world"),
        ("[DONE]\n\u00a0Done\u00a0\n[/DONE]", "\u00a0Done\u00a0"),  # NBSP is not trimmed
        ("[DONE]\n[/DONE]", ""),
        ("[MESSAGE]\n\f\v \t\n[/MESSAGE]", ""),
    ],
)
def test_create_file_body_is_verbatim_and_text_bodies_are_trimmed(text: str, body: str) -> None:
    reply = parse_inbox(split_lines(text))
    assert reply.diagnostics == ()
    assert [c.body for c in reply.commands] == [body]


def test_last_line_without_newline_is_a_closer() -> None:
    reply = parse_inbox(split_lines('[CREATE_FILE path="a"]\nx\n[/CREATE_FILE]'))
    assert (reply.diagnostics, summary(reply)) == ((), [("CREATE_FILE", {"path": "a"}, "x")])


def test_lines_split_on_newline_only_lose_their_cr() -> None:
    reply = parse_inbox(['[CREATE_FILE path="a"]\r', "x\r", "[/CREATE_FILE]\r"])
    assert (reply.diagnostics, summary(reply)) == ((), [("CREATE_FILE", {"path": "a"}, "x")])


# --- §4.5 required attributes, numbers, empty commands --------------------------------------------------------------


def test_missing_attrs() -> None:
    line = "[EDIT_FILE]"
    reply = parse_inbox([line, "x", "[/EDIT_FILE]"])
    name = Span.at(0, 1, 10)
    assert diags(reply) == [
        ("missing_attr", "EDIT_FILE is missing the required attribute 'path'", name),
        ("missing_attr", "EDIT_FILE is missing the required attribute 'start_line'", name),
        ("missing_attr", "EDIT_FILE is missing the required attribute 'end_line'", name),
    ]
    assert reply.diagnostics[0].data == {"attr": "path", "command": "EDIT_FILE", "line": 0, "insert_col": 10}


@pytest.mark.parametrize("name", ["CREATE_FILE", "DELETE_FILE", "READ_FILE"])
def test_path_is_required(name: str) -> None:
    lines = [f'[{name} other="x"]', "b", f"[/{name}]"] if name == "CREATE_FILE" else [f"[{name}]"]
    reply = parse_inbox(lines)
    assert diags(reply) == [
        ("missing_attr", f"{name} is missing the required attribute 'path'", Span.at(0, 1, 1 + len(name))),
    ]


def test_bad_attr_on_a_required_attribute_is_not_also_missing() -> None:
    assert codes(parse_inbox(["[DELETE_FILE path=x]"])) == ["bad_attr"]


def edit(start: str, end: str) -> list[str]:
    return [f'[EDIT_FILE path="a.py" start_line="{start}" end_line="{end}"]', "x", "[/EDIT_FILE]"]


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        ("1", "1", []),
        (" 3 ", "\t4", []),
        ("007", "7", []),
        ("x", "1", [("bad_int", "start_line must be a whole number, got 'x'", '"x"', 0)]),
        ("1.5", "2", [("bad_int", "start_line must be a whole number, got '1.5'", '"1.5"', 0)]),
        ("-1", "2", [("bad_int", "start_line must be a whole number, got '-1'", '"-1"', 0)]),
        ("+1", "2", [("bad_int", "start_line must be a whole number, got '+1'", '"+1"', 0)]),
        ("", "2", [("bad_int", "start_line must be a whole number, got ''", '""', 0)]),
        ("\u0663", "3", [("bad_int", "start_line must be a whole number, got '\u0663'", '"\u0663"', 0)]),
        (
            "a",
            "b",
            [
                ("bad_int", "start_line must be a whole number, got 'a'", '"a"', 0),
                ("bad_int", "end_line must be a whole number, got 'b'", '"b"', 0),
            ],
        ),
        ("0", "1", [("bad_range", "start_line must be at least 1, got 0", '"0"', 0)]),
        (
            "0",
            "x",
            [
                ("bad_int", "end_line must be a whole number, got 'x'", '"x"', 0),
                ("bad_range", "start_line must be at least 1, got 0", '"0"', 0),
            ],
        ),
        ("5", "3", [("bad_range", "end_line (3) is before start_line (5)", '"3"', 0)]),
        ("1", "9" * 30, []),
        ("1", "9" * 31, [("bad_int", "end_line is too large", '"' + "9" * 31 + '"', 0)]),
        ("1", "9" * 5000, [("bad_int", "end_line is too large", '"' + "9" * 5000 + '"', 0)]),
    ],
    ids=short_id,
)
def test_line_numbers(start: str, end: str, expected: list[tuple[str, str, str, int]]) -> None:
    lines = edit(start, end)
    reply = parse_inbox(lines)
    want = [(code, message, at(0, lines[0], fragment, nth)) for code, message, fragment, nth in expected]
    assert sorted(diags(reply), key=lambda d: d[2]) == sorted(want, key=lambda d: d[2])
    assert reply.commands[0].ok == (not expected)
    assert reply.commands[0].line_range == (None if expected else (int(start), int(end)))


@pytest.mark.parametrize(
    "body",
    [[], [""], ["   \t"], ["", "  ", ""]],
)
def test_empty_command(body: list[str]) -> None:
    reply = parse_inbox(["  [RUN_COMMAND]", *body, "[/RUN_COMMAND]"])
    assert diags(reply) == [("empty_command", "RUN_COMMAND has no command", Span.at(0, 2, 15))]
    assert not reply.commands[0].ok


def test_empty_message_and_done_are_fine() -> None:
    assert parse_inbox(["[MESSAGE]", "[/MESSAGE]", "[DONE]", "[/DONE]"]).diagnostics == ()


# --- §4.6 paths -----------------------------------------------------------------------------------------------------

CLIMBS = "Path '{}' is outside workspace: '..' climbs above the workspace root"


@pytest.mark.parametrize(
    ("path", "code", "message", "data"),
    [
        ("../x", "path_outside_workspace", CLIMBS.format("../x"), {"path": "../x", "suggestion": "x"}),
        (
            "/etc/passwd",
            "path_outside_workspace",
            "Path '/etc/passwd' is outside workspace: absolute paths are not allowed, use a path relative to the root",
            {"path": "/etc/passwd", "suggestion": "etc/passwd"},
        ),
        (
            "C:\\\\x",
            "path_outside_workspace",
            "Path 'C:\\x' is outside workspace: drive letters are not allowed, use a path relative to the root",
            {"path": "C:\\x", "suggestion": "x"},
        ),
        (
            "~/x",
            "path_outside_workspace",
            "Path '~/x' is outside workspace: '~' (home directory) is not allowed",
            {"path": "~/x", "suggestion": "x"},
        ),
        ("a/../../b", "path_outside_workspace", CLIMBS.format("a/../../b"), {"path": "a/../../b", "suggestion": "b"}),
        (
            "a\\\\..\\\\..\\\\b",
            "path_outside_workspace",
            CLIMBS.format("a\\..\\..\\b"),
            {"path": "a\\..\\..\\b", "suggestion": "b"},
        ),
        ("", "invalid_path", "Path is empty", {"path": ""}),
        (".", "invalid_path", "Path '.' names the workspace root; name a file inside it", {"path": "."}),
        (
            "src/",
            "invalid_path",
            "Path 'src/' ends with a separator; name a file, not a directory",
            {"path": "src/", "suggestion": "src"},
        ),
    ],
)
@pytest.mark.parametrize("name", ["CREATE_FILE", "EDIT_FILE", "DELETE_FILE", "READ_FILE"])
def test_path_problems(name: str, path: str, code: str, message: str, data: dict[str, Any]) -> None:
    extra = ' start_line="1" end_line="1"' if name == "EDIT_FILE" else ""
    opener = f'[{name} path="{path}"{extra}]'
    lines = [opener, "body", f"[/{name}]"] if name in ("CREATE_FILE", "EDIT_FILE") else [opener]
    reply = parse_inbox(lines)
    quoted = Span.at(0, len(name) + 7, len(name) + 9 + len(path))
    assert diags(reply) == [(code, message, quoted)]
    assert reply.diagnostics[0].data == data
    assert reply.commands[0].errors == reply.diagnostics


def test_path_is_not_checked_on_commands_without_paths() -> None:
    assert parse_inbox(['[RUN_COMMAND path="/etc"]', "ls", "[/RUN_COMMAND]"]).diagnostics == ()


def test_path_problem_on_non_ascii_line() -> None:
    line = '\u3000 [READ_FILE note="é😀" path="😀/../../x"]'
    reply = parse_inbox([line])
    # U+3000 is not an ASCII blank: the line is prose
    assert reply.commands == ()
    line = '[READ_FILE note="é😀" path="😀/../../x"]'
    reply = parse_inbox([line])
    assert diags(reply) == [("path_outside_workspace", CLIMBS.format("😀/../../x"), Span.at(0, 26, 37))]


# --- §4.7 warnings --------------------------------------------------------------------------------------------------


def test_stray_close() -> None:
    lines = ["text", "  [/RUN_COMMAND]  ", "[/DELETE_FILE]"]
    reply = parse_inbox(lines)
    assert diags(reply) == [
        ("stray_close", "[/RUN_COMMAND] has no matching [RUN_COMMAND] opener; it is ignored", Span.at(1, 2, 16)),
        ("stray_close", "[/DELETE_FILE] has no matching [DELETE_FILE] opener; it is ignored", Span.at(2, 0, 14)),
    ]
    assert all(d.severity == Severity.WARNING for d in reply.diagnostics)
    assert reply.commands == ()


def test_nested_tag_closes_at_the_first_closer() -> None:
    lines = [
        '[CREATE_FILE path="outer.md"]',  # 0
        '  [CREATE_FILE path="inner.md"]',  # 1
        "inner",  # 2
        "[/CREATE_FILE]",  # 3 closes the OUTER block
        "outer tail",  # 4
        "[/CREATE_FILE]",  # 5 stray
    ]
    reply = parse_inbox(lines)
    assert summary(reply) == [("CREATE_FILE", {"path": "outer.md"}, '  [CREATE_FILE path="inner.md"]\ninner')]
    assert diags(reply) == [
        ("nested_tag", "[CREATE_FILE inside the CREATE_FILE body is body text, not a command", Span.at(1, 2, 14)),
        ("stray_close", "[/CREATE_FILE] has no matching [CREATE_FILE] opener; it is ignored", Span.at(5, 0, 14)),
    ]
    assert reply.diagnostics[0].severity == Severity.WARNING
    assert reply.commands[0].ok


def test_tags_in_bodies_that_are_not_openers_do_not_warn() -> None:
    lines = ["[MESSAGE]", "[create_file x]", "see [DONE] below", "[DONE", "[/RUN_COMMAND]", "[/MESSAGE]"]
    reply = parse_inbox(lines)
    assert reply.diagnostics == ()
    assert reply.commands[0].body == "[create_file x]\nsee [DONE] below\n[DONE\n[/RUN_COMMAND]"


def test_command_after_done() -> None:
    lines = [
        "[DONE]",  # 0
        "ok",  # 1
        "[/DONE]",  # 2
        '[READ_FILE path="a"]',  # 3
        "[RUN_COMMAND]",  # 4
        "",  # 5
        "[/RUN_COMMAND]",  # 6
        "[DONE]",  # 7
        "[/DONE]",  # 8
    ]
    reply = parse_inbox(lines)
    assert [c.name for c in reply.commands] == ["DONE", "READ_FILE", "RUN_COMMAND", "DONE"]
    assert diags(reply) == [
        ("command_after_done", "READ_FILE comes after [DONE] (line 1) and will be skipped", Span.at(3, 1, 10)),
        ("empty_command", "RUN_COMMAND has no command", Span.at(4, 0, 13)),
        ("command_after_done", "RUN_COMMAND comes after [DONE] (line 1) and will be skipped", Span.at(4, 1, 12)),
        ("command_after_done", "DONE comes after [DONE] (line 1) and will be skipped", Span.at(7, 1, 5)),
    ]
    assert reply.diagnostics[0].related[0].span == Span.at(0, 1, 5)
    assert reply.commands[1].ok  # a warning does not fail the command; the executor skips it
    assert [d.code for d in reply.commands[2].errors] == ["empty_command"]


def test_every_problem_is_reported() -> None:
    lines = [
        "[READ_FILE path='a']",
        '[DELETE_FILE path="../b"]',
        "[RUN_COMMAND]",
        "[/RUN_COMMAND]",
        "[/DONE]",
        '[EDIT_FILE path="c" start_line="2" end_line="1" path="d"]',
        "x",
        "[/EDIT_FILE]",
        "[MESSAGE]",
        "never closed",
    ]
    assert codes(parse_inbox(lines)) == [
        "bad_attr",
        "path_outside_workspace",
        "empty_command",
        "stray_close",
        "bad_range",
        "duplicate_attr",
        "unclosed",
    ]


def test_escape_attr_value_round_trips() -> None:
    for value in ['say "hi"', "a\\b", "a\\", '\\"', "plain", "é😀 ]"]:
        line = f'[READ_FILE x="{escape_attr_value(value)}" path="a"]'
        assert parse_inbox([line]).commands[0].attrs["x"] == value
