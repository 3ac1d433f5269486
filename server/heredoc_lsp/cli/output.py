"""Diagnostics as text, JSON objects, GitHub Actions annotations, SARIF 2.1.0, GitLab Code Quality or JUnit XML
(shared by ``check`` and ``parse``).

Positions are 1-based lines and 1-based code-point columns; ``end_column`` is exclusive (it points just after the
last character of the range, like an LSP range end). Lines meant for a terminal or a CI log (text, concise, github)
write file names and messages through :func:`heredoc_lsp.syntax.visible.visible`: a name or a marker holding an
escape sequence is shown, never obeyed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from heredoc_lsp.syntax.diagnostics import Diagnostic, Severity, span_json
from heredoc_lsp.syntax.visible import shown, visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any, TextIO

    from heredoc_lsp.cli.fix import Offer

_COLORS = {
    Severity.ERROR: "\x1b[1;31m",
    Severity.WARNING: "\x1b[1;33m",
    Severity.INFORMATION: "\x1b[1;34m",
    Severity.HINT: "\x1b[1;36m",
}
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_RESET = "\x1b[0m"
_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning"}


def use_color(stream: TextIO, *, disabled: bool = False) -> bool:
    """Colour on a terminal or with ``FORCE_COLOR`` (any non-empty value, e.g. in CI logs); never with
    ``--no-color``, ``NO_COLOR`` (any non-empty value; it wins over FORCE_COLOR) or TERM=dumb."""
    if disabled or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def fix_json(fix: Offer | None) -> dict[str, Any] | None:
    """The fix of a diagnostic in ``check``'s JSON, with ruff's names: ``applicability`` (``safe``: ``--fix``
    applies it; ``unsafe``: only with ``--unsafe-fixes``), ``message`` and ``edits``, each the range it replaces
    (positions as the diagnostic's) and its new ``content``."""
    if fix is None:
        return None
    return {
        "applicability": fix.applicability,
        "message": fix.title,
        "edits": [{**span_json(e.span), "content": e.new_text} for e in fix.edits],
    }


def text_line(path: str, d: Diagnostic, *, color: bool = False) -> str:
    """``path:line:col: severity[code] message``"""
    path = visible(path, one_line=True)
    where = f"{path}:{d.span.start_line + 1}:{d.span.start_col + 1}:"
    label = f"{d.severity.label}[{d.code}]"
    message = _one_line(d.message)
    if color:
        return (
            f"{_BOLD}{where}{_RESET} {_COLORS[d.severity]}{d.severity.label}{_RESET}{_DIM}[{d.code}]{_RESET} {message}"
        )
    return f"{where} {label} {message}"


# Terminal cells a tab advances to (as ruff draws one); a frame shows tabs as spaces so the carets line up.
TAB_WIDTH = 4
# Cells of a source line a frame shows: a longer line is shown around the range, cut with "...".
FRAME_WIDTH = 160
_FRAME_BEFORE = 40  # cells kept before the range when a long line is cut


def _cell(ch: str, at: int) -> tuple[str, int]:
    """How one character of a source line is drawn in a code frame, and how many terminal cells it takes (``at``:
    the cell it starts at, for a tab). Controls and hidden characters are drawn as their visible escapes; wide
    (East Asian wide and fullwidth, most emoji) characters take two cells and combining marks none."""
    if ch == "\t":
        n = TAB_WIDTH - at % TAB_WIDTH
        return " " * n, n
    if ch.isascii():
        if ch.isprintable():
            return ch, 1
        escaped = shown(ch)
        return escaped, len(escaped)
    escaped = visible(ch, one_line=True)
    if escaped != ch:
        return escaped, len(escaped)
    import unicodedata  # deferred: check start-up (only for a non-ASCII character in a frame)

    category = unicodedata.category(ch)
    if category in ("Zl", "Zp", "Cs", "Cc"):  # line and paragraph separators move the terminal's cursor
        escaped = shown(ch)
        return escaped, len(escaped)
    if category in ("Mn", "Me", "Cf"):
        return ch, 0
    return ch, 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _drawn(text: str, start: int, end: int) -> tuple[str, int, int]:
    """``text`` as a frame draws it, and the cells under which the characters ``start:end`` are: tabs expanded,
    escapes shown, wide characters counted twice; a line wider than :data:`FRAME_WIDTH` cells is cut around
    ``start`` (with ``...`` where it is cut)."""
    if len(text) <= FRAME_WIDTH and text.isascii() and text.isprintable():  # one cell a character (the common case)
        return text, start, max(end, start + 1)
    first = 0
    if len(text) > FRAME_WIDTH and start > _FRAME_BEFORE:
        first = start - _FRAME_BEFORE
    parts: list[str] = ["..."] if first else []
    at = 3 if first else 0
    caret_start = caret_end = -1
    i = first
    while i < len(text):
        if i == start:
            caret_start = at
        if i == end:
            caret_end = at
        if at >= FRAME_WIDTH:
            parts.append("...")
            break
        drawn, width = _cell(text[i], at)
        parts.append(drawn)
        at += width
        i += 1
    if caret_start < 0:
        caret_start = at
    if caret_end < 0:
        caret_end = at
    return "".join(parts), caret_start, max(caret_end, caret_start + 1)


def code_frame(lines: Sequence[str], d: Diagnostic, fix: Offer | None = None, *, color: bool = False) -> list[str]:
    """The lines under a problem in the default (``full``) output, as ruff and shellcheck draw them: the source
    line with its number, carets under the range (to the end of that line when the range goes on), and the fix
    offered for it, if any, with its applicability (docs/checking.md, Output)."""
    n = d.span.start_line
    if not 0 <= n < len(lines):
        return []
    text = lines[n]
    start = min(d.span.start_col, len(text))
    end = d.span.end_col if d.span.end_line == n else len(text)
    end = max(start, min(end, len(text)))
    drawn, caret_start, caret_end = _drawn(text, start, end)
    carets = "^" * (caret_end - caret_start)
    if color:
        carets = f"{_COLORS[d.severity]}{carets}{_RESET}"
    gutter = " " * len(str(n + 1))
    out = [f"{gutter} |", f"{n + 1} | {drawn}", f"{gutter} | {' ' * caret_start}{carets}"]
    if fix is not None:
        out.append(f"{gutter} = fix ({fix.applicability}): {_one_line(fix.title)}")
    return out


def concise_line(path: str, d: Diagnostic) -> str:
    """``path:line:col: code message`` (ruff's concise form: no severity word, never coloured)."""
    where = f"{visible(path, one_line=True)}:{d.span.start_line + 1}:{d.span.start_col + 1}:"
    return f"{where} {d.code} {_one_line(d.message)}"


def _one_line(text: str) -> str:
    """A message on one line, inert on a terminal."""
    return visible(text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", " "), one_line=True)


def _escape_data(text: str) -> str:
    return visible(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(path: str, d: Diagnostic) -> str:
    """A GitHub Actions workflow command: ``::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message``."""
    s = d.span
    level = _GITHUB_LEVEL.get(d.severity, "notice")
    props = [
        f"file={_escape_property(path)}",
        f"line={s.start_line + 1}",
        f"col={s.start_col + 1}",
        f"endLine={s.end_line + 1}",
        f"endColumn={s.end_col + 1}",
        f"title={_escape_property(f'heredoc-lsp {d.code}')}",
    ]
    return f"::{level} {','.join(props)}::{_escape_data(d.message)}"


def write(stream: TextIO, text: str) -> None:
    """Write and flush; a closed pipe (``| head``) is not an error worth a traceback."""
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        # Keep Python from complaining again at exit when it flushes the dead stream.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        raise


def error_exit(message: str, prog: str = "heredoc-lsp") -> int:
    """Print ``prog: error: message`` on stderr and return 2 (usage error)."""
    sys.stderr.write(f"{prog}: error: {visible(message)}\n")
    return 2


_SARIF_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "note",
    Severity.HINT: "note",
}
_GITLAB_SEVERITY = {
    Severity.ERROR: "major",
    Severity.WARNING: "minor",
    Severity.INFORMATION: "info",
    Severity.HINT: "info",
}


SRCROOT = "%SRCROOT%"


def source_root(start: Path) -> Path:
    """The root SARIF URIs are relative to: the git repository holding ``start`` (the folder with ``.git``, what a
    CI checkout is), else ``start`` itself."""
    here = start.absolute()
    while not (here / ".git").exists():
        if here.parent == here:
            return start.absolute()
        here = here.parent
    return here


def _artifact(path: str, root: Path) -> dict[str, str]:
    """A SARIF ``artifactLocation``: a path under ``root`` as a relative URI with ``uriBaseId`` %SRCROOT% (the same
    wherever ``check`` ran in the tree), any other as an absolute ``file:`` URI (which takes no base)."""
    from pathlib import Path  # deferred: check start-up
    from urllib.parse import quote  # deferred: check start-up

    absolute = Path(os.path.abspath(path))
    try:
        rel = absolute.relative_to(root)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(rel.as_posix()), "uriBaseId": SRCROOT}


def sarif_document(
    results: Sequence[tuple[str, Sequence[Diagnostic]]], version: str, root: Path, fixes: dict[int, Offer] | None = None
) -> dict[str, Any]:
    """A SARIF 2.1.0 log: one run, the rules registry as the driver's rules (with their ``helpUri``), columns in
    code points, file URIs relative to ``root`` (``%SRCROOT%``), each result's fix (``fixes``: by ``id`` of the
    diagnostic) as a SARIF ``fix``."""
    from heredoc_lsp.rules import RULES, doc_url  # deferred: check start-up

    used = sorted({d.code for _, found in results for d in found})
    index = {code: i for i, code in enumerate(used)}
    rules: list[dict[str, Any]] = []
    for code in used:
        rule = RULES.get(code)
        entry: dict[str, Any] = {"id": code, "name": code}
        if rule is not None:
            level = {"error": "error", "warning": "warning"}.get(rule.severity, "note")
            entry |= {
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": rule.explanation},
                "help": {"text": rule.fix or "No automatic fix."},
                "defaultConfiguration": {"level": level},
                "helpUri": doc_url(code),
            }
        rules.append(entry)
    out_results: list[dict[str, Any]] = []
    for path, found in results:
        artifact = _artifact(path, root)
        for d in found:
            result: dict[str, Any] = {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": _SARIF_LEVEL[d.severity],
                "message": {"text": d.message},
                "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": _region(d.span)}}],
            }
            fix = (fixes or {}).get(id(d))
            if fix is not None:
                result["fixes"] = [
                    {
                        "description": {"text": f"{fix.title} ({fix.applicability})"},
                        "artifactChanges": [
                            {
                                "artifactLocation": artifact,
                                "replacements": [
                                    {"deletedRegion": _region(e.span), "insertedContent": {"text": e.new_text}}
                                    for e in fix.edits
                                ],
                            }
                        ],
                    }
                ]
            out_results.append(result)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "heredoc-lsp", "version": version, "rules": rules}},
                "originalUriBaseIds": {
                    SRCROOT: {
                        "uri": root.as_uri().rstrip("/") + "/",
                        "description": {"text": "The git repository heredoc-lsp checked (else the folder it ran in)"},
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": out_results,
            }
        ],
    }


def _region(span: Any) -> dict[str, int]:
    return {
        "startLine": span.start_line + 1,
        "startColumn": span.start_col + 1,
        "endLine": span.end_line + 1,
        "endColumn": span.end_col + 1,
    }


def gitlab_document(results: Sequence[tuple[str, Sequence[Diagnostic]]]) -> list[dict[str, Any]]:
    """GitLab Code Quality report entries; the fingerprint is stable across runs for the same problem."""
    import hashlib  # deferred: check start-up

    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for path, found in results:
        for d in found:
            key = f"{path}\0{d.code}\0{d.message}"
            n = seen.get(key, 0)
            seen[key] = n + 1
            out.append(
                {
                    "description": f"{d.code}: {_one_line(d.message)}",
                    "check_name": d.code,
                    "fingerprint": hashlib.md5(f"{key}\0{n}".encode(), usedforsecurity=False).hexdigest(),
                    "severity": _GITLAB_SEVERITY[d.severity],
                    "location": {
                        "path": path.replace(os.sep, "/"),
                        "lines": {"begin": d.span.start_line + 1, "end": d.span.end_line + 1},
                    },
                }
            )
    return out


def junit_document(files: Sequence[str], results: Sequence[tuple[str, Sequence[Diagnostic]]]) -> str:
    """JUnit XML: one test suite per checked file, one failing test case per diagnostic (a file without
    problems is one passing test case)."""
    from xml.etree import ElementTree as ET  # deferred: check start-up

    by_path = {path: found for path, found in results}
    ordered = list(files) + [p for p in by_path if p not in set(files)]
    root = ET.Element("testsuites", name="heredoc-lsp")
    total = failures = 0
    for path in ordered:
        found = by_path.get(path, ())
        suite = ET.SubElement(root, "testsuite", name=path, tests=str(max(len(found), 1)), failures=str(len(found)))
        if not found:
            ET.SubElement(suite, "testcase", name=path, classname=path)
        for d in found:
            line, col = d.span.start_line + 1, d.span.start_col + 1
            case = ET.SubElement(suite, "testcase", name=f"{d.code} at {line}:{col}", classname=path, line=str(line))
            failure = ET.SubElement(case, "failure", message=_one_line(d.message), type=d.code)
            failure.text = f"{path}:{line}:{col}: {d.severity.label}[{d.code}] {d.message}"
        total += max(len(found), 1)
        failures += len(found)
    root.set("tests", str(total))
    root.set("failures", str(failures))
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
