"""The one walk of a file tree (``check`` and the outbox's listing of workspace files): iterative and bounded.

A folder tree is written by whoever wrote the workspace: a 1,200-deep chain of folders must not exhaust the
interpreter's stack (``os.walk`` recurses on Python 3.10/3.11 and raises ``RecursionError``), and a tree of a
million entries must not keep the caller busy for minutes. :class:`TreeWalk` keeps its own stack, visits entries in
name order, depth first, never follows links into folders, and stops at ``max_depth`` folders below the root and
after ``max_entries`` entries; what it left out is counted (:attr:`TreeWalk.too_deep`, :attr:`TreeWalk.cut`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

MAX_DEPTH = 64
MAX_ENTRIES = 200_000

T = TypeVar("T")


class TreeWalk(Generic[T]):
    """``for entry, context in walk`` yields every entry of a folder (name order) with the folder's ``context``;
    :meth:`enter` asks for a folder entry's own entries, walked next with their own context (depth first, as a
    recursive walk would)."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        context: T,
        *,
        max_depth: int = MAX_DEPTH,
        max_entries: int = MAX_ENTRIES,
        on_error: Callable[[str, OSError, T], None] | None = None,
    ) -> None:
        self.max_depth = max_depth
        self.max_entries = max_entries
        self.on_error = on_error
        self.too_deep: list[str] = []  # folders not entered: deeper than max_depth
        self.cut = False  # True when max_entries stopped the walk
        self.seen = 0
        self._stack: list[tuple[Iterator[os.DirEntry[str]], T, int]] = []
        self._open(os.fspath(root), context, 0)

    def _open(self, path: str, context: T, depth: int) -> None:
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if self.on_error is not None:
                self.on_error(path, exc, context)
            return
        self._stack.append((iter(entries), context, depth))

    def enter(self, entry: os.DirEntry[str], context: T) -> bool:
        """Walk ``entry`` (a folder, not a link to one) next, with ``context``; False when it is too deep."""
        depth = self._stack[-1][2] + 1 if self._stack else 1
        if depth > self.max_depth:
            self.too_deep.append(entry.path)
            return False
        self._open(entry.path, context, depth)
        return True

    def __iter__(self) -> Iterator[tuple[os.DirEntry[str], T]]:
        stack = self._stack
        while stack:
            entries, context, _depth = stack[-1]
            entry = next(entries, None)
            if entry is None:
                stack.pop()
                continue
            self.seen += 1
            if self.seen > self.max_entries:
                self.cut = True
                stack.clear()
                return
            yield entry, context
