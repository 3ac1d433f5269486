"""Property tests of the navigation layer on generated documents (no server): every span, fold and token lies in
the document, symbol trees nest, the fast row view agrees with the parser's items, locating never fails."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lsp.languages import Language
from heredoc_lsp.navigation.complete import candidates
from heredoc_lsp.navigation.describe import describe
from heredoc_lsp.navigation.folds import folds
from heredoc_lsp.navigation.layout_edits import trailing_blank_deletions
from heredoc_lsp.navigation.locate import target_at
from heredoc_lsp.navigation.outline import Symbol, outline
from heredoc_lsp.navigation.tokens import TOKEN_TYPES, tokens
from heredoc_lsp.syntax import cli_rows
from heredoc_lsp.syntax.cli import parse_cli
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.inbox import COMMANDS, parse_inbox
from heredoc_lsp.syntax.outbox import parse_outbox
from heredoc_lsp.syntax.records import replace_fields
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import split_lines

SCHEMAS = {
    "chatroom task-started": CommandSchema(
        "chatroom task-started", "multi", ("TITLE", "DESCRIPTION", "TECH_SPECS"), ("TITLE", "DESCRIPTION"), None, "END"
    ),
    "chatroom handoff": CommandSchema("chatroom handoff", "single", None, (), "MESSAGE", "HANDOFF_END"),
    "tracker note": CommandSchema("tracker note", "multi", None, ("BODY",)),
    "plain tool": CommandSchema("plain tool", "text", None, (), None, "STOP"),
}

CLI_LINES = [
    "",
    "   ",
    "# é😀 comment",
    "  # indented comment",
    "echo é😀",
    "chatroom task-started <<END",
    "chatroom handoff <<-'HANDOFF_END'",
    'tracker note <<"X"',
    "plain tool <<STOP",
    "cat <<EOF",
    "cat<<EOF",
    "<<EOF",
    "cmd <<A <<B",
    "cmd <<ÉOF",
    "cmd <<",
    "cmd <<- EOF",
    "cat <<EOF > out.txt",
    "CHATROOM_URL=x chatroom  handoff <<-'HANDOFF_END' || exit 1",
    "cmd <<A | x <<B",
    "cmd <<EOF extra",
    "export X=1",
    "EOF",
    "  EOF\t",
    "END",
    "X",
    "A",
    "B",
    "STOP",
    "HANDOFF_END",
    "ÉOF",
    "---TITLE---",
    "---DESCRIPTION---  ",
    "---BODY---",
    "---MESSAGE---",
    "---(UUID:1234abcd)TITLE---",
    "---(UUID:deadbeef)BODY---",
    "  ---TITLE---",
    "\t---BODY---",
    "---lower---",
    "value é😀 text",
    "\tTabbed value",
]

cli_docs = st.lists(st.sampled_from(CLI_LINES), max_size=30)

INBOX_LINES = [
    "",
    "prose é😀",
    *(f"[{name}]" for name in COMMANDS),
    *(f"[/{name}]" for name in COMMANDS),
    '[CREATE_FILE path="src/é😀.py"]',
    '[EDIT_FILE path="a.txt" start_line="1" end_line="2"]',
    '[EDIT_FILE path="a.txt" start_line="x"]',
    '[DELETE_FILE path="../x" /]',
    '[READ_FILE path="" ]',
    "[READ_FILE path='x']",
    '[CREATE_FILE path="a" extra="é\\"]"]',
    '[CREATE_FILE path="unterminated',
    "[RUN_COMMAND] inline",
    "  [/RUN_COMMAND]  ",
    "body line",
]

OUTBOX_LINES = [
    "",
    "=== HEADER ===",
    "=== PROTOCOL ===",
    "=== CONTEXT ===",
    "=== PROMPT ===",
    " === PROMPT ===",
    "Session: 1234abcd",
    "Sequence: 3",
    "Task: é😀",
    "  continued",
    "Key: value",
    "text é😀",
]


def inside(span: Span, lines: Sequence[str]) -> bool:
    if not (0 <= span.start_line <= span.end_line < len(lines)):
        return False
    if not (0 <= span.start_col <= len(lines[span.start_line]) and 0 <= span.end_col <= len(lines[span.end_line])):
        return False
    return (span.start_line, span.start_col) <= (span.end_line, span.end_col)


def contains(outer: Span, inner: Span) -> bool:
    return (outer.start_line, outer.start_col) <= (inner.start_line, inner.start_col) and (
        inner.end_line,
        inner.end_col,
    ) <= (outer.end_line, outer.end_col)


def check_symbols(symbols: Sequence[Symbol], lines: Sequence[str], parent: Symbol | None = None) -> None:
    previous: Symbol | None = None
    for s in symbols:
        assert s.name, "LSP clients reject empty symbol names"
        assert inside(s.span, lines) and inside(s.selection, lines), s
        assert contains(s.span, s.selection), s
        if parent is not None:
            assert contains(parent.span, s.span), (parent, s)
        if previous is not None:  # siblings in order, not overlapping
            assert (previous.span.end_line, previous.span.end_col) <= (s.span.start_line, s.span.start_col)
        previous = s
        check_symbols(s.children, lines, s)


def check_folds(found: Sequence[Any], lines: Sequence[str]) -> None:
    for f in found:
        assert 0 <= f.start < f.end < len(lines), f
    for a in found:  # nested or disjoint, never crossing
        for b in found:
            if a.start < b.start <= a.end:
                assert b.end <= a.end, (a, b)


def check_tokens(data: Sequence[int], lines: Sequence[str]) -> None:
    assert len(data) % 5 == 0
    previous_end = (-1, 0)
    for k in range(0, len(data), 5):
        line, col, length, kind, mods = data[k : k + 5]
        assert 0 <= line < len(lines)
        assert length > 0 and col >= 0 and col + length <= len(lines[line]), (line, col, length, lines[line])
        assert 0 <= kind < len(TOKEN_TYPES) and mods in (0, 1)
        assert (line, col) >= previous_end, "tokens sorted and not overlapping"
        previous_end = (line, col + length)


def check_everywhere(language: Language, lines: list[str], tree: Any, schemas: dict[str, CommandSchema]) -> None:
    for line in range(len(lines) + 1):
        text = lines[line] if line < len(lines) else ""
        for col in {0, len(text) // 2, len(text)}:
            target = target_at(language, lines, tree, (line, col))
            if target is not None:
                describe(target, None)
                span = getattr(target, "span", None)
                if isinstance(span, Span):
                    assert inside(span, lines)
            for c in candidates(language, lines, tree, (line, col), schemas, None):
                assert c.replace.start_line == c.replace.end_line == line
                assert c.replace.start_col <= col <= c.replace.end_col <= len(text)  # the range holds the cursor


@settings(max_examples=300, deadline=None)
@given(cli_docs, st.booleans())
def test_cli_navigation_stays_in_the_document(doc_lines: list[str], configured: bool) -> None:
    lines = split_lines("\n".join(doc_lines))
    schemas = SCHEMAS if configured else {}
    script = parse_cli(lines, schemas)
    check_symbols(outline(Language.CLI, lines, script), lines)
    check_folds(folds(Language.CLI, lines, script), lines)
    data = tokens(Language.CLI, lines, script, schemas)
    check_tokens(data, lines)
    # a range request gives exactly the full result's tokens on those lines
    if lines:
        first, last = len(lines) // 3, 2 * len(lines) // 3
        window = tokens(Language.CLI, lines, script, schemas, first, last)
        full = [tuple(data[k : k + 5]) for k in range(0, len(data), 5)]
        assert [tuple(window[k : k + 5]) for k in range(0, len(window), 5)] == [
            t for t in full if first <= t[0] <= last
        ]
    check_everywhere(Language.CLI, lines, script, schemas)


@settings(max_examples=200, deadline=None)
@given(cli_docs, st.booleans())
def test_fast_rows_agree_with_parser_items(doc_lines: list[str], configured: bool) -> None:
    lines = split_lines("\n".join(doc_lines))
    script = parse_cli(lines, SCHEMAS if configured else {})
    fast = list(cli_rows.iter_rows(script))
    slow = list(cli_rows._iter_items(script, 0, len(lines)))
    assert [(k, line) for k, line, _ in fast] == [(k, line) for k, line, _ in slow]
    for (_, _, a), (_, _, b) in zip(fast, slow, strict=True):
        if a is not None and b is not None:
            assert {s: getattr(a, s) for s in a.__slots__} == {s: getattr(b, s) for s in b.__slots__}
    for line in range(len(lines)):
        assert cli_rows.item_at(script, line) == script.item_at(line)
    # The closed heredocs a whole parse lists are those a walk of every row finds.
    assert script._closed_rows is not None
    walked = replace_fields(script, _closed_rows=None)
    assert list(cli_rows.iter_closed_openers(script)) == list(cli_rows.iter_closed_openers(walked))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(INBOX_LINES), max_size=25))
def test_inbox_navigation_stays_in_the_document(doc_lines: list[str]) -> None:
    lines = split_lines("\n".join(doc_lines))
    reply = parse_inbox(lines)
    check_symbols(outline(Language.INBOX, lines, reply), lines)
    check_folds(folds(Language.INBOX, lines, reply), lines)
    check_tokens(tokens(Language.INBOX, lines, reply), lines)
    check_everywhere(Language.INBOX, lines, reply, {})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(OUTBOX_LINES), max_size=25))
def test_outbox_navigation_stays_in_the_document(doc_lines: list[str]) -> None:
    lines = split_lines("\n".join(doc_lines))
    box = parse_outbox(lines)
    check_symbols(outline(Language.OUTBOX, lines, box), lines)
    check_folds(folds(Language.OUTBOX, lines, box), lines)
    check_tokens(tokens(Language.OUTBOX, lines, box), lines)
    check_everywhere(Language.OUTBOX, lines, box, {})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*CLI_LINES, "cat <<EOF  ", "EOF \t", "---TITLE--- ", "body  ", "  "]), max_size=25))
def test_formatting_never_changes_what_runs(doc_lines: list[str]) -> None:
    lines = split_lines("\n".join(doc_lines))
    script = parse_cli(lines, SCHEMAS)
    new = list(lines)
    for line, start, end in trailing_blank_deletions(Language.CLI, lines, script):
        assert new[line][start:end].strip(" \t\f\v") == ""
        new[line] = new[line][:start] + new[line][end:]
    after = parse_cli(new, SCHEMAS)
    assert [(c.line, c.text, c.stdin_text()) for c in after.commands] == [
        (c.line, c.text, c.stdin_text()) for c in script.commands
    ]
    assert [(d.code, d.span.start_line) for d in after.diagnostics] == [
        (d.code, d.span.start_line) for d in script.diagnostics
    ]
