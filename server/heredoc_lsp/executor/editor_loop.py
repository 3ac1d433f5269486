"""The agent loop as an editor drives it (docs/running.md, "The agent loop in the editor"): find the agent
workspace of a file, the text to copy for the LLM, and a pasted reply saved as the next inbox file.

A paste is refused, with nothing written, when it is empty, when it is heredoc-lsp's own prompt (an outbox, the
PROTOCOL text, the session's last outbox: :func:`heredoc_lsp.executor.reply_apply.not_a_reply`) or when the same
reply (by content, any name) was applied before (the ledger).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from heredoc_lsp.executor.agent import (
    AgentPaths,
    LedgerError,
    ReplyLedger,
    ReplyRecord,
    Session,
    SessionError,
    active_session,
    content_digest,
)
from heredoc_lsp.executor.reply_apply import not_a_reply
from heredoc_lsp.fs import read_regular
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.reply_shape import reply_key
from heredoc_lsp.syntax.text import split_lines, trim

#: Tried names per paste before giving up (a name is taken only when a file of that name exists).
NAME_TRIES = 1000


class LoopRefused(Exception):
    """A step of the loop that cannot go ahead; the message says why (nothing was written)."""


def agent_root(start: Path, folder: Path | None = None) -> Path | None:
    """The agent workspace of ``start`` (a file or folder): the nearest folder at or above it with ``sessions/``,
    not going above the workspace ``folder`` when one is given; None when there is none."""
    here = start if start.is_dir() else start.parent
    for candidate in (here, *here.parents):
        if AgentPaths(candidate).is_agent_root():
            return candidate
        if folder is not None and candidate == folder:
            return None
    return None


def current_session(paths: AgentPaths) -> Session:
    """The session the editor works with: the active one (:func:`active_session`)."""
    session = active_session(paths)
    if session is None:
        raise LoopRefused(f"no active agent session in {paths.root}: start one with 'New agent session'")
    return session


@dataclass(frozen=True, slots=True)
class OutboxText:
    path: Path
    text: str

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def lines(self) -> int:
        return len(split_lines(self.text))


def outbox_text(paths: AgentPaths) -> OutboxText:
    """The newest outbox of the active session, whole."""
    session = current_session(paths)
    file = paths.outbox_file(session.session_id, session.sequence_number)
    try:
        text = read_regular(file).decode("utf-8", "surrogateescape")
    except OSError as exc:
        raise LoopRefused(f"cannot read the outbox {file}: {exc.strerror or exc}") from None
    return OutboxText(file, text)


def paste_problem(paths: AgentPaths, name: str, text: str, session: Session | None) -> str | None:
    """Why ``text`` must not be saved as a reply (see the module doc), or None."""
    if not trim(text.replace("\r", " ").replace("\n", " ")):
        return "the clipboard is empty: copy the LLM's whole reply first; nothing was saved"
    lines = split_lines(text)
    refusal = not_a_reply(name, text, lines, parse_inbox(lines), paths, session)
    if refusal is not None:
        return refusal.replace(f"{name} is not a reply", "the pasted text is not a reply", 1)
    digest = content_digest(text.encode("utf-8", "surrogateescape"))
    try:
        earlier = ReplyLedger(paths).applied(ReplyRecord(digest, name, "started", content=reply_key(text)))
    except LedgerError as exc:
        return f"{exc}; nothing was saved"
    if earlier is not None:
        what = {"started": "was being applied", "interrupted": "was interrupted"}.get(earlier.state, "was applied")
        return (
            f"the pasted text is the same reply as {earlier.name}, which {what} at {earlier.at}; a reply is applied "
            f"only once, so it was not saved (to apply it again on purpose: heredoc-lsp apply --again {earlier.name})"
        )
    return None


def next_reply_path(paths: AgentPaths, session: Session) -> Path:
    """A free name in ``inbox/`` for the reply to the session's newest outbox: ``<id>_seq0001_reply.txt``, then
    ``..._reply2.txt`` and so on (names used in ``inbox/processed/`` are skipped too)."""
    stem = f"{session.session_id}_seq{session.sequence_number:04d}_reply"
    for n in range(1, NAME_TRIES + 1):
        name = f"{stem}{n if n > 1 else ''}.txt"
        if not (paths.inbox / name).exists() and not (paths.processed / name).exists():
            return paths.inbox / name
    raise LoopRefused(f"no free name for the reply in {paths.inbox}")


def paste_reply(paths: AgentPaths, text: str) -> Path:
    """Save ``text`` as the next reply of the active session (created, never overwriting a file)."""
    try:
        session = current_session(paths)
    except SessionError as exc:
        raise LoopRefused(str(exc)) from None
    target = next_reply_path(paths, session)
    problem = paste_problem(paths, target.name, text, session)
    if problem is not None:
        raise LoopRefused(problem)
    paths.inbox.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8", "surrogateescape")
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise LoopRefused(f"cannot create {target}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return target
