"""Semantic tokens of bodies in their own language (navigation.body_tokens, through navigation.tokens)."""

from __future__ import annotations

from heredoc_lsp.languages import Language
from heredoc_lsp.navigation.body_tokens import STATS, body_tokens
from heredoc_lsp.navigation.tokens import TOKEN_TYPES, tokens
from heredoc_lsp.syntax.cli import parse_cli
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.text import split_lines


def named(data: list[int]) -> list[tuple[int, int, int, str]]:
    return [(data[k], data[k + 1], data[k + 2], TOKEN_TYPES[data[k + 3]]) for k in range(0, len(data), 5)]


def test_python_keywords_strings_numbers_comments_in_code_points() -> None:
    found = body_tokens("python", ["import os", "def f(x=1):", "    s = 'é😀'  # note é", "    return None"])
    assert found == (
        (0, 0, 6, "keyword"),
        (1, 0, 3, "keyword"),
        (1, 8, 1, "number"),
        (2, 8, 4, "string"),
        (2, 14, 8, "comment"),
        (3, 4, 6, "keyword"),
        (3, 11, 4, "keyword"),
    )


def test_multi_line_strings_are_split_per_line() -> None:
    found = body_tokens("python", ['x = """a', "é😀", 'b"""'])
    assert found == ((0, 4, 4, "string"), (1, 0, 2, "string"), (2, 0, 4, "string"))


def test_data_languages_have_keys() -> None:
    assert body_tokens("json", ['{"é": [1, true, "x"]}']) == (
        (0, 1, 3, "property"),
        (0, 7, 1, "number"),
        (0, 10, 4, "keyword"),
        (0, 16, 3, "string"),
    )
    assert body_tokens("yaml", ["a: 1", "b: 'x'  # c", "f: {k: true}"]) == (
        (0, 0, 1, "property"),
        (0, 3, 1, "number"),
        (1, 0, 1, "property"),
        (1, 3, 3, "string"),
        (1, 8, 3, "comment"),
        (2, 0, 1, "property"),
        (2, 4, 1, "property"),
        (2, 7, 4, "keyword"),
    )
    assert body_tokens("toml", ["[t]", 'a = "x"  # c', "b = 2"]) == (
        (0, 1, 1, "property"),
        (1, 0, 1, "property"),
        (1, 4, 3, "string"),
        (1, 9, 3, "comment"),
        (2, 0, 1, "property"),
        (2, 4, 1, "number"),
    )
    assert body_tokens("sql", ["SELECT 1"]) == ()


def test_a_body_is_parsed_once() -> None:
    body = ["def cached_once():", "    return 42"]
    STATS["parsed"] = 0
    body_tokens("python", body)
    body_tokens("python", list(body))
    assert STATS["parsed"] == 1


SCRIPT = (
    "echo hi\npython3 - <<'PY'\nif x:\n    pass\nPY\ncat <<-EOF > c.json\n\t{\"a\": 1}\n\tEOF\ncat <<EOF\nif x\nEOF\n"
)


def test_cli_bodies_are_coloured_by_language_and_data_stays_a_string() -> None:
    lines = split_lines(SCRIPT)
    found = named(tokens(Language.CLI, lines, parse_cli(lines)))
    assert (2, 0, 2, "keyword") in found and (3, 4, 4, "keyword") in found
    assert (6, 2, 3, "property") in found and (6, 7, 1, "number") in found  # after the stripped tab
    assert (9, 0, 4, "string") in found  # data
    # a slice of lines gives the same tokens on those lines
    sliced = named(tokens(Language.CLI, lines, parse_cli(lines), first_line=3, last_line=6))
    assert sliced == [t for t in found if 3 <= t[0] <= 6]


def test_reply_file_blocks_are_coloured() -> None:
    text = (
        '[CREATE_FILE path="a.py"]\ndef f():\n    return 1\n[/CREATE_FILE]\n'
        '[CREATE_FILE path="n.md"]\ndef\n[/CREATE_FILE]\n'
    )
    lines = split_lines(text)
    found = named(tokens(Language.INBOX, lines, parse_inbox(lines)))
    assert (1, 0, 3, "keyword") in found and (2, 4, 6, "keyword") in found and (2, 11, 1, "number") in found
    assert not [t for t in found if t[0] == 5]  # notes.md: not a language
