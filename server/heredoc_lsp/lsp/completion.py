"""``textDocument/completion`` (:mod:`heredoc_lsp.navigation.complete`).

Every item carries a ``textEdit`` over the text typed so far, so filtering works for labels with spaces
(``chatroom task-started``) and brackets (``[CREATE_FILE``). Snippets (tag skeletons with their required attributes
and closing tag, command skeletons with a heredoc) are sent only to clients that advertise ``snippetSupport``;
others get the same text without placeholders. Documentation is Markdown where the client accepts it, else text.
"""

from __future__ import annotations

from lsprotocol import types

from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.positions import from_client, span_to_range
from heredoc_lsp.navigation.complete import TRIGGER_CHARACTERS, candidates


class CompletionFeature(Feature):
    def register(self) -> None:
        server = self.server

        options = types.CompletionOptions(trigger_characters=list(TRIGGER_CHARACTERS), resolve_provider=False)

        @server.feature(types.TEXT_DOCUMENT_COMPLETION, options)
        @guarded(server)
        def completion(params: types.CompletionParams) -> types.CompletionList | None:
            snap = server.analyses.get(params.text_document.uri)
            if snap is None:
                return None
            codec = server.position_codec
            point = from_client(codec, snap.lines, params.position)
            found = candidates(
                snap.language, snap.lines, snap.tree, point, snap.config.commands, snap.analysis.workspace
            )
            snippets = server.client.completion_snippets
            markdown = server.client.completion_markdown
            items: list[types.CompletionItem] = []
            for c in found:
                use_snippet = snippets and c.snippet is not None
                text = c.snippet if use_snippet and c.snippet is not None else c.text
                documentation: str | types.MarkupContent | None = c.documentation
                if c.documentation and markdown:
                    documentation = types.MarkupContent(kind=types.MarkupKind.Markdown, value=c.documentation)
                items.append(
                    types.CompletionItem(
                        label=c.label,
                        kind=types.CompletionItemKind[c.kind],
                        detail=c.detail,
                        documentation=documentation,
                        sort_text=c.sort,
                        filter_text=c.filter,
                        insert_text_format=(
                            types.InsertTextFormat.Snippet if use_snippet else types.InsertTextFormat.PlainText
                        ),
                        text_edit=types.TextEdit(range=span_to_range(codec, snap.lines, c.replace), new_text=text),
                    )
                )
            return types.CompletionList(is_incomplete=False, items=items)
