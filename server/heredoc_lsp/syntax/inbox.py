"""Parser for inbox command files, the LLM's reply (docs/formats.md, everything that needs no workspace).

Input is the document's lines as :func:`heredoc_lsp.syntax.text.split_lines` gives them. Output is an immutable
:class:`InboxReply`: the commands in order, the prose line ranges and every diagnostic.

Codes (errors unless noted): ``bad_attr``, ``duplicate_attr``, ``inline_content``, ``unclosed``, ``missing_attr``,
``bad_int``, ``bad_range``, ``empty_command``, ``invalid_path``, ``path_outside_workspace``, ``bidi_control`` and
``invisible_character`` (in a tag or a RUN_COMMAND; warnings in other bodies); warnings
``stray_close``, ``nested_tag``, ``command_after_done``. Errors that belong to a command are also in
:attr:`InboxCommand.errors`: such a command is reported FAILED and never executed.

Spans: ``bad_attr``/``duplicate_attr`` the attribute (``name="value"``); value problems (``bad_int``, ``bad_range``,
path codes) the quoted value; ``missing_attr``, ``unclosed`` and ``command_after_done`` the tag name;
``empty_command`` the tag; ``inline_content`` the text after the tag; ``stray_close`` the closer; ``nested_tag``
``[NAME`` in the body. ``Diagnostic.data`` (for quick fixes): ``unclosed`` {"name", "closer", "insert_line": the
line before which the closer most likely belongs}; path codes {"path", "suggestion"?: a valid path};
``missing_attr`` {"attr", "command", "line", "insert_col": where `` attr=""`` can be inserted}; ``bad_attr``
{"kind": single_quoted | unquoted | unterminated | spaced | no_value | no_space | junk | no_bracket, "attr", "command"}.

Choices the rules leave open (docs/decisions.md):

- The opener rule is applied literally: ``[CREATE_FILE`` with nothing after the name is prose.
- ``/`` before the final ``]`` means nothing: a block command written ``[DONE /]`` still needs ``[/DONE]``.
- A RUN_COMMAND/MESSAGE/DONE body is trimmed of ASCII blanks *and line breaks* at both ends, so blank lines around
  the text go too (Unicode spaces such as NBSP are content).
- An unclosed block's body is the rest of the file; no ``empty_command`` is reported for it.
- A line ending in ``\\r`` (lines split on ``\\n`` only) has that ``\\r`` dropped before parsing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from heredoc_lsp.syntax.diagnostics import Diagnostic, Related, Severity, Span, error, warning
from heredoc_lsp.syntax.paths import check_path_text, display_path
from heredoc_lsp.syntax.text import BLANK_CHARS, trim, trim_end, trim_start
from heredoc_lsp.syntax.visible import hidden_diagnostics

BLOCK_COMMANDS: tuple[str, ...] = ("CREATE_FILE", "EDIT_FILE", "RUN_COMMAND", "MESSAGE", "DONE")
SELF_CLOSING_COMMANDS: tuple[str, ...] = ("DELETE_FILE", "READ_FILE")
COMMANDS: frozenset[str] = frozenset(BLOCK_COMMANDS + SELF_CLOSING_COMMANDS)
REQUIRED_ATTRS: Mapping[str, tuple[str, ...]] = {
    "CREATE_FILE": ("path",),
    "EDIT_FILE": ("path", "start_line", "end_line"),
    "DELETE_FILE": ("path",),
    "READ_FILE": ("path",),
}
PATH_COMMANDS: frozenset[str] = frozenset(REQUIRED_ATTRS)
TRIMMED_BODY_COMMANDS: frozenset[str] = frozenset({"RUN_COMMAND", "MESSAGE", "DONE"})

_TAG_NAME = re.compile(r"\[([A-Z_]+)")
_CLOSER = re.compile(r"\[/([A-Z_]+)\]")
_ATTR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT = re.compile(r"\s*\d+\s*", re.ASCII)
_BODY_TRIM = BLANK_CHARS + "\n"
_MAX_INT_CHARS = 30  # int() refuses more than 4300 digits; no file has 10**30 lines anyway


@dataclass(frozen=True, slots=True)
class InboxAttr:
    """One ``name="value"`` of an opener. ``value_span`` covers the raw text between the quotes."""

    name: str  # lower-cased
    value: str  # unescaped
    span: Span  # name="value", quotes included
    name_span: Span
    value_span: Span

    @property
    def quoted_span(self) -> Span:
        """The value with its quotes (never empty, unlike ``value_span`` for ``path=""``)."""
        s = self.value_span
        return Span(s.start_line, s.start_col - 1, s.end_line, s.end_col + 1)


@dataclass(frozen=True, slots=True)
class InboxCommand:
    """One command of a reply, in document order. Lines are 0-based."""

    name: str
    line: int  # the opener's line
    end_line: int  # closer line; the opener line when self-closing; the last line when unclosed
    tag_span: Span  # "[" to "]" (to the end of the text when the "]" is missing)
    name_span: Span  # NAME in "[NAME"
    attrs: Mapping[str, str]  # lower-cased name -> value; the first wins when repeated
    attr_list: tuple[InboxAttr, ...]
    body: str | None  # None for DELETE_FILE/READ_FILE
    body_lines: tuple[int, int] | None  # half-open [first, end) line range of the body; None when self-closing
    close_line: int | None  # None when self-closing or unclosed
    close_span: Span | None  # the trimmed closer text on close_line
    errors: tuple[Diagnostic, ...]  # error diagnostics of this command; any -> FAILED, not executed
    self_closing: bool
    warnings: tuple[Diagnostic, ...] = field(default=())  # nested_tag inside the body, command_after_done

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def path(self) -> str | None:
        return self.attrs.get("path")

    @property
    def line_range(self) -> tuple[int, int] | None:
        """(start_line, end_line), 1-based inclusive, when both are present and valid (EDIT_FILE)."""
        first, last = _parse_int(self.attrs.get("start_line")), _parse_int(self.attrs.get("end_line"))
        if first is None or last is None:
            return None
        return (first, last) if 1 <= first <= last else None

    def attr(self, name: str) -> InboxAttr | None:
        """The first attribute called ``name`` (case-insensitive)."""
        lowered = name.lower()
        return next((a for a in self.attr_list if a.name == lowered), None)


@dataclass(frozen=True, slots=True)
class InboxReply:
    commands: tuple[InboxCommand, ...]
    prose: tuple[tuple[int, int], ...]  # half-open line ranges outside every block
    diagnostics: tuple[Diagnostic, ...]  # all of them, in document order

    @property
    def has_errors(self) -> bool:
        return any(d.severity == Severity.ERROR for d in self.diagnostics)


def _parse_int(value: str | None) -> int | None:
    """A line number per docs/formats.md (``^\\s*\\d+\\s*$``, ASCII digits); None when malformed or absurdly long."""
    if value is None or not _INT.fullmatch(value) or len(trim(value)) > _MAX_INT_CHARS:
        return None
    return int(value)


def escape_attr_value(value: str) -> str:
    """The text to put between the double quotes so that it reads back as ``value``."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def closer_for(name: str) -> str:
    return f"[/{name}]"


def match_opener(line: str) -> tuple[int, str] | None:
    """(column of "[", NAME) when ``line`` is a command opener per docs/formats.md, else None."""
    text = trim(line)
    m = _TAG_NAME.match(text)
    if m is None or m.group(1) not in COMMANDS or m.end() >= len(text) or text[m.end()] not in BLANK_CHARS + "/]":
        return None
    return len(line) - len(trim_start(line)), m.group(1)


def match_closer(line: str) -> str | None:
    """NAME when the trimmed line is ``[/NAME]`` for a known command."""
    m = _CLOSER.fullmatch(trim(line))
    return m.group(1) if m and m.group(1) in COMMANDS else None


# --- the opener tag -------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Tag:
    span: Span
    name_span: Span
    attrs: list[InboxAttr] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    bad_names: set[str] = field(default_factory=set)  # attributes whose bad_attr makes a missing_attr redundant
    inline: Diagnostic | None = None


def _skip_blanks(line: str, p: int, end: int) -> int:
    while p < end and line[p] in BLANK_CHARS:
        p += 1
    return p


def _skip_token(line: str, p: int, end: int) -> int:
    """The end of a malformed token: the next blank or ``]``."""
    while p < end and line[p] not in BLANK_CHARS and line[p] != "]":
        p += 1
    return p


def _scan_quoted(line: str, p: int, end: int) -> tuple[str, int] | None:
    """Unescape a value starting after its opening quote; (value, index of the closing quote) or None."""
    out: list[str] = []
    while p < end:
        ch = line[p]
        if ch == "\\" and p + 1 < end and line[p + 1] in '"\\':
            out.append(line[p + 1])
            p += 2
            continue
        if ch == '"':
            return "".join(out), p
        out.append(ch)
        p += 1
    return None


def _parse_tag(line: str, lineno: int, col: int, name: str) -> _Tag:
    end = len(trim_end(line))
    name_span = Span.at(lineno, col + 1, col + 1 + len(name))
    tag = _Tag(span=Span.at(lineno, col, end), name_span=name_span)
    seen: dict[str, InboxAttr] = {}

    def bad(start: int, stop: int, message: str, kind: str, attr: str | None = None) -> None:
        if attr is not None:
            tag.bad_names.add(attr.lower())
        data = {"kind": kind, "attr": attr.lower() if attr else None, "command": name}
        tag.diagnostics.append(error(Span.at(lineno, start, stop), "bad_attr", message, data=data))

    p = col + 1 + len(name)
    tag_end: int | None = None
    while True:
        p = _skip_blanks(line, p, end)
        if p >= end:
            bad(col, end, f"{name} tag has no closing ']'", "no_bracket")
            break
        ch = line[p]
        if ch == "]":
            tag_end = p + 1
            break
        if ch == "/" and p + 1 < end and line[p + 1] == "]":
            tag_end = p + 2
            break
        m = _ATTR_NAME.match(line, p)
        if m is None:
            stop = max(_skip_token(line, p, end), p + 1)
            bad(p, stop, f"Unexpected '{line[p:stop]}' in {name} tag; attributes are written name=\"value\"", "junk")
            p = stop
            continue
        raw_name = m.group()
        q = m.end()
        eq = _skip_blanks(line, q, end)
        if eq < end and line[eq] == "=" and (eq > q or (eq + 1 < end and line[eq + 1] in BLANK_CHARS)):
            # name = "value": one diagnostic for the whole attribute rather than one per fragment
            r = _skip_blanks(line, eq + 1, end)
            is_quoted = r < end and line[r] == '"'
            quoted = _scan_quoted(line, r + 1, end) if is_quoted else None
            stop = quoted[1] + 1 if quoted else end if is_quoted else _skip_token(line, r, end)
            msg = f"Attribute '{raw_name}' has spaces around '='; write {raw_name}=\"...\""
            bad(p, stop, msg, "spaced", raw_name)
            if is_quoted and quoted is None:
                break  # an unterminated quote swallowed the rest
            p = stop
            continue
        if q >= end or line[q] != "=":
            stop = _skip_token(line, q, end)
            bad(p, stop, f"Attribute '{raw_name}' has no value; write {raw_name}=\"...\"", "no_value", raw_name)
            p = stop
            continue
        opener = line[q + 1] if q + 1 < end else ""
        if opener == "'":
            close = line.find("'", q + 2, end)
            stop = end if close < 0 else close + 1
            bad(p, stop, f"Attribute '{raw_name}' uses single quotes; use double quotes", "single_quoted", raw_name)
            if close < 0:
                break  # the quote swallowed the rest, "]" included: one diagnostic is enough
            p = stop
            continue
        if opener != '"':
            stop = _skip_token(line, q + 1, end)
            msg = f"Attribute '{raw_name}' value must be in double quotes"
            bad(p, stop, msg, "unquoted", raw_name)
            p = stop
            continue
        scanned = _scan_quoted(line, q + 2, end)
        if scanned is None:
            bad(p, end, f"Attribute '{raw_name}' has an unterminated quoted value", "unterminated", raw_name)
            break
        value, close = scanned
        attr = InboxAttr(
            name=raw_name.lower(),
            value=value,
            span=Span.at(lineno, p, close + 1),
            name_span=Span.at(lineno, p, q),
            value_span=Span.at(lineno, q + 2, close),
        )
        tag.attrs.append(attr)
        first = seen.get(attr.name)
        if first is None:
            seen[attr.name] = attr
        else:
            first_col = first.span.start_col + 1
            tag.diagnostics.append(
                error(
                    attr.span,
                    "duplicate_attr",
                    f"Duplicate attribute '{attr.name}' in {name} tag (first at column {first_col}); "
                    "the first value is used",
                    related=(Related(first.span, f"first '{attr.name}'"),),
                    data={"attr": attr.name, "command": name},
                )
            )
        p = close + 1
        if p < end and line[p] not in BLANK_CHARS and line[p] not in "/]":
            bad(p, p + 1, f"Missing whitespace before '{line[p]}' in {name} tag; separate attributes", "no_space")
    if tag_end is not None:
        tag.span = Span.at(lineno, col, tag_end)
        rest = _skip_blanks(line, tag_end, end)
        if rest < end:
            tag.inline = error(
                Span.at(lineno, rest, end),
                "inline_content",
                f"Text after the {name} tag on the same line; the line is ignored. Put the body on the following lines",
                data={"command": name, "tag_end": tag_end},
            )
    return tag


# --- attribute checks -----------------------------------------------------------------------------------------------


def _attr_errors(name: str, tag: _Tag) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    first: dict[str, InboxAttr] = {}
    for a in tag.attrs:
        first.setdefault(a.name, a)
    insert_col = tag.name_span.end_col  # ` attr=""` fits right after the name whatever follows
    for req in REQUIRED_ATTRS.get(name, ()):
        if req not in first and req not in tag.bad_names:
            out.append(
                error(
                    tag.name_span,
                    "missing_attr",
                    f"{name} is missing the required attribute '{req}'",
                    data={"attr": req, "command": name, "line": tag.span.start_line, "insert_col": insert_col},
                )
            )
    if name in PATH_COMMANDS and "path" in first:
        attr = first["path"]
        problem = check_path_text(attr.value)
        if problem is not None:
            data: dict[str, Any] = {"path": attr.value}
            if problem.suggestion is not None:
                data["suggestion"] = problem.suggestion
            out.append(Diagnostic(attr.quoted_span, Severity.ERROR, problem.code, problem.message, data=data))
    if name == "EDIT_FILE":
        out.extend(_range_errors(first))
    return out


def _range_errors(first: Mapping[str, InboxAttr]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    numbers: dict[str, int] = {}
    for key in ("start_line", "end_line"):
        attr = first.get(key)
        if attr is None:
            continue
        number = _parse_int(attr.value)
        if number is not None:
            numbers[key] = number
        elif _INT.fullmatch(attr.value):
            out.append(error(attr.quoted_span, "bad_int", f"{key} is too large", data={"attr": key}))
        else:
            out.append(
                error(
                    attr.quoted_span,
                    "bad_int",
                    f"{key} must be a whole number, got '{attr.value}'",
                    data={"attr": key},
                )
            )
    start, stop = numbers.get("start_line"), numbers.get("end_line")
    if start is not None and start < 1:
        out.append(error(first["start_line"].quoted_span, "bad_range", f"start_line must be at least 1, got {start}"))
    elif start is not None and stop is not None and stop < start:
        out.append(
            error(
                first["end_line"].quoted_span,
                "bad_range",
                f"end_line ({stop}) is before start_line ({start})",
                related=(Related(first["start_line"].quoted_span, "start_line"),),
            )
        )
    return out


# --- the document ---------------------------------------------------------------------------------------------------


def _nested_warnings(lines: Sequence[str], first: int, end: int, outer: str) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for i in range(first, end):
        found = match_opener(lines[i])
        if found is not None:
            col, inner = found
            out.append(
                warning(
                    Span.at(i, col, col + 1 + len(inner)),
                    "nested_tag",
                    f"[{inner} inside the {outer} body is body text, not a command",
                    data={"command": inner, "outer": outer},
                )
            )
    return out


def _closer_insert_line(lines: Sequence[str], first: int, end: int) -> int:
    """Where a missing closer most likely belongs: before the first later command-looking line, else at the end."""
    for i in range(first, end):
        if match_opener(lines[i]) is not None or match_closer(lines[i]) is not None:
            return i
    return end


def _hidden_in_body(
    name: str, lines: Sequence[str], first: int, end: int, errors: list[Diagnostic], warnings: list[Diagnostic]
) -> None:
    """Bidirectional controls and invisible characters in a body: errors in a RUN_COMMAND (the command fails),
    warnings in a file's or a message's text (which may hold them on purpose, e.g. a ZWNJ in Persian prose)."""
    runs = name == "RUN_COMMAND"
    for k in range(first, end):
        if not lines[k].isascii():
            found = hidden_diagnostics(
                k,
                lines[k],
                "a RUN_COMMAND" if runs else f"the text of {name}",
                Severity.ERROR if runs else Severity.WARNING,
            )
            (errors if runs else warnings).extend(found)


def _body_text(name: str, body: Sequence[str]) -> str:
    text = "\n".join(body)
    return text.strip(_BODY_TRIM) if name in TRIMMED_BODY_COMMANDS else text


def _ranges(flags: Sequence[bool]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    start: int | None = None
    for i, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            out.append((start, i))
            start = None
    return tuple(out)


def parse_inbox(lines: Sequence[str]) -> InboxReply:
    """Parse a reply given as lines (no terminators). Never raises."""
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    n = len(lines)
    prose = [False] * n
    commands: list[InboxCommand] = []
    diagnostics: list[Diagnostic] = []
    done: InboxCommand | None = None
    i = 0
    while i < n:
        line = lines[i]
        opener = match_opener(line)
        if opener is None:
            prose[i] = True
            closed = match_closer(line)
            if closed is not None:
                col = len(line) - len(trim_start(line))
                diagnostics.append(
                    warning(
                        Span.at(i, col, len(trim_end(line))),
                        "stray_close",
                        f"[/{closed}] has no matching [{closed}] opener; it is ignored",
                        data={"command": closed},
                    )
                )
            i += 1
            continue
        col, name = opener
        tag = _parse_tag(line, i, col, name)
        if tag.inline is not None:
            prose[i] = True
            diagnostics.extend(tag.diagnostics)
            diagnostics.append(tag.inline)
            i += 1
            continue
        errors = tag.diagnostics + _attr_errors(name, tag)
        errors.extend(hidden_diagnostics(i, line, "a path" if name in PATH_COMMANDS else f"a {name} tag"))
        warnings: list[Diagnostic] = []
        if done is not None:
            warnings.append(
                warning(
                    tag.name_span,
                    "command_after_done",
                    f"{name} comes after [DONE] (line {done.line + 1}) and will be skipped",
                    related=(Related(done.name_span, "[DONE] ends processing here"),),
                    data={"command": name, "done_line": done.line},
                )
            )
        attrs: dict[str, str] = {}
        for a in tag.attrs:
            attrs.setdefault(a.name, a.value)
        body: str | None = None
        body_lines: tuple[int, int] | None = None
        close_line: int | None = None
        close_span: Span | None = None
        end_line = i
        if name in BLOCK_COMMANDS:
            closer = closer_for(name)
            j = i + 1
            while j < n and trim(lines[j]) != closer:
                j += 1
            body_lines = (i + 1, j)
            body = _body_text(name, lines[i + 1 : j])
            _hidden_in_body(name, lines, i + 1, j, errors, warnings)
            warnings.extend(_nested_warnings(lines, i + 1, j, name))
            if j < n:
                close_line = end_line = j
                close_col = len(lines[j]) - len(trim_start(lines[j]))
                close_span = Span.at(j, close_col, close_col + len(closer))
                if name == "RUN_COMMAND" and body == "":
                    errors.append(
                        error(tag.span, "empty_command", "RUN_COMMAND has no command", data={"command": name})
                    )
            else:
                end_line = max(i, n - 1)
                path = attrs.get("path")
                what = f"{name} for '{display_path(path)}'" if path is not None else name
                errors.append(
                    error(
                        tag.name_span,
                        "unclosed",
                        f"{what} missing closing tag: add {closer} on a line of its own",
                        data={"name": name, "closer": closer, "insert_line": _closer_insert_line(lines, i + 1, n)},
                    )
                )
            i = j + 1
        else:
            i += 1
        errors.sort(key=lambda d: d.span)
        command = InboxCommand(
            name=name,
            line=tag.span.start_line,
            end_line=end_line,
            tag_span=tag.span,
            name_span=tag.name_span,
            attrs=attrs,
            attr_list=tuple(tag.attrs),
            body=body,
            body_lines=body_lines,
            close_line=close_line,
            close_span=close_span,
            errors=tuple(errors),
            self_closing=name in SELF_CLOSING_COMMANDS,
            warnings=tuple(warnings),
        )
        commands.append(command)
        diagnostics.extend(errors)
        diagnostics.extend(warnings)
        if name == "DONE" and done is None:
            done = command
    diagnostics.sort(key=lambda d: (d.span.start_line, d.span.start_col))
    return InboxReply(commands=tuple(commands), prose=_ranges(prose), diagnostics=tuple(diagnostics))
