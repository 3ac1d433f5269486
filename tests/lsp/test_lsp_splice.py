"""lsp/splice.py: per-item answers spliced after an edit equal answers built whole, entries and JSON text alike."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from heredoc_lsp.lsp.analysis import Changed
from heredoc_lsp.lsp.splice import Build, Parts, json_array, update

ENTRIES = st.lists(st.sampled_from(['{"a":1}', "[]", '"x,y"', "0"]), max_size=6)


@given(st.lists(ENTRIES, min_size=1, max_size=30), st.integers(0, 30), st.integers(0, 30), st.data())
def test_a_window_rebuilt_equals_a_whole_build(
    lines: list[list[str]], start: int, length: int, data: st.DataObject
) -> None:
    """Line ``k`` holds entries ``lines[k]``; the lines of the window [start, stop) change (no line moves)."""
    start = min(start, len(lines))
    stop = min(len(lines), start + length)
    new = [data.draw(ENTRIES) if start <= k < stop else entries for k, entries in enumerate(lines)]

    def builder(model: list[list[str]]) -> Build[str]:
        def build(first: int, last: int | None) -> tuple[list[int], list[str]]:
            chosen = range(first, len(model) if last is None else last)
            return [k for k in chosen for _ in model[k]], [e for k in chosen for e in model[k]]

        return build

    old = update(None, 1, None, builder(lines))
    changed = Changed(1, start, stop, 0)
    spliced = update(old, 2, changed, builder(new))
    whole = update(None, 2, None, builder(new))
    assert (spliced.lines, spliced.values) == (whole.lines, whole.values)
    assert spliced.rebuilt == sum(len(new[k]) for k in range(start, stop))
    assert json_array(spliced, (old, json_array(old)), changed) == json_array(whole)


def test_no_previous_answer_builds_everything() -> None:
    done: Parts[str] = update(None, 3, None, lambda first, last: ([0, 1], ["1", "2"]))
    assert (done.values, done.rebuilt, json_array(done)) == (["1", "2"], 2, "[1,2]")
