"""docs/formats.md: structured heredoc bodies — delimiters, styles, values and every diagnostic, exactly."""

from __future__ import annotations

import pytest
from syntax_schemas import HANDOFF, TASK
from syntax_schemas import TOOL as TEXT

from heredoc_lsp.syntax.diagnostics import Related, Severity, Span
from heredoc_lsp.syntax.params import (
    ParamsBody,
    delimiter_text,
    is_delimiter_line,
    is_structured_start,
    match_delimiter,
    parse_params,
)
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import split_lines

ANY = CommandSchema("tracker note", "multi", params=None, required=("BODY",))

Diag = tuple[str, tuple[int, int, int, int], str]


def parse(text: str, schema: CommandSchema | None = None, line_offset: int = 0) -> ParamsBody:
    return parse_params(split_lines(text), schema, line_offset=line_offset)


def diags(text: str, schema: CommandSchema | None = None, line_offset: int = 0) -> list[Diag]:
    return [
        (d.code, (d.span.start_line, d.span.start_col, d.span.end_line, d.span.end_col), d.message)
        for d in parse(text, schema, line_offset).diagnostics
    ]


# --------------------------------------------------------------------------------------------------------------
# Delimiter recognition


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("---TITLE---", ("TITLE", None, 3)),
        ("---TECH_SPECS---", ("TECH_SPECS", None, 3)),
        ("---_---", ("_", None, 3)),
        ("---(UUID:a1b2c3d4)TITLE---", ("TITLE", "a1b2c3d4", 18)),
        ("---(UUID:A1B2C3D4)TITLE---", ("TITLE", "A1B2C3D4", 18)),
        (
            "---(UUID:123e4567-E89B-12d3-a456-426614174000)X---",
            ("X", "123e4567-E89B-12d3-a456-426614174000", 46),
        ),
        ("---Title---", None),
        ("---TITLE2---", None),
        ("---TITLE---x", None),
        ("------", None),
        ("--TITLE--", None),
        ("---TI TLE---", None),
        ("---(UUID:a1b2c3d)TITLE---", None),
        ("---(UUID:a1b2c3d4g)TITLE---", None),
        ("---(UUID:g1b2c3d4)TITLE---", None),
        ("---(uuid:a1b2c3d4)TITLE---", None),
        ("---(UUID:123e4567-e89b-12d3-a456-42661417400)X---", None),
        ("---(UUID:a1b2c3d4)---", None),
        ("---ÉTÉ---", None),
    ],
)
def test_match_delimiter(line: str, expected: tuple[str, str | None, int] | None) -> None:
    found = match_delimiter(line)
    assert (None if found is None else (found.name, found.uuid, found.name_col)) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("---TITLE---", True),
        ("---TITLE--- \t", True),
        ("---TITLE---\f", True),
        (" ---TITLE---", False),
        ("\t---TITLE---", False),
        ("---TITLE---\u00a0", False),
        ("---TITLE---\x85", False),
    ],
)
def test_is_delimiter_line(line: str, expected: bool) -> None:
    assert is_delimiter_line(line) is expected


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["", "  ", "---A---", "x"], True),
        (["---(UUID:a1b2c3d4)A---"], True),
        (["x", "---A---"], False),
        ([" ---A---"], False),
        (["", ""], False),
        ([], False),
    ],
)
def test_is_structured_start(lines: list[str], expected: bool) -> None:
    assert is_structured_start(lines) is expected


def test_delimiter_text() -> None:
    assert delimiter_text("TITLE") == "---TITLE---"
    assert delimiter_text("TITLE", "a1b2c3d4") == "---(UUID:a1b2c3d4)TITLE---"


# --------------------------------------------------------------------------------------------------------------
# Values

SEED_BODY = """---TITLE---
User Authentication System
---DESCRIPTION---
Add complete authentication flow with JWT tokens.

Users should be able to:
- Register new accounts
- Login with email/password
- Logout and invalidate tokens
---TECH_SPECS---
- Use bcrypt for password hashing (min 10 rounds)
- JWT tokens with 24h expiry
- Refresh tokens stored in database
- Rate limiting on auth endpoints (10 req/min)
"""


def test_seed_example_values() -> None:
    body = parse(SEED_BODY, TASK)
    assert body.diagnostics == ()
    assert body.values == {
        "TITLE": "User Authentication System",
        "DESCRIPTION": "Add complete authentication flow with JWT tokens.\n\nUsers should be able to:\n"
        "- Register new accounts\n- Login with email/password\n- Logout and invalidate tokens",
        "TECH_SPECS": "- Use bcrypt for password hashing (min 10 rounds)\n- JWT tokens with 24h expiry\n"
        "- Refresh tokens stored in database\n- Rate limiting on auth endpoints (10 req/min)",
    }
    assert (body.mode, body.style, body.uuid) == ("multi", "plain", None)
    assert body.delimiter_lines == (0, 2, 9)
    assert body.collision_lines == ()
    assert (body.start_line, body.end_line) == (0, 14)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        # Blank lines (including blank-only ones) at both ends go; indentation and inner blanks stay.
        ("---A---\n\n  \t\n    indented\n\n  inner  \n \n\n---B---\nb", {"A": "    indented\n\n  inner  ", "B": "b"}),
        ("\n\n  \n---A---\na", {"A": "a"}),
        ("---A---  \t\na\n---B---\t\nb", {"A": "a", "B": "b"}),
        ("---A---\r\na\r\n", {"A": "a"}),
        ("---A---\na\n---lower---\n---A2---", {"A": "a\n---lower---\n---A2---"}),
        ("---A---\n\u00a0a\u00a0\n\x85", {"A": "\u00a0a\u00a0\n\x85"}),
    ],
)
def test_values(text: str, values: dict[str, str]) -> None:
    body = parse(text)
    assert body.diagnostics == ()
    assert body.values == values


def test_param_fields() -> None:
    body = parse("\n---A---  \n\n x\n\n---(UUID:ab)B---\n", line_offset=10)
    (param,) = body.params
    assert param.name == "A"
    assert param.line == 11
    assert param.delimiter_span == Span(11, 0, 11, 7)
    assert param.name_span == Span(11, 3, 11, 4)
    assert (param.value, param.value_start, param.value_end, param.section_end) == (
        " x\n\n---(UUID:ab)B---",
        13,
        16,
        16,
    )
    assert param.kind == "param"


# --------------------------------------------------------------------------------------------------------------
# UUID style

UUID = "a1b2c3d4"


def test_uuid_style_plain_delimiters_are_content() -> None:
    text = f"---(UUID:{UUID})TITLE---\nHas ---TITLE---\n---TITLE---\n---(UUID:{UUID.upper()})DESCRIPTION---\nd"
    body = parse(text, TASK)
    assert body.diagnostics == ()
    assert (body.style, body.uuid) == ("uuid", UUID)
    assert body.values == {"TITLE": "Has ---TITLE---\n---TITLE---", "DESCRIPTION": "d"}
    assert body.delimiter_lines == (0, 3)


def test_canonical_uuid_style() -> None:
    uid = "123E4567-e89b-12d3-a456-426614174000"
    body = parse(f"---(UUID:{uid})A---\n1\n---(UUID:{uid.lower()})B---\n2")
    assert body.values == {"A": "1", "B": "2"}
    assert body.uuid == uid


def test_uuid_style_other_id_is_mixed() -> None:
    text = f"---(UUID:{UUID})TITLE---\nt\n---(UUID:deadbeef)DESCRIPTION---\nd"
    assert diags(text) == [
        (
            "mixed_delimiters",
            (2, 0, 2, 32),
            "Mixed delimiter IDs: UUID 'deadbeef' differs from 'a1b2c3d4' of the first delimiter (line 1); "
            "this line is treated as content",
        )
    ]
    body = parse(text)
    assert body.values is None
    assert body.params[0].value == "t\n---(UUID:deadbeef)DESCRIPTION---\nd"


def test_plain_style_uuid_line_is_mixed() -> None:
    text = f"---TITLE---\nt\n---(UUID:{UUID})DESCRIPTION---   \nd"
    assert diags(text, line_offset=4) == [
        (
            "mixed_delimiters",
            (6, 0, 6, 32),
            f"Mixed delimiter styles: '---(UUID:{UUID})DESCRIPTION---' has a UUID prefix but the first delimiter "
            "(line 5) is plain; this line is treated as content",
        )
    ]
    (d,) = parse(text, line_offset=4).diagnostics
    assert d.data == {"name": "DESCRIPTION", "found_uuid": UUID, "uuid": None, "first_line": 4}


# --------------------------------------------------------------------------------------------------------------
# Multi-mode diagnostics

EXPECTED = "Expected one of: TITLE, DESCRIPTION, TECH_SPECS"
CONTENT_FIRST = "Content before first parameter delimiter: start the body with a ---NAME--- line"
COLLISION = (
    "Indented '{}' is content, not a delimiter; it collides with parameter '{}' (switch to UUID-prefixed delimiters "
    "or rephrase)"
)
TERMINATOR = "Line '{}' is the heredoc terminator of '{}': it would end the heredoc early when run from a shell"

MULTI = [
    (
        "content_before_delimiter",
        "\n  intro\nmore  \n\n---TITLE---\nt\n---DESCRIPTION---\nd",
        TASK,
        [("content_before_delimiter", (1, 2, 2, 4), CONTENT_FIRST)],
    ),
    ("no_delimiter_at_all", "just text", None, [("content_before_delimiter", (0, 0, 0, 9), CONTENT_FIRST)]),
    (
        "unknown",
        "---TITLE---\nt\n---DESCRIPTION---\nd\n---NOTES---\nn",
        TASK,
        [("unknown", (4, 3, 4, 8), f"Unknown parameter 'NOTES'. {EXPECTED}")],
    ),
    (
        "unknown_uuid_name_span",
        f"---(UUID:{UUID})TITLE---\nt\n---(UUID:{UUID})DESCRIPTION---\nd\n---(UUID:{UUID})X---\nn",
        TASK,
        [("unknown", (4, 18, 4, 19), f"Unknown parameter 'X'. {EXPECTED}")],
    ),
    (
        "duplicate_seed_collision",
        "---TITLE---\nFix delimiter handling\n---DESCRIPTION---\nThe old code had this pattern:\n---TITLE---\n"
        "Which caused issues.",
        TASK,
        [("duplicate", (4, 0, 4, 11), "Duplicate parameter 'TITLE' found at line 1")],
    ),
    (
        "missing_in_schema_order",
        "---TECH_SPECS---\ns\n",
        TASK,
        [
            ("missing", (0, 0, 1, 1), "Required parameter 'TITLE' is missing"),
            ("missing", (0, 0, 1, 1), "Required parameter 'DESCRIPTION' is missing"),
        ],
    ),
    (
        "missing_any_names",
        "---OTHER---\nx",
        ANY,
        [("missing", (0, 0, 1, 1), "Required parameter 'BODY' is missing")],
    ),
    (
        "empty",
        "---TITLE---\n\n  \n---DESCRIPTION---\nd",
        TASK,
        [("empty", (0, 0, 0, 11), "Parameter 'TITLE' is empty. Each parameter must have content.")],
    ),
    (
        "empty_last",
        "---TITLE---\nt\n---DESCRIPTION---  ",
        TASK,
        [("empty", (2, 0, 2, 17), "Parameter 'DESCRIPTION' is empty. Each parameter must have content.")],
    ),
    (
        "collision_indented",
        "---TITLE---\nt\n---DESCRIPTION---\n  ---TITLE---  \nd",
        TASK,
        [("collision", (3, 2, 3, 13), COLLISION.format("---TITLE---", "TITLE"))],
    ),
    (
        "indented_unknown_name_is_plain_content",
        "---TITLE---\nt\n---DESCRIPTION---\n\t---OTHER---",
        TASK,
        [],
    ),
    (
        "indented_plain_in_uuid_style_is_content",
        f"---(UUID:{UUID})TITLE---\n  ---TITLE---\n---(UUID:{UUID})DESCRIPTION---\nd",
        TASK,
        [],
    ),
    (
        "indented_uuid_collision",
        f"---(UUID:{UUID})TITLE---\n t\n ---(UUID:{UUID})DESCRIPTION---\n---(UUID:{UUID})DESCRIPTION---\nd",
        TASK,
        [("collision", (2, 1, 2, 33), COLLISION.format(f"---(UUID:{UUID})DESCRIPTION---", "DESCRIPTION"))],
    ),
    (
        "terminator_collision",
        "---TITLE---\nt\n  PARAMS_END\n---DESCRIPTION---\nd",
        TASK,
        [("terminator_collision", (2, 2, 2, 12), TERMINATOR.format("PARAMS_END", "chatroom task-started"))],
    ),
    (
        "terminator_inside_line_is_fine",
        "---TITLE---\nt PARAMS_END\n---DESCRIPTION---\nd",
        TASK,
        [],
    ),
]


@pytest.mark.parametrize(("text", "schema", "expected"), [c[1:] for c in MULTI], ids=[str(c[0]) for c in MULTI])
def test_multi_diagnostics(text: str, schema: CommandSchema | None, expected: list[Diag]) -> None:
    assert diags(text, schema) == expected


def test_line_offset_moves_lines_and_message_numbers() -> None:
    text = "---TITLE---\nt\n---TITLE---\nu\n---DESCRIPTION---\nd"
    assert diags(text, TASK, line_offset=100) == [
        ("duplicate", (102, 0, 102, 11), "Duplicate parameter 'TITLE' found at line 101"),
    ]


def test_duplicate_related_data_and_lines() -> None:
    body = parse("\n---TITLE---\nt\n---DESCRIPTION---\nd\n---TITLE---\nagain\n  ---TITLE---", TASK)
    dup = next(d for d in body.diagnostics if d.code == "duplicate")
    assert dup.related == (Related(Span(1, 0, 1, 11), "'TITLE' first defined here"),)
    assert dup.data == {"name": "TITLE", "first_line": 1}
    assert body.delimiter_lines == (1, 3)
    assert body.collision_lines == (5, 7)
    assert [p.kind for p in body.params] == ["param", "param", "duplicate"]
    assert body.values is None


def test_unknown_data_and_dropped_content() -> None:
    body = parse("---TITLE---\nt\n---DESCRIPTION---\nd\n---NOTE---\nn", TASK)
    (d,) = body.diagnostics
    assert d.data == {"name": "NOTE", "allowed": ["TITLE", "DESCRIPTION", "TECH_SPECS"]}
    assert [(p.name, p.kind, p.value) for p in body.params][-1] == ("NOTE", "unknown", "")
    assert body.delimiter_lines == (0, 2, 4)


def test_missing_data() -> None:
    body = parse(f"---(UUID:{UUID})TITLE---\nt", TASK, line_offset=3)
    (d,) = body.diagnostics
    assert d.data == {"name": "DESCRIPTION", "insert_line": 5, "style": "uuid", "uuid": UUID}


def test_missing_on_empty_body_is_a_point() -> None:
    body = parse_params([], TASK, line_offset=7)
    assert [(d.code, d.span) for d in body.diagnostics] == [
        ("missing", Span(7, 0, 7, 0)),
        ("missing", Span(7, 0, 7, 0)),
    ]


def test_warnings_keep_values() -> None:
    body = parse("---TITLE---\nt\n  ---TITLE---\n---DESCRIPTION---\nd", TASK)
    assert [d.severity for d in body.diagnostics] == [Severity.WARNING]
    assert body.values == {"TITLE": "t\n  ---TITLE---", "DESCRIPTION": "d"}
    assert body.collision_lines == (2,)


def test_without_schema_any_name_none_required() -> None:
    body = parse("---WHATEVER---\nx\n---ELSE_X---\ny")
    assert body.diagnostics == ()
    assert body.values == {"WHATEVER": "x", "ELSE_X": "y"}


def test_col_offsets_shift_columns() -> None:
    body = parse_params(["---A---", "x", "---A---"], None, line_offset=1, col_offsets=[2, 0, 1])
    (d,) = body.diagnostics
    assert d.span == Span(3, 1, 3, 8)
    assert d.related[0].span == Span(1, 2, 1, 9)
    assert body.params[0].name_span == Span(1, 5, 1, 6)


# --------------------------------------------------------------------------------------------------------------
# Single and text modes

EMPTY_MESSAGE = "Parameter 'MESSAGE' is empty. Each parameter must have content."


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("## Summary\nDone\n", "## Summary\nDone", []),
        ("\n\n  hello  \n\n", "  hello  ", []),
        ("---MESSAGE---\n\nhi\n", "hi", []),
        ("\n---MESSAGE---  \nhi\n---MESSAGE---", "hi\n---MESSAGE---", []),
        ("x\n---MESSAGE---\n", "x\n---MESSAGE---", []),
        (" ---MESSAGE---\nhi", " ---MESSAGE---\nhi", []),
        ("---TITLE---\nhi", "---TITLE---\nhi", []),
        ("", "", [("empty", (0, 0, 0, 0), EMPTY_MESSAGE)]),
        ("\n  \n", "", [("empty", (0, 0, 1, 2), EMPTY_MESSAGE)]),
        ("---MESSAGE---\n\n", "", [("empty", (0, 0, 0, 13), EMPTY_MESSAGE)]),
        (
            "hi\nCHATROOM_HANDOFF_END\n",
            "hi\nCHATROOM_HANDOFF_END",
            [("terminator_collision", (1, 0, 1, 20), TERMINATOR.format("CHATROOM_HANDOFF_END", "chatroom handoff"))],
        ),
    ],
)
def test_single_mode(text: str, value: str, expected: list[Diag]) -> None:
    body = parse(text, HANDOFF)
    assert diags(text, HANDOFF) == expected
    assert body.mode == "single"
    assert body.params[0].value == value
    assert body.values == (None if expected else {"MESSAGE": value})


def test_single_mode_lowercase_name_matches_upper_delimiter() -> None:
    schema = CommandSchema("x", "single", single_param="message")
    body = parse("---MESSAGE---\nhi", schema)
    assert body.values == {"message": "hi"}
    assert body.params[0].line == 0
    assert body.delimiter_lines == (0,)


def test_text_mode_checks_only_terminator() -> None:
    body = parse("---A---\n---A---\nanything", TEXT)
    assert (body.mode, body.params, body.values, body.diagnostics) == ("text", (), {}, ())
    assert [d.code for d in parse("x\n TOOL_END\n", TEXT).diagnostics] == ["terminator_collision"]
    assert parse("x\n TOOL_END\n", TEXT).values is None


def test_single_mode_delimiter_spans_use_the_upper_cased_name() -> None:
    body = parse("---STRASSE---\nx", CommandSchema("x", "single", single_param="straße"))
    assert body.values == {"straße": "x"}
    assert body.params[0].delimiter_span == Span(0, 0, 0, 13)
    assert body.params[0].name_span == Span(0, 3, 0, 10)
