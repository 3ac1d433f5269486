#!/usr/bin/env python3
"""The floor for start-up: a bare pygls 2 language server that only publishes empty diagnostics (with the document
version) on open and change. bench_lsp.py compares heredoc-lsp's spawn -> initialize time against it."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("bare-pygls", "0")


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=doc.uri, version=doc.version, diagnostics=[])
    )


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    doc = params.text_document
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=doc.uri, version=doc.version, diagnostics=[])
    )


if __name__ == "__main__":
    server.start_io()
