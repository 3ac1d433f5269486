"""Fixes for ``.cli`` heredocs: close an unclosed heredoc, rename a marker to one its body does not contain, give
a heredoc closed early by its own marker a fresh one, run a heredoc command in the foreground."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from heredoc_lsp.analysis.suppress import TextEdit
from heredoc_lsp.fixes.model import Fix, FixContext
from heredoc_lsp.syntax.cli import may_end_opener
from heredoc_lsp.syntax.diagnostics import Diagnostic, Span
from heredoc_lsp.syntax.text import trim

_NOT_MARKER_CHAR = re.compile(r"[^A-Za-z0-9_]")


def close_unclosed_heredoc(d: Diagnostic, ctx: FixContext) -> list[Fix]:
    """``unclosed_heredoc``: add the marker line where the body ends (the end of the file)."""
    data = d.data or {}
    marker = data.get("marker")
    if not isinstance(marker, str) or not marker:
        return []
    line = data.get("insert_line")
    if not isinstance(line, int):
        line = len(ctx.source.lines)
    edit = ctx.source.insert_line(line, marker)
    return [Fix(f"Close the heredoc with a line '{marker}'", (edit,), (d,), preferred=True)]


def unused_marker(wanted: str, body: Iterable[str]) -> str:
    """``wanted`` made a valid marker (accents dropped, other characters removed) that is no trimmed body line."""
    ascii_word = unicodedata.normalize("NFKD", wanted).encode("ascii", "ignore").decode("ascii")
    base = _NOT_MARKER_CHAR.sub("", ascii_word) or "EOF"
    taken = {trim(line) for line in body}
    candidate = base
    k = 1
    while candidate in taken:
        candidate = f"{base}_{k}"
        k += 1
    return candidate


def marker_in_no_line(wanted: str, body: Iterable[str]) -> str:
    """``wanted`` with the first suffix ``_1``, ``_2``... that makes it occur in no line of ``body`` (not even inside
    one)."""
    lines = tuple(body)
    candidate = wanted
    k = 1
    while any(candidate in line for line in lines):
        candidate = f"{wanted}_{k}"
        k += 1
    return candidate


def fresh_marker_for_early_close(d: Diagnostic, others: Sequence[Diagnostic], ctx: FixContext) -> list[Fix]:
    """``early_close``: a marker that occurs in no line of the intended body, at the opener and at the last stray
    marker line of the same heredoc (``others``: every ``early_close`` of the document), so that the body runs to
    that line again."""
    data = d.data or {}
    marker = data.get("marker")
    opener = data.get("opener_line")
    if not isinstance(marker, str) or not isinstance(opener, int) or not d.related:
        return []
    same = [x for x in others if (x.data or {}).get("opener_line") == opener and x.code == "early_close"]
    last = max([d.span.start_line, *(x.span.start_line for x in same)])
    lines: Sequence[str] = ctx.source.lines
    if not opener < last < len(lines):
        return []
    new = marker_in_no_line(marker, lines[opener + 1 : last])
    edits = (TextEdit(d.related[0].span, new), ctx.source.replace_line_text(last, new))
    resolved = tuple(dict.fromkeys((d, *same)))
    title = f"Rename the marker '{marker}' to '{new}' so that the heredoc runs to line {last + 1}"
    return [Fix(title, edits, resolved, preferred=True)]


def rename_invalid_marker(d: Diagnostic, ctx: FixContext) -> list[Fix]:
    """``invalid_marker``: rename the word (and its closing line, when there is one) to a valid, unused marker; a
    valid marker glued to a redirection or pipe (``<<EOF>out``) gets a blank instead."""
    data = d.data or {}
    word = data.get("word")
    marker = data.get("marker")
    if not isinstance(word, str) or not word or not isinstance(marker, str):
        return []
    glued = data.get("glued_col")
    if isinstance(glued, int):
        # `cat <<EOF>out`: the marker is fine, a blank is missing before the redirection or pipe (renaming the
        # whole word would drop the redirection).
        line = d.span.start_line
        edit = TextEdit(Span(line, glued, line, glued), " ")
        return [
            Fix(
                f"Put a blank between the marker '{marker}' and '{word[glued - d.span.start_col :]}'",
                (edit,),
                (d,),
                preferred=True,
            )
        ]
    lines: Sequence[str] = ctx.source.lines
    opener = d.span.start_line
    terminator = data.get("terminator_line")
    # Without a closing line, a valid marker would swallow the rest of the file: nothing sensible to offer.
    if not isinstance(terminator, int) or not opener < terminator < len(lines):
        return []
    new = unused_marker(marker, lines[opener + 1 : terminator])
    quoted = len(word) >= 2 and word[0] in "'\"" and word[-1] == word[0]
    replacement = f"{word[0]}{new}{word[0]}" if quoted else new
    edits = (TextEdit(d.span, replacement), ctx.source.replace_line_text(terminator, new))
    return [Fix(f"Rename the marker '{marker}' to '{new}'", edits, (d,), preferred=True)]


def space_before_operator(d: Diagnostic, ctx: FixContext) -> list[Fix]:
    """``possible_heredoc`` without a blank before ``<<``: add one, making the line a heredoc opener."""
    data = d.data or {}
    col = data.get("operator_col")
    marker = data.get("marker")
    if not data.get("needs_space") or not isinstance(col, int) or not isinstance(marker, str):
        return []
    line = d.span.start_line
    text = ctx.source.lines[line] if line < len(ctx.source.lines) else ""
    if not may_end_opener(text[d.span.end_col :].rstrip(" \t\f\v")):
        return []  # a space alone does not make a heredoc of '<<WORD' followed by another word
    edit = TextEdit(Span(line, col, line, col), " ")
    return [Fix(f"Add a space before '<<' to start a heredoc ending at '{marker}'", (edit,), (d,))]


def run_in_the_foreground(d: Diagnostic, ctx: FixContext) -> list[Fix]:
    """``background_stdin``: remove the final ``&`` (and the blanks before it), so the command reads its body."""
    line = d.span.start_line
    lines: Sequence[str] = ctx.source.lines
    if line >= len(lines) or lines[line][d.span.start_col : d.span.end_col] != "&":
        return []
    text = lines[line]
    start = len(text[: d.span.start_col].rstrip(" \t\f\v"))
    edit = TextEdit(Span(line, start, line, d.span.end_col), "")
    return [
        Fix("Remove the '&': run the command in the foreground, reading the heredoc", (edit,), (d,), preferred=True)
    ]
