"""``check --fix`` / ``--diff``: the editor's quick fixes (computed by :func:`heredoc_lsp.fixes.registry.fixes_for`)
applied to a document's text in rounds until nothing more applies, never making it worse, and written back
atomically.

Which fixes apply is the rules registry's ``fix_safety``: ``safe`` ones always, ``unsafe`` ones (they change what
runs, or guess) only with ``--unsafe-fixes``. Suppression fixes are never applied.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from heredoc_lsp.analysis.core import Analysis, analyze
from heredoc_lsp.analysis.suppress import TextEdit
from heredoc_lsp.config.model import Config
from heredoc_lsp.fixes.model import Fix, FixContext, Source, random_id
from heredoc_lsp.fixes.registry import fixes_for
from heredoc_lsp.languages import Language
from heredoc_lsp.rules import RULES
from heredoc_lsp.syntax.diagnostics import Diagnostic, Span
from heredoc_lsp.syntax.records import record
from heredoc_lsp.syntax.text import split_lines_keepends

# Rounds over one document (plus one per diagnostic it starts with): a fix can reveal another problem, a conflicting
# fix waits for the next round, and after a round that made a problem the fixes go one per round; past this many the
# document is left as the last good round.
MAX_PASSES = 16
# Set to an integer, the IDs of fixes that need a fresh random one (UUID delimiters) come from a seeded generator:
# for tests and reproducible runs.
SEED_VARIABLE = "HEREDOC_LSP_FIX_SEED"
_TERMINATOR = re.compile(r"\r\n|\r|\n")


@record
class FixResult:
    """What fixing one document did: its new text, the diagnostics its fixes resolved, the final analysis, how many
    more diagnostics ``--unsafe-fixes`` would resolve, and the fixes rolled back because their result had a problem
    the text before them did not (each as the diagnostic it was for and the codes it would have added)."""

    text: str
    fixed: tuple[Diagnostic, ...]
    analysis: Analysis
    unsafe_available: int
    rolled_back: tuple[tuple[Diagnostic, tuple[str, ...]], ...] = ()


@record
class Offer:
    """The fix ``check`` shows for a diagnostic (the editor's preferred quick fix): its title, its edits, and its
    applicability, ``safe`` (``--fix`` applies it) or ``unsafe`` (only with ``--unsafe-fixes``)."""

    title: str
    applicability: str
    edits: tuple[TextEdit, ...]


def offered_fix(
    analysis: Analysis,
    d: Diagnostic,
    *,
    final_newline: bool = True,
    workspace: Path | None = None,
    new_id: Callable[[], str] = random_id,
) -> Offer | None:
    """The fix ``check --fix`` (with ``--unsafe-fixes`` for an unsafe one) would apply for ``d`` on its own, or
    None. Suppressions are not fixes here."""
    rule = RULES.get(d.code)
    if rule is None or not rule.fix_safety:
        return None
    ctx = FixContext(Source(analysis.lines, analysis.newline, final_newline), workspace, new_id)
    fix = _first_fix(analysis, d, ctx)
    return None if fix is None else Offer(fix.title, rule.fix_safety, fix.edits)


@record
class Suppressed:
    """What ``check --add-noqa`` did to one document: its new text, how many codes it wrote into directives, and
    the analysis of the new text."""

    text: str
    added: int
    analysis: Analysis


def suppress_all(
    text: str,
    language: Language,
    config: Config,
    *,
    selected: Callable[[str], bool],
    workspace: Path | None = None,
    command: str | None = None,
) -> Suppressed:
    """``text`` with a ``# heredoc-lsp: disable=CODE`` directive (the editor's "Disable CODE here" edit) for every
    selected diagnostic a directive can silence, in rounds (an edit per line and round: two codes for one line
    extend the same directive). A round is kept only when it leaves fewer problems and none new; otherwise the
    edits are tried one per round and one that does not help is left out (a diagnostic on a directive line, say)."""
    analysis = analyze(text, language, config, workspace=workspace, command=command)
    added = 0
    refused: set[tuple[str, str, int, int]] = set()
    one_at_a_time = False
    for _ in range(MAX_PASSES + 2 * len(analysis.diagnostics)):
        chosen: list[tuple[Diagnostic, TextEdit]] = []
        for d in analysis.diagnostics:
            if not selected(d.code) or _key(d) in refused:
                continue
            edit = analysis.suppression_edit(d)
            if edit is None:
                refused.add(_key(d))
                continue
            if any(_overlaps(edit.span, e.span) for _, e in chosen):
                continue
            chosen.append((d, edit))
            if one_at_a_time:
                break
        if not chosen:
            break
        new_text = apply_edits(text, [e for _, e in chosen])
        new_analysis = analyze(new_text, language, config, workspace=workspace, command=command)
        before = Counter(d.code for d in analysis.diagnostics)
        after = Counter(d.code for d in new_analysis.diagnostics)
        if any(n > before[code] for code, n in after.items()) or after.total() >= before.total():
            if not one_at_a_time:
                one_at_a_time = True
            else:
                refused.add(_key(chosen[0][0]))
            continue
        text, analysis = new_text, new_analysis
        added += len(chosen)
    return Suppressed(text, added, analysis)


def id_generator() -> Callable[[], str]:
    """:func:`random_id`, or with ``HEREDOC_LSP_FIX_SEED`` set, a seeded sequence of 8-hex-digit IDs."""
    seed = os.environ.get(SEED_VARIABLE)
    if not seed:
        return random_id
    import random  # deferred: check start-up (only with HEREDOC_LSP_FIX_SEED)

    rng = random.Random(seed)
    return lambda: f"{rng.getrandbits(32):08x}"


def line_starts(text: str) -> list[int]:
    """Offsets where each line starts (docs/formats.md terminators), with ``len(text)`` appended."""
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


def _overlaps(a: Span, b: Span) -> bool:
    # Touching counts: two insertions at one position would otherwise be applied in an arbitrary order.
    return (a.start_line, a.start_col) <= (b.end_line, b.end_col) and (b.start_line, b.start_col) <= (
        a.end_line,
        a.end_col,
    )


def _reach(fix: Fix) -> list[Span]:
    """The text a fix edits or was computed from."""
    spans = [e.span for e in fix.edits]
    if fix.scope is not None:
        spans.append(fix.scope)
    return spans


def _conflict(fix: Fix, chosen: Sequence[Fix]) -> bool:
    """Whether ``fix`` edits text another chosen fix edits or depends on (or depends on text one edits)."""
    mine = _reach(fix)
    return any(_overlaps(a, b) for other in chosen for b in _reach(other) for a in mine)


# Within one structured body, a rename goes before an added parameter (renaming an unknown name to a missing one
# resolves both) and delimiters are rewritten before a parameter is added.
_ORDER = {"unknown": 0, "duplicate": 1, "collision": 1, "missing": 2}


def _added_codes(before: Analysis, fixes: Sequence[Fix], after: Analysis) -> tuple[str, ...]:
    """The codes ``after`` has more of than ``before`` less what ``fixes`` resolve: problems the fixes made."""
    expected = Counter(d.code for d in before.diagnostics)
    expected.subtract(d.code for f in fixes for d in f.diagnostics)
    found = Counter(d.code for d in after.diagnostics)
    return tuple(sorted(code for code, n in found.items() if n > max(0, expected[code])))


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
    """Apply the allowed fixes for the selected diagnostics of ``text`` (decoded, without BOM) in rounds until
    nothing changes (at most ``MAX_PASSES``). A round applies fixes whose edits and scopes are apart; a round whose
    result has a problem its input did not is retried fix by fix, and a fix that alone adds one is rolled back."""
    original = text
    start = analyze(text, language, config, workspace=workspace, command=command)  # shared by both runs below
    result = _rounds(text, start, language, config, selected, unsafe, workspace, command, new_id)
    if unsafe:
        return result
    ctx = _context(result.analysis, result.text, workspace, new_id)
    if not any(
        selected(d.code) and _allowed(d.code, True) and _first_fix(result.analysis, d, ctx) is not None
        for d in result.analysis.diagnostics
    ):
        return result
    # What --unsafe-fixes would resolve is counted by doing it, so the two counts agree.
    both = _rounds(original, start, language, config, selected, True, workspace, command, new_id)
    return FixResult(
        result.text, result.fixed, result.analysis, max(0, len(both.fixed) - len(result.fixed)), result.rolled_back
    )


def _context(analysis: Analysis, text: str, workspace: Path | None, new_id: Callable[[], str]) -> FixContext:
    return FixContext(Source(analysis.lines, analysis.newline, text.endswith(("\n", "\r"))), workspace, new_id)


def _rounds(
    text: str,
    analysis: Analysis,
    language: Language,
    config: Config,
    selected: Callable[[str], bool],
    unsafe: bool,
    workspace: Path | None,
    command: str | None,
    new_id: Callable[[], str],
) -> FixResult:
    fixed: list[Diagnostic] = []
    rolled_back: list[tuple[Diagnostic, tuple[str, ...]]] = []
    refused: set[tuple[str, str, int, int]] = set()
    one_at_a_time = False  # once a round made a problem, one fix per round
    for _ in range(MAX_PASSES + len(analysis.diagnostics)):
        ctx = _context(analysis, text, workspace, new_id)
        chosen: list[Fix] = []
        resolved: set[int] = set()
        lead: Diagnostic | None = None  # the diagnostic the last chosen fix is for
        candidates = sorted(
            (d for d in analysis.diagnostics if selected(d.code) and _allowed(d.code, unsafe)),
            key=lambda d: (_ORDER.get(d.code, 1), d.span.start_line, d.span.start_col),
        )
        for d in candidates:
            if id(d) in resolved or _key(d) in refused:
                continue
            fix = _first_fix(analysis, d, ctx)
            if fix is None or _conflict(fix, chosen):
                continue
            chosen.append(fix)
            lead = d
            resolved.update(id(x) for x in fix.diagnostics)
            resolved.add(id(d))
            if one_at_a_time:
                break
        if not chosen:
            break
        new_text = apply_edits(text, [e for f in chosen for e in f.edits])
        new_analysis = analyze(new_text, language, config, workspace=workspace, command=command)
        added = _added_codes(analysis, chosen, new_analysis)
        if added:
            if not one_at_a_time or lead is None:
                one_at_a_time = True  # find which fix it was
                continue
            refused.update(_key(x) for x in (lead, *chosen[0].diagnostics))
            rolled_back.append((lead, added))
            continue
        refused.clear()  # the text changed: a fix refused before may be good now
        fixed.extend(d for d in analysis.diagnostics if id(d) in resolved)
        text, analysis = new_text, new_analysis
    return FixResult(text, tuple(fixed), analysis, 0, tuple(rolled_back))


def _key(d: Diagnostic) -> tuple[str, str, int, int]:
    return (d.code, d.message, d.span.start_line, d.span.start_col)


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


def write_atomic(path: Path, data: bytes, *, create: bool = False) -> None:
    """Replace ``path``'s content with ``data`` through a temporary file in the same folder (its mode kept); on
    failure the file is unchanged and no temporary file is left. With ``create``, a missing ``path`` is created
    (mode 0666 less the umask), and one that is not a regular file (``/dev/null``, a FIFO, a terminal) is written
    directly: it cannot be replaced. OSError propagates."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if not create:
            raise
        umask = os.umask(0o022)
        os.umask(umask)
        mode = 0o666 & ~umask
    else:
        if create and not stat.S_ISREG(info.st_mode):
            with open(path, "wb") as f:
                f.write(data)
            return
        mode = info.st_mode & 0o7777
    import tempfile  # deferred: check start-up (a check that shows fixes writes no file)

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
    """A unified diff of two versions of a document (lines split at docs/formats.md terminators only)."""
    import difflib  # deferred: check start-up

    lines = difflib.unified_diff(split_lines_keepends(old), split_lines_keepends(new), f"a/{display}", f"b/{display}")
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)
