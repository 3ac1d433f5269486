"""The agent loop's files (docs/formats.md): sessions, outbox files, the inbox folder.

Layout under an agent root (the workspace the replies change)::

    sessions/<id>.json          session state (atomic writes)
    outbox/<id>_seq0001.txt     what to send to the LLM (atomic writes)
    inbox/*.txt                 the LLM's replies, processed oldest first by ``agent watch``
    inbox/processed/            replies already applied (or interrupted: never applied twice)
    inbox/refused/              files that a run or a reply wrote into inbox/ (never applied by ``agent watch``)
    .heredoc-lsp/replies.json   the reply ledger shared by ``apply`` and ``agent watch`` (atomic writes)

Replies may not touch ``inbox/``, ``outbox/`` or ``sessions/`` (see :class:`heredoc_lsp.executor.files.Workspace`).

The ledger makes applying exactly-once: a reply (keyed by its normalised content, whatever its file name:
:func:`heredoc_lsp.syntax.reply_shape.reply_key`) is marked ``started`` before its first command runs, so a
process killed in the middle leaves a record that stops any re-application; ``declined`` replies are not offered
again; files that appeared or changed in ``inbox/`` while a run or a reply was executing are recorded ``untrusted``
(a command may have forged them).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final, Literal, get_args

from heredoc_lsp.executor.environment import Redactor, secret_values
from heredoc_lsp.executor.files import FileOpError, Workspace, atomic_write_text
from heredoc_lsp.executor.model import StepResult
from heredoc_lsp.executor.protocol_text import CONTINUATION_PROMPT, protocol_text
from heredoc_lsp.fs import read_regular
from heredoc_lsp.syntax.outbox import quote, quoted_name
from heredoc_lsp.syntax.text import split_lines

AGENT_DIRS = ("inbox", "outbox", "sessions", ".heredoc-lsp")
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
    def refused(self) -> Path:
        return self.root / "inbox" / "refused"

    @property
    def sessions(self) -> Path:
        return self.root / "sessions"

    @property
    def ledger(self) -> Path:
        return self.root / ".heredoc-lsp" / "replies.json"

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
        data = json.loads(read_regular(file).decode("utf-8"))
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


@dataclass(frozen=True, slots=True)
class OutboxSettings:
    """Limits the outbox states, and the redactor that hides secret values in what it quotes from the workspace."""

    timeout_s: float = 30
    output_chars: int = 4000
    read_chars: int = 100_000
    redactor: Redactor = field(default_factory=lambda: Redactor(secret_values()))
    read_total_chars: int = 400_000  # all READ_FILE contents of one outbox together


def _indent(text: str, prefix: str) -> list[str]:
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
            timeout_s=settings.timeout_s,
            output_chars=settings.output_chars,
            read_chars=settings.read_chars,
            read_total_chars=settings.read_total_chars,
        ).rstrip("\n")
    )
    out += ["", "=== CONTEXT ===", "## Workspace Files"]
    redactor = settings.redactor
    files, more = workspace.list_files(LISTING_LIMIT)
    if files:
        # A command may put a secret in a file name: the listing shows it redacted; a newline in it is escaped.
        out += [f"  {quoted_name(redactor.redact(f.path))} ({f.size} bytes)" for f in files]
        if more:
            out.append(f"  ... and {more} more files")
    else:
        out.append("(empty workspace)")
    if session.sequence_number > 1:
        out += ["", "## Previous Command Results"]
        if session.last_results:
            for result in session.last_results:
                out.append(quoted_name(redactor.redact(result.line)))
                if result.output:
                    out.append("  Output:")
                    out.extend(quote(redactor.redact(result.output)))
        else:
            out.append("(no commands were found in the last reply)")
    if session.read_file_requests:
        out += ["", "## Requested File Contents"]
        budget = settings.read_total_chars
        for path in session.read_file_requests:
            shown = quoted_name(redactor.redact(path))
            out.append(f"--- {shown} ---")
            if budget <= 0:
                out.append(
                    f"(not shown: this message already holds {settings.read_total_chars} characters of requested "
                    "contents; ask for it again in your next reply)"
                )
            else:
                try:
                    contents = workspace.read_file(path, min(settings.read_chars, budget), redactor)
                    budget -= len(contents.text)
                    out.extend(quote(contents.text.rstrip("\n")))
                except FileOpError as exc:
                    out.append(f"({quoted_name(redactor.redact(exc.summary))})")
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


def move_processed(paths: AgentPaths, reply: Path, folder: Path | None = None) -> Path:
    """Move a reply to ``inbox/processed/`` (or ``folder``), under a numbered name when one is already there."""
    folder = folder or paths.processed
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / reply.name
    n = 1
    while target.exists():
        target = folder / f"{reply.stem}.{n}{reply.suffix}"
        n += 1
    os.replace(reply, target)
    return target


# ---------------------------------------------------------------------------------------------------------------
# The reply ledger

ReplyState = Literal["started", "applied", "interrupted", "declined", "untrusted"]
REPLY_STATES: Final = frozenset(get_args(ReplyState))
#: A reply in one of these states has run (at least in part): it is never applied again.
HANDLED: Final = frozenset({"started", "applied", "interrupted"})


class LedgerError(Exception):
    """The ledger cannot be read or written: nothing is applied (exactly-once cannot be promised)."""


@dataclass(frozen=True, slots=True)
class ReplyRecord:
    """One entry of ``.heredoc-lsp/replies.json``."""

    digest: str
    name: str
    state: ReplyState
    at: str = field(default_factory=_now)
    note: str = ""
    content: str = ""  # reply_key of the text: the same reply under any name (empty in ledgers of older versions)

    def to_json(self) -> dict[str, str]:
        data = {"digest": self.digest, "name": self.name, "state": self.state, "at": self.at, "note": self.note}
        if self.content:
            data["content"] = self.content
        return data

    def same_reply(self, other: ReplyRecord) -> bool:
        """The same content (normalised, any name); records without a content key: the same bytes and name."""
        if self.content and other.content:
            return self.content == other.content
        return self.digest == other.digest and self.name == other.name


def content_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    """SHA-256 of a regular file's bytes, read in chunks (OSError for a symlink, a FIFO or anything else)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        h = hashlib.sha256()
        while chunk := f.read(1 << 16):
            h.update(chunk)
    return h.hexdigest()


class ReplyLedger:
    """The processed-replies ledger of an agent root; every change is a locked read-modify-write, written atomically."""

    def __init__(self, paths: AgentPaths) -> None:
        self.file = paths.ledger

    def records(self) -> list[ReplyRecord]:
        try:
            text = read_regular(self.file).decode("utf-8")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise LedgerError(f"cannot read the reply ledger {self.file}: {exc.strerror or exc}") from None
        try:
            data = json.loads(text)
            records = [
                ReplyRecord(
                    str(r["digest"]),
                    str(r["name"]),
                    r["state"],
                    str(r.get("at", "")),
                    str(r.get("note", "")),
                    str(r.get("content", "")),
                )
                for r in data["replies"]
            ]
        except (ValueError, KeyError, TypeError) as exc:
            raise LedgerError(f"the reply ledger {self.file} is not valid ({exc}); fix or remove it") from None
        if any(r.state not in REPLY_STATES for r in records):
            raise LedgerError(f"the reply ledger {self.file} has an unknown state; fix or remove it")
        return records

    def find(self, digest: str, name: str) -> ReplyRecord | None:
        """The latest record of this reply (same content and file name), ``untrusted`` records aside."""
        found = [r for r in self.records() if r.digest == digest and r.name == name and r.state != "untrusted"]
        return found[-1] if found else None

    def applied(self, probe: ReplyRecord) -> ReplyRecord | None:
        """The latest record of a reply with the same content as ``probe`` (under any name) that has run."""
        found = [r for r in self.records() if r.state in HANDLED and r.same_reply(probe)]
        return found[-1] if found else None

    def untrusted(self, digest: str) -> ReplyRecord | None:
        """The record saying that this content (under any name) was written into inbox/ by a run or a reply."""
        found = [r for r in self.records() if r.state == "untrusted" and r.digest == digest]
        return found[-1] if found else None

    def mark(self, record: ReplyRecord) -> None:
        """Store ``record``, replacing the earlier record of the same reply (an ``untrusted`` one is never replaced)."""
        self._store(record, claim=False)

    def claim(self, record: ReplyRecord, *, again: bool = False) -> ReplyRecord | None:
        """Store ``record`` (``started``) unless the same content has run already (under any name): then store
        nothing and return that record. ``again``: store it anyway (a person applies it again on purpose).

        Check and write happen under one lock, so two processes (``apply`` and ``agent watch``) never both start it.
        """
        return self._store(record, claim=not again)

    def _store(self, record: ReplyRecord, *, claim: bool) -> ReplyRecord | None:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        try:
            with _locked(self.file.with_name("replies.lock")):
                records = self.records()
                same = [r for r in records if r.digest == record.digest and r.name == record.name]
                earlier = [r for r in records if r.state in HANDLED and r.same_reply(record)]
                if claim and earlier:
                    return earlier[-1]
                kept = [r for r in records if r.state == "untrusted" or r not in same]
                kept.append(record)
                payload = {"version": 1, "replies": [r.to_json() for r in kept]}
                atomic_write_text(self.file, json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise LedgerError(f"cannot write the reply ledger {self.file}: {exc.strerror or exc}") from None
        return None


@contextlib.contextmanager
def _locked(lock_file: Path) -> Iterator[None]:
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


InboxSnapshot = dict[str, tuple[int, int, int]]


def inbox_snapshot(paths: AgentPaths) -> InboxSnapshot:
    """``inbox/*.txt`` as name → (inode, mtime in ns, size): what a later snapshot is compared with."""
    seen: InboxSnapshot = {}
    with contextlib.suppress(OSError), os.scandir(paths.inbox) as entries:
        for entry in entries:
            if not entry.name.endswith(".txt"):
                continue
            with contextlib.suppress(OSError):
                st = entry.stat(follow_symlinks=False)
                seen[entry.name] = (st.st_ino, st.st_mtime_ns, st.st_size if stat.S_ISREG(st.st_mode) else -1)
    return seen


@contextlib.contextmanager
def guard_inbox(root: Path, what: str) -> Iterator[None]:
    """Around a run or a reply's commands: files that appear or change in ``inbox/`` meanwhile become untrusted."""
    paths = AgentPaths(root)
    if not paths.is_agent_root():
        yield
        return
    before = inbox_snapshot(paths)
    try:
        yield
    finally:
        after = inbox_snapshot(paths)
        ledger = ReplyLedger(paths)
        for name, sig in sorted(after.items()):
            if before.get(name) == sig:
                continue
            try:
                digest = file_digest(paths.inbox / name)
            except OSError:
                continue  # not a regular file: ``agent watch`` refuses those anyway
            note = f"appeared or changed in inbox/ while {what} was executing"
            ledger.mark(ReplyRecord(digest, name, "untrusted", note=note))


class SettleTracker:
    """Which inbox files are complete: their (inode, mtime, size) has not changed for ``settle_s`` seconds."""

    def __init__(self, settle_s: float) -> None:
        self.settle_s = settle_s
        self._since: dict[str, tuple[tuple[int, int, int], float]] = {}

    def update(self, snapshot: InboxSnapshot, now: float) -> tuple[list[str], int]:
        """Names that are settled now, and how many are still changing (or were first seen too recently)."""
        settled: list[str] = []
        waiting = 0
        for name in list(self._since):
            if name not in snapshot:
                del self._since[name]
        for name, sig in snapshot.items():
            known = self._since.get(name)
            if known is None or known[0] != sig:
                self._since[name] = (sig, now)
                waiting += 1
            elif now - known[1] >= self.settle_s:
                settled.append(name)
            else:
                waiting += 1
        return settled, waiting
