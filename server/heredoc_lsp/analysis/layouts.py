"""Where suppression directives may be written in each format, and the extent of each command (see
:mod:`heredoc_lsp.analysis.suppress`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from heredoc_lsp.analysis.suppress import NO_DIRECTIVES, Layout
from heredoc_lsp.languages import Language

if TYPE_CHECKING:
    from heredoc_lsp.syntax.cli import CliScript
    from heredoc_lsp.syntax.inbox import InboxReply


def inbox_layout(lines: Sequence[str], reply: InboxReply) -> Layout:
    """Directives are prose lines; each command extends from its opener to its closer (or the end of file)."""
    prose = tuple(n for start, end in reply.prose for n in range(start, end) if "heredoc-lsp" in lines[n])
    statements = tuple((c.line, c.end_line + 1) for c in reply.commands)
    return Layout(prose, statements)


def cli_layout(script: CliScript) -> Layout:
    """Directives are full-line comments (never heredoc body lines); each command line — erroneous heredoc lines
    too — is a statement running to its closing marker (or the end of the file)."""
    from heredoc_lsp.syntax.cli import Command, Comment  # deferred: check start-up

    statements: list[tuple[int, int]] = []
    comments: list[int] = []
    for item in script.items:
        if isinstance(item, Command):
            statements.append((item.line, item.end_line + 1))
        elif isinstance(item, Comment) and "heredoc-lsp" in item.text:
            comments.append(item.line)
    return Layout(tuple(comments), tuple(statements))


def layout_for(language: Language, lines: Sequence[str], tree: Any) -> Layout:
    """The layout of a parse ``tree`` of ``language`` (a :class:`~heredoc_lsp.analysis.core.Analysis`'s tree)."""
    if language is Language.CLI:
        return cli_layout(tree)
    if language is Language.INBOX:
        return inbox_layout(lines, tree)
    return NO_DIRECTIVES
