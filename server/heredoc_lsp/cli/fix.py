"""``check --fix`` / ``--diff``: the editor's quick fixes (computed by :func:`heredoc_lsp.fixes.registry.fixes_for`)
applied to a document's text, pass after pass until nothing more applies, and written back atomically.

Which fixes apply is the rules registry's ``fix_safety``: ``safe`` ones always, ``unsafe`` ones (they change what
runs, or guess) only with ``--unsafe-fixes``. Suppression fixes are never applied.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from heredoc_lsp.analysis.core import Analysis, analyze
from heredoc_lsp.analysis.suppress import TextEdit
from heredoc_lsp.config.model import Config
from heredoc_lsp.fixes.model import Fix, FixContext, Source, random_id
from heredoc_lsp.fixes.registry import fixes_for
from heredoc_lsp.languages import Language
from heredoc_lsp.rules import RULES
from heredoc_lsp.syntax.diagnostics import Diagnostic
from heredoc_lsp.syntax.records import record

# Passes over one document: a fix can reveal another problem (or a conflicting fix waits for the next pass).
MAX_PASSES = 8
# Set to an integer, the IDs of fixes that need a fresh random one (UUID delimiters) come from a seeded generator:
# for tests and reproducible runs.
SEED_VARIABLE = "HEREDOC_LSP_FIX_SEED"
_TERMINATOR = re.compile(r"\r\n|\r|\n")


@record
class FixResult:
    """What fixing one document did: its new text, the diagnostics its fixes resolved, the final analysis and
    how many remaining diagnostics have a fix that ``--unsafe-fixes`` would apply."""

    text: str
    fixed: tuple[Diagnostic, ...]
    analysis: Analysis
    unsafe_available: int


def id_generator() -> Callable[[], str]:
    """:func:`random_id`, or with ``HEREDOC_LSP_FIX_SEED`` set, a seeded sequence of 8-hex-digit IDs."""
    seed = os.environ.get(SEED_VARIABLE)
    if not seed:
        return random_id
    rng = random.Random(seed)
    return lambda: f"{rng.getrandbits(32):08x}"


def line_starts(text: str) -> list[int]:
    """Offsets where each line starts (SPEC §1 terminators), with ``len(text)`` appended."""
    starts = [0] + [m.end() for m in _TERMINATOR.finditer(text)]
    if starts[-1] != len(text):
        starts.append(len(text))
    return starts


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """``text`` with non-overlapping ``edits`` applied; columns past a line's end are clamped to it."""
    starts = line_starts(text)
    last_line = len(starts) - 2 if len(starts) > 1 else 0

    def offset(line: int, col: int) -> int:
        if line > last_line:
            return len(text)
        end = starts[line + 1] if line + 1 < len(starts) else len(text)
        m = _TERMINATOR.search(text, starts[line], end)
        line_end = m.start() if m is not None else end
        return min(starts[line] + col, line_end)

    out = text
    for edit in sorted(edits, key=lambda e: (e.span.start_line, e.span.start_col), reverse=True):
        s = edit.span
        a, b = offset(s.start_line, s.start_col), offset(s.end_line, s.end_col)
        out = out[:a] + edit.new_text + out[b:]
    return out


def _overlaps(a: TextEdit, b: TextEdit) -> bool:
    a0, a1 = (a.span.start_line, a.span.start_col), (a.span.end_line, a.span.end_col)
    b0, b1 = (b.span.start_line, b.span.start_col), (b.span.end_line, b.span.end_col)
    return a0 <= b1 and b0 <= a1


def fix_document(
    text: str,
    language: Language,
    config: Config,
    *,
    selected: Callable[[str], bool],
    unsafe: bool,
    workspace: Path | None = None,
    command: str | None = None,
    new_id: Callable[[], str] = random_id,
) -> FixResult:
    """Apply every allowed fix for the selected diagnostics of ``text`` (decoded, without BOM)."""
    fixed: list[Diagnostic] = []
    analysis = analyze(text, language, config, workspace=workspace, command=command)
    for _ in range(MAX_PASSES):
        ctx = FixContext(Source(analysis.lines, analysis.newline, _ends_with_newline(text)), workspace, new_id)
        chosen: list[Fix] = []
        resolved: set[int] = set()
        for d in analysis.diagnostics:
            if id(d) in resolved or not selected(d.code) or not _allowed(d.code, unsafe):
                continue
            fix = _first_fix(analysis, d, ctx)
            if fix is None or any(_overlaps(e, o) for c in chosen for o in c.edits for e in fix.edits):
                continue
            chosen.append(fix)
            resolved.update(id(x) for x in fix.diagnostics)
            resolved.add(id(d))
        if not chosen:
            break
        text = apply_edits(text, [e for f in chosen for e in f.edits])
        fixed.extend(d for d in analysis.diagnostics if id(d) in resolved)
        analysis = analyze(text, language, config, workspace=workspace, command=command)
    unsafe_left = 0
    if not unsafe:
        ctx = FixContext(Source(analysis.lines, analysis.newline, _ends_with_newline(text)), workspace, new_id)
        unsafe_left = sum(
            1
            for d in analysis.diagnostics
            if selected(d.code) and RULES.get(d.code) is not None and RULES[d.code].fix_safety == "unsafe"
            if _first_fix(analysis, d, ctx) is not None
        )
    return FixResult(text, tuple(fixed), analysis, unsafe_left)


def _allowed(code: str, unsafe: bool) -> bool:
    rule = RULES.get(code)
    if rule is None or not rule.fix_safety:
        return False
    return rule.fix_safety == "safe" or unsafe


def _first_fix(analysis: Analysis, d: Diagnostic, ctx: FixContext) -> Fix | None:
    fixes = fixes_for(analysis, d, ctx, suppressions=False)
    preferred = [f for f in fixes if f.preferred]
    chosen = preferred or fixes
    return chosen[0] if chosen else None


def _ends_with_newline(text: str) -> bool:
    return text.endswith(("\n", "\r"))


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path``'s content with ``data`` through a temporary file in the same folder (its mode kept); on
    failure the file is unchanged and no temporary file is left. OSError propagates."""
    mode = os.stat(path).st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".heredoc-lsp.tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def unified_diff(display: str, old: str, new: str) -> str:
    """A unified diff of two versions of a document (lines split at SPEC §1 terminators only)."""
    import difflib  # deferred: check start-up

    def keep_ends(text: str) -> list[str]:
        starts = line_starts(text)
        return [text[starts[i] : starts[i + 1]] for i in range(len(starts) - 1)]

    lines = difflib.unified_diff(keep_ends(old), keep_ends(new), f"a/{display}", f"b/{display}")
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)
