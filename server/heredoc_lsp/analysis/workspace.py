"""Workspace checks of an inbox reply (docs/formats.md, second half): the only analysis that reads the file system.

For each command that would run (no error of its own, before ``[DONE]``), in order:

- the path's real location (symlinks resolved; for a file that does not exist, its nearest existing parent) must
  stay inside the workspace: else ``path_outside_workspace`` (error);
- CREATE_FILE / EDIT_FILE / DELETE_FILE must not change a protected path (docs/security.md), neither as written nor
  where links lead, nor a ``pyproject.toml``'s ``[tool.heredoc-lsp]`` table (judged on the file's text at that point of
  the reply): else ``protected_path`` (error) on the ``path`` attribute;
- EDIT_FILE / DELETE_FILE / READ_FILE need a file that exists or is created earlier in the same reply (and not
  deleted since): else ``file_not_found`` (warning);
- an EDIT_FILE range must end within the file's line count at that point of the reply (earlier CREATE_FILE and
  EDIT_FILE commands of the reply are taken into account): else ``bad_range`` (error);
- an EDIT_FILE of a file larger than :data:`MAX_EDIT_BYTES`: ``file_too_large`` (warning) instead of the range
  check (applying it fails: editing means holding the file in memory).

The checks run on every keystroke in the editor, so no file is ever read whole: existence and size come from
``stat``, and lines are counted in chunks (only for EDIT_FILE, only below the cap).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from heredoc_lsp.fs import read_regular
from heredoc_lsp.syntax.diagnostics import Diagnostic, error, warning
from heredoc_lsp.syntax.paths import display_path, normalize_relative
from heredoc_lsp.syntax.protected import (
    PROTECTED_CODE,
    ProtectedPath,
    check_edit,
    check_protected,
    is_pyproject,
    protected_reason,
    replace_lines,
)

if TYPE_CHECKING:
    from heredoc_lsp.syntax.inbox import InboxCommand, InboxReply

_NEEDS_FILE = ("EDIT_FILE", "DELETE_FILE", "READ_FILE")
MAX_EDIT_BYTES = 10 * 1024 * 1024  # files above this are neither line-counted nor edited (EDIT_FILE fails)
COUNT_CHUNK = 1 << 20
_WRITES = ("CREATE_FILE", "EDIT_FILE", "DELETE_FILE")


def count_lines_fd(fd: int, chunk_size: int = COUNT_CHUNK) -> int:
    """:func:`count_lines_text` of what is left to read on ``fd``, read in chunks (a CRLF split between two
    chunks counts once); memory stays at one chunk whatever the size."""
    n = 0
    previous_cr = False
    last = b""
    while chunk := os.read(fd, chunk_size):
        n += chunk.count(b"\n") + chunk.count(b"\r") - chunk.count(b"\r\n")
        if previous_cr and chunk[:1] == b"\n":
            n -= 1
        previous_cr = chunk[-1:] == b"\r"
        last = chunk[-1:]
    if not last:
        return 0
    return n if last in (b"\n", b"\r") else n + 1


def too_large_message(shown: str, size: int, limit: int = MAX_EDIT_BYTES) -> str:
    """What EDIT_FILE says about a file above the cap (the diagnostic and the FAILED result share it)."""
    return (
        f"File '{shown}' is too large to edit ({size} bytes; EDIT_FILE handles files up to {limit} bytes): "
        "use a RUN_COMMAND (e.g. sed) or split the file"
    )


def count_lines_text(text: str) -> int:
    """Lines in the docs/formats.md model: a terminator at the very end does not start another line."""
    if not text:
        return 0
    crlf = text.count("\r\n")
    n = text.count("\n") + text.count("\r") - crlf  # a CRLF is one terminator, not two
    return n if text.endswith(("\n", "\r")) else n + 1


def is_inside(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


@dataclass(slots=True)
class _FileState:
    exists: bool
    lines: int | None  # None when unknown (unreadable, not counted yet, or too large)
    size: int | None = None  # bytes on disk, for files the reply has not changed yet


class _Workspace:
    def __init__(self, root: Path) -> None:
        self.root = os.path.realpath(root)
        self.state: dict[str, _FileState] = {}  # normalized relative path -> state after earlier commands
        self.texts: dict[str, str | None] = {}  # pyproject.toml files: text after earlier commands (None: deleted)

    def real(self, rel: str) -> str:
        # realpath resolves every existing component (symlinks included) and keeps the missing tail as written,
        # which is exactly "the nearest existing parent" for files that do not exist yet.
        return os.path.realpath(os.path.join(self.root, rel))

    def text(self, rel: str, real: str) -> str | None:
        if rel in self.texts:
            return self.texts[rel]
        try:
            data = read_regular(real, MAX_EDIT_BYTES + 1)  # never a FIFO; a huge pyproject.toml is never read whole
        except OSError:
            return None
        if len(data) > MAX_EDIT_BYTES:
            return None
        return data.decode("utf-8", "surrogateescape")

    def protected(self, command: InboxCommand, rel: str, real: str) -> ProtectedPath | None:
        """Whether ``command`` would change a protected path; records a pyproject.toml's new text when not."""
        real_rel = os.path.relpath(real, self.root).replace(os.sep, "/")
        for name in dict.fromkeys((rel, real_rel)):
            why = protected_reason(name)
            if why is not None:
                return ProtectedPath(name, why)
        config = real_rel if is_pyproject(real_rel) else rel if is_pyproject(rel) else None
        if config is None:
            return None
        before = self.text(rel, real)
        if command.name == "CREATE_FILE":
            after: str | None = command.body or ""
            found = check_protected(config, before, after)
        elif command.name == "DELETE_FILE":
            after = None
            found = check_protected(config, before, None)
        else:
            if before is None:
                return None
            start, end = _int_attr(command, "start_line"), _int_attr(command, "end_line")
            found = check_edit(config, before, start, end, command.body or "")
            after = None if found is not None else replace_lines(before, start, end, command.body or "")
        if found is None:
            self.texts[rel] = after
        return found

    def file_state(self, rel: str, real: str) -> _FileState:
        """Existence and size from ``stat`` only; lines are counted later, on demand (:meth:`with_lines`)."""
        known = self.state.get(rel)
        if known is not None:
            return known
        try:
            st = os.stat(real)
        except OSError:
            return _FileState(False, None)
        if not stat.S_ISREG(st.st_mode):
            return _FileState(False, None)
        return _FileState(True, None, st.st_size)

    def with_lines(self, state: _FileState, real: str) -> _FileState:
        """``state`` with the on-disk file's line count (read in chunks), when it is unknown and under the cap."""
        if state.lines is not None or state.size is None or state.size > MAX_EDIT_BYTES:
            return state
        try:
            fd = os.open(real, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError:
            return state
        try:
            return _FileState(True, count_lines_fd(fd), state.size)
        except OSError:
            return state
        finally:
            os.close(fd)


def _int_attr(command: InboxCommand, name: str) -> int:
    return int(command.attrs[name].strip(" \t\n\r\f\v"))


def workspace_diagnostics(reply: InboxReply, workspace: Path) -> list[Diagnostic]:
    """The file-system checks of ``reply`` against ``workspace`` (a directory)."""
    ws = _Workspace(workspace)
    out: list[Diagnostic] = []
    for command in reply.commands:
        if command.name == "DONE":
            break  # later commands are skipped when the reply is applied
        path_attr = command.attr("path")
        if not command.ok or path_attr is None:
            continue
        rel = normalize_relative(path_attr.value)
        shown = display_path(path_attr.value)
        span = path_attr.quoted_span
        real = ws.real(rel)
        if not is_inside(real, ws.root):
            out.append(
                error(
                    span,
                    "path_outside_workspace",
                    f"Path '{shown}' is outside workspace: it resolves to '{real}' through a symbolic link",
                    data={"path": path_attr.value, "real_path": real},
                )
            )
            continue
        if command.name in _WRITES:
            found = ws.protected(command, rel, real)
            if found is not None:
                message = found.message
                if found.path != rel:
                    message = f"Path '{shown}' leads to '{found.path}', which is protected: {found.reason}"
                out.append(error(span, PROTECTED_CODE, message, data={"path": path_attr.value}))
                continue
        if command.name == "CREATE_FILE":
            ws.state[rel] = _FileState(True, count_lines_text(command.body or ""))
            continue
        if command.name not in _NEEDS_FILE:
            continue
        state = ws.file_state(rel, real)
        if not state.exists:
            why = (
                "it is a directory, not a file"
                if os.path.isdir(real)
                else "it does not exist and is not created earlier in this reply"
            )
            out.append(
                warning(
                    span,
                    "file_not_found",
                    f"File '{shown}' not found: {why}",
                    data={"path": path_attr.value},
                )
            )
            continue
        if command.name == "DELETE_FILE":
            ws.state[rel] = _FileState(False, None)
        elif command.name == "EDIT_FILE":
            start, end = _int_attr(command, "start_line"), _int_attr(command, "end_line")
            if state.size is not None and state.size > MAX_EDIT_BYTES:
                out.append(
                    warning(
                        span,
                        "file_too_large",
                        too_large_message(shown, state.size),
                        data={"path": path_attr.value, "size": state.size, "limit": MAX_EDIT_BYTES},
                    )
                )
                ws.state[rel] = _FileState(True, None)
                continue
            state = ws.with_lines(state, real)
            if state.lines is not None and end > state.lines:
                end_attr = command.attr("end_line")
                out.append(
                    error(
                        end_attr.quoted_span if end_attr is not None else command.tag_span,
                        "bad_range",
                        f"EDIT_FILE range {start}-{end} is beyond the end of '{shown}', which has "
                        f"{state.lines} line{'s' if state.lines != 1 else ''}",
                        data={"path": path_attr.value, "line_count": state.lines},
                    )
                )
                ws.state[rel] = _FileState(True, None)
                continue
            new_lines = None
            if state.lines is not None:
                new_lines = state.lines - (end - start + 1) + count_lines_text(command.body or "")
            ws.state[rel] = _FileState(True, new_lines)
        else:
            ws.state[rel] = state
    return out
