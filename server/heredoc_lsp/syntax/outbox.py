"""Parser for outbox files, what the agent sends the LLM (docs/formats.md, first paragraph).

Sections are found in order: ``=== HEADER ===`` must be line 1; ``=== PROTOCOL ===`` and ``=== CONTEXT ===`` are the
first such marker line after the previous section; ``=== PROMPT ===`` is the *last* one after CONTEXT, so text quoted
in CONTEXT cannot fake a prompt. A marker must be the whole line, exactly. A section's text is the lines after its
marker up to the next section marker, trailing blank lines removed.

Codes:

- ``missing_section`` (error): a section was not found where it must be. At the marker of the next section found, or
  the last line; ``data`` = {"section", "marker", "insert_line"}.
- ``ambiguous_section_marker`` (warning): a line that is (or, trimmed, looks like) one of the four markers but is not
  the section marker: it is content of the section it is in.
- ``bad_header`` (error): a HEADER field with a bad value (``Session`` not 8 hex digits, ``Sequence`` not a whole
  number >= 1, an empty ``Task``), a field given twice (the first is used), or text before the first field.
- ``missing_header_field`` (error): ``Session``, ``Sequence`` or ``Task`` absent from HEADER (at the HEADER marker).

Quoted text (the one quoting rule of everything heredoc-lsp copies into an outbox, :func:`quote`): file contents and
command output are written with every line prefixed ``  | `` and file names on one line with control characters
and hidden characters escaped (:func:`quoted_name`), so no line of them can be, or look like, a marker, a result
line (``[OK] ...``) or the end of a quote (``--- end PATH ---``). Quoted lines are content like any other here.

HEADER fields are lines ``Key: value`` with the key at column 0 (``[A-Za-z][A-Za-z0-9_-]*``); the lines after a
field that are not field lines continue it (that is how ``Task`` spans lines). Keys are case-sensitive; unknown
fields are kept in :attr:`Header.fields` without a diagnostic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from heredoc_lsp.syntax.diagnostics import Diagnostic, Related, Span, error, warning
from heredoc_lsp.syntax.text import BLANK_CHARS, is_blank, split_lines, trim, trim_end, trim_start
from heredoc_lsp.syntax.visible import visible

SECTION_NAMES: tuple[str, ...] = ("HEADER", "PROTOCOL", "CONTEXT", "PROMPT")
HEADER_KEYS: tuple[str, ...] = ("Session", "Sequence", "Task")

_FIELD = re.compile(r"([A-Za-z][A-Za-z0-9_-]*):")
_SESSION = re.compile(r"[0-9A-Fa-f]{8}")
_DIGITS = re.compile(r"[0-9]+")
_MAX_DIGITS = 30  # int() refuses more than 4300 digits


def marker(name: str) -> str:
    return f"=== {name} ==="


QUOTE_PREFIX = "  | "


def quote(text: str) -> list[str]:
    """``text`` as quoted outbox lines: each prefixed ``  | `` (an empty one ``  |``), control and hidden
    characters made visible (:func:`heredoc_lsp.syntax.visible.visible`)."""
    return [QUOTE_PREFIX + visible(line) if line else QUOTE_PREFIX.rstrip() for line in split_lines(text)]


def quoted_name(name: str) -> str:
    """A file name (or any one-line text from the workspace) as an outbox shows it: on one line, escapes visible."""
    return visible(name, one_line=True)


def is_quoted(line: str) -> bool:
    """True for a line :func:`quote` wrote."""
    return line.startswith(QUOTE_PREFIX.rstrip())


_MARKERS = {marker(name): name for name in SECTION_NAMES}


@dataclass(frozen=True, slots=True)
class Section:
    name: str
    line: int  # the marker line (0-based)
    end_line: int  # last line before the next section marker (or the last line of the file), inclusive
    marker_span: Span
    text: str  # lines after the marker up to the next section marker, trailing blank lines removed
    text_lines: tuple[int, int]  # half-open line range of ``text``


@dataclass(frozen=True, slots=True)
class HeaderField:
    key: str
    value: str  # after the colon and its continuation lines, trimmed (blank lines at both ends dropped)
    line: int
    end_line: int  # last continuation line, inclusive
    key_span: Span
    value_span: Span  # from the first non-blank after the colon to the end of the last non-blank value line


@dataclass(frozen=True, slots=True)
class Header:
    session: str | None  # None when absent or invalid
    sequence: int | None
    task: str | None
    fields: tuple[HeaderField, ...]


@dataclass(frozen=True, slots=True)
class Outbox:
    sections: dict[str, Section]  # found sections only, in document order
    header: Header | None  # None without a HEADER section
    diagnostics: tuple[Diagnostic, ...]


def _find_sections(lines: Sequence[str]) -> list[tuple[str, int]]:
    """(name, marker line) of each section found, in order."""
    exact = [i for i, ln in enumerate(lines) if ln in _MARKERS]
    found: list[tuple[str, int]] = []
    if lines and lines[0] == marker("HEADER"):
        found.append(("HEADER", 0))
    after = found[-1][1] if found else -1
    for name in ("PROTOCOL", "CONTEXT"):
        hit = next((i for i in exact if i > after and lines[i] == marker(name)), None)
        if hit is not None:
            found.append((name, hit))
            after = hit
    last = [i for i in exact if i > after and lines[i] == marker("PROMPT")]
    if last:
        found.append(("PROMPT", last[-1]))
    return found


def _section(lines: Sequence[str], name: str, line: int, stop: int) -> Section:
    end = stop
    while end > line + 1 and is_blank(lines[end - 1]):
        end -= 1
    return Section(
        name=name,
        line=line,
        end_line=max(line, stop - 1),
        marker_span=Span.of_line(line, lines[line]),
        text="\n".join(lines[line + 1 : end]),
        text_lines=(line + 1, end),
    )


def _missing(lines: Sequence[str], found: list[tuple[str, int]]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    present = {name for name, _ in found}
    for index, name in enumerate(SECTION_NAMES):
        if name in present:
            continue
        following = next((line for n, line in found if SECTION_NAMES.index(n) > index), None)
        insert_line = following if following is not None else len(lines)
        if name == "HEADER":
            where = "it must be the first line"
            insert_line = 0
        else:
            where = f"expected after '{marker(SECTION_NAMES[index - 1])}'"
        if not lines:
            span = Span(0, 0, 0, 0)
        else:
            at = min(insert_line, len(lines) - 1)
            span = Span.of_line(at, lines[at])
        out.append(
            error(
                span,
                "missing_section",
                f"Missing section '{marker(name)}' ({where})",
                data={"section": name, "marker": marker(name), "insert_line": insert_line},
            )
        )
    return out


def _ambiguous(lines: Sequence[str], found: list[tuple[str, int]]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    real = {line for _, line in found}
    owner_of = sorted(found, key=lambda item: item[1])
    for i, text in enumerate(lines):
        if i in real:
            continue
        looks = _MARKERS.get(trim(text))
        if looks is None:
            continue
        owner = next((n for n, line in reversed(owner_of) if line < i), None)
        where = f"content of '{marker(owner)}'" if owner else "content before any section"
        if text != marker(looks):
            why = "a marker must be the whole line, exactly"
        elif looks == "PROMPT":
            why = "only the last '=== PROMPT ===' after '=== CONTEXT ===' starts the prompt"
        elif looks == "HEADER":
            why = "'=== HEADER ===' starts a section only on line 1"
        else:
            why = "sections come in the order HEADER, PROTOCOL, CONTEXT, PROMPT"
        col = len(text) - len(trim_start(text))
        out.append(
            warning(
                Span.at(i, col, len(trim_end(text))),
                "ambiguous_section_marker",
                f"'{marker(looks)}' here is {where}, not a section marker ({why})",
                data={"section": looks, "owner": owner},
            )
        )
    return out


def _fields(lines: Sequence[str], section: Section) -> tuple[list[HeaderField], list[Diagnostic]]:
    fields: list[HeaderField] = []
    diagnostics: list[Diagnostic] = []
    first, end = section.text_lines
    i = first
    while i < end:
        text = lines[i]
        m = _FIELD.match(text)
        if m is None:
            if not is_blank(text):
                diagnostics.append(
                    error(
                        Span.of_line(i, text),
                        "bad_header",
                        "Text before the first HEADER field; expected 'Key: value' (Session, Sequence, Task)",
                    )
                )
            i += 1
            continue
        j = i + 1
        while j < end and _FIELD.match(lines[j]) is None:
            j += 1
        fields.append(_field(lines, i, j, m.group(1)))
        i = j
    return fields, diagnostics


def _field(lines: Sequence[str], line: int, stop: int, key: str) -> HeaderField:
    start_col = len(key) + 1
    head = lines[line]
    while start_col < len(head) and head[start_col] in BLANK_CHARS:
        start_col += 1
    parts = [head[start_col:], *lines[line + 1 : stop]]
    value = "\n".join(parts).strip(BLANK_CHARS + "\n")
    last = stop - 1
    while last > line and is_blank(lines[last]):
        last -= 1
    end_col = len(trim_end(lines[last]))
    if last == line:
        end_col = max(end_col, start_col)
    return HeaderField(
        key=key,
        value=value,
        line=line,
        end_line=stop - 1,
        key_span=Span.at(line, 0, len(key)),
        value_span=Span(line, start_col, last, end_col),
    )


def _header(lines: Sequence[str], section: Section) -> tuple[Header, list[Diagnostic]]:
    fields, diagnostics = _fields(lines, section)
    by_key: dict[str, HeaderField] = {}
    for f in fields:
        if f.key not in by_key:
            by_key[f.key] = f
        elif f.key in HEADER_KEYS:
            diagnostics.append(
                error(
                    f.key_span,
                    "bad_header",
                    f"Header field '{f.key}' is given twice; the first (line {by_key[f.key].line + 1}) is used",
                    related=(Related(by_key[f.key].key_span, f"first '{f.key}'"),),
                )
            )
    values: dict[str, str] = {}
    for key in HEADER_KEYS:
        found_field = by_key.get(key)
        if found_field is None:
            diagnostics.append(
                error(
                    section.marker_span,
                    "missing_header_field",
                    f"HEADER has no '{key}:' field",
                    data={"field": key, "insert_line": section.text_lines[1]},
                )
            )
            continue
        problem = _field_problem(key, found_field.value)
        if problem is None:
            values[key] = found_field.value
        else:
            span = found_field.value_span if found_field.value else found_field.key_span
            diagnostics.append(error(span, "bad_header", problem, data={"field": key}))
    header = Header(
        session=values.get("Session"),
        sequence=int(values["Sequence"]) if "Sequence" in values else None,
        task=values.get("Task"),
        fields=tuple(fields),
    )
    return header, diagnostics


def _field_problem(key: str, value: str) -> str | None:
    if key == "Session" and not _SESSION.fullmatch(value):
        return f"Session must be 8 hexadecimal digits, got '{value}'"
    if key == "Sequence" and not (_DIGITS.fullmatch(value) and len(value) <= _MAX_DIGITS and int(value) >= 1):
        return f"Sequence must be a whole number of at least 1, got '{value}'"
    if key == "Task" and value == "":
        return "Task is empty"
    return None


def parse_outbox(lines: Sequence[str]) -> Outbox:
    """Parse an outbox given as lines (no terminators). Never raises."""
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    found = _find_sections(lines)
    sections: dict[str, Section] = {}
    for index, (name, line) in enumerate(found):
        stop = found[index + 1][1] if index + 1 < len(found) else len(lines)
        sections[name] = _section(lines, name, line, stop)
    diagnostics = _missing(lines, found) + _ambiguous(lines, found)
    header: Header | None = None
    if "HEADER" in sections:
        header, header_diagnostics = _header(lines, sections["HEADER"])
        diagnostics.extend(header_diagnostics)
    diagnostics.sort(key=lambda d: (d.span.start_line, d.span.start_col))
    return Outbox(sections=sections, header=header, diagnostics=tuple(diagnostics))
