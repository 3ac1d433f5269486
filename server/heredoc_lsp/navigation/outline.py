"""The outline of a document as a tree of :class:`Symbol` (docs/navigation.md document symbols).

- ``.cli``: each command (``Function``; erroneous heredoc lines too, their error as detail), its heredoc
  (``String``, named ``heredoc``, the marker as detail) and, for a structured body, each parameter (``Field``).
- Structured bodies on their own: the parameters.
- Inbox replies: each command block, the path (or the command, or the message) as detail.
- Outbox files: the four sections (``Module``), HEADER with its fields (``Property``).

A symbol's ``span`` covers the whole construct and contains its ``selection`` and its children's spans, which
follow each other in document order without overlapping. Kinds are the names of LSP ``SymbolKind`` members.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.cli import CliScript
from heredoc_lsp.syntax.cli_rows import HeredocView, iter_rows
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.inbox import InboxCommand, InboxReply
from heredoc_lsp.syntax.outbox import Outbox
from heredoc_lsp.syntax.params import Param, ParamsBody
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import BLANK_CHARS, is_blank, plural

MAX_NAME = 120  # longer command lines are shortened in the outline (the full text is one click away)

_ERROR_DETAIL = {
    "unclosed_heredoc": "unclosed heredoc",
    "heredoc_without_command": "heredoc without command",
    "invalid_marker": "invalid marker",
    "multiple_heredocs": "multiple heredocs",
}
_INBOX_KIND = {
    "CREATE_FILE": "File",
    "EDIT_FILE": "File",
    "DELETE_FILE": "File",
    "READ_FILE": "File",
    "RUN_COMMAND": "Function",
    "MESSAGE": "String",
    "DONE": "Event",
}


@dataclass(slots=True)
class Symbol:
    name: str
    kind: str  # an LSP SymbolKind member name: Function, String, Field, File, Event, Module, Property
    span: Span
    selection: Span
    detail: str | None = None
    children: list[Symbol] = field(default_factory=list)


def shorten(text: str, limit: int = MAX_NAME) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _to_line_end(lines: Sequence[str], line: int, col: int, end_line: int) -> Span:
    end_line = min(end_line, len(lines) - 1)
    return Span(line, col, end_line, len(lines[end_line]))


def outline(language: Language, lines: Sequence[str], tree: Any) -> list[Symbol]:
    """The outline of an analysed document (``tree`` as the parsers return it)."""
    if not lines:
        return []
    if language is Language.CLI and isinstance(tree, CliScript):
        return cli_outline(lines, tree)
    if language is Language.INBOX and isinstance(tree, InboxReply):
        return [_inbox_command(lines, c) for c in tree.commands]
    if language is Language.OUTBOX and isinstance(tree, Outbox):
        return _outbox(lines, tree)
    if isinstance(tree, ParamsBody):
        return _params(lines, tree)
    return []


# -- .cli -------------------------------------------------------------------------------------------------------


def cli_outline(
    lines: Sequence[str], script: CliScript, first_line: int = 0, stop_line: int | None = None
) -> list[Symbol]:
    """The symbols of the items starting on lines ``[first_line, stop_line)`` (default: to the end), which must be
    item starts (see :class:`heredoc_lsp.syntax.cli.Reparse`)."""
    out: list[Symbol] = []
    append = out.append
    blanks = BLANK_CHARS
    last = None if stop_line is None else stop_line - 1
    if last is not None and last < first_line:
        return out
    for kind, line, view in iter_rows(script, first_line, last):
        if kind == "command":
            text = lines[line]
            t = text.strip(blanks)
            col = len(text) - len(text.lstrip(blanks))
            span = Span(line, col, line, col + len(t))
            append(Symbol(shorten(t), "Function", span, span))
        elif view is not None:
            append(_heredoc_command(lines, view))
    return out


def heredoc_span(lines: Sequence[str], view: HeredocView) -> Span:
    """From the operator to the end of the terminator line (or of the document when unclosed)."""
    return _to_line_end(lines, view.line, view.op_col, view.end_line)


def _heredoc_command(lines: Sequence[str], view: HeredocView) -> Symbol:
    line = view.line
    text = lines[line]
    marker_span = Span(line, view.marker_col, line, view.marker_col + len(view.marker))
    if view.cmd_len:
        name = shorten(text[view.col : view.col + view.cmd_len])
        selection = Span(line, view.col, line, view.col + view.cmd_len)
    else:  # `<<EOF` alone: name the symbol by the heredoc
        name = text[view.op_col : view.marker_col + len(view.marker) + len(view.quote)] or "<<"
        selection = Span(line, view.op_col, line, max(view.op_col + view.op_len, marker_span.end_col))
    span = _to_line_end(lines, line, view.col, view.end_line)
    detail = _ERROR_DETAIL.get(view.error or "")
    heredoc = Symbol("heredoc", "String", heredoc_span(lines, view), marker_span, view.marker or None)
    if view.params is not None:
        heredoc.children = _params(lines, view.params, view.schema)
    return Symbol(name, "Function", span, selection, detail, [heredoc])


# -- structured bodies -----------------------------------------------------------------------------------------


def _size(count: int) -> str:
    return "empty" if count <= 0 else plural(count, "line")


def _param_detail(p: Param, schema: CommandSchema | None) -> str:
    if p.kind == "unknown":
        return "unknown parameter"
    if p.kind == "duplicate":
        return "duplicate"
    size = _size(p.value_end - p.value_start)
    return f"required, {size}" if schema is not None and p.name in schema.required else size


def _params(lines: Sequence[str], body: ParamsBody, schema: CommandSchema | None = None) -> list[Symbol]:
    out: list[Symbol] = []
    for p in body.params:
        last = p.section_end - 1
        while last > (p.line if p.line is not None else p.value_start) and is_blank(lines[last]):
            last -= 1
        if p.name_span is not None and p.delimiter_span is not None:
            start = p.delimiter_span
            selection = p.name_span
        elif p.value_end > p.value_start:  # single mode without a ---NAME--- line: the value itself
            first = lines[p.value_start]
            start = Span(p.value_start, 0, p.value_start, len(first))
            selection = start
        else:
            continue
        span = Span(start.start_line, start.start_col, last, max(len(lines[last]), 0))
        if span.end_line == span.start_line and span.end_col < selection.end_col:
            span = Span(span.start_line, span.start_col, span.end_line, selection.end_col)
        out.append(Symbol(p.name, "Field", span, selection, _param_detail(p, schema)))
    return out


# -- inbox -------------------------------------------------------------------------------------------------------


def first_text_line(text: str | None) -> str | None:
    if not text:
        return None
    for piece in text.split("\n"):
        if not is_blank(piece):
            return shorten(piece.strip(BLANK_CHARS), 80)
    return None


def inbox_detail(c: InboxCommand) -> str | None:
    path = c.attrs.get("path")
    if c.name == "EDIT_FILE" and path is not None:
        first, last = c.attrs.get("start_line"), c.attrs.get("end_line")
        if first is not None and last is not None:
            return f"{path} lines {first.strip(BLANK_CHARS)}-{last.strip(BLANK_CHARS)}"
    if path is not None:
        return path
    return first_text_line(c.body)


def _inbox_command(lines: Sequence[str], c: InboxCommand) -> Symbol:
    span = _to_line_end(lines, c.line, c.tag_span.start_col, c.end_line)
    return Symbol(c.name, _INBOX_KIND.get(c.name, "Object"), span, c.tag_span, inbox_detail(c))


# -- outbox ------------------------------------------------------------------------------------------------------


def _outbox(lines: Sequence[str], box: Outbox) -> list[Symbol]:
    out: list[Symbol] = []
    for section in box.sections.values():
        span = _to_line_end(lines, section.line, 0, section.end_line)
        first, end = section.text_lines
        symbol = Symbol(section.name, "Module", span, section.marker_span, _size(end - first))
        if section.name == "HEADER" and box.header is not None:
            for f in box.header.fields:
                fspan = _to_line_end(lines, f.line, 0, f.end_line)
                symbol.children.append(Symbol(f.key, "Property", fspan, f.key_span, first_text_line(f.value)))
        out.append(symbol)
    return out


def walk(symbols: Sequence[Symbol]) -> list[Symbol]:
    """Every symbol of the tree, parents before children."""
    out: list[Symbol] = []
    stack = list(reversed(symbols))
    while stack:
        s = stack.pop()
        out.append(s)
        stack.extend(reversed(s.children))
    return out
