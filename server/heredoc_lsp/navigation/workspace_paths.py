"""Inbox ``path="…"`` values against the workspace: where they point, whether that is allowed, what exists there.

The rules are those of docs/formats.md (inbox paths): the textual check first
(:func:`heredoc_lsp.syntax.paths.check_path_text`), then the real location (symlinks resolved) must stay inside the
workspace root. Only an accepted path gets a location; links and go-to-definition are offered only for those.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from heredoc_lsp.analysis.workspace import is_inside
from heredoc_lsp.syntax.paths import check_path_text, normalize_relative

MAX_ENTRIES = 500  # per directory listed for completion


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    text: str
    problem: str | None  # why the path is refused (message), None when accepted
    location: Path | None  # the absolute path (symlinks resolved) when accepted
    exists: bool = False
    is_dir: bool = False


def resolve(workspace: Path | None, text: str) -> ResolvedPath:
    """Check ``text`` as a path attribute; ``workspace`` None means no workspace is known (nothing resolves)."""
    found = check_path_text(text)
    if found is not None:
        return ResolvedPath(text, found.message, None)
    if workspace is None:
        return ResolvedPath(text, "no workspace folder is open, so the path cannot be resolved", None)
    root = os.path.realpath(workspace)
    real = os.path.realpath(os.path.join(root, normalize_relative(text)))
    if not is_inside(real, root):
        return ResolvedPath(text, f"Path '{text}' is outside workspace (a symbolic link leads out of it)", None)
    return ResolvedPath(text, None, Path(real), os.path.exists(real), os.path.isdir(real))


@dataclass(frozen=True, slots=True)
class Entry:
    path: str  # relative to the workspace, "/"-separated, directories end with "/"
    is_dir: bool


def list_entries(workspace: Path | None, typed: str) -> list[Entry]:
    """Workspace entries completing ``typed`` (the value typed so far): the contents of its directory part.

    ``typed`` "src/ma" lists ``src/``; the editor filters by what follows. Nothing is listed for a directory
    part that is refused or leaves the workspace, nor a link that leads out of it; ``.git`` is skipped.
    """
    if workspace is None:
        return []
    cut = max(typed.rfind("/"), typed.rfind("\\"))
    directory = typed[: cut + 1]
    root = os.path.realpath(workspace)
    if directory:
        probe = directory.rstrip("/\\") + "/x"
        if check_path_text(probe) is not None:
            return []
        parent = normalize_relative(probe).rpartition("/")[0]
        base = os.path.realpath(os.path.join(root, parent or "."))
    else:
        base = root
    if not is_inside(base, root) or not os.path.isdir(base):
        return []
    prefix = directory.replace("\\", "/")
    out: list[Entry] = []
    try:
        with os.scandir(base) as it:
            for entry in it:
                if entry.name == ".git":
                    continue
                try:
                    is_dir = entry.is_dir()
                    # A link is offered only when it resolves inside the workspace (as resolve() requires).
                    if entry.is_symlink() and not is_inside(os.path.realpath(entry.path), root):
                        continue
                except OSError:
                    continue
                out.append(Entry(prefix + entry.name + ("/" if is_dir else ""), is_dir))
                if len(out) >= MAX_ENTRIES:
                    break
    except OSError:
        return []
    out.sort(key=lambda e: (not e.is_dir, e.path))
    return out
