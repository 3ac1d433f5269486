"""Whether a text can be applied as a reply at all (see docs/running.md, "Replies are transactions").

Pure functions on a reply's text and parse:

- :func:`normalized_reply` and :func:`reply_key`: the identity of a reply's content, the same whatever its file name,
  line endings or trailing whitespace (a reply saved twice is one reply).
- :func:`prompt_problem`: text that is heredoc-lsp's own prompt pasted back (an outbox, its section markers, the
  PROTOCOL text or its example commands) is never a reply.
- :func:`truncated_block`: a reply whose last block is still open and that has no ``[DONE]`` looks cut off.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import dataclass, replace

from heredoc_lsp.syntax.diagnostics import Span, error
from heredoc_lsp.syntax.inbox import InboxCommand, InboxReply
from heredoc_lsp.syntax.outbox import SECTION_NAMES, marker
from heredoc_lsp.syntax.text import BOM, split_lines, trim, trim_end

#: The first line of the PROTOCOL text of every protocol version.
PROTOCOL_FIRST_LINE = "heredoc-lsp agent protocol, version "
#: This many commands equal to the PROTOCOL text's examples make a text a pasted PROTOCOL (one may be a coincidence:
#: an LLM may well run ``python3 -m pytest -q``).
EXAMPLE_MATCHES = 2

_MARKERS = {marker(name) for name in SECTION_NAMES}

Fingerprint = tuple[str, str, str]  # command name, path ("" when none), body ("" when none)


def normalized_reply(text: str) -> str:
    """``text`` with ``\\n`` line endings, no trailing blanks on any line, no BOM and no blank lines at the end."""
    lines = [trim_end(line) for line in split_lines(text.removeprefix(BOM))]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def reply_key(text: str) -> str:
    """SHA-256 of :func:`normalized_reply`: equal for the same reply saved under any name or with other endings."""
    return hashlib.sha256(normalized_reply(text).encode("utf-8", "surrogateescape")).hexdigest()


def fingerprint(command: InboxCommand) -> Fingerprint:
    return (command.name, command.path or "", trim(command.body or ""))


@dataclass(frozen=True, slots=True)
class PromptProblem:
    """Why a text is a prompt and not a reply; ``line`` is 0-based."""

    line: int
    message: str


def prompt_problem(lines: list[str], reply: InboxReply, examples: Collection[Fingerprint]) -> PromptProblem | None:
    """Why ``lines`` (parsed as ``reply``) are heredoc-lsp's own prompt pasted as a reply, or None.

    A prose line that is an outbox section marker or the PROTOCOL text's first line, or at least
    :data:`EXAMPLE_MATCHES` commands equal to the PROTOCOL text's ``examples``.
    """
    for start, end in reply.prose:
        for k in range(start, min(end, len(lines))):
            text = trim(lines[k])
            if text in _MARKERS:
                return PromptProblem(
                    k,
                    f"line {k + 1} is the outbox section marker '{text}': this is the message heredoc-lsp wrote for "
                    "the LLM (an outbox), not the LLM's reply",
                )
            if text.startswith(PROTOCOL_FIRST_LINE):
                return PromptProblem(
                    k,
                    f"line {k + 1} starts heredoc-lsp's PROTOCOL text: this is the prompt for the LLM, not its reply",
                )
    matches = [c for c in reply.commands if fingerprint(c) in examples]
    if len(matches) >= EXAMPLE_MATCHES:
        first = matches[0]
        return PromptProblem(
            first.line,
            f"{len(matches)} of its commands (the first at line {first.line + 1}) are the examples of heredoc-lsp's "
            "PROTOCOL text: this is the prompt for the LLM, not its reply",
        )
    return None


def prompt_tree(lines: list[str], reply: InboxReply, examples: Collection[Fingerprint] = ()) -> InboxReply | None:
    """For an editor or ``check``: a prompt pasted where a reply belongs is one ``pasted_prompt`` error and no
    commands (instead of a page of errors about the PROTOCOL's examples); None for a reply."""
    found = prompt_problem(lines, reply, examples)
    if found is None:
        return None
    line = lines[found.line] if found.line < len(lines) else ""
    message = (
        f"This is heredoc-lsp's prompt for the LLM, not a reply ({found.message}): it is never applied. Send it to "
        "the LLM and save the LLM's answer as the reply"
    )
    diagnostic = error(Span.at(found.line, 0, len(line)), "pasted_prompt", message)
    return replace(reply, commands=(), diagnostics=(diagnostic,))


def same_text(a: str, b: str) -> bool:
    """True when two texts are the same reply (or prompt) once normalised."""
    return normalized_reply(a) == normalized_reply(b)


def truncated_block(reply: InboxReply) -> InboxCommand | None:
    """The reply's last command when it is a block left open (no closing tag) and no ``[DONE]`` came before it."""
    if not reply.commands:
        return None
    last = reply.commands[-1]
    if last.self_closing or last.close_line is not None or last.name == "DONE":
        return None
    if any(c.name == "DONE" for c in reply.commands):
        return None
    return last
