"""The line-based document store against the obvious string model (docs/formats.md line model)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lsp.lsp.documents import Document, LineEdit, split_with_endings
from heredoc_lsp.syntax.text import split_lines

# Characters that matter: every line terminator, the ones str.splitlines() wrongly splits on, non-ASCII.
ALPHABET = st.sampled_from(["a", "b", " ", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "é", "😀"])
TEXT = st.lists(ALPHABET, max_size=30).map("".join)


def offset_of(text: str, line: int, col: int) -> int:
    """Code-point offset of a (line, col) position in ``text`` (lines per split_lines, clamped)."""
    lines, endings = split_with_endings(text)
    off = 0
    for i in range(min(line, len(lines))):
        off += len(lines[i]) + len(endings[i])
    if line < len(lines):
        off += min(col, len(lines[line]))
    return min(off, len(text))


@given(TEXT)
def test_split_matches_the_lsp_line_model(text: str) -> None:
    lines, endings = split_with_endings(text)
    assert lines == split_lines(text) if text else lines == []
    assert "".join(a + b for a, b in zip(lines, endings, strict=True)) == text
    assert all(e in ("\n", "\r", "\r\n") for e in endings[:-1])


@settings(max_examples=400)
@given(TEXT, st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8), st.integers(0, 8), st.integers(0, 8), TEXT)))
def test_changes_match_string_edits(text: str, edits: list[tuple[int, int, int, int, str]]) -> None:
    doc = Document("file:///t.cli", text, 1, "cli-script")
    model = text
    previous_lines = list(doc.lines)
    for version, (l1, c1, l2, c2, new) in enumerate(edits, start=2):
        (sl, sc), (el, ec) = doc.clamp(l1, c1), doc.clamp(l2, c2)
        a, b = sorted((offset_of(model, sl, sc), offset_of(model, el, ec)))
        model = model[:a] + new + model[b:]
        edit = doc.replace_range((l1, c1), (l2, c2), new, version)
        assert doc.text() == model
        assert doc.lines == split_lines(model) if model else doc.lines == []
        assert doc.version == version
        # The edit says which lines changed: everything outside it is the same, shifted by its delta.
        assert doc.lines[: edit.start] == previous_lines[: edit.start]
        assert doc.lines[edit.start + edit.inserted :] == previous_lines[edit.start + edit.removed :]
        previous_lines = list(doc.lines)


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=5))
def test_composed_line_edits_cover_both(raw: list[tuple[int, int, int]]) -> None:
    # Apply line edits to a list of unique lines and check the composition bounds what changed.
    lines = [f"L{i}" for i in range(10)]
    original = list(lines)
    composed: LineEdit | None = None
    fresh = iter(range(1000, 2000))
    for start, removed, inserted in raw:
        start = min(start, len(lines))
        removed = min(removed, len(lines) - start)
        lines[start : start + removed] = [f"N{next(fresh)}" for _ in range(inserted)]
        step = LineEdit(start, removed, inserted)
        composed = step if composed is None else composed.then(step)
    assert composed is not None
    assert lines[: composed.start] == original[: composed.start]
    assert lines[composed.start + composed.inserted :] == original[composed.start + composed.removed :]
    assert len(lines) - len(original) == composed.delta


def test_crlf_split_across_an_edit_joins() -> None:
    doc = Document("file:///t.cli", "a\rb\n", 1, None)
    assert doc.lines == ["a", "b"]
    edit = doc.replace_range((1, 0), (1, 1), "", 2)  # delete "b": "a\r\n" is now one line
    assert doc.lines == ["a"] and doc.endings == ["\r\n"] and doc.text() == "a\r\n"
    assert edit == LineEdit(0, 2, 1)


def test_positions_past_the_end_clamp() -> None:
    doc = Document("file:///t.cli", "ab\ncd", 1, None)
    doc.replace_range((9, 9), (9, 9), "!", 2)
    assert doc.text() == "ab\ncd!"
    doc.replace_range((0, 99), (0, 99), "?", 3)
    assert doc.text() == "ab?\ncd!"
