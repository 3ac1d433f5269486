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

from heredoc_lsp.syntax.diagnostics import Diagnostic, Severity
from heredoc_lsp.syntax.visible import visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, TextIO

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


def diagnostic_json(d: Diagnostic) -> dict[str, Any]:
    s = d.span
    return {
        "line": s.start_line + 1,
        "column": s.start_col + 1,
        "end_line": s.end_line + 1,
        "end_column": s.end_col + 1,
        "severity": d.severity.label,
        "code": d.code,
        "message": d.message,
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


def code_frame(lines: Sequence[str], d: Diagnostic) -> list[str]:
    """The lines under a problem in ``full`` output, as ruff and shellcheck draw them: the source line with its
    number, a caret underline at the range (to the end of that line when the range goes on), and the rule's fix
    when it has one. Tabs are shown as one space so the carets stay under their characters."""
    from heredoc_lsp.rules import RULES  # deferred: check start-up

    n = d.span.start_line
    if not 0 <= n < len(lines):
        return []
    text = lines[n]
    shown = visible(text.replace("\t", " "), one_line=True)
    if len(shown) != len(text):  # escaped characters move the columns: no underline
        return [f"{n + 1} | {shown}"]
    start = min(d.span.start_col, len(text))
    end = d.span.end_col if d.span.end_line == n else len(text)
    end = max(start + 1, min(end, len(text)))
    gutter = " " * len(str(n + 1))
    out = [f"{gutter} |", f"{n + 1} | {shown}", f"{gutter} | {' ' * start}{'^' * (end - start)}"]
    rule = RULES.get(d.code)
    if rule is not None and rule.fix:
        safety = f" ({rule.fix_safety})" if rule.fix_safety else ""
        out.append(f"{gutter} = fix{safety}: {_one_line(rule.fix)}")
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


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


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


def _uri(path: str) -> str:
    from urllib.parse import quote  # deferred: check start-up

    return quote(path.replace(os.sep, "/"))


def sarif_document(results: Sequence[tuple[str, Sequence[Diagnostic]]], version: str) -> dict[str, Any]:
    """A SARIF 2.1.0 log: one run, the rules registry as the driver's rules, columns in code points."""
    from heredoc_lsp.rules import RULES  # deferred: check start-up

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
            }
        rules.append(entry)
    out_results: list[dict[str, Any]] = []
    for path, found in results:
        for d in found:
            s = d.span
            out_results.append(
                {
                    "ruleId": d.code,
                    "ruleIndex": index[d.code],
                    "level": _SARIF_LEVEL[d.severity],
                    "message": {"text": d.message},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": _uri(path)},
                                "region": {
                                    "startLine": s.start_line + 1,
                                    "startColumn": s.start_col + 1,
                                    "endLine": s.end_line + 1,
                                    "endColumn": s.end_col + 1,
                                },
                            }
                        }
                    ],
                }
            )
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "heredoc-lsp", "version": version, "rules": rules}},
                "columnKind": "unicodeCodePoints",
                "results": out_results,
            }
        ],
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
