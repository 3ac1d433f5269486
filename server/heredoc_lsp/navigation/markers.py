"""Heredoc markers as a pair: the opener's marker word and the terminator line, renamed and highlighted together.

Renaming checks the new name (docs/formats.md: ``[A-Za-z0-9_]+``) and refuses one that occurs as a body line (trimmed),
because that line would then end the heredoc early. Quotes around a quoted marker stay as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from heredoc_lsp.syntax.cli import Command, Heredoc
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.text import trim

MARKER_WORD = re.compile(r"[A-Za-z0-9_]+")

NOT_A_MARKER = (
    "Only heredoc markers can be renamed here: put the cursor on the marker after '<<' or on the terminator line"
)


class RenameRefused(Exception):
    """A rename that cannot be done; the message says why (shown by the editor)."""


@dataclass(frozen=True, slots=True)
class Occurrence:
    span: Span
    role: str  # "opener" | "terminator"


def occurrences(heredoc: Heredoc) -> list[Occurrence]:
    """The opener's marker word and, when the heredoc is closed, the marker on the terminator line."""
    out = [Occurrence(heredoc.marker_span, "opener")]
    if heredoc.terminator_span is not None:
        out.append(Occurrence(heredoc.terminator_span, "terminator"))
    return out


def check_prepare(command: Command) -> Heredoc:
    """The heredoc whose marker can be renamed, or :class:`RenameRefused`."""
    h = command.heredoc
    if h is None:
        raise RenameRefused(NOT_A_MARKER)
    if not h.marker:
        raise RenameRefused("This heredoc has no marker to rename: type one after '<<'")
    return h


def rename_problem(heredoc: Heredoc, new_name: str) -> str | None:
    """Why ``new_name`` cannot replace the heredoc's marker, or None when it can."""
    if not MARKER_WORD.fullmatch(new_name):
        return (
            f"'{new_name}' is not a valid heredoc marker: use only letters A-Z or a-z, digits and '_' "
            "(quotes around the marker are kept)"
        )
    if new_name == heredoc.marker:
        return None
    for k, line in enumerate(heredoc.body):
        if new_name in line and trim(line) == new_name:
            return (
                f"'{new_name}' occurs as line {heredoc.body_start + k + 1} of the heredoc body: "
                "that line would end the heredoc early"
            )
    return None


def rename_edits(heredoc: Heredoc, new_name: str) -> list[tuple[Span, str]]:
    """The text edits renaming the marker (opener and terminator), or :class:`RenameRefused`."""
    problem = rename_problem(heredoc, new_name)
    if problem is not None:
        raise RenameRefused(problem)
    if new_name == heredoc.marker:
        return []
    return [(o.span, new_name) for o in occurrences(heredoc)]
