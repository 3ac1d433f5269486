"""Protected paths (docs/security.md): what a reply may never write, decided from text alone (no I/O).

A reply's CREATE_FILE, EDIT_FILE and DELETE_FILE may not change:

- the configuration that governs it: ``heredoc-lsp.toml`` (in any folder: the command line uses the nearest one)
  and the ``[tool.heredoc-lsp]`` table of any ``pyproject.toml`` (the rest of a pyproject.toml is fine);
- the agent's own state, at the workspace root: ``inbox/``, ``outbox/``, ``sessions/``, ``.heredoc-lsp/``;
- what runs code outside the sandbox later: ``.git`` (any path component: hooks, ``core.fsmonitor``...),
  ``.envrc`` (direnv), ``.vscode/`` and ``.idea/`` (tasks, launch configurations).

Names are compared as the strictest file system would see them, on every platform (refusing ``.Git/`` on Linux
costs nothing):

- case-insensitively (macOS and Windows: ``.GIT/hooks`` is ``.git/hooks`` there);
- without the code points HFS+ ignores (U+200C-U+200F, U+202A-U+202E, U+206A-U+206F, U+FEFF: ``.g<U+200C>it`` is
  ``.git`` on macOS; git refuses them too);
- without trailing dots and spaces and without an NTFS stream suffix (``.git::$INDEX_ALLOCATION`` is the folder
  ``.git`` on Windows);
- an 8.3 short name (``GIT~1``) is the long name it may stand for.

Callers pass the workspace-relative path (POSIX separators) of the real location, and for a pyproject.toml the
file's current text and the text it would have afterwards; the caller does the reading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from heredoc_lsp.syntax.text import split_lines, split_lines_keepends
from heredoc_lsp.syntax.toml_load import loads as toml_loads

PROTECTED_CODE = "protected_path"
PYPROJECT = "pyproject.toml"
CONFIG_FILE = "heredoc-lsp.toml"

# Folders of the agent's own state, protected at the workspace root.
AGENT_STATE_DIRS = ("inbox", "outbox", "sessions", ".heredoc-lsp")
# Names protected wherever they occur as a path component, with why.
_ANYWHERE = {
    ".git": "Git runs its hooks and config (core.fsmonitor, aliases, filters) outside the sandbox",
    ".envrc": "direnv runs it in the user's shell outside the sandbox",
    ".vscode": "the editor runs its tasks and launch settings outside the sandbox",
    ".idea": "the IDE runs its run configurations outside the sandbox",
    CONFIG_FILE: "it is heredoc-lsp's own configuration",
}
_GOVERNS = "heredoc-lsp's configuration, which governs this reply"
_AGENT_WHY = "holds heredoc-lsp's own agent state (a reply written there could forge the next one)"

# A TOML table header for [tool.heredoc-lsp] or one of its sub-tables (array tables too).
_OUR_HEADER = re.compile(
    r"""[ \t]*\[\[?[ \t]*tool[ \t]*\.[ \t]*(?:heredoc-lsp|"heredoc-lsp"|'heredoc-lsp')[ \t]*[.\]]"""
)
_ANY_HEADER = re.compile(r"[ \t]*\[")


@dataclass(frozen=True, slots=True)
class ProtectedPath:
    """Why ``path`` may not be written by a reply. ``message`` is the diagnostic / result text."""

    path: str
    reason: str

    @property
    def message(self) -> str:
        return f"Path '{self.path}' is protected: {self.reason}"


# Code points HFS+ drops from names (as git's is_hfs_dotgit lists them).
_HFS_IGNORED = dict.fromkeys(
    [0x200C, 0x200D, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF], None
)
# An 8.3 short name: up to six characters, '~', a number, and an extension of up to three.
_SHORT_NAME = re.compile(r"([^~.]{1,6})~[0-9]+(?:\.([^.]{0,3}))?")


def _fold(name: str) -> str:
    """``name`` as the strictest file system compares it (see the module doc): the protected name it may stand for."""
    name = name.translate(_HFS_IGNORED).split(":", 1)[0].rstrip(". ").casefold()
    short = _SHORT_NAME.fullmatch(name)
    if short is not None:
        for long in (*_ANYWHERE, *AGENT_STATE_DIRS, PYPROJECT):
            base, _, ext = long.lstrip(".").partition(".")
            if base.replace(".", "").startswith(short.group(1)) and ext.startswith(short.group(2) or ""):
                return long
    return name


def protected_reason(rel: str) -> str | None:
    """Why writing the workspace-relative ``rel`` is refused whatever the content; None when it is not.

    A ``pyproject.toml`` is not refused here: only its ``[tool.heredoc-lsp]`` table is protected (see
    :func:`check_protected`).
    """
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts:
        return None
    if _fold(parts[0]) in AGENT_STATE_DIRS:
        return f"'{parts[0]}/' {_AGENT_WHY}"
    for part in parts:
        why = _ANYWHERE.get(_fold(part))
        if why is not None:
            return f"'{part}' is off limits to replies: {why}"
    return None


def is_pyproject(rel: str) -> bool:
    return _fold(rel.rsplit("/", 1)[-1]) == PYPROJECT


def check_protected(rel: str, before: str | None = None, after: str | None = None) -> ProtectedPath | None:
    """Whether a reply may change ``rel`` from ``before`` to ``after`` (None: the file does not exist / is deleted).

    For every protected path any change is refused; for a ``pyproject.toml``, a change is refused when the
    ``[tool.heredoc-lsp]`` table is added, changed or removed (compared as TOML values, so layout does not
    matter; a file that stops parsing while it had the table counts as removing it).
    """
    why = protected_reason(rel)
    if why is not None:
        return ProtectedPath(rel, why)
    if is_pyproject(rel) and _table(before) != _table(after):
        return ProtectedPath(
            rel, "its [tool.heredoc-lsp] table is heredoc-lsp's configuration, which governs this reply"
        )
    return None


def check_edit(rel: str, before: str, start_line: int, end_line: int, body: str) -> ProtectedPath | None:
    """EDIT_FILE of lines ``start_line..end_line`` (1-based) of ``before`` with ``body``.

    Refused for a protected path; for a ``pyproject.toml`` when the range touches a ``[tool.heredoc-lsp]``
    table (its header to the next other header) or the result changes the table's value.
    """
    why = protected_reason(rel)
    if why is not None:
        return ProtectedPath(rel, why)
    if not is_pyproject(rel):
        return None
    lines = split_lines(before)
    touched = any(start_line - 1 <= n < end_line for n in table_lines(lines))
    if touched:
        return ProtectedPath(rel, f"the edit touches its [tool.heredoc-lsp] table, {_GOVERNS}")
    return check_protected(rel, before, replace_lines(before, start_line, end_line, body))


def table_lines(lines: Sequence[str]) -> list[int]:
    """0-based numbers of the lines from each ``[tool.heredoc-lsp...]`` header up to the next other header."""
    inside = False
    found: list[int] = []
    for n, line in enumerate(lines):
        if _ANY_HEADER.match(line):
            inside = _OUR_HEADER.match(line) is not None
        if inside:
            found.append(n)
    return found


def replace_lines(text: str, start_line: int, end_line: int, body: str) -> str:
    """``text`` with lines ``start_line..end_line`` replaced by ``body`` (precise enough for a TOML comparison)."""
    lines = split_lines_keepends(text)
    new = [line + "\n" for line in split_lines(body)] if body else []
    return "".join(lines[: start_line - 1] + new + lines[end_line:])


_ABSENT = object()
_BROKEN = object()


def _table(text: str | None) -> object:
    """The value of ``tool.heredoc-lsp`` in a pyproject text: the dict, ``_ABSENT``, or ``_BROKEN``."""
    if text is None:
        return _ABSENT
    try:
        data = toml_loads(text)
    except ValueError:
        # Unparseable: the config loader falls back to the defaults, so a table written there is not in effect
        # unless the text shows one.
        return _BROKEN if any(_OUR_HEADER.match(line) for line in split_lines(text)) else _ABSENT
    tool = data.get("tool")
    if not isinstance(tool, dict) or "heredoc-lsp" not in tool:
        return _ABSENT
    return tool["heredoc-lsp"]
