"""Quick fixes: code actions of kind ``quickfix`` for the diagnostics of the current snapshot.

The fixes themselves are pure (:mod:`heredoc_lsp.fixes`); this module picks the diagnostics under the requested
range, converts the code-point edits to the client's encoding and wraps them as a workspace edit: with
``documentChanges`` (versioned) when the client supports it, with ``changes`` otherwise (Neovim 0.10/0.11).

pygls allows one ``textDocument/codeAction`` handler: it answers with every feature's
:meth:`~heredoc_lsp.lsp.feature.Feature.code_actions` in ``FEATURES`` order (the quick fixes are this feature's own)
and advertises every feature's :meth:`~heredoc_lsp.lsp.feature.Feature.code_action_kinds`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from heredoc_lsp.fixes import Fix, FixContext, Source, fixes_for
from heredoc_lsp.lsp.diagnostics import to_lsp
from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.positions import range_to_span, span_to_range

if TYPE_CHECKING:
    from heredoc_lsp.lsp.analysis import Snapshot
    from heredoc_lsp.syntax.diagnostics import Diagnostic, Span


QUICKFIX = types.CodeActionKind.QuickFix


def _wants_quickfix(only: list[str] | None) -> bool:
    if not only:
        return True
    return any(kind == QUICKFIX or QUICKFIX.startswith(f"{kind}.") for kind in only)


def _touches(span: Span, request: Span) -> bool:
    return span.start_line <= request.end_line and request.start_line <= span.end_line


class CodeActions(Feature):
    def register(self) -> None:
        server = self.server
        known = {k.value for k in types.CodeActionKind}
        kinds: list[types.CodeActionKind | str] = []
        for feature_kinds in server.each(lambda f: f.code_action_kinds(), "code_action_kinds"):
            for kind in feature_kinds:
                if kind not in kinds:
                    kinds.append(types.CodeActionKind(kind) if kind in known else kind)
        options = types.CodeActionOptions(code_action_kinds=kinds, resolve_provider=False)

        @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options)
        @guarded(server, default=[])
        async def on_code_action(params: types.CodeActionParams) -> list[types.CodeAction | types.Command]:
            return self.all_actions(params, await server.prepared(params.text_document.uri))

    def all_actions(
        self, params: types.CodeActionParams, snap: Snapshot | None
    ) -> list[types.CodeAction | types.Command]:
        if snap is None:
            return []
        found = self.server.each(lambda f: f.code_actions(params, snap), "code_actions")
        return [action for actions in found for action in actions]

    def code_action_kinds(self) -> Sequence[str]:
        return (QUICKFIX,)

    def code_actions(self, params: types.CodeActionParams, snap: Snapshot) -> list[types.CodeAction]:
        if not _wants_quickfix(list(params.context.only or [])):
            return []
        codec = self.server.position_codec
        request = range_to_span(codec, snap.lines, params.range)
        asked = {(d.code, d.range.start.line, d.range.start.character) for d in params.context.diagnostics}
        chosen: list[Diagnostic] = []
        for d in snap.diagnostics:
            lsp_range = span_to_range(codec, snap.lines, d.span)
            if _touches(d.span, request) or (d.code, lsp_range.start.line, lsp_range.start.character) in asked:
                chosen.append(d)
        context = FixContext(
            Source(snap.lines, snap.analysis.newline, snap.final_newline), workspace=snap.analysis.workspace
        )
        seen: set[str] = set()
        preferred: list[types.CodeAction] = []
        others: list[types.CodeAction] = []
        for d in chosen:
            for fix in fixes_for(snap.analysis, d, context):
                if fix.title in seen:
                    continue
                seen.add(fix.title)
                (preferred if fix.preferred else others).append(self.action(snap, fix))
        return preferred + others

    def action(self, snap: Snapshot, fix: Fix) -> types.CodeAction:
        codec = self.server.position_codec
        edits = [types.TextEdit(range=span_to_range(codec, snap.lines, e.span), new_text=e.new_text) for e in fix.edits]
        edit: types.WorkspaceEdit
        if self.server.client.document_changes:
            doc = types.OptionalVersionedTextDocumentIdentifier(uri=snap.uri, version=snap.version)
            edit = types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=doc, edits=list(edits))])
        else:
            edit = types.WorkspaceEdit(changes={snap.uri: list(edits)})
        return types.CodeAction(
            title=fix.title,
            kind=QUICKFIX,
            diagnostics=[to_lsp(snap.uri, snap.lines, codec, d) for d in fix.diagnostics],
            edit=edit,
            is_preferred=fix.preferred or None,
        )
