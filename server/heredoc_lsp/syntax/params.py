"""Structured heredoc bodies: ``---NAME---`` delimited parameters (docs/formats.md).

``parse_params`` takes the body's lines (stdin lines: already split, ``<<-`` tabs already stripped) and returns an
immutable :class:`ParamsBody`. Positions are absolute: body line ``k`` is document line ``line_offset + k``, and its
columns are shifted by ``col_offsets[k]`` (the tabs ``<<-`` removed), so a ``.cli`` parse can hand the result to the
language server as is.

Modes come from the command's schema: ``multi`` (delimited parameters; also the mode without a schema, where any
name is allowed and none is required), ``single`` (the whole body is one value) and ``text`` (only the terminator
is checked).

Choices the rules of docs/formats.md leave open: UUID IDs compare case-insensitively; ``duplicate`` is reported at the
repeat and its "line N" is the first occurrence's 1-based document line (related information points there too); unknown
and repeated sections are not also reported ``empty``; all text before the first delimiter is one
``content_before_delimiter`` diagnostic; a ``collision`` is an indented line that would be a real delimiter of an
allowed name in the body's style.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from heredoc_lsp.syntax.diagnostics import Diagnostic, Related, Severity, Span, error, warning
from heredoc_lsp.syntax.lazy_re import lazy_compile
from heredoc_lsp.syntax.records import record
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import BLANK_CHARS, is_blank, trim, trim_end

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from heredoc_lsp.syntax.schema import Mode

    Style = Literal["plain", "uuid"]
    ParamKind = Literal["param", "unknown", "duplicate"]


# A delimiter once trailing blanks are removed: ---NAME--- or ---(UUID:ID)NAME---, ID = 8 hex digits or a
# canonical UUID. NAME is ASCII upper case and '_' only (no digits, no lower case).
_DELIMITER = lazy_compile(
    r"---(?:\(UUID:([0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}|[0-9A-Fa-f]{8})\))?([A-Z_]+)---"
)

CONTENT_BEFORE_MESSAGE = "Content before first parameter delimiter: start the body with a ---NAME--- line"


@record
class Delimiter:
    """A delimiter-shaped text (already trimmed at the end): the name, its UUID (or None) and the name's column."""

    name: str
    uuid: str | None
    name_col: int


def match_delimiter(text: str) -> Delimiter | None:
    """Parse ``text`` (a line without trailing blanks, starting at column 0) as a delimiter."""
    if not text.startswith("---"):
        return None
    m = _DELIMITER.fullmatch(text)
    if m is None:
        return None
    uuid = m.group(1)
    return Delimiter(m.group(2), uuid, m.start(2))


def is_delimiter_line(line: str) -> bool:
    """True when ``line`` is a real delimiter: starts at column 0, trailing blanks allowed."""
    return line.startswith("---") and _DELIMITER.fullmatch(trim_end(line)) is not None


def is_structured_start(lines: Sequence[str]) -> bool:
    """True when the first non-blank line is a delimiter (how an unconfigured body is recognised as structured)."""
    for line in lines:
        if not is_blank(line):
            return is_delimiter_line(line)
    return False


def delimiter_text(name: str, uuid: str | None = None) -> str:
    """The delimiter line for ``name`` (plain, or UUID-prefixed when ``uuid`` is given)."""
    return f"---(UUID:{uuid}){name}---" if uuid else f"---{name}---"


@record
class Param:
    """One parameter section.

    ``line``/``delimiter_span``/``name_span`` are None only in single mode without a ``---NAME---`` line.
    ``value_start``..``value_end`` (half-open, absolute lines) hold the value after blank lines at both ends are
    removed; ``section_end`` is the exclusive end of the raw section (next delimiter or end of body).
    ``kind``: ``param`` (counts), ``unknown`` (name not allowed, content dropped), ``duplicate`` (a repeat).
    """

    name: str
    line: int | None
    delimiter_span: Span | None
    name_span: Span | None
    value: str
    value_start: int
    value_end: int
    section_end: int
    kind: ParamKind = "param"


@record
class ParamsBody:
    """The parse of one structured body.

    ``values`` maps parameter name to value, or is None when the body has errors. ``delimiter_lines`` are the lines
    of real delimiters that start a counted or unknown parameter (what "switch to UUID delimiters" rewrites);
    ``collision_lines`` are lines that look like delimiters but stay content: duplicate repeats and indented
    delimiters (the quick fix leaves them as they are). ``start_line``/``end_line`` bound the body (half-open).
    """

    mode: Mode
    style: Style | None
    uuid: str | None
    params: tuple[Param, ...]
    values: dict[str, str] | None
    delimiter_lines: tuple[int, ...]
    collision_lines: tuple[int, ...]
    diagnostics: tuple[Diagnostic, ...]
    start_line: int = 0
    end_line: int = 0

    @property
    def has_errors(self) -> bool:
        return self.values is None


class _Positions:
    """Maps body line indexes and columns to document positions."""

    __slots__ = ("col_offsets", "lines", "offset")

    def __init__(self, lines: Sequence[str], offset: int, col_offsets: Sequence[int] | None) -> None:
        self.lines = lines
        self.offset = offset
        self.col_offsets = col_offsets

    def span(self, k: int, start: int, end: int) -> Span:
        shift = self.col_offsets[k] if self.col_offsets is not None else 0
        return Span(self.offset + k, start + shift, self.offset + k, end + shift)

    def trimmed(self, k: int) -> Span:
        """The span of line ``k``'s text without blanks at both ends."""
        line = self.lines[k]
        t = trim(line)
        start = len(line) - len(line.lstrip(BLANK_CHARS)) if t else 0
        return self.span(k, start, start + len(t))

    def multi_line(self, first: int, last: int, first_col: int, last_col: int) -> Span:
        """A span from (first, first_col) to (last, last_col), body indexes; empty bodies give a point span."""
        if first > last or not self.lines:
            return Span(self.offset, 0, self.offset, 0)
        start = self.span(first, first_col, first_col)
        end = self.span(last, last_col, last_col)
        return Span(start.start_line, start.start_col, end.end_line, end.end_col)

    def whole(self) -> Span:
        if not self.lines:
            return Span(self.offset, 0, self.offset, 0)
        last = len(self.lines) - 1
        return self.multi_line(0, last, 0, len(self.lines[last]))


def _strip_blank_ends(lines: Sequence[str], start: int, end: int) -> tuple[int, int]:
    while start < end and is_blank(lines[start]):
        start += 1
    while end > start and is_blank(lines[end - 1]):
        end -= 1
    return start, end


def parse_params(
    lines: Sequence[str],
    schema: CommandSchema | None = None,
    *,
    line_offset: int = 0,
    col_offsets: Sequence[int] | None = None,
) -> ParamsBody:
    """Parse a structured heredoc body (docs/formats.md). Never raises; every problem becomes a diagnostic.

    ``line_offset`` is the document line of ``lines[0]`` (messages quote 1-based document lines);
    ``col_offsets[k]``, when given, is added to every column on body line ``k``.
    """
    pos = _Positions(lines, line_offset, col_offsets)
    mode: Mode = schema.mode if schema is not None else "multi"
    if mode == "single":
        body = _parse_single(lines, schema, pos)
    elif mode == "text":
        body = ParamsBody("text", None, None, (), {}, (), (), ())
    else:
        body = _parse_multi(lines, schema, pos)
    diagnostics = list(body.diagnostics)
    terminator = schema.terminator if schema is not None else None
    if terminator:
        diagnostics.extend(_terminator_collisions(lines, terminator, schema, pos))
    if diagnostics:
        diagnostics.sort(key=lambda d: (d.span.start_line, d.span.start_col))
    has_error = any(d.severity == Severity.ERROR for d in diagnostics)
    return ParamsBody(
        mode=body.mode,
        style=body.style,
        uuid=body.uuid,
        params=body.params,
        values=None if has_error else body.values,
        delimiter_lines=body.delimiter_lines,
        collision_lines=body.collision_lines,
        diagnostics=tuple(diagnostics),
        start_line=line_offset,
        end_line=line_offset + len(lines),
    )


def _terminator_collisions(
    lines: Sequence[str], terminator: str, schema: CommandSchema | None, pos: _Positions
) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    command = f" of '{schema.name}'" if schema is not None and schema.name else ""
    for k, line in enumerate(lines):
        if terminator in line and trim(line) == terminator:
            out.append(
                error(
                    pos.trimmed(k),
                    "terminator_collision",
                    f"Line '{terminator}' is the heredoc terminator{command}: "
                    "it would end the heredoc early when run from a shell",
                    data={"terminator": terminator, "line": pos.offset + k},
                )
            )
    return out


def _parse_single(lines: Sequence[str], schema: CommandSchema | None, pos: _Positions) -> ParamsBody:
    name = (schema.single_param if schema is not None else None) or "MESSAGE"
    start, end = _strip_blank_ends(lines, 0, len(lines))
    delimiter_line: int | None = None
    delimiter_span: Span | None = None
    name_span: Span | None = None
    delimiter = f"---{name.upper()}---"
    if start < end and trim_end(lines[start]) == delimiter:
        delimiter_line = start
        delimiter_span = pos.span(start, 0, len(delimiter))
        name_span = pos.span(start, 3, len(delimiter) - 3)
        start, end = _strip_blank_ends(lines, start + 1, end)
    value = "\n".join(lines[start:end])
    diagnostics: list[Diagnostic] = []
    if start >= end:
        span = delimiter_span if delimiter_span is not None else pos.whole()
        diagnostics.append(_empty(span, name))
    param = Param(
        name=name,
        line=None if delimiter_line is None else pos.offset + delimiter_line,
        delimiter_span=delimiter_span,
        name_span=name_span,
        value=value,
        value_start=pos.offset + start,
        value_end=pos.offset + end,
        section_end=pos.offset + len(lines),
    )
    delimiter_lines = () if delimiter_line is None else (pos.offset + delimiter_line,)
    return ParamsBody("single", None, None, (param,), {name: value}, delimiter_lines, (), tuple(diagnostics))


def _empty(span: Span, name: str) -> Diagnostic:
    return error(span, "empty", f"Parameter '{name}' is empty. Each parameter must have content.", data={"name": name})


class _Section:
    """A real delimiter and the body lines up to the next one (mutable while scanning)."""

    __slots__ = ("delimiter", "end", "line")

    def __init__(self, line: int, delimiter: Delimiter) -> None:
        self.line = line
        self.delimiter = delimiter
        self.end = line + 1


def _parse_multi(lines: Sequence[str], schema: CommandSchema | None, pos: _Positions) -> ParamsBody:
    allowed_names = schema.params if schema is not None else None
    allowed = frozenset(allowed_names) if allowed_names is not None else None
    style: Style | None = None
    uuid: str | None = None
    uuid_key = ""
    sections: list[_Section] = []
    before: list[int] = []  # non-blank lines before the first delimiter
    diagnostics: list[Diagnostic] = []
    collisions: list[int] = []

    for k, line in enumerate(lines):
        if line.startswith("---"):
            found = match_delimiter(trim_end(line))
            if found is not None:
                if style is None:
                    style = "plain" if found.uuid is None else "uuid"
                    uuid = found.uuid
                    uuid_key = uuid.lower() if uuid else ""
                if style == "plain":
                    if found.uuid is not None:
                        diagnostics.append(_mixed_plain(pos, k, line, found, sections[0]))
                        continue
                elif found.uuid is None:
                    continue  # a plain delimiter is ordinary content in UUID style
                elif found.uuid.lower() != uuid_key:
                    diagnostics.append(_mixed_uuid(pos, k, line, found, uuid or "", sections[0]))
                    continue
                if sections:
                    sections[-1].end = k
                sections.append(_Section(k, found))
                continue
        if style is None:
            if not is_blank(line):
                before.append(k)
        elif line[:1] in (" ", "\t", "\f", "\v"):
            t = trim(line)
            if t.startswith("---"):
                found = match_delimiter(t)
                if (
                    found is not None
                    and (found.uuid is None) == (style == "plain")
                    and (found.uuid is None or found.uuid.lower() == uuid_key)
                    and (allowed is None or found.name in allowed)
                ):
                    collisions.append(pos.offset + k)
                    diagnostics.append(_collision(pos, k, found, uuid))
    if sections:
        sections[-1].end = len(lines)

    if before:
        first, last = before[0], before[-1]
        first_col = len(lines[first]) - len(lines[first].lstrip(BLANK_CHARS))
        span = pos.multi_line(first, last, first_col, len(trim_end(lines[last])))
        diagnostics.append(error(span, "content_before_delimiter", CONTENT_BEFORE_MESSAGE))

    params: list[Param] = []
    values: dict[str, str] = {}
    first_seen: dict[str, _Section] = {}
    delimiter_lines: list[int] = []
    for sec in sections:
        d = sec.delimiter
        k = sec.line
        name_span = pos.span(k, d.name_col, d.name_col + len(d.name))
        delim_span = pos.span(k, 0, len(trim_end(lines[k])))
        start, end = _strip_blank_ends(lines, k + 1, sec.end)
        value = "\n".join(lines[start:end])
        kind: ParamKind = "param"
        if allowed is not None and d.name not in allowed:
            kind = "unknown"
            expected = ", ".join(allowed_names or ())
            diagnostics.append(
                error(
                    name_span,
                    "unknown",
                    f"Unknown parameter '{d.name}'. Expected one of: {expected}",
                    data={"name": d.name, "allowed": list(allowed_names or ())},
                )
            )
            delimiter_lines.append(pos.offset + k)
        elif d.name in first_seen:
            kind = "duplicate"
            original = first_seen[d.name]
            first_span = pos.span(original.line, 0, len(trim_end(lines[original.line])))
            collisions.append(pos.offset + k)
            diagnostics.append(
                error(
                    delim_span,
                    "duplicate",
                    f"Duplicate parameter '{d.name}' found at line {pos.offset + original.line + 1}",
                    related=(Related(first_span, f"'{d.name}' first defined here"),),
                    data={"name": d.name, "first_line": pos.offset + original.line},
                )
            )
        else:
            first_seen[d.name] = sec
            values[d.name] = value
            delimiter_lines.append(pos.offset + k)
            if start >= end:
                diagnostics.append(_empty(delim_span, d.name))
        params.append(
            Param(
                name=d.name,
                line=pos.offset + k,
                delimiter_span=delim_span,
                name_span=name_span,
                value=value if kind != "unknown" else "",
                value_start=pos.offset + start,
                value_end=pos.offset + end,
                section_end=pos.offset + sec.end,
                kind=kind,
            )
        )

    if schema is not None:
        whole = pos.whole()
        insert_line = pos.offset + len(lines)
        for name in schema.required:
            if name not in first_seen:
                diagnostics.append(
                    error(
                        whole,
                        "missing",
                        f"Required parameter '{name}' is missing",
                        data={"name": name, "insert_line": insert_line, "style": style, "uuid": uuid},
                    )
                )

    return ParamsBody(
        mode="multi",
        style=style,
        uuid=uuid,
        params=tuple(params),
        values=values,
        delimiter_lines=tuple(delimiter_lines),
        collision_lines=tuple(sorted(collisions)),
        diagnostics=tuple(diagnostics),
    )


def _mixed_plain(pos: _Positions, k: int, line: str, found: Delimiter, first: _Section) -> Diagnostic:
    first_line = pos.offset + first.line
    return error(
        pos.span(k, 0, len(trim_end(line))),
        "mixed_delimiters",
        f"Mixed delimiter styles: '---(UUID:{found.uuid}){found.name}---' has a UUID prefix but the first "
        f"delimiter (line {first_line + 1}) is plain; this line is treated as content",
        data=_mixed_data(found, first_line, None),
    )


def _mixed_uuid(pos: _Positions, k: int, line: str, found: Delimiter, uuid: str, first: _Section) -> Diagnostic:
    first_line = pos.offset + first.line
    return error(
        pos.span(k, 0, len(trim_end(line))),
        "mixed_delimiters",
        f"Mixed delimiter IDs: UUID '{found.uuid}' differs from '{uuid}' of the first delimiter "
        f"(line {first_line + 1}); this line is treated as content",
        data=_mixed_data(found, first_line, uuid),
    )


def _mixed_data(found: Delimiter, first_line: int, uuid: str | None) -> Mapping[str, Any]:
    return {"name": found.name, "found_uuid": found.uuid, "uuid": uuid, "first_line": first_line}


def _collision(pos: _Positions, k: int, found: Delimiter, uuid: str | None) -> Diagnostic:
    text = delimiter_text(found.name, found.uuid)
    return warning(
        pos.trimmed(k),
        "collision",
        f"Indented '{text}' is content, not a delimiter; it collides with parameter '{found.name}' "
        "(switch to UUID-prefixed delimiters or rephrase)",
        data={"name": found.name, "uuid": uuid},
    )
