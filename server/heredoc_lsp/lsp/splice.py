"""Per-item results that follow the document's edits: a feature pays for the items that changed.

A feature that answers with one entry per ``.cli`` item (an outline symbol, a fold, a run target, a diagnostic)
keeps its last answer as :class:`Parts`: the entries and the line each one starts on. For a newer snapshot of the
same document, :meth:`Analyses.changes_since <heredoc_lsp.lsp.analysis.Analyses.changes_since>` says which lines
changed (a :class:`~heredoc_lsp.lsp.analysis.Changed` window); the entries before the window are kept, the
window's entries are built again, and the entries after it are kept as they are when no line moved (an edit that
adds or removes lines rebuilds them: they quote absolute line numbers).

Every incremental view keeps its last answer per document in a :class:`View` of the server's one
:class:`ViewCache`: it says what changed since that answer (:meth:`View.plan`), keeps a new answer only while the
document is open and when no newer one was kept meanwhile (:meth:`View.keep`), holds one build at a time per
document (:meth:`View.building`) and forgets a document when it is closed.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from heredoc_lsp.lsp.analysis import Analyses, Changed, Snapshot
from heredoc_lsp.lsp.documents import DocumentStore
from heredoc_lsp.lsp.work import WORK

T = TypeVar("T")
R = TypeVar("R")
V = TypeVar("V")

# build(first_line, stop_line) -> (start lines, entries) of the items starting on lines [first_line, stop_line)
# (stop_line None: to the end of the document).
Build = Callable[[int, "int | None"], tuple[list[int], list[T]]]


@dataclass(frozen=True, slots=True)
class Parts(Generic[T]):
    """One feature's answer for one snapshot (``lines[i]`` is the line entry ``values[i]`` starts on)."""

    serial: int
    lines: list[int]
    values: list[T]
    rebuilt: int  # how many entries were built for this snapshot (the rest were kept)


def json_array(
    parts: Parts[str], previous: tuple[Parts[str], str] | None = None, changed: Changed | None = None
) -> str:
    """The entries (JSON texts) as one JSON array. With the ``previous`` parts and their array, and the ``changed``
    window that led from them to ``parts`` (no line moved), the old array's text is reused around the window
    (copied at memory speed instead of joined again entry by entry)."""
    if previous is None or changed is None or changed.delta or previous[0] is parts:
        return "[" + ",".join(parts.values) + "]"
    old, text = previous
    i = bisect_left(old.lines, changed.start)
    j = i + parts.rebuilt + len(old.values) - len(parts.values)
    window = parts.values[i : i + parts.rebuilt]
    start_i = 1 + sum(map(len, old.values[:i])) + i  # where entry i starts: "[" and i entries with their commas
    if j < len(old.values):
        start_j = start_i + sum(map(len, old.values[i:j])) + (j - i)
        return text[:start_i] + "".join(w + "," for w in window) + text[start_j:]
    if i == 0:
        return "[" + ",".join(window) + "]"
    return text[: start_i - 1] + "".join("," + w for w in window) + "]"


def _window(previous: Parts[T] | None, changed: Changed | None) -> tuple[int, int | None]:
    """The lines ``[first, stop)`` whose items must be built (stop None: to the end of the document)."""
    if previous is None or changed is None:
        return 0, None
    if changed.delta:
        return changed.start, None
    return changed.start, changed.stop


def _assemble(
    previous: Parts[T] | None, serial: int, changed: Changed | None, lines: list[int], values: list[T]
) -> Parts[T]:
    if previous is None or changed is None:
        return Parts(serial, lines, values, len(values))
    i = bisect_left(previous.lines, changed.start)
    if changed.delta:
        return Parts(serial, previous.lines[:i] + lines, previous.values[:i] + values, len(values))
    j = bisect_left(previous.lines, changed.stop)
    return Parts(
        serial,
        previous.lines[:i] + lines + previous.lines[j:],
        previous.values[:i] + values + previous.values[j:],
        len(values),
    )


def update(previous: Parts[T] | None, serial: int, changed: Changed | None, build: Build[T]) -> Parts[T]:
    """The parts of snapshot ``serial``: ``previous`` spliced with the items of the ``changed`` window, or all
    built again when there is no usable previous answer."""
    if previous is not None and previous.serial == serial:
        return previous
    first, stop = _window(previous, changed)
    lines, values = build(first, stop)
    return _assemble(previous, serial, changed, lines, values)


SLICE_SECONDS = 0.008  # how long one slice of a big build may hold the event loop
FIRST_SLICE = 500  # lines in the first slice; later slices are sized from the time the previous ones took


class Turns:
    """The event loop's turns, handed to sliced builds one at a time.

    The loop runs every callback that is ready before it reads input again: five builds that each yield after a
    slice would still hold it for five slices per turn. A build waits here between slices instead; each turn of
    the loop lets one waiting build go on (first come, first served), so a turn runs at most one slice.
    """

    def __init__(self) -> None:
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._scheduled: asyncio.AbstractEventLoop | None = None  # the loop a release is scheduled on

    async def wait(self) -> None:
        """Return in a later turn of the loop, when the builds that waited before have had theirs."""
        future = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        self._schedule()
        await future

    def _schedule(self) -> None:
        loop = asyncio.get_running_loop()
        if self._waiting and self._scheduled is not loop:
            self._scheduled = loop
            loop.call_soon(self._release)

    def _release(self) -> None:
        self._scheduled = None
        while self._waiting:
            future = self._waiting.popleft()
            # (a cancelled request's build is skipped, and so is one left behind by a loop that was closed)
            if not future.done() and not future.get_loop().is_closed():
                future.set_result(None)
                break
        self._schedule()


TURNS = Turns()


async def in_slices(build: Callable[[int, int | None], R], first: int, stop: int | None, line_count: int) -> list[R]:
    """``build(first, stop)`` as consecutive calls over slices of the lines, in order, yielding to the event loop
    between them; the slices are sized to take about :data:`SLICE_SECONDS` each (the first has
    :data:`FIRST_SLICE` lines, each later one at most twice the one before)."""
    end = line_count if stop is None else stop
    out: list[R] = []
    size = FIRST_SLICE
    at = first
    while True:
        upto = at + size
        last = upto >= end
        started = time.perf_counter()
        out.append(build(at, stop if last else upto))
        if last:
            return out
        at = upto
        took = time.perf_counter() - started
        size = max(100, min(size * 2, int(size * SLICE_SECONDS / took) if took > 0 else size * 2))
        WORK["yields"] += 1
        await TURNS.wait()


async def update_sliced(
    previous: Parts[T] | None, serial: int, changed: Changed | None, build: Build[T], line_count: int
) -> Parts[T]:
    """:func:`update` that builds a big window in slices of lines (:func:`in_slices`).

    The answer is the same as :func:`update`'s (items are built by the line they start on, so slices meet
    exactly); other messages (a keystroke, its diagnostics, a cancellation) are handled between slices. The
    caller's snapshot is immutable, so a change that arrives meanwhile affects only the next answer.
    """
    if previous is not None and previous.serial == serial:
        return previous
    first, stop = _window(previous, changed)
    lines: list[int] = []
    values: list[T] = []
    for more_lines, more_values in await in_slices(build, first, stop, line_count):
        lines += more_lines
        values += more_values
    return _assemble(previous, serial, changed, lines, values)


class Building:
    """One build at a time per document: a request that finds another one building waits for it, then splices
    its own snapshot into that answer (two requests right after opening a script would otherwise both build it
    whole)."""

    def __init__(self) -> None:
        # Weak: a lock lives while a request holds or waits for it, so a request that runs after its document was
        # closed (didClose handled first) leaves nothing behind.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def __call__(self, uri: str) -> asyncio.Lock:
        lock = self._locks.get(uri)
        if lock is None:
            lock = self._locks[uri] = asyncio.Lock()
        return lock

    def forget(self, uri: str) -> None:
        self._locks.pop(uri, None)


@dataclass(frozen=True, slots=True)
class Kept(Generic[V]):
    """A view's answer for snapshot ``serial``, made under ``stamp`` (what else it depends on)."""

    serial: int
    stamp: Hashable
    value: V


class View(Generic[V]):
    """One view's last answer per document and variant (a variant is kept beside the others: diagnostics with and
    without related information; a stamp replaces: lenses after the run state changed)."""

    def __init__(self, cache: ViewCache) -> None:
        self._owner = cache
        self._kept: dict[str, dict[Hashable, Kept[V]]] = {}
        self._building = Building()

    def last(self, snap: Snapshot, variant: Hashable = None, stamp: Hashable = None) -> Kept[V] | None:
        """The answer kept for ``snap``'s document (``variant``, made under ``stamp``), current or not."""
        kept = self._kept.get(DocumentStore.key(snap.uri), {}).get(variant)
        return kept if kept is not None and kept.stamp == stamp else None

    def plan(self, snap: Snapshot, variant: Hashable = None, stamp: Hashable = None) -> tuple[V | None, Changed | None]:
        """The kept answer to splice into and what changed since it (None: build it all; the answer may be
        kept with changes unknown)."""
        kept = self.last(snap, variant, stamp)
        if kept is None:
            return None, None
        return kept.value, self._owner.analyses.changes_since(snap, kept.serial)

    def fits(self, snap: Snapshot, variant: Hashable = None, stamp: Hashable = None) -> bool:
        """Whether an answer is kept that ``snap``'s can be spliced from (or is)."""
        return self.plan(snap, variant, stamp)[1] is not None

    def keep(self, snap: Snapshot, value: V, variant: Hashable = None, stamp: Hashable = None) -> None:
        """Keep ``value`` as the answer for ``snap``, unless the document was closed or a newer answer (made by
        a request that ran while this one yielded) is kept already."""
        if self._owner.documents.get(snap.uri) is None:
            return
        variants = self._kept.setdefault(DocumentStore.key(snap.uri), {})
        kept = variants.get(variant)
        if kept is None or kept.stamp != stamp or kept.serial <= snap.serial:
            variants[variant] = Kept(snap.serial, stamp, value)

    def drop(self, uri: str) -> None:
        """Forget every answer kept for ``uri``."""
        self._kept.pop(DocumentStore.key(uri), None)

    def building(self, uri: str) -> asyncio.Lock:
        """One build of this view at a time per document (:class:`Building`)."""
        return self._building(DocumentStore.key(uri))

    def forget(self, uri: str) -> None:
        self.drop(uri)
        self._building.forget(DocumentStore.key(uri))


class ViewCache:
    """The one store of every incremental view's answers (``server.views``); the server forgets a document's
    answers when it is closed."""

    def __init__(self, documents: DocumentStore, analyses: Analyses) -> None:
        self.documents = documents
        self.analyses = analyses
        self._views: list[View[Any]] = []

    def view(self) -> View[V]:
        """A new view (one per feature answer that follows edits)."""
        made: View[V] = View(self)
        self._views.append(made)
        return made

    def forget(self, uri: str) -> None:
        for view in self._views:
            view.forget(uri)
