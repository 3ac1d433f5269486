"""Formatting that can never change what runs: trailing blanks removed from structure lines only.

- ``.cli``: command and comment lines, opener and terminator lines, blank lines between items, and the delimiter
  lines of structured bodies lose their trailing blanks (the parser trims all of them, so nothing changes meaning);
  every other body line is content and stays byte for byte.
- Inbox replies: opener and closer lines of commands; prose and block bodies are content and stay.
- Outbox files and stand-alone bodies (generated or content): nothing.

Each edit is ``(line, start column, end column)`` of the blanks to delete, in code points.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.cli import CliScript
from heredoc_lsp.syntax.cli_rows import iter_rows
from heredoc_lsp.syntax.inbox import InboxReply
from heredoc_lsp.syntax.text import BLANK_CHARS

Deletion = tuple[int, int, int]


def trailing_blank_deletions(language: Language, lines: Sequence[str], tree: Any) -> list[Deletion]:
    if language is Language.CLI and isinstance(tree, CliScript):
        structure = _cli_structure_lines(lines, tree)
    elif language is Language.INBOX and isinstance(tree, InboxReply):
        structure = _inbox_structure_lines(tree)
    else:
        return []
    out: list[Deletion] = []
    for i in sorted(set(structure)):
        text = lines[i]
        end = len(text.rstrip(BLANK_CHARS))
        if end < len(text):
            out.append((i, end, len(text)))
    return out


def _cli_structure_lines(lines: Sequence[str], script: CliScript) -> Iterable[int]:
    # Every heredoc body line is stdin, parameter delimiters included: formatting never changes what a command reads.
    body = bytearray(len(lines))  # 1 for heredoc body lines
    for _, _, view in iter_rows(script):
        if view is None:
            continue
        for i in range(view.body_start, view.body_end):
            body[i] = 1
    return (i for i in range(len(lines)) if not body[i])


def _inbox_structure_lines(reply: InboxReply) -> Iterable[int]:
    for c in reply.commands:
        yield c.line
        if c.close_line is not None:
            yield c.close_line
