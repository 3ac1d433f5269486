"""``textDocument/codeLens`` and ``codeLens/resolve``: every feature's
:meth:`~heredoc_lsp.lsp.feature.Feature.code_lenses` joined in one answer (today the run feature's,
:mod:`heredoc_lsp.lsp.run.lenses`)."""

from __future__ import annotations

from lsprotocol import types

from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.protocol import Prerendered


class CodeLensFeature(Feature):
    """Every feature's lenses in one answer (``FEATURES`` order)."""

    def register(self) -> None:
        server = self.server

        @server.feature(types.CODE_LENS_RESOLVE)
        @guarded(server)
        def on_resolve(lens: types.CodeLens) -> types.CodeLens | Prerendered:
            if lens.command is not None:
                return lens
            found = [text for text in server.each(lambda f: f.resolve_code_lens(lens), "resolve_code_lens") if text]
            return Prerendered(found[0]) if found else lens

        @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
        @guarded(server, default=[])
        async def on_code_lens(params: types.CodeLensParams) -> list[types.CodeLens] | Prerendered:
            snap = await server.prepared(params.text_document.uri)
            if snap is None:
                return []
            found = [text for text in server.each(lambda f: f.code_lenses(snap), "code_lenses") if text]
            if len(found) == 1:
                return Prerendered(found[0])
            items = [text[1:-1] for text in found if text != "[]"]
            return Prerendered("[" + ",".join(items) + "]")
