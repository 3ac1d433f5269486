"""Fixes for inbox replies (docs/formats.md): close an unclosed block, bring a path back into the workspace."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from heredoc_lsp.analysis.suppress import TextEdit
from heredoc_lsp.fixes.model import Fix, FixContext
from heredoc_lsp.syntax.diagnostics import Diagnostic
from heredoc_lsp.syntax.inbox import escape_attr_value
from heredoc_lsp.syntax.paths import check_path_text


def close_block(d: Diagnostic, ctx: FixContext) -> list[Fix]:
    """``unclosed``: add ``[/NAME]`` where the body most likely ends."""
    data = d.data or {}
    closer = data.get("closer")
    if not isinstance(closer, str):
        return []
    line = data.get("insert_line")
    if not isinstance(line, int):
        line = len(ctx.source.lines)
    edit = ctx.source.insert_line(line, closer)
    return [Fix(f"Close the block with {closer}", (edit,), (d,), preferred=True)]


def relative_to_workspace(path: str, workspace: Path | None) -> str | None:
    """An absolute path inside the workspace, as a path relative to it (symlinks of the root resolved too)."""
    if workspace is None or not path.startswith("/"):
        return None
    candidate = os.path.normpath(path)
    for root in {os.path.normpath(str(workspace)), os.path.realpath(workspace)}:
        if candidate.startswith(root.rstrip("/") + "/"):
            rel = PurePosixPath(candidate[len(root.rstrip("/")) + 1 :]).as_posix()
            if rel and check_path_text(rel) is None:
                return rel
    return None


def fix_path(d: Diagnostic, ctx: FixContext) -> list[Fix]:
    """``path_outside_workspace``: the path relative to the workspace root when it points inside it, else the
    parser's textual repair (leading ``/``, ``~``, drive or ``..`` removed)."""
    data = d.data or {}
    path = data.get("path")
    if not isinstance(path, str):
        return []
    new = relative_to_workspace(path, ctx.workspace)
    how = "relative to the workspace root"
    if new is None:
        suggestion = data.get("suggestion")
        if not isinstance(suggestion, str) or not suggestion:
            return []
        new, how = suggestion, "inside the workspace"
    edit = TextEdit(d.span, f'"{escape_attr_value(new)}"')
    return [Fix(f"Use the path '{new}' ({how})", (edit,), (d,), preferred=True)]
