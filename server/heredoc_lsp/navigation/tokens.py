"""Semantic tokens: what every part of a document is, so editors without our TextMate grammar (Neovim) highlight.

:func:`tokens` returns a flat list of absolute tokens, five ints each: ``line, column, length, type, modifiers``
(code points, one line per token, sorted, never overlapping). The LSP layer converts columns to the client's
encoding and to LSP's relative form. Types and modifiers are LSP's standard names (:data:`TOKEN_TYPES`,
:data:`TOKEN_MODIFIERS`), chosen so that editors colour them without configuration (Neovim links
``@lsp.type.<type>`` to its standard groups):

==========================================  =============================
what                                        token
==========================================  =============================
``#`` comment line                          ``comment``
command word (configured command: its name) ``function``
``<<`` / ``<<-``                            ``operator``
heredoc marker (opener / terminator)        ``keyword`` (+``declaration`` on the opener)
heredoc body line                           ``string``
body in a language (docs/bodies.md)         ``keyword``, ``string``, ``number``, ``comment``, ``property``
``---`` and ``(UUID:…)`` of a delimiter     ``operator``
parameter name in a delimiter               ``parameter`` + ``declaration``
inbox ``[NAME``, ``]``, ``/]``, ``[/NAME]`` ``keyword``
attribute name / ``=`` / quoted value       ``property`` / ``operator`` / ``string``
outbox ``=== NAME ===``                     ``namespace``
outbox header key / value                   ``property`` / ``string``
==========================================  =============================
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from heredoc_lsp.analysis.bodies import block_language, opener_language
from heredoc_lsp.languages import Language
from heredoc_lsp.navigation.body_tokens import BODY_TOKEN_LANGUAGES, body_tokens
from heredoc_lsp.syntax.cli import CliScript
from heredoc_lsp.syntax.cli_rows import HeredocView, iter_rows
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.inbox import InboxCommand, InboxReply
from heredoc_lsp.syntax.outbox import Outbox
from heredoc_lsp.syntax.params import ParamsBody
from heredoc_lsp.syntax.schema import CommandSchema, schema_match
from heredoc_lsp.syntax.text import BLANK_CHARS

TOKEN_TYPES: tuple[str, ...] = (
    "comment",
    "function",
    "operator",
    "keyword",
    "string",
    "parameter",
    "property",
    "namespace",
    "number",
)
TOKEN_MODIFIERS: tuple[str, ...] = ("declaration",)

COMMENT, FUNCTION, OPERATOR, KEYWORD, STRING, PARAMETER, PROPERTY, NAMESPACE, NUMBER = range(len(TOKEN_TYPES))
_BODY_KINDS = {"comment": COMMENT, "keyword": KEYWORD, "string": STRING, "number": NUMBER, "property": PROPERTY}
DECLARATION = 1  # bit of "declaration"

_WORD = re.compile(r"[^ \t\f\v]*")


def tokens(
    language: Language,
    lines: Sequence[str],
    tree: Any,
    schemas: Mapping[str, CommandSchema] | None = None,
    first_line: int = 0,
    last_line: int | None = None,
) -> list[int]:
    """Absolute tokens of lines ``first_line..last_line`` (inclusive; default: the whole document)."""
    if not lines:
        return []
    last = len(lines) - 1 if last_line is None else min(last_line, len(lines) - 1)
    first = max(0, first_line)
    if first > last:
        return []
    if language is Language.CLI and isinstance(tree, CliScript):
        return _cli(lines, tree, schemas or {}, first, last)
    out: list[int] = []
    if language is Language.INBOX and isinstance(tree, InboxReply):
        _inbox(lines, tree, first, last, out)
    elif language is Language.OUTBOX and isinstance(tree, Outbox):
        _outbox(lines, tree, first, last, out)
    elif isinstance(tree, ParamsBody):
        _body(lines, tree.start_line, tree.end_line, False, tree, first, last, out)
    return out


# -- .cli -------------------------------------------------------------------------------------------------------


def _command_word(text: str, col: int, schemas: Mapping[str, CommandSchema]) -> tuple[int, int]:
    """(column, length) of the command's name in the command starting at ``col``: the configured name when one
    matches (after ``NAME=value`` prefixes, docs/formats.md), else the first word."""
    if schemas:
        end = len(text.rstrip(BLANK_CHARS))
        found = schema_match(schemas, text[col:end])
        if found is not None:
            return col + found.start, found.end - found.start
    m = _WORD.match(text, col)
    return col, (m.end() - col if m is not None else 0)


def _cli(
    lines: Sequence[str], script: CliScript, schemas: Mapping[str, CommandSchema], first: int, last: int
) -> list[int]:
    out: list[int] = []
    extend = out.extend
    blanks = BLANK_CHARS
    for kind, line, view in iter_rows(script, first, last):
        if view is None:
            text = lines[line]
            col = len(text) - len(text.lstrip(blanks))
            if kind == "comment":
                extend((line, col, len(text.rstrip(blanks)) - col, COMMENT, 0))
            else:
                extend((line, *_command_word(text, col, schemas), FUNCTION, 0))
            continue
        _heredoc(lines, view, schemas, first, last, out)
    return out


def _heredoc(
    lines: Sequence[str], view: HeredocView, schemas: Mapping[str, CommandSchema], first: int, last: int, out: list[int]
) -> None:
    line = view.line
    if first <= line <= last:
        text = lines[line]
        if view.cmd_len:
            at, word = _command_word(text[: view.col + view.cmd_len], view.col, schemas)
            out.extend((line, at, word, FUNCTION, 0))
        out.extend((line, view.op_col, view.op_len, OPERATOR, 0))
        if view.marker:
            out.extend((line, view.marker_col, len(view.marker), KEYWORD, DECLARATION))
    language = _body_language(lines, view)
    if language is not None and language in BODY_TOKEN_LANGUAGES:
        _coloured_body(lines, view, language, first, last, out)
    else:
        _body(lines, view.body_start, view.body_end, view.strip_tabs, view.params, first, last, out)
    term = view.terminator_line
    if term is not None and first <= term <= last:
        out.extend((term, view.terminator_col, len(view.marker), KEYWORD, 0))


def _body_language(lines: Sequence[str], view: HeredocView) -> str | None:
    """The language of a closed heredoc's body (docs/bodies.md), read from the view without building the item."""
    if view.error is not None or view.terminator_line is None or view.body_end <= view.body_start:
        return None
    if view.params is not None and view.params.mode != "text":
        return None  # a structured body is parameters
    text = lines[view.line]
    command = text[view.col : view.col + view.cmd_len]
    tail = text[view.marker_col + len(view.marker) + len(view.quote) :].strip(BLANK_CHARS)
    first_body = lines[view.body_start].lstrip("\t") if view.strip_tabs else lines[view.body_start]
    lang = view.schema.lang if view.schema is not None else None
    return opener_language(lines, view.line, command, tail, view.marker, first_body, lang)


def _coloured_body(
    lines: Sequence[str], view: HeredocView, language: str, first: int, last: int, out: list[int]
) -> None:
    """The tokens of a body in its own language, for its lines within ``first..last``."""
    start, end = view.body_start, view.body_end
    if max(start, first) >= min(end, last + 1):
        return
    body = lines[start:end]
    indent: list[int] | None = None
    if view.strip_tabs:
        stripped = [line.lstrip("\t") for line in body]
        indent = [len(a) - len(b) for a, b in zip(body, stripped, strict=True)]
        body = stripped
    extend = out.extend
    for row, col, length, kind in body_tokens(language, body):
        line = start + row
        if first <= line <= last:
            extend((line, col + (indent[row] if indent else 0), length, _BODY_KINDS[kind], 0))


def _body(
    lines: Sequence[str],
    start: int,
    end: int,
    strip_tabs: bool,
    params: ParamsBody | None,
    first: int,
    last: int,
    out: list[int],
) -> None:
    """String tokens for body lines ``[start, end)`` within ``first..last``; delimiter tokens on delimiter lines."""
    lo = max(start, first)
    hi = min(end, last + 1)
    if lo >= hi:
        return
    delimiters: dict[int, tuple[Span, Span]] = {}
    if params is not None:
        for p in params.params:
            if p.line is not None and p.delimiter_span is not None and p.name_span is not None and lo <= p.line < hi:
                delimiters[p.line] = (p.delimiter_span, p.name_span)
    extend = out.extend
    for i in range(lo, hi):
        found = delimiters.get(i) if delimiters else None
        if found is not None:
            d, name = found
            extend((i, d.start_col, name.start_col - d.start_col, OPERATOR, 0))
            extend((i, name.start_col, name.end_col - name.start_col, PARAMETER, DECLARATION))
            extend((i, name.end_col, d.end_col - name.end_col, OPERATOR, 0))
            continue
        text = lines[i]
        if not text:
            continue
        col = len(text) - len(text.lstrip("\t")) if strip_tabs else 0
        if col < len(text):
            extend((i, col, len(text) - col, STRING, 0))


# -- inbox and outbox --------------------------------------------------------------------------------------------


def _span_token(span: Span, kind: int, out: list[int], mods: int = 0) -> None:
    if span.end_line == span.start_line and span.end_col > span.start_col:
        out.extend((span.start_line, span.start_col, span.end_col - span.start_col, kind, mods))


def _inbox(lines: Sequence[str], reply: InboxReply, first: int, last: int, out: list[int]) -> None:
    for c in reply.commands:
        if c.end_line < first:
            continue
        if c.line > last:
            break
        if first <= c.line <= last:
            tag = c.tag_span
            line = tag.start_line
            text = lines[line]
            _span_token(Span(line, tag.start_col, line, c.name_span.end_col), KEYWORD, out)
            for a in c.attr_list:
                _span_token(a.name_span, PROPERTY, out)
                _span_token(Span(line, a.name_span.end_col, line, a.name_span.end_col + 1), OPERATOR, out)
                _span_token(a.quoted_span, STRING, out)
            end = tag.end_col
            if text[end - 1 : end] == "]":  # the tag is complete: "]" or "/]"
                inner_end = max([c.name_span.end_col] + [a.span.end_col for a in c.attr_list])
                start = end - 2 if end - 2 >= inner_end and text[end - 2] == "/" else end - 1
                _span_token(Span(line, start, line, end), KEYWORD, out)
        if c.body_lines is not None and c.close_span is not None:
            _file_block_body(lines, c, first, last, out)
        if c.close_span is not None and first <= c.close_span.start_line <= last:
            _span_token(c.close_span, KEYWORD, out)


def _file_block_body(lines: Sequence[str], c: InboxCommand, first: int, last: int, out: list[int]) -> None:
    """The tokens of a closed ``[CREATE_FILE]``/``[EDIT_FILE]`` body in its own language (docs/bodies.md)."""
    assert c.body_lines is not None
    start, end = c.body_lines
    if max(start, first) >= min(end, last + 1):
        return
    language = block_language(lines, c)
    if language is None or language not in BODY_TOKEN_LANGUAGES:
        return
    for row, col, length, kind in body_tokens(language, lines[start:end]):
        if first <= start + row <= last:
            out.extend((start + row, col, length, _BODY_KINDS[kind], 0))


def _outbox(lines: Sequence[str], box: Outbox, first: int, last: int, out: list[int]) -> None:
    for s in box.sections.values():
        if first <= s.line <= last:
            _span_token(s.marker_span, NAMESPACE, out)
        if s.name == "HEADER" and box.header is not None:
            for f in box.header.fields:
                if first <= f.line <= last:
                    _span_token(f.key_span, PROPERTY, out)
                v = f.value_span
                for i in range(max(v.start_line, first), min(v.end_line, last) + 1):
                    text = lines[i]
                    start = v.start_col if i == v.start_line else len(text) - len(text.lstrip(BLANK_CHARS))
                    stop = v.end_col if i == v.end_line else len(text.rstrip(BLANK_CHARS))
                    if stop > start:
                        out.extend((i, start, stop - start, STRING, 0))
