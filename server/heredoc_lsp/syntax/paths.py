"""The textual path check of docs/formats.md: the single source of truth for "is this a usable workspace path?".

Everything here looks only at the text, never at the file system. The executor runs :func:`check_path_text` first
(phase 1) and then its real-path containment check right before each file operation (phase 2).

Rules, in the order they are tried (the first one that applies is reported):

1. ``invalid_path``: empty; contains a control character (U+0000-U+001F, U+007F-U+009F).
2. ``path_outside_workspace``: a leading ``/`` or ``\\``; a drive (``C:``, ``c:x``) or a leading ``~``, also when
   they only lead once the path is cleaned (``./C:/x``, ``a/../~``); a ``..`` component that climbs above the root
   (``/`` and ``\\`` both separate).
3. ``invalid_path``: a trailing ``/`` or ``\\``; a path that names the workspace root (``.``, ``./``, ``a/..``).

Both ``/`` and ``\\`` separate components (replies written on Windows use ``\\``); :func:`normalize_relative` gives
the cleaned POSIX form of a valid path, e.g. ``./src\\a/../b.py`` -> ``src/b.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from heredoc_lsp.syntax.visible import visible

PathCode = Literal["invalid_path", "path_outside_workspace"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SEPARATORS = re.compile(r"[/\\]")
_DRIVE = re.compile(r"[A-Za-z]:")


@dataclass(frozen=True, slots=True)
class PathProblem:
    """Why a path is refused. ``suggestion`` is a valid path that is probably what was meant (None if unsure)."""

    code: PathCode
    message: str
    suggestion: str | None = None


def display_path(path: str) -> str:
    """``path`` with control and hidden characters shown as escapes (:func:`heredoc_lsp.syntax.visible.visible`),
    for messages (never for file names)."""
    return visible(path, one_line=True)


def _components(path: str) -> list[str]:
    return [part for part in _SEPARATORS.split(path) if part not in ("", ".")]


def _resolve(parts: list[str]) -> list[str] | None:
    """Apply ``..`` components; None when one climbs above the root."""
    stack: list[str] = []
    for part in parts:
        if part == "..":
            if not stack:
                return None
            stack.pop()
        else:
            stack.append(part)
    return stack


def _problem(path: str) -> tuple[PathCode, str] | None:
    shown = display_path(path)
    if path == "":
        return "invalid_path", "Path is empty"
    if _CONTROL.search(path):
        return "invalid_path", f"Path '{shown}' contains a control character"
    outside = f"Path '{shown}' is outside workspace"
    if path[0] in "/\\":
        return "path_outside_workspace", f"{outside}: absolute paths are not allowed, use a path relative to the root"
    resolved = _resolve(_components(path))
    # The first component is checked after cleaning too, so that a cleaned path ("./C:" -> "C:") stays valid.
    first = resolved[0] if resolved else ""
    if _DRIVE.match(path) or _DRIVE.match(first):
        return "path_outside_workspace", f"{outside}: drive letters are not allowed, use a path relative to the root"
    if path[0] == "~" or first.startswith("~"):
        return "path_outside_workspace", f"{outside}: '~' (home directory) is not allowed"
    if resolved is None:
        return "path_outside_workspace", f"{outside}: '..' climbs above the workspace root"
    if path[-1] in "/\\":
        return "invalid_path", f"Path '{shown}' ends with a separator; name a file, not a directory"
    if not resolved:
        return "invalid_path", f"Path '{shown}' names the workspace root; name a file inside it"
    return None


def _suggest(path: str, code: PathCode) -> str | None:
    """A repaired path, offered only when it is itself valid and different."""
    candidate = _CONTROL.sub("", path)
    if code == "path_outside_workspace":
        parts: list[str] = []
        for part in _components(candidate):
            if part != "..":
                parts.append(part)
            elif parts:
                parts.pop()
        if parts and _DRIVE.match(parts[0]):
            parts[0] = parts[0][2:]
        if parts and parts[0].startswith("~"):
            parts[0] = parts[0][1:]
        candidate = "/".join(part for part in parts if part)
    else:
        candidate = candidate.rstrip("/\\")
    if candidate and candidate != path and _problem(candidate) is None:
        return normalize_relative(candidate)
    return None


def check_path_text(path: str) -> PathProblem | None:
    """The textual checks of docs/formats.md; None when ``path`` is acceptable."""
    found = _problem(path)
    if found is None:
        return None
    code, message = found
    return PathProblem(code, message, _suggest(path, code))


def normalize_relative(path: str) -> str:
    """The cleaned relative POSIX path of a valid path (``./a\\b/../c`` -> ``a/c``).

    Raises ValueError when :func:`check_path_text` refuses ``path``.
    """
    problem = _problem(path)
    if problem is not None:
        raise ValueError(problem[1])
    resolved = _resolve(_components(path))
    assert resolved  # _problem() refused every path that resolves to nothing or above the root
    return "/".join(resolved)
