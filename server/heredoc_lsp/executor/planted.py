"""Code planted to run later: a sandboxed command may create no name that makes code run outside the sandbox.

A Git repository's hooks and config (``core.fsmonitor``, aliases, filters) run as the person on the editor's next
``git status``, direnv runs ``.envrc``, editors run ``.vscode`` and ``.idea`` tasks and settings: the threat model's
point 3 (docs/security.md) has no exception for a command. Around each command run under bubblewrap
(:class:`PlantGuard`):

- before: every protected name already in the workspace, at any depth (:data:`PLANTED_NAMES`, and the root's
  ``heredoc-lsp.toml``), is found by one bounded walk (:class:`heredoc_lsp.fs.TreeWalk`) and bound read-only;
- the ones absent at the root are masked for the command's life (a read-only empty folder or file bubblewrap mounts
  there), so ``git init`` or ``mkdir .vscode`` at the root fails;
- after: a protected name the command created anywhere else (``vendor/lib/.git``) is removed, and the command fails
  saying so. The masks left as mount points (empty) are removed too.

Names are compared case-insensitively, as the reply-side rules are (heredoc_lsp/syntax/protected.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from heredoc_lsp.fs import TreeWalk

# Protected wherever they appear; a folder with one of these names is not walked into.
PLANTED_NAMES = (".git", ".envrc", ".vscode", ".idea")
# Protected at the workspace root only (the configuration that governs the next runs).
ROOT_PLANTED_NAMES = ("heredoc-lsp.toml",)
# Masks of absent names at the root: a folder (an empty .git folder is no repository; git looks further up) or a file.
_FOLDER_MASKS = (".git", ".vscode", ".idea")
_FILE_MASKS = (".envrc",)
_LOWER = {n.lower() for n in PLANTED_NAMES}
_ROOT_LOWER = {n.lower() for n in ROOT_PLANTED_NAMES}
_WALK_DEPTH = 100_000  # iterative: any depth a file system allows
_WALK_ENTRIES = 10**9


def _protected(root: str) -> set[str]:
    """Relative paths (``/``-separated) of the protected names in the workspace; links are not followed."""
    found: set[str] = set()
    walk = TreeWalk(root, "", max_depth=_WALK_DEPTH, max_entries=_WALK_ENTRIES, ordered=False)
    for entry, rel_dir in walk:
        lowered = entry.name.rstrip(". ").lower()
        rel = f"{rel_dir}{entry.name}"
        if lowered in _LOWER or (not rel_dir and lowered in _ROOT_LOWER):
            found.add(rel)
            continue
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False):
                walk.enter(entry, f"{rel}/")
    return found


def _remove(path: str) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)


@dataclass
class PlantGuard:
    """The protected names of ``workspace`` before one command; :meth:`binds` for bubblewrap, :meth:`sweep` after."""

    workspace: Path
    existing: frozenset[str] = frozenset()
    masks: tuple[str, ...] = ()
    _masked: list[str] = field(default_factory=list)

    @staticmethod
    def before(workspace: Path) -> PlantGuard:
        root = str(workspace)
        existing = frozenset(_protected(root))
        present = {p.lower() for p in existing if "/" not in p}
        masks = tuple(n for n in (*_FOLDER_MASKS, *_FILE_MASKS) if n.lower() not in present)
        return PlantGuard(workspace, existing, masks)

    def binds(self) -> list[str]:
        """bubblewrap options: the protected paths bound read-only, then the masks of the absent root names."""
        root = str(self.workspace)
        args: list[str] = []
        for rel in sorted(self.existing):
            path = os.path.join(root, rel)
            real = os.path.realpath(path)
            if real.startswith(root.rstrip(os.sep) + os.sep) and os.path.lexists(real):
                args += ["--ro-bind", real, real]
        for name in self.masks:
            path = os.path.join(root, name)
            self._masked.append(path)
            if name in _FOLDER_MASKS:
                args += ["--tmpfs", path, "--remount-ro", path]
            else:
                args += ["--ro-bind", "/dev/null", path]
        return args

    def sweep(self) -> list[str]:
        """After the command: remove the masks' empty mount points and every protected name the command created;
        return the created ones (relative paths, sorted)."""
        for path in self._masked:
            with contextlib.suppress(OSError):
                st = os.lstat(path)
                if stat.S_ISDIR(st.st_mode):
                    os.rmdir(path)  # only when empty: the mask's own mount point
                elif stat.S_ISREG(st.st_mode) and st.st_size == 0:
                    os.unlink(path)
        created = sorted(_protected(str(self.workspace)) - self.existing)
        for rel in created:
            _remove(os.path.join(str(self.workspace), rel))
        return created
