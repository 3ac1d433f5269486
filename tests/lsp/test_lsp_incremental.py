"""Incremental re-parsing of .cli scripts equals a full parse, for any text and any edit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lsp.lsp import incremental
from heredoc_lsp.lsp.documents import Document
from heredoc_lsp.syntax.cli import CliScript, parse_cli
from heredoc_lsp.syntax.schema import CommandSchema

VOCABULARY = [
    "",
    "echo hi",
    "  echo indented é😀",
    "# comment",
    "# heredoc-lsp: disable=unclosed_heredoc",
    "cat <<EOF",
    "cat <<-EOF",
    "cat <<'END'",
    "tool task <<EOF",
    "<<EOF",
    "cat <<A <<B",
    "cmd<<EOF",
    "cat <<EOF > out.txt",
    "X=1 tool  task <<EOF | tee log",
    "cat <<A > f <<B",
    "cat <<EOF extra",
    "cat <<EOF>out",
    "cd /tmp",
    "ls \\",
    "cmd <<ÉOF",
    "ÉOF",
    "EOF",
    "  EOF  ",
    "END",
    "B",
    "---TITLE---",
    "---DESCRIPTION---",
    "---BOGUS---",
    "  ---TITLE---",
    "---(UUID:1234abcd)TITLE---",
    "PARAMS_END",
    "body é😀",
]
LINES = st.lists(st.sampled_from(VOCABULARY), max_size=25)
SCHEMAS = {"tool task": CommandSchema("tool task", "multi", ("TITLE", "DESCRIPTION"), ("TITLE",), None, "PARAMS_END")}


def same(a: CliScript, b: CliScript) -> None:
    assert [(d, d.data) for d in a.diagnostics] == [(d, d.data) for d in b.diagnostics]
    assert a.items == b.items
    assert a._starts() == b._starts()


@settings(max_examples=600, deadline=None)
@given(
    LINES,
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 4), LINES), min_size=1, max_size=4),
    st.booleans(),
)
def test_incremental_equals_full_parse(
    lines: list[str], edits: list[tuple[int, int, list[str]]], configured: bool
) -> None:
    schemas = SCHEMAS if configured else None
    doc = Document("file:///t.cli", "".join(line + "\n" for line in lines), 1, "cli-script")
    script = parse_cli(tuple(doc.lines), schemas)
    for version, (start, removed, new_lines) in enumerate(edits, start=2):
        start = min(start, len(doc.lines))
        removed = min(removed, len(doc.lines) - start)
        text = "".join(line + "\n" for line in new_lines)
        edit = doc.replace_range((start, 0), (start + removed, 0), text, version)
        lines_now = tuple(doc.lines)
        script = incremental.reparse_window(script, lines_now, edit, schemas, None)
        same(script, parse_cli(lines_now, schemas))


@settings(max_examples=300, deadline=None)
@given(LINES, st.integers(0, 30), st.integers(0, 40), st.sampled_from(["x", "\n", "", "EOF", "<<EOF", "\nEOF\n"]))
def test_character_edits(lines: list[str], line: int, col: int, new: str) -> None:
    doc = Document("file:///t.cli", "\n".join(lines), 1, "cli-script")
    script = parse_cli(tuple(doc.lines))
    edit = doc.replace_range((line, col), (line, col + 1), new, 2)
    lines_now = tuple(doc.lines)
    same(incremental.reparse_window(script, lines_now, edit, None, None), parse_cli(lines_now))


def test_typing_in_a_big_file_rescans_a_small_window() -> None:
    blocks = [f"cmd{i} <<EOF\nbody {i}\nEOF\necho {i}\n" for i in range(2000)]
    doc = Document("file:///t.cli", "".join(blocks), 1, "cli-script")
    script = parse_cli(tuple(doc.lines))
    middle = len(doc.lines) // 2 + 1  # a body line
    edit = doc.replace_range((middle, 0), (middle, 0), "x", 2)
    script = incremental.reparse_window(script, tuple(doc.lines), edit, None, None)
    stats = incremental.last_stats
    assert stats is not None and not stats.fallback
    assert stats.stop - stats.resume < 200
    # A new line (every later line moves down) is spliced too.
    edit = doc.replace_range((middle, 0), (middle, 0), "more\n", 3)
    script = incremental.reparse_window(script, tuple(doc.lines), edit, None, None)
    stats = incremental.last_stats
    assert stats is not None and not stats.fallback and stats.stop - stats.resume < 200
    same(script, parse_cli(tuple(doc.lines)))


def test_directive_lines_follow_edits() -> None:
    doc = Document("file:///t.cli", "a\n# heredoc-lsp: disable=x\nb\n", 1, "cli-script")
    found = incremental.directive_lines(doc.lines)
    assert found == (1,)
    edit = doc.replace_range((0, 0), (0, 0), "new\n", 2)
    found = incremental.update_directive_lines(found, doc.lines, edit)
    assert found == (2,) == incremental.directive_lines(doc.lines)


@given(st.lists(st.sampled_from(["", "x", "# heredoc-lsp: disable=a", "heredoc-lsp heredoc-lsp", "é😀"]), max_size=30))
def test_directive_lines_match_a_line_by_line_scan(lines: list[str]) -> None:
    assert incremental.directive_lines(lines) == tuple(i for i, line in enumerate(lines) if "heredoc-lsp" in line)
