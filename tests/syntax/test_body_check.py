"""``syntax.body_check``: bodies parsed in their own language, positions in code points, nothing executed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from heredoc_lsp.syntax.body_check import CHECKED, BodyProblem, check_body


def test_checked_languages() -> None:
    assert {"python", "json", "toml", "yaml", "sh", "bash"} <= CHECKED
    assert check_body("sql", ["SELEC 1"]) is None  # recognised, not checked
    assert check_body("javascript", ["function ("]) is None


@pytest.mark.parametrize(
    ("language", "lines"),
    [
        ("python", ["import sys", "", "def f(x: int) -> int:", "    return x  # é😀", "print(f'{f(1)}')"]),
        ("python", ['x = "\\q"']),  # a SyntaxWarning, not an error
        ("python", []),
        ("json", ['{"a": [1, 2.5, "é😀"],', ' "b": null}']),
        ("toml", ["[tool.x]", 'name = "é😀"', "n = 1"]),
        ("yaml", ["a: 1", "b:", "  - x", "---", "c: !Ref other"]),  # application tags are fine
        ("yaml", []),
        ("toml", []),
    ],
)
def test_valid_bodies(language: str, lines: list[str]) -> None:
    assert check_body(language, lines) is None


def test_python_message_and_position() -> None:
    problem = check_body("python", ["x = 1", "print("])
    assert problem is not None
    assert problem.message == "python: '(' was never closed"
    assert (problem.line, problem.col) == (1, 5)


def test_python_columns_are_code_points() -> None:
    problem = check_body("python", ["s = 1", "x = 'é😀' + (1,"])
    assert problem is not None
    assert problem.message == "python: '(' was never closed"
    assert (problem.line, problem.col) == (1, 11)


def test_python_compiler_errors_that_the_parser_accepts() -> None:
    problem = check_body("python", ["return 1"])
    assert problem == BodyProblem(0, 0, 0, 8, "python: 'return' outside function")


def test_json_message_and_position() -> None:
    problem = check_body("json", ["{", '"é😀": 1 "b": 2}'])
    assert problem is not None
    assert problem.message == "json: Expecting ',' delimiter"
    assert (problem.line, problem.col) == (1, 8)
    empty = check_body("json", [])
    assert empty is not None and (empty.line, empty.col) == (0, 0)


JSON_TEXTS = [
    "",
    " \t\r\n ",
    "1",
    " 1 \n",
    '{"a": 1}',
    '  "key0": "x",\n  "key1": "y",',
    '{"a": 1}\n{"b": 2}',
    '{"a": 1} \n\n x',
    "[1, 2,]",
    '{"a" 1}',
    '"unterminated',
    '"bad \\q escape"',
    "\ufeff{}",
    "nul",
    "[1] \x0c",
    '{"é😀": [1, 2] }  ]',
    "1\n2\n3",
    "\n\n  [1,\n   2,\n   x]",
]


@pytest.mark.parametrize("text", JSON_TEXTS)
def test_json_problems_are_those_of_json_loads(text: str) -> None:
    lines = text.split("\n")
    try:
        json.loads(text)
        expected = None
    except json.JSONDecodeError as exc:
        line, col = exc.lineno - 1, exc.colno - 1
        if line >= len(lines):
            line, col = len(lines) - 1, len(lines[-1])
        expected = BodyProblem(line, col, line, col, f"json: {exc.msg}")
    assert check_body("json", lines) == expected


def test_json_extra_data_raises_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # The common error of a JSON body (several values, or members without their braces) is found without an
    # exception: one per body was most of the JSON checks' cost at the first check of a large script.
    made: list[str] = []
    original = json.JSONDecodeError.__init__

    def counting(self: json.JSONDecodeError, msg: str, doc: str, pos: int) -> None:
        made.append(msg)
        original(self, msg, doc, pos)

    monkeypatch.setattr(json.JSONDecodeError, "__init__", counting)
    assert check_body("json", ['  "key0": "x",', '  "key1": "y",']) == BodyProblem(0, 8, 0, 8, "json: Extra data")
    assert check_body("json", ["{}", "[]"]) == BodyProblem(1, 0, 1, 0, "json: Extra data")
    assert made == []


def test_toml_message_and_position() -> None:
    problem = check_body("toml", ["[a]", 'é = "x"'])
    assert problem is not None
    assert problem.message.startswith("toml: ") and "(at line" not in problem.message
    assert (problem.line, problem.col) == (1, 0)
    at_end = check_body("toml", ["x = 1", "[a"])
    assert at_end is not None and at_end.line == 1


def test_yaml_message_and_position() -> None:
    problem = check_body("yaml", ["a: 1", "é😀: b: c"])
    assert problem is not None
    assert problem.message.startswith("yaml: mapping values are not allowed")  # (libyaml: "in this context")
    assert (problem.line, problem.col) == (1, 5)
    unclosed = check_body("yaml", ["a: [1, 2"])
    assert unclosed is not None and unclosed.message.startswith("yaml: ")


def test_nothing_is_executed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    python = [f"import os; os.system('touch {marker}')", f"open({str(marker)!r}, 'w')", "print("]
    yaml = [f"!!python/object/apply:os.system ['touch {marker}']", "a: b: c"]
    assert check_body("python", python) is not None
    assert check_body("python", python[:2]) is None
    assert check_body("yaml", yaml) is not None
    assert check_body("yaml", yaml[:1]) is None
    assert not os.path.exists(marker)


def test_shell_bodies_read_as_dash_or_bash() -> None:
    assert check_body("bash", ["set -e", "for x in a b; do", '  echo "$x"', "done", "arr=(1 2)"]) is None
    problem = check_body("bash", ["echo ok", '  echo "é😀 unclosed  ', "echo more"])
    assert problem == BodyProblem(1, 2, 1, 19, "bash: unterminated double quote")
    assert check_body("sh", ["arr=(1 2)"]) == BodyProblem(
        0, 0, 0, 9, "sh: unexpected '(' (a subshell must start a command; quote it if it is text)"
    )
    assert check_body("sh", ["if true; then", "  echo x"]) == BodyProblem(0, 0, 0, 13, "sh: 'if' without 'fi'")


def test_deep_nesting_is_no_error_and_no_crash() -> None:
    # Valid text too deep for the parsers to read (bounded, never a RecursionError): not sure, so nothing.
    assert check_body("toml", ["a = " + "[" * 3000 + "]" * 3000]) is None
    assert check_body("json", ["[" * 100_000 + "]" * 100_000]) is None
    assert check_body("python", ["x = " + "[" * 3000 + "]" * 3000]) is not None  # Python's own limit: its error
