"""lsp/splice.py: per-item answers spliced after an edit equal answers built whole, entries and JSON text alike."""

from __future__ import annotations

import asyncio
import itertools

from hypothesis import given
from hypothesis import strategies as st

from heredoc_lsp.lsp.analysis import Changed
from heredoc_lsp.lsp.splice import FIRST_SLICE, Build, Parts, json_array, update, update_sliced

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


def _model_build(model: list[list[str]], calls: list[tuple[int, int | None]] | None = None) -> Build[str]:
    def build(first: int, last: int | None) -> tuple[list[int], list[str]]:
        if calls is not None:
            calls.append((first, last))
        chosen = range(first, len(model) if last is None else last)
        return [k for k in chosen for _ in model[k]], [e for k in chosen for e in model[k]]

    return build


@given(st.lists(ENTRIES, min_size=1, max_size=60), st.integers(0, 60), st.integers(0, 60), st.integers(-3, 3))
def test_a_sliced_build_equals_one_build(lines: list[list[str]], start: int, length: int, delta: int) -> None:
    """update_sliced answers what update answers, for a first build and for a window, with or without moved lines."""
    start = min(start, len(lines))
    stop = min(len(lines), start + length)
    changed = Changed(1, start, stop, delta)
    old = update(None, 1, None, _model_build(lines))
    for previous, window in ((None, None), (old, changed)):
        one = update(previous, 2, window, _model_build(lines))
        sliced = asyncio.run(update_sliced(previous, 2, window, _model_build(lines), len(lines)))
        assert (sliced.lines, sliced.values, sliced.rebuilt) == (one.lines, one.values, one.rebuilt)


def test_a_big_build_yields_to_the_event_loop_between_slices() -> None:
    """20k lines are built in several slices that meet exactly, and other work runs between them."""
    model = [["1"] for _ in range(20_000)]
    calls: list[tuple[int, int | None]] = []
    ticks: list[int] = []

    async def main() -> Parts[str]:
        async def ticker() -> None:
            while True:
                ticks.append(len(calls))
                await asyncio.sleep(0)

        task = asyncio.ensure_future(ticker())
        await asyncio.sleep(0)
        done = await update_sliced(None, 1, None, _model_build(model, calls), len(model))
        task.cancel()
        return done

    done = asyncio.run(main())
    assert done.values == ["1"] * 20_000
    # A slice at most doubles the one before (the first has FIRST_SLICE lines): at least five slices here.
    assert len(calls) >= 5
    assert calls[0] == (0, FIRST_SLICE) and calls[-1][1] is None
    assert all(a[1] == b[0] for a, b in itertools.pairwise(calls))
    # The ticker ran between the slices, not only before and after the build.
    assert len({n for n in ticks if 0 < n < len(calls)}) >= len(calls) - 2
