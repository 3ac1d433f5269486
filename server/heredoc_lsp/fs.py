"""File-system access a hostile workspace cannot hang or exhaust: the one walk of a file tree (``check`` and the
outbox's listing of workspace files), iterative and bounded, and the one read of a file named by a person or a
workspace (scripts, replies, config files, ``.gitignore``), which never blocks.

A FIFO or a device planted under a name that is read (``check.cli``, ``heredoc-lsp.toml``, the path of a
``run.start``) would make a plain ``open`` wait for a writer forever, deaf to Ctrl-C and SIGTERM (the signal
handlers of an asyncio loop run between callbacks, never inside a blocked system call). :func:`read_regular`
opens with ``O_NONBLOCK`` and refuses anything but a regular file before reading a byte.

Walk. A folder tree is written by whoever wrote the workspace: a 1,200-deep chain of folders must not exhaust the
interpreter's stack (``os.walk`` recurses on Python 3.10/3.11 and raises ``RecursionError``), and a tree of a
million entries must not keep the caller busy for minutes. :class:`TreeWalk` keeps its own stack, visits entries in
name order, depth first, never follows links into folders, and stops at ``max_depth`` folders below the root and
after ``max_entries`` entries; what it left out is counted (:attr:`TreeWalk.too_deep`, :attr:`TreeWalk.cut`).
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:  # no typing at run time: check's start-up does without it
    from collections.abc import Callable, Iterator
    from typing import Any

MAX_DEPTH = 64
MAX_ENTRIES = 200_000


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


class TreeWalk:
    """``for entry, context in walk`` yields every entry of a folder (name order) with the folder's ``context``;
    :meth:`enter` asks for a folder entry's own entries, walked next with their own context (depth first, as a
    recursive walk would)."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        context: Any,
        *,
        max_depth: int = MAX_DEPTH,
        max_entries: int = MAX_ENTRIES,
        on_error: Callable[[str, OSError, Any], None] | None = None,
        ordered: bool = True,
    ) -> None:
        self.max_depth = max_depth
        self.max_entries = max_entries
        self.on_error = on_error
        self.ordered = ordered  # False: each folder's entries in the order the file system gives (faster)
        self.too_deep: list[str] = []  # folders not entered: deeper than max_depth
        self.cut = False  # True when max_entries stopped the walk
        self.seen = 0
        self._stack: list[tuple[Iterator[os.DirEntry[str]], Any, int]] = []
        self._open(os.fspath(root), context, 0)

    def _open(self, path: str, context: Any, depth: int) -> None:
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=_name) if self.ordered else list(it)
        except OSError as exc:
            if self.on_error is not None:
                self.on_error(path, exc, context)
            return
        self._stack.append((iter(entries), context, depth))

    def enter(self, entry: os.DirEntry[str], context: Any) -> bool:
        """Walk ``entry`` (a folder, not a link to one) next, with ``context``; False when it is too deep."""
        depth = self._stack[-1][2] + 1 if self._stack else 1
        if depth > self.max_depth:
            self.too_deep.append(entry.path)
            return False
        self._open(entry.path, context, depth)
        return True

    def __iter__(self) -> Iterator[tuple[os.DirEntry[str], Any]]:
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


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a folder: never read."""


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit``; links followed), opened without blocking.
    Raises :class:`NotRegularFile` for anything else, ``OSError`` when it cannot be read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    with open(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a FIFO, a device or a socket)"
            raise NotRegularFile(f"{os.fspath(path)} is {what}")
        return f.read() if limit is None else f.read(limit)
