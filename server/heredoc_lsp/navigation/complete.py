"""Completion candidates at a position (pure: the LSP layer picks snippet or plain text and converts ranges).

- ``.cli``, start of a top-level line: configured command names (and, as a snippet, the command with a heredoc
  skeleton holding its required parameters); after ``cmd <<``: a marker (the configured terminator or ``EOF``);
- in a structured body, at the start of a line: delimiters of allowed parameters not used yet, required first, in
  the body's delimiter style (UUID-prefixed bodies get the same id);
- in an unclosed heredoc: the marker, to close it;
- inbox: tags at ``[`` (snippets with their required attributes and closing tag), the closer of the unclosed
  block around the cursor, attribute names inside a tag, workspace paths inside ``path="…"``;
- outbox: the markers of missing sections at the start of a line.

Every candidate replaces ``replace`` (a one-line span ending at the cursor) with ``text`` or, for clients with
snippet support, ``snippet`` when it is set.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heredoc_lsp.languages import Language
from heredoc_lsp.navigation.describe import INBOX_ATTRS, INBOX_COMMANDS, schema_lines
from heredoc_lsp.navigation.locate import inbox_command_at
from heredoc_lsp.navigation.workspace_paths import list_entries
from heredoc_lsp.syntax.cli import CliScript, Command
from heredoc_lsp.syntax.cli_rows import item_at
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.inbox import BLOCK_COMMANDS, COMMANDS, REQUIRED_ATTRS, SELF_CLOSING_COMMANDS, InboxReply
from heredoc_lsp.syntax.outbox import SECTION_NAMES, Outbox, marker
from heredoc_lsp.syntax.params import ParamsBody, delimiter_text, parse_params
from heredoc_lsp.syntax.schema import CommandSchema, lookup_schema
from heredoc_lsp.syntax.text import BLANK_CHARS

Point = tuple[int, int]

TRIGGER_CHARACTERS: tuple[str, ...] = ("[", "/", '"', "-", "<")

_DELIMITER_PREFIX = re.compile(r"-{0,3}(?:\(UUID:[0-9A-Fa-f-]*\)?)?[A-Z_]*-{0,3}")
_OPERATOR_PREFIX = re.compile(r"(?<![^ \t\f\v])<<-?[ \t]*(['\"]?)([A-Za-z0-9_]*)\Z")
_TAG_PREFIX = re.compile(r"\[([A-Z_]*)\Z")
_CLOSER_PREFIX = re.compile(r"\[/?([A-Z_]*)\Z")
_OPEN_TAG = re.compile(r"[ \t\f\v]*\[([A-Z_]+)(?=[ \t\f\v/\]])")
_ATTR_VALUE = re.compile(r"(?<![^ \t\f\v])([A-Za-z_][A-Za-z0-9_]*)=\"((?:[^\"\\]|\\.)*)\Z")
_ATTR_NAME = re.compile(r"[ \t\f\v]([A-Za-z_][A-Za-z0-9_]*)?\Z")
_ATTR_SEEN = re.compile(r"(?<![^ \t\f\v])([A-Za-z_][A-Za-z0-9_]*)=")

_EDIT_ATTRS = ("path", "start_line", "end_line")


@dataclass(frozen=True, slots=True)
class Candidate:
    label: str
    kind: str  # an LSP CompletionItemKind member name
    text: str
    replace: Span
    snippet: str | None = None  # LSP snippet syntax, used when the client supports snippets
    detail: str | None = None
    documentation: str | None = None  # Markdown
    sort: str | None = None
    filter: str | None = None


def snippet_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


def candidates(
    language: Language,
    lines: Sequence[str],
    tree: Any,
    point: Point,
    schemas: Mapping[str, CommandSchema],
    workspace: Path | None,
) -> list[Candidate]:
    line, col = point
    if not 0 <= line < len(lines):
        if language is Language.CLI and line == len(lines):
            return _command_names("", Span(line, 0, line, 0), schemas)
        return []
    text = lines[line]
    col = min(col, len(text))
    prefix = text[:col]
    if language is Language.CLI and isinstance(tree, CliScript):
        return _cli(lines, tree, line, col, prefix, schemas)
    if language is Language.INBOX and isinstance(tree, InboxReply):
        return _inbox(tree, line, col, prefix, workspace)
    if language is Language.OUTBOX and isinstance(tree, Outbox):
        return _outbox(tree, line, col, prefix)
    if isinstance(tree, ParamsBody):
        return _delimiters(tree, None, line, col, text)
    return []


# -- .cli -------------------------------------------------------------------------------------------------------


def _cli(
    lines: Sequence[str], script: CliScript, line: int, col: int, prefix: str, schemas: Mapping[str, CommandSchema]
) -> list[Candidate]:
    item = item_at(script, line)
    if isinstance(item, Command) and item.heredoc is not None and item.heredoc.body_start <= line < item.end_line + 1:
        h = item.heredoc
        in_body = h.body_start <= line < h.body_end
        if in_body:
            out: list[Candidate] = []
            schema = (
                item.schema if item.schema is not None else (lookup_schema(schemas, item.text) if schemas else None)
            )
            body = item.params
            if body is None and schema is not None and schema.mode != "text":
                body = parse_params(lines[h.body_start : h.body_end], schema, line_offset=h.body_start)
            if body is not None or (schema is not None and schema.mode == "multi"):
                out.extend(_delimiters(body, schema, line, col, lines[line]))
            if h.terminator_line is None and h.marker:
                out.extend(_close_marker(item, line, col, prefix))
            return out
        if line != item.line:  # the terminator line
            return []
    start = len(prefix) - len(prefix.lstrip(BLANK_CHARS))
    typed = prefix[start:]
    m = _OPERATOR_PREFIX.search(typed)
    if m is not None and m.start() > 0:
        command = typed[: m.start()].rstrip(BLANK_CHARS)
        schema = lookup_schema(schemas, command) if schemas else None
        name = (schema.terminator if schema is not None else None) or "EOF"
        word_start = col - len(m.group(2))
        return [
            Candidate(
                name,
                "Keyword",
                name,
                Span(line, word_start, line, col),
                detail="heredoc marker" + (f" (terminator of {schema.name})" if schema and schema.terminator else ""),
            )
        ]
    if "<<" in typed:
        return []
    return _command_names(typed, Span(line, start, line, col), schemas)


def _command_names(typed: str, replace: Span, schemas: Mapping[str, CommandSchema]) -> list[Candidate]:
    out: list[Candidate] = []
    for name, schema in sorted(schemas.items()):
        if not name.startswith(typed):
            continue
        doc = "\n".join(f"- {x}" for x in schema_lines(schema))
        out.append(
            Candidate(
                name,
                "Function",
                name,
                replace,
                detail=f"configured command ({schema.mode})",
                documentation=doc,
                sort=f"0{name}",
            )
        )
        if schema.mode != "text" or schema.terminator:
            out.append(
                Candidate(
                    f"{name} <<{schema.terminator or 'EOF'}",
                    "Snippet",
                    _skeleton(name, schema, snippet=False),
                    replace,
                    snippet=_skeleton(name, schema, snippet=True),
                    detail="command with a heredoc",
                    documentation=doc,
                    sort=f"1{name}",
                    filter=name,
                )
            )
    return out


def _skeleton(name: str, schema: CommandSchema, *, snippet: bool) -> str:
    marker_word = schema.terminator or "EOF"
    lines: list[str] = []
    stop = 2
    if schema.mode == "multi":
        names = list(schema.required) or list(schema.params or ())[:1]
        for param in names:
            lines.append(f"---{param}---")
            lines.append(f"${{{stop}}}" if snippet else "")
            stop += 1
    else:
        lines.append("$0" if snippet else "")
    head = f"{name} <<${{1:{marker_word}}}" if snippet else f"{name} <<{marker_word}"
    tail = "$1" if snippet else marker_word
    return "\n".join([head, *lines, tail])


def _delimiters(
    body: ParamsBody | None,
    schema: CommandSchema | None,
    line: int,
    col: int,
    text: str,
) -> list[Candidate]:
    """Delimiters of allowed parameters not used yet, when the cursor is at a line start that could be one."""
    typed = text[:col]
    if not _DELIMITER_PREFIX.fullmatch(typed):
        return []
    if schema is None:
        return []
    allowed = list(schema.params) if schema.params is not None else list(schema.required)
    used = {p.name for p in body.params if p.kind == "param" and p.line != line} if body is not None else set()
    uuid = body.uuid if body is not None and body.style == "uuid" else None
    rest = len(text.rstrip(BLANK_CHARS)) if text.startswith("-") else col
    replace = Span(line, 0, line, max(col, rest))
    out: list[Candidate] = []
    for name in allowed:
        if name in used:
            continue
        required = name in schema.required
        delim = delimiter_text(name, uuid)
        out.append(
            Candidate(
                delim,
                "Field",
                delim,
                replace,
                snippet=snippet_escape(delim) + "\n$0",
                detail=("required parameter" if required else "parameter") + f" of {schema.name}",
                sort=("0" if required else "1") + f"{allowed.index(name):04d}",
                filter=delim,
            )
        )
    return out


def _close_marker(command: Command, line: int, col: int, prefix: str) -> list[Candidate]:
    h = command.heredoc
    assert h is not None
    start = len(prefix) - len(prefix.lstrip(BLANK_CHARS))
    typed = prefix[start:]
    if typed and not h.marker.startswith(typed):
        return []
    return [
        Candidate(
            h.marker,
            "Keyword",
            h.marker,
            Span(line, start, line, col),
            detail=f"close the heredoc opened on line {command.line + 1}",
            sort="2",
        )
    ]


# -- inbox -------------------------------------------------------------------------------------------------------


def _tag_snippet(name: str, *, snippet: bool) -> str:
    attrs = REQUIRED_ATTRS.get(name, ())
    parts = [f'{a}="${{{i}}}"' if snippet else f'{a}=""' for i, a in enumerate(attrs, 1)]
    head = f"[{name}" + "".join(" " + p for p in parts) + "]"
    if name in SELF_CLOSING_COMMANDS:
        return head + ("$0" if snippet else "")
    return "\n".join([head, "$0" if snippet else "", f"[/{name}]"])


def _inbox(reply: InboxReply, line: int, col: int, prefix: str, workspace: Path | None) -> list[Candidate]:
    c = inbox_command_at(reply, line)
    out: list[Candidate] = []
    if c is not None and line != c.line:
        # Inside a block: nothing while it is closed (tags there are body text); its closer while it is missing,
        # and the tags too (the closer may have been forgotten).
        if c.close_line is not None or c.body_lines is None:
            return []
        m = _CLOSER_PREFIX.search(prefix)
        start = len(prefix) - len(prefix.lstrip(BLANK_CHARS))
        if m is None or m.start() != start:
            return []
        closer = f"[/{c.name}]"
        where = Span(line, m.start(), line, col)
        out.append(
            Candidate(closer, "Keyword", closer, where, detail=f"close [{c.name}] of line {c.line + 1}", sort="!")
        )
        if prefix[m.start() :].startswith("[/"):
            return out
    opener = _OPEN_TAG.match(prefix)
    if opener is None:
        m = _TAG_PREFIX.search(prefix)
        if m is None or prefix[: m.start()].strip(BLANK_CHARS):
            return out
        replace = Span(line, m.start(), line, col)
        for i, name in enumerate(BLOCK_COMMANDS + SELF_CLOSING_COMMANDS):
            out.append(
                Candidate(
                    f"[{name}",
                    "Keyword",
                    _tag_snippet(name, snippet=False),
                    replace,
                    snippet=_tag_snippet(name, snippet=True),
                    detail="block" if name in BLOCK_COMMANDS else "self-closing",
                    documentation=INBOX_COMMANDS.get(name),
                    sort=f"{i:02d}",
                    filter=f"[{name}",
                )
            )
        return out
    name = opener.group(1)
    if name not in COMMANDS:
        return []
    value = _ATTR_VALUE.search(prefix)
    if value is not None and _inside_open_quote(prefix, opener.end()):
        if value.group(1).lower() != "path":
            return []
        typed = value.group(2)
        replace = Span(line, col - len(typed), line, col)
        return [
            Candidate(
                e.path,
                "Folder" if e.is_dir else "File",
                e.path,
                replace,
                detail="directory" if e.is_dir else "file",
                sort=("0" if e.is_dir else "1") + e.path,
            )
            for e in list_entries(workspace, typed)
        ]
    if _inside_open_quote(prefix, opener.end()):
        return []
    attr = _ATTR_NAME.search(prefix, opener.end() - 1)
    if attr is None or "]" in prefix[opener.end() :]:
        return []
    seen = {m.group(1).lower() for m in _ATTR_SEEN.finditer(prefix, opener.end())}
    typed_name = attr.group(1) or ""
    seen.discard(typed_name.lower())
    names = _EDIT_ATTRS if name == "EDIT_FILE" else REQUIRED_ATTRS.get(name, ())
    replace = Span(line, col - len(typed_name), line, col)

    return [
        Candidate(
            a,
            "Property",
            f'{a}=""',
            replace,
            snippet=f'{a}="$1"',
            detail=f"required by {name}",
            documentation=INBOX_ATTRS.get(a),
            sort=f"{i}",
        )
        for i, a in enumerate(names)
        if a not in seen
    ]


def _inside_open_quote(prefix: str, start: int) -> bool:
    """True when ``prefix[start:]`` ends inside a double-quoted value (escapes honoured)."""
    inside = False
    k = start
    n = len(prefix)
    while k < n:
        ch = prefix[k]
        if inside and ch == "\\" and k + 1 < n:
            k += 2
            continue
        if ch == '"':
            inside = not inside
        k += 1
    return inside


# -- outbox ------------------------------------------------------------------------------------------------------


def _outbox(box: Outbox, line: int, col: int, prefix: str) -> list[Candidate]:
    if prefix.strip("=" + BLANK_CHARS + "ABCDEFGHIJKLMNOPQRSTUVWXYZ") or (prefix and not prefix.startswith("=")):
        return []
    missing = [n for n in SECTION_NAMES if n not in box.sections]
    replace = Span(line, 0, line, col)
    return [
        Candidate(marker(n), "Keyword", marker(n), replace, detail="missing section", sort=f"{SECTION_NAMES.index(n)}")
        for n in missing
    ]
