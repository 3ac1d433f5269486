"""``textDocument/prepareRename`` and ``textDocument/rename`` for heredoc markers (opener and terminator together).

prepareRename answers the marker's range and text, or fails with a message saying why nothing can be renamed
there. rename refuses (with a message) a name that is not a valid marker or that occurs as a line of the body, since
that line would end the heredoc early (:mod:`heredoc_lsp.navigation.markers`). Edits go out as
``documentChanges`` (versioned) when the client supports them, else as ``changes``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.positions import from_client, span_to_range
from heredoc_lsp.navigation.locate import MarkerTarget, target_at
from heredoc_lsp.navigation.markers import NOT_A_MARKER, RenameRefused, check_prepare, rename_edits

if TYPE_CHECKING:
    from heredoc_lsp.lsp.analysis import Snapshot
    from heredoc_lsp.navigation.locate import Point

log = logging.getLogger(__name__)

T = TypeVar("T")


def refused(message: str) -> JsonRpcException:
    """The error response for a refused rename (LSP's RequestFailed: the editor shows the message)."""
    return JsonRpcException(message=message, code=int(types.LSPErrorCodes.RequestFailed))


def marker_target(snap: Snapshot, point: Point) -> MarkerTarget:
    target = target_at(snap.language, snap.lines, snap.tree, point)
    if not isinstance(target, MarkerTarget):
        raise RenameRefused(NOT_A_MARKER)
    check_prepare(target.command)
    return target


def answer(what: str, make: Callable[[], T]) -> T:
    """``make()``, with a refusal (or an internal error, logged) sent as the request's error message."""
    try:
        return make()
    except RenameRefused as exc:
        raise refused(str(exc)) from None
    except Exception as exc:
        log.exception("%s failed", what)
        raise refused(f"heredoc-lsp: internal error in {what}; see the server log") from exc


class RenameFeature(Feature):
    def register(self) -> None:
        server = self.server

        options = types.RenameOptions(prepare_provider=True)

        @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
        def prepare_rename(params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder | None:
            snap = server.analyses.get(params.text_document.uri)
            if snap is None:
                return None
            codec = server.position_codec
            target = answer(
                "prepareRename", lambda: marker_target(snap, from_client(codec, snap.lines, params.position))
            )
            return types.PrepareRenamePlaceholder(
                range=span_to_range(codec, snap.lines, target.span), placeholder=target.heredoc.marker
            )

        @server.feature(types.TEXT_DOCUMENT_RENAME, options)
        def rename(params: types.RenameParams) -> types.WorkspaceEdit | None:
            snap = server.analyses.get(params.text_document.uri)
            if snap is None:
                return None
            codec = server.position_codec
            target = answer("rename", lambda: marker_target(snap, from_client(codec, snap.lines, params.position)))
            edits = answer("rename", lambda: rename_edits(target.heredoc, params.new_name))
            text_edits = [types.TextEdit(range=span_to_range(codec, snap.lines, s), new_text=t) for s, t in edits]
            if server.client.document_changes:
                document = types.OptionalVersionedTextDocumentIdentifier(
                    uri=params.text_document.uri, version=snap.version
                )
                return types.WorkspaceEdit(
                    document_changes=[types.TextDocumentEdit(text_document=document, edits=text_edits)]
                )
            return types.WorkspaceEdit(changes={params.text_document.uri: text_edits})
