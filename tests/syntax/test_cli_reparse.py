"""``syntax.cli.reparse``: the incremental re-parse equals a full parse, for any text and any edit, and re-scans a
window proportional to the edit (its ``resume``/``stop`` say which items are new)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lsp.syntax.cli import CliScript, parse_cli, reparse
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import LineEdit, split_lines

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
    "python3 - <<'PY'",
    "  PY",
    "PY",
    "make",
    '  --title "x"',
    "echo \"$(cat <<'EOF'",
    ')"',
    "cat <<EOF &> log",
    "cat <<EOF > out &",
    "arr=(a b) && [[ -f x ]]",
]
LINES = st.lists(st.sampled_from(VOCABULARY), max_size=25)
SCHEMAS = {"tool task": CommandSchema("tool task", "multi", ("TITLE", "DESCRIPTION"), ("TITLE",), None, "PARAMS_END")}


def same(a: CliScript, b: CliScript) -> None:
    assert [(d, d.data) for d in a.diagnostics] == [(d, d.data) for d in b.diagnostics]
    assert a.items == b.items
    # Line look-ups go through the item starts, which reparse splices: they must answer as a full parse does.
    for line in range(len(b.lines) + 1):
        assert a.items_between(line, line + 1) == b.items_between(line, line + 1)
        assert a.item_at(line) == b.item_at(line)


def replace_lines(lines: list[str], start: int, removed: int, new: list[str]) -> LineEdit:
    """Replace whole lines in place; the edit that describes it."""
    lines[start : start + removed] = new
    return LineEdit(start, removed, len(new))


def type_text(lines: list[str], line: int, col: int, text: str) -> LineEdit:
    """Replace one character at (line, col) (clamped) by ``text``, which may hold line breaks."""
    if not lines:
        lines.append("")
    line = min(line, len(lines) - 1)
    old = lines[line]
    col = min(col, len(old))
    return replace_lines(lines, line, 1, split_lines(old[:col] + text + old[col + 1 :]) or [""])


@settings(max_examples=600, deadline=None)
@given(
    LINES,
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 4), LINES), min_size=1, max_size=4),
    st.booleans(),
    st.sampled_from(["sh", "bash", None]),
)
def test_reparse_equals_a_full_parse(
    lines: list[str], edits: list[tuple[int, int, list[str]]], configured: bool, shell: str | None
) -> None:
    schemas = SCHEMAS if configured else None
    script = parse_cli(tuple(lines), schemas, shell=shell)
    for start, removed, new_lines in edits:
        start = min(start, len(lines))
        removed = min(removed, len(lines) - start)
        old_starts = [item.line for item in script.items]
        edit = replace_lines(lines, start, removed, list(new_lines))
        result = reparse(script, tuple(lines), edit, schemas, None, shell=shell)
        full = parse_cli(tuple(lines), schemas, shell=shell)
        same(result.script, full)
        # The window: items before resume and from stop on are the old ones (moved by delta).
        new_starts = [item.line for item in full.items]
        assert [s for s in new_starts if s < result.resume] == [s for s in old_starts if s < result.resume]
        assert [s for s in new_starts if s >= result.stop] == [
            s + result.delta for s in old_starts if s >= result.stop - result.delta
        ]
        script = result.script


@settings(max_examples=300, deadline=None)
@given(LINES, st.integers(0, 30), st.integers(0, 40), st.sampled_from(["x", "\n", "", "EOF", "<<EOF", "\nEOF\n"]))
def test_character_edits(lines: list[str], line: int, col: int, new: str) -> None:
    script = parse_cli(tuple(lines))
    edit = type_text(lines, line, col, new)
    same(reparse(script, tuple(lines), edit).script, parse_cli(tuple(lines)))


def test_typing_in_a_big_file_rescans_a_small_window() -> None:
    lines = split_lines("".join(f"cmd{i} <<EOF\nbody {i}\nEOF\necho {i}\n" for i in range(2000)))
    script = parse_cli(tuple(lines))
    middle = len(lines) // 2 + 1  # a body line
    edit = type_text(lines, middle, 0, "x")
    result = reparse(script, tuple(lines), edit)
    assert result.stop < len(lines) and result.scanned < 200  # spliced, not scanned to the end
    # A new line (every later line moves down) is spliced too.
    edit = type_text(lines, middle, 0, "more\n")
    result = reparse(result.script, tuple(lines), edit)
    assert result.stop < len(lines) and result.scanned < 200 and result.delta == 1
    same(result.script, parse_cli(tuple(lines)))
