"""What is under a position: the heredoc marker, command, parameter delimiter, inbox tag or attribute, section.

:func:`target_at` answers in time proportional to one item (the ``.cli`` item is built alone, see
:mod:`heredoc_lsp.syntax.cli_rows`), so it is cheap on any document size. A position touches a span when
``start <= column <= end``: a cursor right after a word is on it, as editors expect.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.cli import CliScript, Command, Heredoc
from heredoc_lsp.syntax.cli_rows import item_at
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.inbox import InboxAttr, InboxCommand, InboxReply
from heredoc_lsp.syntax.outbox import Outbox, Section
from heredoc_lsp.syntax.params import Param, ParamsBody

Point = tuple[int, int]


def touches(span: Span, point: Point) -> bool:
    line, col = point
    if span.start_line == span.end_line:
        return line == span.start_line and span.start_col <= col <= span.end_col
    return (span.start_line, span.start_col) <= point <= (span.end_line, span.end_col)


@dataclass(frozen=True, slots=True)
class MarkerTarget:
    """A heredoc marker: ``role`` says whether the cursor is on the opener's marker (or its ``<<``) or the
    terminator line. ``span`` is the marker word under the cursor."""

    command: Command
    heredoc: Heredoc
    role: Literal["opener", "operator", "terminator"]
    span: Span


@dataclass(frozen=True, slots=True)
class CommandTarget:
    command: Command
    span: Span


@dataclass(frozen=True, slots=True)
class DelimiterTarget:
    """A parameter delimiter line of a structured body (``command`` is None for a stand-alone body)."""

    command: Command | None
    body: ParamsBody
    param: Param
    span: Span


@dataclass(frozen=True, slots=True)
class BodyTarget:
    command: Command
    heredoc: Heredoc
    line: int


@dataclass(frozen=True, slots=True)
class TagTarget:
    command: InboxCommand
    role: Literal["opener", "closer"]
    span: Span


@dataclass(frozen=True, slots=True)
class AttrTarget:
    command: InboxCommand
    attr: InboxAttr
    part: Literal["name", "value"]
    span: Span


@dataclass(frozen=True, slots=True)
class SectionTarget:
    section: Section
    span: Span


Target = MarkerTarget | CommandTarget | DelimiterTarget | BodyTarget | TagTarget | AttrTarget | SectionTarget


def target_at(language: Language, lines: Sequence[str], tree: Any, point: Point) -> Target | None:
    line = point[0]
    if not 0 <= line < len(lines):
        return None
    if language is Language.CLI and isinstance(tree, CliScript):
        return _cli(tree, point)
    if language is Language.INBOX and isinstance(tree, InboxReply):
        return _inbox(tree, point)
    if language is Language.OUTBOX and isinstance(tree, Outbox):
        for section in tree.sections.values():
            if section.line == line:
                return SectionTarget(section, section.marker_span)
        return None
    if isinstance(tree, ParamsBody):
        param = _delimiter_on(tree, point)
        return DelimiterTarget(None, tree, param, param.delimiter_span) if param and param.delimiter_span else None
    return None


def _delimiter_on(body: ParamsBody, point: Point) -> Param | None:
    for p in body.params:
        if p.line == point[0] and p.delimiter_span is not None and touches(p.delimiter_span, point):
            return p
    return None


def _cli(script: CliScript, point: Point) -> Target | None:
    line = point[0]
    item = item_at(script, line)
    if not isinstance(item, Command):
        return None
    h = item.heredoc
    if h is not None:
        if line == item.line:
            if touches(h.marker_span, point) and h.marker:
                return MarkerTarget(item, h, "opener", h.marker_span)
            if touches(h.operator_span, point):
                return MarkerTarget(item, h, "operator", h.marker_span)
        elif h.terminator_span is not None and line == h.terminator_line:
            if touches(h.terminator_span, point):
                return MarkerTarget(item, h, "terminator", h.terminator_span)
            return None
        elif h.body_start <= line < h.body_end:
            if item.params is not None:
                param = _delimiter_on(item.params, point)
                if param is not None and param.delimiter_span is not None:
                    return DelimiterTarget(item, item.params, param, param.delimiter_span)
            return BodyTarget(item, h, line)
    if line == item.line and item.text and touches(item.span, point):
        return CommandTarget(item, item.span)
    return None


def inbox_command_at(reply: InboxReply, line: int) -> InboxCommand | None:
    """The command whose lines (opener to closer) include ``line``."""
    lo, hi = 0, len(reply.commands)
    while lo < hi:  # commands are in document order and do not overlap
        mid = (lo + hi) // 2
        if reply.commands[mid].line <= line:
            lo = mid + 1
        else:
            hi = mid
    if lo == 0:
        return None
    c = reply.commands[lo - 1]
    return c if c.end_line >= line else None


def _inbox(reply: InboxReply, point: Point) -> Target | None:
    line = point[0]
    c = inbox_command_at(reply, line)
    if c is None:
        return None
    if line == c.line:
        for a in c.attr_list:
            if touches(a.name_span, point):
                return AttrTarget(c, a, "name", a.name_span)
            if touches(a.quoted_span, point):
                return AttrTarget(c, a, "value", a.value_span)
        if touches(c.tag_span, point):
            return TagTarget(c, "opener", c.name_span)
        return None
    if c.close_span is not None and line == c.close_span.start_line and touches(c.close_span, point):
        return TagTarget(c, "closer", c.close_span)
    return None
