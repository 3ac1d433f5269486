"""Which format a document is: by language id (editor aliases included), else by file name (docs/editors.md)."""

from __future__ import annotations

import enum
from pathlib import PurePath


class Language(str, enum.Enum):
    CLI = "cli"
    PARAMS = "params"
    INBOX = "inbox"
    OUTBOX = "outbox"
    # A shell command read as bash runs it (docs/guard.md): only by ``--language bash``, never from a file name.
    BASH = "bash"


_BY_LANGUAGE_ID: dict[str, Language] = {
    "cli-script": Language.CLI,
    "cliscript": Language.CLI,
    "cli_script": Language.CLI,
    "cli": Language.CLI,
    "agent-inbox": Language.INBOX,
    "agentinbox": Language.INBOX,
    "agent_inbox": Language.INBOX,
    "inbox": Language.INBOX,
    "agent-outbox": Language.OUTBOX,
    "agentoutbox": Language.OUTBOX,
    "agent_outbox": Language.OUTBOX,
    "outbox": Language.OUTBOX,
}


def language_from_id(language_id: str | None) -> Language | None:
    if not language_id:
        return None
    return _BY_LANGUAGE_ID.get(language_id.lower())


def language_from_path(path: str | PurePath) -> Language | None:
    """``*.cli``; ``*.inbox`` and ``**/inbox/*.txt``; ``*.outbox`` and ``**/outbox/*_seqNNNN.txt``."""
    p = PurePath(path)
    suffix = p.suffix
    if suffix == ".cli":
        return Language.CLI
    if suffix == ".inbox":
        return Language.INBOX
    if suffix == ".outbox":
        return Language.OUTBOX
    if suffix == ".txt" and len(p.parts) >= 2:
        parent = p.parent.name
        if parent == "inbox":
            return Language.INBOX
        stem = p.stem
        if (
            parent == "outbox"
            and len(stem) > 8
            and stem[-8:-4] == "_seq"
            and stem[-4:].isdigit()
            and stem[-4:].isascii()
        ):
            return Language.OUTBOX
    return None


def detect_language(language_id: str | None, path: str | PurePath | None) -> Language | None:
    """Language id first (so any client configuration works), file name second."""
    lang = language_from_id(language_id)
    if lang is None and path is not None:
        lang = language_from_path(path)
    return lang
