"""The agent loop from the editor: ``newSession``, ``outboxText``, ``pasteReply`` and ``previewReply`` (their
arguments and answers are in docs/running.md, "The agent loop in the editor"), and which open replies were applied
(the "Undo last reply" lens).

Every command answers a JSON object; a refusal answers ``{"status": "refused", "message"}`` and shows the message.
In an untrusted workspace every one is refused.
A preview is a ``workspace/applyEdit`` whose changes need the user's confirmation
(:mod:`heredoc_lsp.lsp.run.preview_edit`); only when the client answers ``applied: true`` is the reply recorded
and its commands run (after the same confirmation as "Apply reply"). Clients without change annotations get the
preview as text and nothing is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lsprotocol import types

from heredoc_lsp.executor.agent import AGENT_DIRS, HANDLED, AgentPaths, OutboxSettings, ReplyLedger, start_session
from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.editor_loop import LoopRefused, agent_root, outbox_text, paste_reply
from heredoc_lsp.executor.engine import RunRefused
from heredoc_lsp.executor.files import Workspace
from heredoc_lsp.executor.model import RunOptions
from heredoc_lsp.executor.reply_preview import EditorApplied, ReplyPreview, preview_reply
from heredoc_lsp.executor.script_run import load_config_for
from heredoc_lsp.languages import Language
from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.commands import NEW_SESSION, OUTBOX_TEXT, PASTE_REPLY, PREVIEW_REPLY
from heredoc_lsp.lsp.documents import uri_to_path
from heredoc_lsp.lsp.run.commands import Refused, RunCommands
from heredoc_lsp.lsp.run.execute import document_text
from heredoc_lsp.lsp.run.gate import UNTRUSTED_MESSAGE
from heredoc_lsp.lsp.run.preview_edit import PreviewConflict, preview_edit
from heredoc_lsp.lsp.work import WORK
from heredoc_lsp.syntax.reply_shape import reply_key
from heredoc_lsp.syntax.text import trim

log = logging.getLogger(__name__)

#: The resource operations a preview edit uses.
PREVIEW_OPERATIONS = frozenset({"create", "delete"})


def _argument(name: str, args: list[Any], shape: str) -> Mapping[str, Any]:
    if len(args) != 1 or not isinstance(args[0], Mapping):
        raise Refused(f"{name} expects one argument {shape}")
    return args[0]


def _path_of(name: str, arg: Mapping[str, Any]) -> Path:
    uri = arg.get("uri")
    path = uri_to_path(uri) if isinstance(uri, str) and uri else None
    if path is None:
        raise Refused(f"{name}: 'uri' must be a file: URI of a workspace folder or of a file in it")
    return Path(path)


class AgentCommands:
    """The agent loop's commands, sharing the run commands' checks, gate, runner and client."""

    def __init__(self, commands: RunCommands) -> None:
        self.commands = commands
        self.server = commands.server
        self.gate = commands.gate
        self.runner = commands.runner
        self.client = commands.client

    async def execute(self, name: str, args: list[Any]) -> dict[str, Any]:
        try:
            if not self.gate.trusted():
                raise Refused(UNTRUSTED_MESSAGE)
            if name == NEW_SESSION:
                return await self.new_session(args)
            if name == OUTBOX_TEXT:
                return await self.outbox_text(args)
            if name == PASTE_REPLY:
                return await self.paste_reply(args)
            return await self.preview(args)
        except (Refused, LoopRefused) as exc:
            message = str(exc)
            if not message.startswith("heredoc-lsp:"):
                message = f"heredoc-lsp: {message}"
            log.info("agent command refused: %s", message)
            self.client.show(types.MessageType.Warning, message)
            return {"status": "refused", "message": message}

    # -- where ---------------------------------------------------------------------------------------------------
    def _folder(self, path: Path) -> Path | None:
        return self.server.settings.workspace_root_for(str(path))

    def _agent_root(self, name: str, arg: Mapping[str, Any]) -> AgentPaths:
        path = _path_of(name, arg)
        root = agent_root(path, self._folder(path))
        if root is None:
            raise Refused(f"heredoc-lsp: no agent session in or above {path}: start one with 'New agent session'")
        return AgentPaths(root)

    # -- newSession ----------------------------------------------------------------------------------------------
    async def new_session(self, args: list[Any]) -> dict[str, Any]:
        """``newSession {"uri", "task"}``: as ``heredoc-lsp agent new``; the first outbox is shown."""
        arg = _argument(NEW_SESSION, args, '{"uri": ..., "task": ...}')
        task = arg.get("task")
        if not isinstance(task, str) or not trim(task.replace("\n", " ").replace("\r", " ")):
            raise Refused(f"heredoc-lsp: {NEW_SESSION} needs the task (the text the LLM is asked to do)")
        path = _path_of(NEW_SESSION, arg)
        folder = self._folder(path)
        root = agent_root(path, folder) or (path if path.is_dir() else folder or path.parent)
        if not root.is_dir():
            raise Refused(f"heredoc-lsp: {root} is not a folder")
        try:
            config = load_config_for(root / "heredoc-lsp.toml", None)
        except RunRefused as exc:
            raise Refused(f"heredoc-lsp: {exc.message}") from None
        options = RunOptions.from_config(config)
        settings = OutboxSettings(options.timeout_s, options.max_output_chars, options.read_max_chars)
        try:
            session, outbox = await asyncio.to_thread(start_session, AgentPaths(root), task, settings)
        except OSError as exc:
            raise Refused(f"heredoc-lsp: cannot create the session: {exc.strerror or exc}") from None
        chars = len(outbox.read_text(encoding="utf-8", errors="surrogateescape"))
        self.client.show(types.MessageType.Info, f"heredoc-lsp: session {session.session_id} started: {outbox.name}")
        self.client.spawn(self.client.show_document(outbox))
        return {"status": "started", "session": session.session_id, "outbox": outbox.as_uri(), "chars": chars}

    # -- outboxText ----------------------------------------------------------------------------------------------
    async def outbox_text(self, args: list[Any]) -> dict[str, Any]:
        """``outboxText {"uri"}``: the active session's newest outbox, whole (the client copies it)."""
        paths = self._agent_root(OUTBOX_TEXT, _argument(OUTBOX_TEXT, args, '{"uri": ...}'))
        found = await asyncio.to_thread(outbox_text, paths)
        return {
            "status": "ok",
            "outbox": found.path.as_uri(),
            "text": found.text,
            "chars": found.chars,
            "lines": found.lines,
        }

    # -- pasteReply ----------------------------------------------------------------------------------------------
    async def paste_reply(self, args: list[Any]) -> dict[str, Any]:
        """``pasteReply {"uri", "text"}``: the text saved as the session's next inbox reply, and shown."""
        arg = _argument(PASTE_REPLY, args, '{"uri": ..., "text": ...}')
        text = arg.get("text")
        if not isinstance(text, str):
            raise Refused(f"heredoc-lsp: {PASTE_REPLY}: 'text' must be the pasted text")
        paths = self._agent_root(PASTE_REPLY, arg)
        reply = await asyncio.to_thread(paste_reply, paths, text)
        self.client.spawn(self.client.show_document(reply))
        return {"status": "pasted", "reply": reply.as_uri()}

    # -- previewReply --------------------------------------------------------------------------------------------
    async def preview(self, args: list[Any]) -> dict[str, Any]:
        """``previewReply {"uri"}``: the reply's file changes as an edit to confirm; on ``applied: true`` the reply
        is recorded and its commands run (after the run confirmation)."""
        arg = _argument(PREVIEW_REPLY, args, '{"uri": ...}')
        doc = self.server.documents.get(str(arg.get("uri", "")))
        snap = self.server.analyses.get(doc.uri) if doc is not None else None
        if doc is None or snap is None or snap.language is not Language.INBOX or not doc.path:
            raise Refused(f'heredoc-lsp: {PREVIEW_REPLY} needs {{"uri"}} of an inbox reply open in the editor')
        version = arg.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version != doc.version:
            raise Refused(
                f"heredoc-lsp: the reply changed since this was offered (version {version}, now {doc.version}); "
                "preview it again from the updated lens or action"
            )
        root = self.commands._workspace(doc, snap)
        text = document_text(snap.lines, snap.analysis.newline)
        try:
            preview = await asyncio.to_thread(
                preview_reply, Path(doc.path), text=text, config=snap.config, workspace=root
            )
        except RunRefused as exc:
            raise Refused(f"heredoc-lsp: {exc.message}") from None
        if preview.refusal is not None:
            raise Refused(f"heredoc-lsp: {preview.refusal}")
        listed = {"files": [f.to_json() for f in preview.files], "commands": preview.commands}
        name = Path(doc.path).name
        if arg.get("mode") == "text" or not self._previews():
            body = "\n".join(preview.lines())
            self.client.log(body)
            changes = f"{len(preview.files)} file change{'s' if len(preview.files) != 1 else ''}"
            runs = f"{len(preview.commands)} command{'s' if len(preview.commands) != 1 else ''}"
            self.client.show(
                types.MessageType.Info,
                f"heredoc-lsp: preview of {name}: {changes}, {runs}; nothing was written (the diff is in the log)",
            )
            return {"status": "preview", "text": body, **listed}
        if preview.files:
            try:
                edit = preview_edit(preview, self.server.position_codec, self._open_text)
            except PreviewConflict as exc:
                raise Refused(str(exc)) from None
            try:
                answer = await asyncio.shield(
                    self.server.workspace_apply_edit_async(
                        # A refactoring (VS Code may save what it changes); the client saves the files of an
                        # accepted preview before it answers, and the server checks them on disk.
                        types.ApplyWorkspaceEditParams(
                            edit=edit,
                            label=f"Apply reply {name}",
                            metadata=types.WorkspaceEditMetadata(is_refactoring=True),
                        )
                    )
                )
            except Exception as exc:
                why = f"the editor did not apply the preview ({exc}); nothing was recorded or run"
                raise Refused(f"heredoc-lsp: {why}") from None
            if not answer.applied:
                why = answer.failure_reason or "the preview was declined or not applied"
                return {"status": "declined", "message": f"{why}; nothing was recorded or run", **listed}
        return await self._after_edit(doc.uri, snap, root, name, preview, listed)

    async def _after_edit(
        self, uri: str, snap: Snapshot, root: Path, name: str, preview: ReplyPreview, listed: dict[str, Any]
    ) -> dict[str, Any]:
        """The files are applied: ask to run the commands, then apply the rest of the reply (ledger, commands,
        session and next outbox) through the run of the whole reply. ``files`` get their ``status`` on disk."""
        editor = EditorApplied(preview)
        ws = Workspace(root, protected=AGENT_DIRS)
        statuses = await asyncio.to_thread(lambda: [editor.status(ws, f) for f in preview.files])
        listed = {**listed, "files": [{**f, "status": s} for f, s in zip(listed["files"], statuses, strict=True)]}
        run = True
        if preview.commands:
            n = len(preview.commands)
            question = (
                f"Run the {n} command{'s' if n != 1 else ''} of the reply {name} in {root} "
                f"(sandbox: {snap.config.executor.sandbox})?"
                + (" Its file changes are applied." if preview.files else "")
            )
            run = await self.gate.confirm(uri, snap.config.executor.confirm, question)
            if not run and not preview.files:
                return {"status": "declined", "message": "not run: the confirmation was declined", **listed}
        doc = self.server.documents.get(uri)
        if doc is None:
            raise Refused("heredoc-lsp: the reply was closed before it was applied")
        target = next((t for t in self.runner.targets(snap) if t.kind == "reply"), None)
        if target is None:
            raise Refused("heredoc-lsp: this reply has no blocks to apply")
        result = await self.runner.start(
            doc, snap, target, root, RunControl(), editor=EditorApplied(preview, run_commands=run)
        )
        status = "refused" if result.get("refused") else "applied"
        return {**result, "run": result["status"], "status": status, **listed}

    def _previews(self) -> bool:
        client = self.server.client
        return (
            client.change_annotations
            and client.document_changes
            and set(client.resource_operations) >= PREVIEW_OPERATIONS
        )

    def _open_text(self, uri: str) -> tuple[int, str] | None:
        doc = self.server.documents.get(uri)
        return None if doc is None else (doc.version or 0, doc.text())


class AppliedReplies:
    """Whether an open inbox reply was applied (the ledger of its agent workspace, or it is in
    ``inbox/processed/``): one ``stat`` of the ledger per question, its records read again only when it changed."""

    def __init__(self) -> None:
        self._keys: dict[str, tuple[int | None, str]] = {}  # uri -> (version, reply key)
        self._ledgers: dict[Path, tuple[tuple[int, int], frozenset[str]]] = {}

    def __call__(self, snap: Snapshot) -> bool:
        if snap.language is not Language.INBOX or not snap.path:
            return False
        path = Path(snap.path)
        if path.parent.name == "processed" and path.parent.parent.name == "inbox":
            return True
        if path.parent.name != "inbox":
            return False
        paths = AgentPaths(path.parent.parent)
        try:
            st = os.stat(paths.ledger)
        except OSError:
            return False
        stamp = (st.st_mtime_ns, st.st_size)
        known = self._ledgers.get(paths.ledger)
        if known is None or known[0] != stamp:
            keys: frozenset[str] = frozenset()
            WORK["ledger_reads"] += 1
            with contextlib.suppress(Exception):
                keys = frozenset(r.content for r in ReplyLedger(paths).records() if r.state in HANDLED and r.content)
            known = (stamp, keys)
            self._ledgers[paths.ledger] = known
        cached = self._keys.get(snap.uri)
        if cached is None or cached[0] != snap.version:
            WORK["reply_keys"] += 1
            cached = (snap.version, reply_key(document_text(snap.lines, snap.analysis.newline)))
            self._keys[snap.uri] = cached
        return cached[1] in known[1]

    def forget(self, uri: str) -> None:
        self._keys.pop(uri, None)
