"""Which fixes resolve which diagnostic codes."""

from __future__ import annotations

from heredoc_lsp.analysis.core import Analysis
from heredoc_lsp.fixes import heredoc, inbox, params
from heredoc_lsp.fixes.model import Fix, FixContext
from heredoc_lsp.fixes.suppress import suppression_fixes
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.cli import CliScript
from heredoc_lsp.syntax.diagnostics import Diagnostic
from heredoc_lsp.syntax.params import ParamsBody


def _body_of(analysis: Analysis, d: Diagnostic) -> ParamsBody | None:
    """The structured body a diagnostic is in (a ``.cli`` heredoc body, or a stand-alone body)."""

    tree = analysis.tree
    if isinstance(tree, ParamsBody):
        return tree
    if not isinstance(tree, CliScript):
        return None
    item = tree.item_at(d.span.start_line)
    body = getattr(item, "params", None)
    return body if isinstance(body, ParamsBody) else None


def fixes_for(analysis: Analysis, d: Diagnostic, ctx: FixContext, *, suppressions: bool = True) -> list[Fix]:
    """Every fix for ``d``: the specific ones first (the preferred one leading), then the suppressions."""
    code = d.code
    out: list[Fix] = []
    if code == "unclosed_heredoc":
        out += heredoc.close_unclosed_heredoc(d, ctx)
    elif code == "invalid_marker":
        out += heredoc.rename_invalid_marker(d, ctx)
    elif code == "possible_heredoc":
        out += heredoc.space_before_operator(d, ctx)
    elif code == "background_stdin":
        out += heredoc.run_in_the_foreground(d, ctx)
    elif code == "early_close":
        out += heredoc.fresh_marker_for_early_close(d, (*analysis.diagnostics, *analysis.suppressed), ctx)
    elif code == "unclosed" and analysis.language is Language.INBOX:
        out += inbox.close_block(d, ctx)
    elif code == "path_outside_workspace":
        out += inbox.fix_path(d, ctx)
    elif code in ("duplicate", "collision", "missing", "unknown"):
        body = _body_of(analysis, d)
        if body is not None:
            if code in ("duplicate", "collision"):
                out += params.switch_to_uuid(d, body, ctx)
            elif code == "missing":
                out += params.add_missing(d, body, ctx)
            else:
                out += params.replace_unknown(d, body, ctx)
    if suppressions:
        out += suppression_fixes(analysis, d)
    return out
