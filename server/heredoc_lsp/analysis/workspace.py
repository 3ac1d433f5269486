"""Workspace checks of an inbox reply (SPEC §4.6, second half): the only analysis that reads the file system.

For each command that would run (no error of its own, before ``[DONE]``), in order:

- the path's real location (symlinks resolved; for a file that does not exist, its nearest existing parent) must
  stay inside the workspace: else ``path_outside_workspace`` (error);
- CREATE_FILE / EDIT_FILE / DELETE_FILE must not change a protected path (SPEC §6), neither as written nor where
  links lead, nor a ``pyproject.toml``'s ``[tool.heredoc-lsp]`` table (judged on the file's text at that point of
  the reply): else ``protected_path`` (error) on the ``path`` attribute;
- EDIT_FILE / DELETE_FILE / READ_FILE need a file that exists or is created earlier in the same reply (and not
  deleted since): else ``file_not_found`` (warning);
- an EDIT_FILE range must end within the file's line count at that point of the reply (earlier CREATE_FILE and
  EDIT_FILE commands of the reply are taken into account): else ``bad_range`` (error).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

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

_TERMINATOR = re.compile(rb"\r\n|\r|\n")
_NEEDS_FILE = ("EDIT_FILE", "DELETE_FILE", "READ_FILE")
_WRITES = ("CREATE_FILE", "EDIT_FILE", "DELETE_FILE")


def count_lines_bytes(data: bytes) -> int:
    """Lines in the SPEC §1 model: a terminator at the very end does not start another line."""
    if not data:
        return 0
    n = len(_TERMINATOR.findall(data))
    return n if data.endswith((b"\n", b"\r")) else n + 1


def count_lines_text(text: str) -> int:
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
    lines: int | None  # None when unknown (unreadable)


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
            with open(real, "rb") as f:
                return f.read().decode("utf-8", "surrogateescape")
        except OSError:
            return None

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
        known = self.state.get(rel)
        if known is not None:
            return known
        if not os.path.isfile(real):
            return _FileState(False, None)
        try:
            with open(real, "rb") as f:
                return _FileState(True, count_lines_bytes(f.read()))
        except OSError:
            return _FileState(True, None)


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
