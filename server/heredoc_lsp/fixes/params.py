"""Fixes for structured heredoc bodies (docs/formats.md): UUID-prefixed delimiters, a missing parameter, an unknown
name."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from heredoc_lsp.analysis.suppress import TextEdit
from heredoc_lsp.fixes.model import Fix, FixContext
from heredoc_lsp.syntax.diagnostics import Diagnostic, Span
from heredoc_lsp.syntax.params import ParamsBody, delimiter_text


def body_scope(body: ParamsBody) -> Span:
    """The lines of ``body``: every fix of one of its parameters is computed from all of them."""
    return Span(body.start_line, 0, max(body.start_line, body.end_line), 0)


def fresh_id(body_lines: Sequence[str], ctx: FixContext) -> str:
    """A new delimiter ID that does not occur anywhere in the body (case-insensitively)."""
    text = "\n".join(body_lines).lower()
    while True:
        candidate = ctx.new_id()
        if candidate.lower() not in text:
            return candidate


def switch_to_uuid(d: Diagnostic, body: ParamsBody, ctx: FixContext) -> list[Fix]:
    """``duplicate``/``collision``: rewrite the real delimiters as ``---(UUID:id)NAME---``; the colliding content
    lines stay as they are, so they are content from then on."""
    if body.mode != "multi" or body.style != "plain" or not body.delimiter_lines:
        return []
    real = set(body.delimiter_lines)
    lines = ctx.source.lines[body.start_line : body.end_line]
    new_id = fresh_id(lines, ctx)
    edits = tuple(
        TextEdit(p.delimiter_span, delimiter_text(p.name, new_id))
        for p in body.params
        if p.line is not None and p.line in real and p.delimiter_span is not None
    )
    if not edits:
        return []
    fixed = tuple(x for x in body.diagnostics if x.code in ("duplicate", "collision")) or (d,)
    return [
        Fix(
            f"Switch to UUID-prefixed delimiters (---(UUID:{new_id})NAME---)",
            edits,
            fixed,
            preferred=True,
            scope=body_scope(body),
        )
    ]


def add_missing(d: Diagnostic, body: ParamsBody, ctx: FixContext) -> list[Fix]:
    """``missing``: add the delimiter at the end of the body, followed by a placeholder value to type over."""
    data = d.data or {}
    name = data.get("name")
    if not isinstance(name, str):
        return []
    line = data.get("insert_line")
    if not isinstance(line, int):
        line = body.end_line
    uuid = body.uuid if body.style == "uuid" else None
    scope = body_scope(body)
    fixes = [Fix(f"Add parameter '{name}'", _insert_params(ctx, line, [name], uuid), (d,), preferred=True, scope=scope)]
    all_missing = [
        x for x in body.diagnostics if x.code == "missing" and x.data and isinstance(x.data.get("name"), str)
    ]
    if len(all_missing) > 1:
        names = [str(x.data["name"]) for x in all_missing if x.data]
        edits = _insert_params(ctx, line, names, uuid)
        fixes.append(Fix(f"Add all missing parameters ({', '.join(names)})", edits, tuple(all_missing), scope=scope))
    return fixes


def placeholder(name: str) -> str:
    """The value line an added parameter gets: visibly unfinished, never empty (an empty value is an error)."""
    return f"TODO: <{name.lower().replace('_', ' ')}>"


def _insert_params(ctx: FixContext, line: int, names: Sequence[str], uuid: str | None) -> tuple[TextEdit, ...]:
    # One insertion of several lines: each delimiter followed by a placeholder value for the person to type over.
    # An empty line instead would trade `missing` for an `empty` error.
    block = ctx.source.newline.join(part for name in names for part in (delimiter_text(name, uuid), placeholder(name)))
    return (ctx.source.insert_line(line, block),)


def closest_name(name: str, allowed: Sequence[str], used: Sequence[str] = ()) -> str | None:
    """The allowed name most similar to ``name``, preferring names not used yet."""
    if not allowed:
        return None
    candidates = [a for a in allowed if a not in used] or list(allowed)

    def score(candidate: str) -> tuple[float, float]:
        ratio = difflib.SequenceMatcher(None, name, candidate).ratio()
        prefix = difflib.SequenceMatcher(None, name[:3], candidate[:3]).ratio()
        return (ratio, prefix)

    return max(candidates, key=score)


def replace_unknown(d: Diagnostic, body: ParamsBody, ctx: FixContext) -> list[Fix]:
    """``unknown``: replace the name with the closest allowed one."""
    data = d.data or {}
    name = data.get("name")
    allowed = data.get("allowed")
    if not isinstance(name, str) or not isinstance(allowed, (list, tuple)):
        return []
    used = [p.name for p in body.params if p.kind == "param"]
    best = closest_name(name, [str(a) for a in allowed], used)
    if best is None or best == name:
        return []
    return [
        Fix(f"Replace '{name}' with '{best}'", (TextEdit(d.span, best),), (d,), preferred=True, scope=body_scope(body))
    ]
