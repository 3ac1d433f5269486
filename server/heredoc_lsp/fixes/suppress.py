"""The ``# heredoc-lsp: disable=CODE`` quick fixes (the directive logic and its edit are the analysis core's)."""

from __future__ import annotations

from heredoc_lsp.analysis.core import Analysis
from heredoc_lsp.fixes.model import Fix
from heredoc_lsp.syntax.diagnostics import Diagnostic


def suppression_fixes(analysis: Analysis, d: Diagnostic) -> list[Fix]:
    """Silence ``d``'s code where it is (its line, or its whole command) and in the whole file."""
    out: list[Fix] = []
    here = analysis.suppression_edit(d)
    if here is not None:
        out.append(Fix(f"Disable {d.code} here (# heredoc-lsp: disable={d.code})", (here,), (d,)))
    whole = analysis.suppression_edit(d, whole_file=True)
    if whole is not None and (here is None or whole != here):
        out.append(Fix(f"Disable {d.code} in this file", (whole,), (d,)))
    return out
