"""``apply --preview``: what applying a reply would do, with nothing written and nothing run (docs/running.md).

Every block is simulated in order on an in-memory copy of the files it touches (a file created by an earlier block
is there for a later EDIT_FILE): file blocks get a unified diff (``--- a/PATH`` / ``+++ b/PATH``), RUN_COMMAND
blocks the command they would run, and blocks that would fail or be refused the reason. Nothing is written: not the
files, not the ledger, not the session, not an outbox, not an undo entry.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from heredoc_lsp.executor.agent import (
    LedgerError,
    ReplyLedger,
    ReplyRecord,
    content_digest,
)
from heredoc_lsp.executor.files import (
    BINARY_SNIFF_BYTES,
    FileOpError,
    FileState,
    Workspace,
    replace_lines,
    stale_edit,
)
from heredoc_lsp.executor.model import StepResult, StepStatus
from heredoc_lsp.executor.reply_apply import (
    already_applied_message,
    error_result,
    read_reply,
    reply_root,
    truncated_message,
)
from heredoc_lsp.executor.script_run import load_config_for
from heredoc_lsp.syntax.paths import display_path, normalize_relative
from heredoc_lsp.syntax.reply_shape import reply_key
from heredoc_lsp.syntax.text import split_lines_keepends

if TYPE_CHECKING:
    from heredoc_lsp.config.model import Config
    from heredoc_lsp.syntax.inbox import InboxCommand

Action = Literal["create", "edit", "delete", "run", "read", "message", "done", "fail", "skip"]


@dataclass(frozen=True, slots=True)
class PreviewBlock:
    """What one block would do. ``line`` is 1-based; ``diff`` is a unified diff for file blocks."""

    index: int
    kind: str
    line: int
    action: Action
    text: str
    path: str | None = None
    diff: str = ""
    command: str | None = None
    detail: str = ""  # more lines about a failure (what a stale EDIT_FILE found instead)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"index": self.index, "kind": self.kind, "line": self.line, "action": self.action}
        data["text"] = self.text
        for key in ("path", "command"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        for key in ("diff", "detail"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        return data


@dataclass(frozen=True, slots=True)
class ReplyPreview:
    """The preview of a reply; ``refusal`` says why ``apply`` would refuse the whole reply (blocks still shown)."""

    reply: Path
    workspace: Path
    blocks: tuple[PreviewBlock, ...]
    refusal: str | None = None
    files: tuple[FileChange, ...] = ()  # what the file blocks change, one entry per file (an editor's preview)

    def lines(self) -> list[str]:
        """The preview as text lines for a terminal."""
        out = [f"Preview of {self.reply.name} for {self.workspace}: nothing is written or run."]
        if self.refusal:
            out.append(f"apply would refuse this reply: {self.refusal}")
        for b in self.blocks:
            where = f" '{display_path(b.path)}'" if b.path is not None else ""
            out.append(f"[{b.index + 1}] {b.kind}{where} (line {b.line}): {b.text}")
            if b.detail:
                out.extend(f"    {line}" for line in b.detail.split("\n"))
            if b.diff:
                out.extend(line.removesuffix("\r") for line in b.diff.rstrip("\n").split("\n"))
            if b.command is not None:
                out.extend(
                    f"    $ {line}" if k == 0 else f"      {line}" for k, line in enumerate(b.command.split("\n"))
                )
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "reply": str(self.reply),
            "workspace": str(self.workspace),
            "refusal": self.refusal,
            "blocks": [b.to_json() for b in self.blocks],
        }

    @property
    def commands(self) -> list[str]:
        """The commands its RUN_COMMAND blocks would run, in order."""
        return [b.command for b in self.blocks if b.action == "run" and b.command is not None]


@dataclass(frozen=True, slots=True)
class FileChange:
    """What a reply's file blocks together do to one file: its state before (None: no file) and its text after
    (None: deleted), with the blocks that change it (0-based indexes, their preview texts)."""

    path: str  # relative, normalised
    before: FileState | None
    after: str | None
    blocks: tuple[PreviewBlock, ...]

    @property
    def action(self) -> Literal["create", "edit", "delete"]:
        if self.before is None:
            return "create"
        return "delete" if self.after is None else "edit"

    @property
    def label(self) -> str:
        """The blocks and the file, e.g. ``CREATE_FILE + EDIT_FILE src/a.py`` (distinct per file)."""
        kinds: list[str] = []
        for b in self.blocks:
            if b.kind not in kinds:
                kinds.append(b.kind)
        return f"{' + '.join(kinds)} {self.path}"

    @property
    def description(self) -> str:
        """What the blocks do, e.g. ``block 2 (line 5) would replace lines 2-3``."""
        return "; ".join(f"block {b.index + 1} (line {b.line}) {b.text}" for b in self.blocks)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "action": self.action,
            "label": self.label,
            "description": self.description,
            "blocks": [b.index for b in self.blocks],
        }


def _same_text(data: bytes | None, text: str | None) -> bool:
    """A file's bytes hold ``text`` (None: no file); line endings may differ (an editor may normalise them)."""
    if data is None or text is None:
        return data is None and text is None
    found = data.decode("utf-8", "surrogateescape").replace("\r\n", "\n")
    return found == text.replace("\r\n", "\n")


@dataclass(frozen=True, slots=True)
class EditorApplied:
    """A reply whose file blocks an editor applied after showing their preview (``apply_reply(editor=...)``).

    The file blocks are not executed again: each one's result says whether its file now holds what the preview
    showed (OK), is still as it was (SKIPPED: the user unchecked it in the preview, or the editor did not save it)
    or neither (FAILED: changed since). ``run_commands`` False: the RUN_COMMAND blocks are skipped (the user declined
    to run them)."""

    preview: ReplyPreview
    run_commands: bool = True

    def keeps(self) -> list[tuple[str, FileState | None]]:
        """Each changed file's state before the editor changed it (what undo restores)."""
        return [(f.path, f.before) for f in self.preview.files]

    def status(self, ws: Workspace, change: FileChange) -> Literal["applied", "skipped", "changed"]:
        """Whether ``change`` is on disk now: applied, skipped (the file is as it was before) or changed otherwise."""
        try:
            state = ws.file_state(change.path)
        except FileOpError:
            return "changed"
        data = None if state is None else state.data
        if _same_text(data, change.after):
            return "applied"
        before = None if change.before is None else change.before.data
        return "skipped" if data == before else "changed"

    def result(self, ws: Workspace, index: int, command: InboxCommand) -> StepResult:
        """The result of file block ``index`` as the editor applied it."""
        line = command.line + 1
        block = next((b for b in self.preview.blocks if b.index == index), None)
        if block is None or block.action == "fail":
            text = block.text if block is not None else "would fail: the preview did not cover this block"
            rejected = text.startswith("would be refused: ")
            summary = text.removeprefix("would be refused: ").removeprefix("would fail: ")
            status: StepStatus = "rejected" if rejected else "failed"
            return StepResult(index, command.name, status, summary, line=line, path=command.path)
        change = next((f for f in self.preview.files if any(b.index == index for b in f.blocks)), None)
        shown = display_path(command.path or "")
        verb = {"CREATE_FILE": "Created", "EDIT_FILE": "Edited", "DELETE_FILE": "Deleted"}.get(command.name, "Changed")
        if change is None:  # the blocks together leave this file as it was
            return StepResult(index, command.name, "ok", f"{verb} '{shown}' (no change)", line=line, path=command.path)
        found = self.status(ws, change)
        if found == "skipped":
            summary = f"Not applied: '{shown}' was left unchecked in the preview (or the editor did not save it)"
            return StepResult(index, command.name, "skipped", summary, line=line, path=command.path)
        if found == "changed":
            summary = f"'{shown}' does not hold what the preview showed: the file changed since"
            return StepResult(index, command.name, "failed", summary, line=line, path=command.path)
        return StepResult(index, command.name, "ok", f"{verb} '{shown}' in the editor", line=line, path=command.path)


def preview_reply(
    path: Path | str,
    *,
    text: str | None = None,
    config: Config | None = None,
    workspace: Path | None = None,
    session: str | Literal[False] | None = None,
    again: bool = False,
    partial: bool = False,
) -> ReplyPreview:
    """The preview of applying ``path`` (arguments as :func:`heredoc_lsp.executor.reply_apply.apply_reply`).

    :class:`RunRefused` (``refused``) when the text is a prompt: its blocks are examples, never previewed as commands.
    """
    reply = Path(path)
    cfg = load_config_for(reply, config)
    root = reply_root(reply, cfg, workspace)
    read = read_reply(reply, text, root, session)
    paths, source, cut = read.paths, read.source, read.cut
    why: str | None = None
    if cut is not None and not partial:
        why = truncated_message(reply.name, cut)
    elif paths.is_agent_root() and not again:
        digest = content_digest(source.encode("utf-8", "surrogateescape"))
        try:
            earlier = ReplyLedger(paths).applied(ReplyRecord(digest, reply.name, "started", content=reply_key(source)))
        except LedgerError as exc:
            earlier, why = None, str(exc)
        if earlier is not None:
            why = already_applied_message(reply.name, earlier)
    sim = _Simulation(read.ws)
    blocks: list[PreviewBlock] = []
    done = False
    for i, command in enumerate(read.parsed.commands):
        line = command.line + 1
        if done:
            blocks.append(PreviewBlock(i, command.name, line, "skip", "would be skipped: comes after [DONE]"))
        elif command is cut:
            blocks.append(PreviewBlock(i, command.name, line, "skip", "would be skipped: no closing tag (--partial)"))
        elif not command.ok:
            blocks.append(
                PreviewBlock(i, command.name, line, "fail", f"would fail: {error_result(i, command).summary}")
            )
        else:
            blocks.append(sim.block(i, command))
            done = command.name == "DONE"
    return ReplyPreview(reply, root, tuple(blocks), why, sim.changes(blocks))


class _Simulation:
    """The files as the blocks so far would have left them (text, or None when deleted), read from disk once."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.files: dict[str, str | None] = {}
        self.states: dict[str, FileState | None] = {}  # each file as it is on disk, read once

    def changes(self, blocks: list[PreviewBlock]) -> tuple[FileChange, ...]:
        """Per file, in the order first touched: its state before and text after, and the blocks that change it."""
        out: list[FileChange] = []
        for key, after in self.files.items():
            state = self.states.get(key)
            before = None if state is None else state.data.decode("utf-8", "surrogateescape")
            touching = tuple(
                b
                for b in blocks
                if b.path is not None and b.action in ("create", "edit", "delete") and normalize_relative(b.path) == key
            )
            if touching and before != after:
                out.append(FileChange(key, state, after, touching))
        return tuple(out)

    def _current(self, path: str) -> str | None:
        key = normalize_relative(path)
        if key not in self.files:
            state = self.ws.file_state(path)
            self.states[key] = state
            if state is not None and b"\0" in state.data[:BINARY_SNIFF_BYTES]:
                raise FileOpError(f"File '{display_path(path)}' is binary; EDIT_FILE changes text files only")
            self.files[key] = None if state is None else state.data.decode("utf-8", "surrogateescape")
        return self.files[key]

    def block(self, i: int, command: InboxCommand) -> PreviewBlock:
        name, line, path = command.name, command.line + 1, command.path
        if name == "RUN_COMMAND":
            return PreviewBlock(
                i,
                name,
                line,
                "run",
                "would run (commands are never previewed by running them):",
                command=command.body or "",
            )
        if name == "MESSAGE":
            return PreviewBlock(i, name, line, "message", f"would show the message: {command.body or ''}")
        if name == "DONE":
            return PreviewBlock(i, name, line, "done", "would end the task (later blocks are skipped)")
        assert path is not None
        shown = display_path(path)
        try:
            if name == "READ_FILE":
                self.ws.resolve(path)
                found = self._current(path) is not None
                return PreviewBlock(
                    i,
                    name,
                    line,
                    "read" if found else "fail",
                    "would put its contents in the next outbox" if found else f"would fail: File '{shown}' not found",
                    path=path,
                )
            self.ws.check_write(path)
            before = self._current(path)
            if name == "CREATE_FILE":
                after: str | None = command.body or ""
                action: Action = "create"
                what = "would create the file" if before is None else "would replace the whole file"
            elif name == "EDIT_FILE":
                if before is None:
                    raise FileOpError(f"File '{shown}' not found")
                assert command.line_range is not None
                start, end = command.line_range
                stale = stale_edit(before, start, end, command.attrs, shown)
                if stale is not None:
                    raise stale
                after, _count = replace_lines(before, start, end, command.body or "", shown)
                span = f"line {start}" if start == end else f"lines {start}-{end}"
                action, what = "edit", f"would replace {span}"
            else:
                if before is None:
                    raise FileOpError(f"File '{shown}' not found")
                after, action, what = None, "delete", "would delete the file"
        except FileOpError as exc:
            verb = "be refused" if exc.rejected else "fail"
            return PreviewBlock(i, name, line, "fail", f"would {verb}: {exc.summary}", path=path, detail=exc.detail)
        self.files[normalize_relative(path)] = after
        return PreviewBlock(i, name, line, action, what, path=path, diff=unified_diff(path, before, after))


def unified_diff(path: str, before: str | None, after: str | None) -> str:
    """``--- a/PATH`` / ``+++ b/PATH`` diff of two texts (None: no file); line endings kept, a missing final
    newline marked as ``diff`` does."""
    rel = normalize_relative(path)
    old = split_lines_keepends(before or "")
    new = split_lines_keepends(after or "")
    out: list[str] = []
    for line in difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}"):
        if line.endswith(("\n", "\r")):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    if not out:
        return f"--- a/{rel}\n+++ b/{rel}\n(no change)\n"
    return "".join(out)
