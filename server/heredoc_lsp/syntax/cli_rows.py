"""Fast read access to a parsed ``.cli`` script for the editor features.

``CliScript.items`` builds one frozen object per item, about 150-300 ms for a 100k-line script, and a new parse
(every edit) starts with an empty cache. Editor requests need either one item (hover, rename: the item under the
cursor) or a light pass over all of them (folding, semantic tokens, outline). This module reads the scanner's rows
(``CliScript._rows``, private to :mod:`heredoc_lsp.syntax.cli`) to give both without building every item:

- :func:`item_at` builds only the item covering a line (the same object ``CliScript.item_at`` returns);
- :func:`iter_rows` walks the items in order as ``(kind, line, heredoc)`` where ``heredoc`` is a cheap
  :class:`HeredocView` for heredoc lines and None for comments and plain commands; :func:`iter_closed_openers`
  walks the closed heredocs only, with what their body's language depends on.

When the private rows are not there (the parser changed), both fall back to the public ``items``: slower, same
answers. ``tests/lsp_nav/test_nav_properties.py`` checks the views against ``items`` on generated scripts.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from itertools import islice

from heredoc_lsp.syntax import cli as _cli
from heredoc_lsp.syntax.cli import CliScript, Command, Comment, Item
from heredoc_lsp.syntax.params import ParamsBody
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import BLANK_CHARS

TYPE_CHECKING = False  # (typing is not imported at run time: check's start-up, and the body checks use this module)
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

    RowKind: TypeAlias = Literal["comment", "command", "heredoc"]


class HeredocView:
    """What the editor features need of a heredoc line, derived from the scanner's row without regexes.

    Columns are code points of the document line. ``cmd_len`` is 0 for ``<<EOF`` alone on a line. ``body_end`` is
    exclusive; ``terminator_line`` is None when the heredoc is unclosed or has no body at all.
    """

    __slots__ = (
        "body_end",
        "body_start",
        "cmd_len",
        "col",
        "end_line",
        "error",
        "line",
        "marker",
        "marker_col",
        "op_col",
        "op_len",
        "params",
        "quote",
        "schema",
        "strip_tabs",
        "terminator_col",
        "terminator_line",
    )

    def __init__(
        self,
        line: int,
        col: int,
        cmd_len: int,
        op_col: int,
        op_len: int,
        marker: str,
        marker_col: int,
        quote: str,
        strip_tabs: bool,
        error: str | None,
        body_start: int,
        body_end: int,
        terminator_line: int | None,
        terminator_col: int,
        end_line: int,
        schema: CommandSchema | None,
        params: ParamsBody | None,
    ) -> None:
        self.line = line
        self.col = col
        self.cmd_len = cmd_len
        self.op_col = op_col
        self.op_len = op_len
        self.marker = marker
        self.marker_col = marker_col
        self.quote = quote
        self.strip_tabs = strip_tabs
        self.error = error
        self.body_start = body_start
        self.body_end = body_end
        self.terminator_line = terminator_line
        self.terminator_col = terminator_col
        self.end_line = end_line
        self.schema = schema
        self.params = params

    def __repr__(self) -> str:
        return f"<HeredocView line {self.line} <<{self.marker} body {self.body_start}-{self.body_end}>"


if TYPE_CHECKING:
    Row: TypeAlias = tuple[RowKind, int, HeredocView | None]


def _private_rows(script: CliScript, *, starts: bool = True) -> tuple[Sequence[Any], list[int]] | None:
    rows = getattr(script, "_rows", None)
    starts_of = getattr(script, "_starts", None)
    if rows is None or starts_of is None or not hasattr(_cli, "_Row") or not hasattr(_cli, "_build_items"):
        return None
    return rows, starts_of() if starts else []


def _view_of_row(lines: Sequence[str], row: Any, n: int) -> HeredocView:
    i: int = row.line
    col: int = row.col
    text = lines[i]
    op_col = col + row.op_at
    op_len = 3 if text.startswith("-", op_col + 2) else 2
    marker: str = row.marker
    after = op_col + op_len
    k = text.find(marker, after) if marker else -1
    marker_col = k if k >= 0 else after
    quote = text[marker_col - 1] if marker_col > after and text[marker_col - 1] in "'\"" else ""
    cmd_len = len(text[col:op_col].rstrip(BLANK_CHARS))
    term: int = row.terminator
    start = i + 1
    terminator_line: int | None = None
    terminator_col = 0
    if term >= 0:
        body_end = end_line = term
        terminator_line = term
        t = lines[term]
        terminator_col = len(t) - len(t.lstrip(BLANK_CHARS))
    elif term == -2:
        body_end, end_line = start, i
    else:
        body_end, end_line = n, max(i, n - 1)
    return HeredocView(
        i,
        col,
        cmd_len,
        op_col,
        op_len,
        marker,
        marker_col,
        quote,
        bool(row.strip),
        row.error,
        start,
        body_end,
        terminator_line,
        terminator_col,
        end_line,
        row.schema,
        row.params,
    )


def view_of_command(command: Command) -> HeredocView:
    """The view of a built heredoc command (the fallback path, and for callers that already have the item)."""
    h = command.heredoc
    assert h is not None
    return HeredocView(
        command.line,
        command.col,
        len(command.text),
        h.operator_span.start_col,
        h.operator_span.end_col - h.operator_span.start_col,
        h.marker,
        h.marker_span.start_col,
        h.quote,
        h.strip_tabs,
        command.error,
        h.body_start,
        h.body_end,
        h.terminator_line,
        h.terminator_span.start_col if h.terminator_span is not None else 0,
        command.end_line,
        command.schema,
        command.params,
    )


def iter_rows(script: CliScript, first_line: int = 0, last_line: int | None = None) -> Iterator[Row]:
    """The items covering lines ``first_line..last_line`` (inclusive; default: all), in document order."""
    lines = script.lines
    n = len(lines)
    last = n - 1 if last_line is None else last_line
    private = _private_rows(script)
    if private is None:
        yield from _iter_items(script, first_line, last)
        return
    rows, starts = private
    k = max(0, bisect_right(starts, first_line) - 1)
    row_type = _cli._Row
    for row in rows[k:]:
        if isinstance(row, row_type):
            if row.line > last:
                return
            view = _view_of_row(lines, row, n)
            if view.end_line < first_line:
                continue
            yield ("heredoc", row.line, view)
        elif row >= 0:
            if row > last:
                return
            if row >= first_line:
                yield ("command", row, None)
        else:
            line = ~row
            if line > last:
                return
            if line >= first_line:
                yield ("comment", line, None)


def iter_closed_openers(
    script: CliScript, first_line: int = 0, last_line: int | None = None
) -> Iterator[tuple[int, str, str, str, str | None, CommandSchema | None, Any]]:
    """The closed heredocs without error whose body is no structured parameters, with their opener on lines
    ``first_line..last_line`` (inclusive; default: all), as ``(line, command, tail, marker, first, schema, key)``:
    what a body's language depends on, read from the scanner's rows without a view (the body checks' pass over a
    whole script). ``command`` is the command before the operator, ``tail`` the trimmed text after the marker,
    ``first`` the body's first line (``<<-`` tabs stripped; None for an empty body); ``key`` is for
    :func:`closed_command`."""
    lines = script.lines
    n = len(lines)
    last = n - 1 if last_line is None else last_line
    private = _private_rows(script, starts=first_line > 0)
    if private is None:
        for kind, line, view in _iter_items(script, first_line, last):
            if kind == "heredoc" and view is not None and line >= first_line:
                opener = _opener_of(lines, view)
                if opener is not None:
                    yield (*opener, line)
        return
    rows, starts = private
    row_type = _cli._Row
    blanks = BLANK_CHARS
    closed_rows = getattr(script, "_closed_rows", None)
    if first_line == 0 and closed_rows is not None:
        rows = closed_rows  # (a whole parse: its closed heredocs, without walking every row)
    for row in islice(rows, bisect_left(starts, first_line) if first_line > 0 else 0, None):
        if row.__class__ is not row_type:
            continue
        i = row.line
        if i < first_line:
            continue
        if i > last:
            return
        if row.error is not None or row.terminator < 0 or (row.params is not None and row.params.mode != "text"):
            continue
        if row.simple:  # `cmd <<WORD` ending the line: no quote, no tail
            text = lines[i]
            col = row.col
            first = lines[i + 1] if row.terminator > i + 1 else None
            yield (i, text[col : col + row.op_at].rstrip(blanks), "", row.marker, first, row.schema, row)
            continue
        opener = _opener_of(lines, _view_of_row(lines, row, n))
        if opener is not None:
            yield (*opener, row)


def _opener_of(
    lines: Sequence[str], view: HeredocView
) -> tuple[int, str, str, str, str | None, CommandSchema | None] | None:
    if view.error is not None or view.terminator_line is None:
        return None
    if view.params is not None and view.params.mode != "text":
        return None
    text = lines[view.line]
    command = text[view.col : view.col + view.cmd_len]
    tail = text[view.marker_col + len(view.marker) + len(view.quote) :].strip(BLANK_CHARS)
    first = None
    if view.body_end > view.body_start:
        first = lines[view.body_start].lstrip("\t") if view.strip_tabs else lines[view.body_start]
    return view.line, command, tail, view.marker, first, view.schema


def closed_command(script: CliScript, key: Any) -> Command:
    """The :class:`Command` of a heredoc yielded by :func:`iter_closed_openers` (its ``key``), built alone."""
    if isinstance(key, int):
        command = script.item_at(key)  # (the fallback path: the key is the opener line)
        assert isinstance(command, Command)
        return command
    built = _cli._build_items(script.lines, [key], script._schemas)
    command = built[0]
    assert isinstance(command, Command)
    return command


def closed_body(script: CliScript, key: Any) -> tuple[int, tuple[str, ...]]:
    """The first line and the lines (``<<-`` tabs stripped) of the body of a heredoc yielded by
    :func:`iter_closed_openers` (its ``key``), read without building its :class:`Command`."""
    if isinstance(key, int):
        heredoc = closed_command(script, key).heredoc
        assert heredoc is not None
        return heredoc.body_start, heredoc.body
    body = tuple(script.lines[key.line + 1 : key.terminator])
    return key.line + 1, tuple(b.lstrip("\t") for b in body) if key.strip else body


def _iter_items(script: CliScript, first: int, last: int) -> Iterator[Row]:
    for item in script.items:
        if item.line > last:
            return
        if item.end_line < first:
            continue
        if isinstance(item, Comment):
            yield ("comment", item.line, None)
        elif item.heredoc is None:
            yield ("command", item.line, None)
        else:
            yield ("heredoc", item.line, view_of_command(item))


def item_at(script: CliScript, line: int) -> Item | None:
    """The item covering ``line`` (opener, body or terminator line), built alone; None between items."""
    private = _private_rows(script)
    if private is None:
        return script.item_at(line)
    rows, starts = private
    k = bisect_right(starts, line) - 1
    if k < 0:
        return None
    row = rows[k]
    built = _cli._build_items(script.lines, [row], script._schemas)
    item: Item = built[0]
    return item if item.end_line >= line else None


def trimmed(line: str) -> tuple[int, str]:
    """(column of the first non-blank, trimmed text) of a line."""
    t = line.strip(BLANK_CHARS)
    return (len(line) - len(line.lstrip(BLANK_CHARS)) if t else 0), t
