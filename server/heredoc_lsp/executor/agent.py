"""The agent loop's files (SPEC §5): sessions, outbox files, the inbox folder.

Layout under an agent root (the workspace the replies change)::

    sessions/<id>.json          session state (atomic writes)
    outbox/<id>_seq0001.txt     what to send to the LLM (atomic writes)
    inbox/*.txt                 the LLM's replies, processed oldest first by ``agent watch``
    inbox/processed/            replies already applied

Replies may not touch ``inbox/``, ``outbox/`` or ``sessions/`` (see :class:`heredoc_lsp.executor.files.Workspace`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from heredoc_lsp.executor.environment import Redactor, secret_values
from heredoc_lsp.executor.files import FileOpError, Workspace, atomic_write_text
from heredoc_lsp.executor.model import StepResult
from heredoc_lsp.executor.protocol_text import CONTINUATION_PROMPT, protocol_text

AGENT_DIRS = ("inbox", "outbox", "sessions")
SESSION_ID = re.compile(r"[0-9a-f]{8}")
LISTING_LIMIT = 500


class SessionError(Exception):
    """A session that cannot be found or read; the message says which and why."""


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class SessionResult:
    """One previous result as the session stores it and the next outbox shows it."""

    kind: str
    status: str
    summary: str
    output: str = ""

    @property
    def line(self) -> str:
        label = {"ok": "OK", "skipped": "SKIPPED"}.get(self.status, "FAILED")
        kind = "RUN_COMMAND" if self.kind == "command" else self.kind
        return f"[{label}] {kind}: {self.summary}"

    @staticmethod
    def of(result: StepResult) -> SessionResult:
        # Messages and the DONE summary are the LLM's own words: not echoed back.
        output = "" if result.kind in ("MESSAGE", "DONE", "READ_FILE") else result.output
        return SessionResult(result.kind, result.status, result.summary, output)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "status": self.status, "summary": self.summary, "output": self.output}


@dataclass(frozen=True, slots=True)
class Session:
    """``sessions/<id>.json`` (the seed's field names)."""

    session_id: str
    task: str
    sequence_number: int = 1
    is_complete: bool = False
    created_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)
    last_results: tuple[SessionResult, ...] = ()
    read_file_requests: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "sessionId": self.session_id,
            "task": self.task,
            "sequenceNumber": self.sequence_number,
            "isComplete": self.is_complete,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "lastResults": [r.to_json() for r in self.last_results],
            "readFileRequests": list(self.read_file_requests),
        }

    @staticmethod
    def from_json(data: Any, where: str) -> Session:
        try:
            if not isinstance(data, dict):
                raise TypeError("not a JSON object")
            results = tuple(
                SessionResult(str(r["kind"]), str(r["status"]), str(r["summary"]), str(r.get("output", "")))
                for r in data.get("lastResults", [])
            )
            session = Session(
                session_id=str(data["sessionId"]),
                task=str(data["task"]),
                sequence_number=int(data["sequenceNumber"]),
                is_complete=bool(data.get("isComplete", False)),
                created_at=str(data.get("createdAt", "")),
                updated_at=str(data.get("updatedAt", "")),
                last_results=results,
                read_file_requests=tuple(str(p) for p in data.get("readFileRequests", [])),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise SessionError(f"{where}: not a valid session file ({exc})") from None
        if not SESSION_ID.fullmatch(session.session_id) or session.sequence_number < 1:
            raise SessionError(f"{where}: not a valid session file (bad sessionId or sequenceNumber)")
        return session


@dataclass(frozen=True, slots=True)
class AgentPaths:
    root: Path

    @property
    def inbox(self) -> Path:
        return self.root / "inbox"

    @property
    def processed(self) -> Path:
        return self.root / "inbox" / "processed"

    @property
    def outbox(self) -> Path:
        return self.root / "outbox"

    @property
    def sessions(self) -> Path:
        return self.root / "sessions"

    def session_file(self, session_id: str) -> Path:
        return self.sessions / f"{session_id}.json"

    def outbox_file(self, session_id: str, sequence: int) -> Path:
        return self.outbox / f"{session_id}_seq{sequence:04d}.txt"

    def is_agent_root(self) -> bool:
        return self.sessions.is_dir()


def load_session(paths: AgentPaths, session_id: str) -> Session:
    file = paths.session_file(session_id)
    if not SESSION_ID.fullmatch(session_id):
        raise SessionError(f"'{session_id}' is not a session id (8 lowercase hex digits)")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SessionError(f"no session '{session_id}' in {paths.sessions}") from None
    except (OSError, ValueError) as exc:
        raise SessionError(f"{file}: cannot read session ({exc})") from None
    return Session.from_json(data, str(file))


def save_session(paths: AgentPaths, session: Session) -> Path:
    file = paths.session_file(session.session_id)
    atomic_write_text(file, json.dumps(session.to_json(), indent=2, ensure_ascii=False) + "\n")
    return file


def active_session(paths: AgentPaths) -> Session | None:
    """The most recently updated session that is not complete (None when there is none)."""
    best: Session | None = None
    if not paths.sessions.is_dir():
        return None
    for file in sorted(paths.sessions.glob("*.json")):
        try:
            session = load_session(paths, file.stem)
        except SessionError:
            continue
        if session.is_complete:
            continue
        if best is None or (session.updated_at, session.sequence_number) > (best.updated_at, best.sequence_number):
            best = session
    return best


def new_session_id(paths: AgentPaths) -> str:
    while True:
        candidate = secrets.token_hex(4)
        if not paths.session_file(candidate).exists():
            return candidate


# ---------------------------------------------------------------------------------------------------------------
# Outbox


def _process_redactor() -> Redactor:
    return Redactor(secret_values())


@dataclass(frozen=True, slots=True)
class OutboxSettings:
    """Limits the outbox states, and the redactor that hides secret values in what it quotes from the workspace."""

    timeout_s: float = 30
    output_chars: int = 4000
    read_chars: int = 100_000
    redactor: Redactor = field(default_factory=_process_redactor)


def _indent(text: str, prefix: str) -> list[str]:
    from heredoc_lsp.syntax.text import split_lines

    return [prefix + line if line else prefix.rstrip() for line in split_lines(text)]


def render_outbox(
    session: Session,
    workspace: Workspace,
    settings: OutboxSettings,
) -> str:
    """The outbox text for ``session`` at its current sequence number."""
    out = ["=== HEADER ===", f"Session: {session.session_id}", f"Sequence: {session.sequence_number}"]
    task_lines = _indent(session.task, "") or [""]
    out.append(f"Task: {task_lines[0]}")
    out.extend(task_lines[1:])
    out += ["", "=== PROTOCOL ==="]
    out.append(
        protocol_text(
            timeout_s=settings.timeout_s, output_chars=settings.output_chars, read_chars=settings.read_chars
        ).rstrip("\n")
    )
    out += ["", "=== CONTEXT ===", "## Workspace Files"]
    redactor = settings.redactor
    files, more = workspace.list_files(LISTING_LIMIT)
    if files:
        # A command may put a secret in a file name: the listing shows it redacted.
        out += [f"  {redactor.redact(f.path)} ({f.size} bytes)" for f in files]
        if more:
            out.append(f"  ... and {more} more files")
    else:
        out.append("(empty workspace)")
    if session.sequence_number > 1:
        out += ["", "## Previous Command Results"]
        if session.last_results:
            for result in session.last_results:
                out.append(redactor.redact(result.line))
                if result.output:
                    lines = _indent(redactor.redact(result.output), "    ")
                    if len(lines) == 1:
                        out.append(f"  Output: {lines[0].strip()}")
                    else:
                        out.append("  Output:")
                        out.extend(lines)
        else:
            out.append("(no commands were found in the last reply)")
    if session.read_file_requests:
        out += ["", "## Requested File Contents"]
        for path in session.read_file_requests:
            shown = redactor.redact(path)
            out.append(f"--- {shown} ---")
            try:
                contents = workspace.read_file(path, settings.read_chars, redactor)
                out.append(contents.text.rstrip("\n"))
            except FileOpError as exc:
                out.append(f"({redactor.redact(exc.summary)})")
            out.append(f"--- end {shown} ---")
    out += ["", "=== PROMPT ==="]
    out.append(session.task if session.sequence_number == 1 else CONTINUATION_PROMPT)
    return "\n".join(out) + "\n"


def write_outbox(paths: AgentPaths, session: Session, workspace: Workspace, settings: OutboxSettings) -> Path:
    file = paths.outbox_file(session.session_id, session.sequence_number)
    atomic_write_text(file, render_outbox(session, workspace, settings))
    return file


def start_session(paths: AgentPaths, task: str, settings: OutboxSettings) -> tuple[Session, Path]:
    """``agent new``: a new session at sequence 1 and its first outbox."""
    for d in (paths.sessions, paths.outbox, paths.inbox):
        d.mkdir(parents=True, exist_ok=True)
    workspace = Workspace(paths.root, protected=AGENT_DIRS)
    session = Session(session_id=new_session_id(paths), task=task)
    save_session(paths, session)
    return session, write_outbox(paths, session, workspace, settings)


def advance_session(
    paths: AgentPaths,
    session: Session,
    results: list[StepResult],
    reads: list[str],
    done: bool,
    workspace: Workspace,
    settings: OutboxSettings,
) -> tuple[Session, Path | None]:
    """After a reply was applied: store its results; write the next outbox unless the reply said [DONE]."""
    updated = replace(
        session,
        sequence_number=session.sequence_number + (0 if done else 1),
        is_complete=done,
        updated_at=_now(),
        last_results=tuple(SessionResult.of(r) for r in results),
        read_file_requests=tuple(reads),
    )
    outbox = None if done else write_outbox(paths, updated, workspace, settings)
    save_session(paths, updated)
    return updated, outbox


def pending_replies(paths: AgentPaths) -> list[Path]:
    """``inbox/*.txt`` oldest first (modification time, then name)."""
    if not paths.inbox.is_dir():
        return []
    found: list[tuple[float, str, Path]] = []
    for p in paths.inbox.glob("*.txt"):
        with contextlib.suppress(OSError):
            if p.is_file():
                found.append((p.stat().st_mtime, p.name, p))
    return [p for _, _, p in sorted(found)]


def move_processed(paths: AgentPaths, reply: Path) -> Path:
    """Move an applied reply to ``inbox/processed/`` (a numbered name when one is already there)."""
    paths.processed.mkdir(parents=True, exist_ok=True)
    target = paths.processed / reply.name
    n = 1
    while target.exists():
        target = paths.processed / f"{reply.stem}.{n}{reply.suffix}"
        n += 1
    os.replace(reply, target)
    return target
