"""Undo of applied replies (see docs/running.md, "Undo").

Before a reply's CREATE_FILE, EDIT_FILE or DELETE_FILE touches a file for the first time, :class:`UndoRecorder`
keeps the file's bytes and mode (or that it did not exist) under ``.heredoc-lsp/undo/NNNN/`` of the workspace;
when the reply ends it stores each file's state after the reply and the commands that ran, in ``entry.json``.

:func:`undo_last` takes the newest entry not undone yet and puts every file back byte for byte (content and mode),
removing the files the reply created. A file whose state is no longer what the reply left (someone changed it
since) is not touched: it is reported, with where its earlier content is kept. Commands cannot be undone: they are
listed. Entries are never deleted, only marked undone, so the copies stay available.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from heredoc_lsp.executor.files import FileOpError, FileState, Workspace, atomic_write_text
from heredoc_lsp.syntax.paths import normalize_relative

UNDO_DIR = Path(".heredoc-lsp") / "undo"
_BLOB = re.compile(r"[0-9]+\.bin")  # the copies an entry may name: files of its own folder
ENTRY_FILE = "entry.json"
#: Files larger than this are not kept: the block that would change one fails instead (undo could not restore it).
KEEP_LIMIT = 64 * 1024 * 1024


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _state_key(state: FileState | None) -> dict[str, Any] | None:
    if state is None:
        return None
    return {"sha256": hashlib.sha256(state.data).hexdigest(), "mode": state.mode}


class UndoError(Exception):
    """The undo folder cannot be read or written."""


@dataclass
class _Kept:
    path: str
    blob: str | None  # file name under the entry folder; None when the file did not exist
    mode: int | None
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None


class UndoRecorder:
    """What one reply changes, kept before it changes it. Nothing is written until a file is kept or a command runs."""

    def __init__(self, root: Path, reply_name: str) -> None:
        self.root = root
        self.reply_name = reply_name
        self.at = _now()
        self.folder: Path | None = None
        self.kept: dict[str, _Kept] = {}
        self.commands: list[str] = []

    def _open(self) -> Path:
        if self.folder is None:
            base = self.root / UNDO_DIR
            base.mkdir(parents=True, exist_ok=True)
            n = max((int(p.name) for p in base.iterdir() if p.name.isdigit()), default=0) + 1
            while True:
                candidate = base / f"{n:04d}"
                try:
                    candidate.mkdir(mode=0o700)
                except FileExistsError:
                    n += 1
                    continue
                self.folder = candidate
                break
        return self.folder

    def keep(self, ws: Workspace, path: str) -> None:
        """Keep ``path``'s current state, once per reply (:class:`FileOpError` when it cannot be kept)."""
        key = normalize_relative(path)
        if key in self.kept:
            return
        ws.check_write(path)  # a path the block may not write fails with the block's own message, before any copy
        self.keep_state(path, ws.file_state(path, KEEP_LIMIT))

    def keep_state(self, path: str, state: FileState | None) -> None:
        """Keep ``state`` as ``path``'s state before the reply (an editor read it before it applied the change)."""
        key = normalize_relative(path)
        if key in self.kept:
            return
        folder = self._open()
        blob = None
        if state is not None:
            blob = f"{len(self.kept) + 1}.bin"
            try:
                fd = os.open(folder / blob, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
                with os.fdopen(fd, "wb") as f:
                    f.write(state.data)
            except OSError as exc:
                raise FileOpError(
                    f"Cannot keep a copy of '{key}' for undo ({exc.strerror or exc}); the file was not changed"
                ) from None
        self.kept[key] = _Kept(key, blob, None if state is None else state.mode, _state_key(state))
        self._write(final=False)

    def ran(self, command: str) -> None:
        self.commands.append(command)

    def finish(self, ws: Workspace) -> None:
        """Store every kept file's state after the reply (what undo compares with) and the commands that ran.

        Files the reply left as they were (a block that failed) are dropped; a reply that changed no file and ran
        no command leaves no entry, so ``undo`` never spends a step on it."""
        if not self.kept and not self.commands:
            return
        folder = self._open()
        for key, kept in list(self.kept.items()):
            try:
                kept.after = _state_key(ws.file_state(kept.path, KEEP_LIMIT))
            except FileOpError:
                kept.after = {"sha256": "", "mode": 0}  # unreadable now: undo will refuse it
            if kept.after == kept.before:
                del self.kept[key]
                if kept.blob is not None:
                    (folder / kept.blob).unlink(missing_ok=True)
        if not self.kept and not self.commands:
            shutil.rmtree(folder, ignore_errors=True)
            return
        self._write(final=True)

    def _write(self, *, final: bool) -> None:
        assert self.folder is not None
        data = {
            "version": 1,
            "reply": self.reply_name,
            "at": self.at,
            "complete": final,
            "files": [{"path": k.path, "blob": k.blob, "mode": k.mode, "after": k.after} for k in self.kept.values()],
            "commands": self.commands,
            "undone": None,
        }
        atomic_write_text(self.folder / ENTRY_FILE, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


@dataclass
class UndoReport:
    """What :func:`undo_last` did; ``entry`` is None when there was nothing to undo."""

    entry: Path | None
    reply: str = ""
    at: str = ""
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.entry is not None and not self.refused

    def lines(self) -> list[str]:
        """What was undone, as the command line and the editor show it."""
        if self.entry is None:
            return ["Nothing to undo: no applied reply is left to undo in this workspace."]
        out = [f"Undid {self.reply} (applied at {self.at}):"]
        out += [f"  restored {p}" for p in self.restored]
        out += [f"  removed {p} (the reply created it)" for p in self.removed]
        out += [f"  NOT restored {p}: {why}" for p, why in self.refused]
        if not (self.restored or self.removed or self.refused):
            out.append("  no file needed restoring")
        if self.commands:
            out.append("Commands the reply ran cannot be undone; check what they did:")
            out += [f"  ran: {c.partition(chr(10))[0]}" + (" ..." if "\n" in c else "") for c in self.commands]
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "undone": self.entry is not None,
            "entry": str(self.entry) if self.entry else None,
            "reply": self.reply,
            "applied_at": self.at,
            "restored": self.restored,
            "removed": self.removed,
            "refused": [{"path": p, "why": why} for p, why in self.refused],
            "commands": self.commands,
        }


def _entries(root: Path) -> list[Path]:
    base = root / UNDO_DIR
    try:
        names = sorted((p for p in base.iterdir() if p.name.isdigit()), key=lambda p: int(p.name), reverse=True)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise UndoError(f"cannot read {base}: {exc.strerror or exc}") from None
    return names


def _load(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / ENTRY_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise UndoError(f"cannot read {folder / ENTRY_FILE}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise UndoError(f"{folder / ENTRY_FILE} is not an undo entry")
    return data


def undo_last(ws: Workspace) -> UndoReport:
    """Undo the newest applied reply not undone yet (see the module doc)."""
    for folder in _entries(ws.root):
        data = _load(folder)
        if data is None or data.get("undone"):
            continue
        report = UndoReport(folder, str(data.get("reply", "")), str(data.get("at", "")))
        report.commands = [str(c) for c in data.get("commands", [])]
        complete = bool(data.get("complete"))
        for item in reversed(data["files"]):
            _undo_file(ws, folder, item, complete, report)
        data["undone"] = _now()
        data["refused"] = [{"path": p, "why": why} for p, why in report.refused]
        atomic_write_text(folder / ENTRY_FILE, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        return report
    return UndoReport(None)


def _undo_file(ws: Workspace, folder: Path, item: dict[str, Any], complete: bool, report: UndoReport) -> None:
    path = str(item["path"])
    blob = item.get("blob")
    copy = f" (its content from before the reply is kept in {folder / blob})" if blob and _BLOB.fullmatch(blob) else ""
    try:
        current = ws.file_state(path, KEEP_LIMIT)
    except FileOpError as exc:
        report.refused.append((path, f"{exc.summary}; left as it is{copy}"))
        return
    if not complete:
        report.refused.append(
            (path, f"the apply was stopped before it ended, so its result is unknown; left as it is{copy}")
        )
        return
    if _state_key(current) != item.get("after"):
        what = "was removed" if current is None else "was changed"
        report.refused.append((path, f"{what} after the reply was applied; left as it is{copy}"))
        return
    try:
        if blob is not None and not _BLOB.fullmatch(str(blob)):
            raise ValueError(f"the undo entry names '{blob}', not one of its own copies")
        if blob is None:
            if current is not None:
                ws.delete_file(path)
                report.removed.append(path)
            return
        data = (folder / str(blob)).read_bytes()
        mode = int(item["mode"])
        if current is not None and current.data == data and current.mode == mode:
            return  # already as it was
        ws.restore_file(path, data, mode)
        report.restored.append(path)
    except (FileOpError, OSError, ValueError) as exc:
        why = exc.summary if isinstance(exc, FileOpError) else str(exc)
        report.refused.append((path, f"could not be restored: {why}{copy}"))
