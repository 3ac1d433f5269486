"""heredoc_lsp.navigation.tokens: absolute tokens in code points (the LSP layer converts them)."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from heredoc_lsp.languages import Language
from heredoc_lsp.navigation.tokens import DECLARATION, TOKEN_TYPES, tokens
from heredoc_lsp.syntax.cli import parse_cli
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import split_lines

SCHEMAS = {"tool task": CommandSchema("tool task", "multi", ("TITLE", "DESCRIPTION"), ("TITLE",), None, "END")}
CLI = "é😀 run <<EOF\r\nbody é😀\r\nEOF\r\n# a\rtool task <<END\n---TITLE---\nTitre é😀\nEND\ntail <<OPEN\nnever é\n"


def named(data: list[int]) -> list[tuple[int, int, int, str, int]]:
    return [(data[k], data[k + 1], data[k + 2], TOKEN_TYPES[data[k + 3]], data[k + 4]) for k in range(0, len(data), 5)]


def test_cli_tokens_in_code_points() -> None:
    lines = split_lines(CLI)
    d = DECLARATION
    assert named(tokens(Language.CLI, lines, parse_cli(lines, SCHEMAS), SCHEMAS)) == [
        (0, 0, 2, "function", 0),  # é😀: two code points (3 UTF-16 units, 6 bytes)
        (0, 7, 2, "operator", 0),
        (0, 9, 3, "keyword", d),
        (1, 0, 7, "string", 0),
        (2, 0, 3, "keyword", 0),
        (3, 0, 3, "comment", 0),
        (4, 0, 9, "function", 0),  # a configured command: both words
        (4, 10, 2, "operator", 0),
        (4, 12, 3, "keyword", d),
        (5, 0, 3, "operator", 0),
        (5, 3, 5, "parameter", d),
        (5, 8, 3, "operator", 0),
        (6, 0, 8, "string", 0),
        (7, 0, 3, "keyword", 0),
        (8, 0, 4, "function", 0),
        (8, 5, 2, "operator", 0),
        (8, 7, 4, "keyword", d),
        (9, 0, 7, "string", 0),  # the unclosed body to the end
    ]


def test_a_range_is_the_full_result_on_those_lines() -> None:
    lines = split_lines(CLI)
    script = parse_cli(lines, SCHEMAS)
    full = named(tokens(Language.CLI, lines, script, SCHEMAS))
    assert named(tokens(Language.CLI, lines, script, SCHEMAS, 2, 5)) == [t for t in full if 2 <= t[0] <= 5]
    assert tokens(Language.CLI, lines, script, SCHEMAS, 50, 60) == []
    assert tokens(Language.CLI, lines, script, SCHEMAS, 5, 2) == []


def test_empty_documents_have_no_tokens() -> None:
    assert tokens(Language.CLI, [], parse_cli([])) == []
    assert tokens(Language.INBOX, [""], parse_inbox([""])) == []


def test_inbox_tokens() -> None:
    lines = split_lines('prose é😀\n[CREATE_FILE path="src/é.py"]\nx 😀\n[/CREATE_FILE]\n')
    assert named(tokens(Language.INBOX, lines, parse_inbox(lines))) == [
        (1, 0, 12, "keyword", 0),
        (1, 13, 4, "property", 0),
        (1, 17, 1, "operator", 0),
        (1, 18, 10, "string", 0),
        (1, 28, 1, "keyword", 0),
        (3, 0, 14, "keyword", 0),
    ]


def test_configured_command_after_env_prefix_is_one_function_token() -> None:
    # docs/formats.md: `CHATROOM_URL=... chatroom  handoff` names the configured `chatroom handoff`; the token covers
    # its words.
    schemas = {"chatroom handoff": CommandSchema("chatroom handoff", "single", single_param="MESSAGE")}
    lines = split_lines("CHATROOM_URL=http://x chatroom  handoff j1 <<EOF > out\nhi\nEOF\nA=1 chatroom handoff\n")
    found = tokens(Language.CLI, lines, parse_cli(lines, schemas), schemas)
    functions = [tuple(found[k : k + 3]) for k in range(0, len(found), 5) if TOKEN_TYPES[found[k + 3]] == "function"]
    assert functions == [(0, 22, 17), (3, 4, 16)]


PIECES = [
    "run <<EOF",
    "body é😀",
    "EOF",
    "# note",
    "tool task <<END",
    "---TITLE---",
    "Titre",
    "END",
    "  ",
    "x=1",
    "cat <<-'Q'",
    "\tQ",
    "tail <<OPEN",
]


@given(st.lists(st.sampled_from(PIECES), max_size=30), st.lists(st.integers(1, 30), max_size=4))
def test_tokens_of_consecutive_windows_are_the_documents_tokens(doc: list[str], cuts: list[int]) -> None:
    """The server builds a big document's tokens window by window (lsp/splice.in_slices): the windows' tokens,
    one after the other, must be the whole document's."""
    lines = tuple(doc)
    script = parse_cli(lines, SCHEMAS)
    whole = tokens(Language.CLI, lines, script, SCHEMAS)
    bounds = [0, *sorted({c for c in cuts if c < len(lines)}), len(lines)]
    windows: list[int] = []
    for first, stop in itertools.pairwise(bounds):
        windows += tokens(Language.CLI, lines, script, SCHEMAS, first, stop - 1 if stop < len(lines) else None)
    assert windows == whole
