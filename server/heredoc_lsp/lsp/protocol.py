"""pygls' protocol with our document store in place of its ``TextDocument`` rebuild, two robustness fixes, and
the one place that uses pygls internals (each checked against :data:`PYGLS_CHECKED`; the names are listed in
:data:`PYGLS_INTERNALS` and ``tests/lsp/test_lsp_pygls.py`` checks that they exist and are used nowhere else):

- ``Workspace._text_documents``: pygls' workspace is handed a view of each open document;
- ``JsonRPCProtocol._send_response`` and ``_result_types``: answers that are already JSON text (:class:`Prerendered`)
  are written as they are;
- ``JsonRPCProtocol._converter``: the cattrs converter, warmed up before the first document arrives;
- ``LanguageServer._stop_event`` and ``pygls.io_.run_async``: the stdio loop reads stdin with an asyncio pipe
  reader (:func:`serve_stdio`);
- ``JsonRPCProtocol._request_futures``: the future of a request in progress, which ``$/cancelRequest`` cancels
  (:func:`request_future`: a run learns that its ``executeCommand`` was cancelled).

- ``didOpen``/``didChange``/``didClose`` update :class:`~heredoc_lsp.lsp.documents.DocumentStore` line by line
  (pygls would rebuild and re-split the whole text per change) and then run the user handlers as pygls does. pygls'
  own workspace is given a read-only view of each open document, so ``workspace.get_text_document(uri)`` still
  returns the editor's text rather than the file on disk.
- A request whose parameters do not match the LSP types gets an ``InvalidParams`` error response; pygls would only
  log it and leave the client waiting forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import sys
import threading
from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.workspace import TextDocument

from heredoc_lsp.lsp.documents import Document, LineEdit
from heredoc_lsp.lsp.positions import from_client

if TYPE_CHECKING:
    from cattrs import Converter

    from heredoc_lsp.lsp.server import HeredocLanguageServer

log = logging.getLogger(__name__)

PYGLS_CHECKED = "2.1.1"
PYGLS_INTERNALS = (
    "_text_documents",
    "_send_response",
    "_result_types",
    "_converter",
    "_stop_event",
    "_request_futures",
)


_WRITES: set[asyncio.Future[Any]] = set()  # writes in flight on an asynchronous transport


class Prerendered:
    """A request's result that is already JSON text: written as is, never converted or encoded again.

    Features with big answers (outline, folds, lenses of a 100k-line script) keep JSON text per item and join it;
    building and unstructuring tens of thousands of ``lsprotocol`` objects per request would cost seconds.
    """

    __slots__ = ("_data", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._data: bytes | None = None

    def encoded(self) -> bytes:
        """The text as UTF-8 (encoded once, however often it is sent)."""
        if self._data is None:
            self._data = self.text.encode()
        return self._data


class _Answered:
    """Stands for a message that was already answered while it was being decoded."""

    jsonrpc = ""


class DocumentView(TextDocument):
    """pygls ``TextDocument`` that reads an open :class:`Document` (kept for code that asks pygls' workspace)."""

    def __init__(self, doc: Document, protocol: LanguageServerProtocol) -> None:
        super().__init__(
            doc.uri,
            source="",
            version=doc.version,
            language_id=doc.language_id,
            position_codec=protocol.workspace.position_codec,
        )
        self._doc = doc

    @property
    def source(self) -> str:
        return self._doc.text()

    @property
    def lines(self) -> Sequence[str]:
        return tuple(line + ending for line, ending in zip(self._doc.lines, self._doc.endings, strict=True))

    def apply_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        raise RuntimeError("open documents are changed through the heredoc-lsp document store")


class HeredocProtocol(LanguageServerProtocol):
    _server: HeredocLanguageServer

    # -- text synchronisation ----------------------------------------------------------------------------------
    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Generator[Any, Any, None]:
        item = params.text_document
        doc = self._server.documents.open(item.uri, item.text, item.version, item.language_id)
        self._expose(doc)
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Generator[Any, Any, None]:
        uri = params.text_document.uri
        doc = self._server.documents.get(uri)
        if doc is None:
            log.warning("didChange for a document that is not open: %s", uri)
            return
        edit: LineEdit | None = None
        codec = self.workspace.position_codec
        version = params.text_document.version
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                start = from_client(codec, doc.lines, change.range.start)
                end = from_client(codec, doc.lines, change.range.end)
                step = doc.replace_range(start, end, change.text, version)
            else:
                step = doc.replace_all(change.text, version)
            edit = step if edit is None else edit.then(step)
        doc.version = version
        if edit is not None:
            self._server.note_edit(doc, edit)
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Generator[Any, Any, None]:
        self._server.documents.close(params.text_document.uri)
        with contextlib.suppress(KeyError):
            self.workspace.remove_text_document(params.text_document.uri)
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None

    def _expose(self, doc: Document) -> None:
        # pygls keys its documents by the percent-decoded URI; a private dict, but the only way to hand it a view.
        self.workspace._text_documents[unquote(doc.uri)] = DocumentView(doc, self)

    # -- prerendered answers ------------------------------------------------------------------------------------
    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        # pygls 2.1.1: every answer goes through JsonRPCProtocol._send_response(msg_id, result, error), which
        # unstructures ``result`` with cattrs and json.dumps the whole message (checked in tests/lsp/test_lsp_pygls.py).
        if error is not None or not isinstance(result, Prerendered):
            super()._send_response(msg_id, result, error)
            return
        self._result_types.pop(msg_id, None)
        self._write(f'{{"jsonrpc":"2.0","id":{json.dumps(msg_id)},"result":'.encode(), result.encoded(), b"}")

    def notify_prerendered(self, method: str, params: Prerendered) -> None:
        """A notification whose params are already JSON text (e.g. a big publishDiagnostics)."""
        self._write(f'{{"jsonrpc":"2.0","method":{json.dumps(method)},"params":'.encode(), params.encoded(), b"}")

    def _write(self, head: bytes, body: bytes, tail: bytes) -> None:
        if self.writer is None:
            return
        size = len(head) + len(body) + len(tail)
        written = self.writer.write(b"".join((b"Content-Length: %d\r\n\r\n" % size, head, body, tail)))
        if inspect.isawaitable(written):  # the TCP and websocket writers
            task = asyncio.ensure_future(written)
            _WRITES.add(task)
            task.add_done_callback(_WRITES.discard)

    # -- decoding errors ---------------------------------------------------------------------------------------
    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:
                method = data.get("method")
                log.warning("invalid parameters for %s (request %r): %s", method, data.get("id"), exc.__cause__)
                error = JsonRpcInvalidParams(f"Invalid parameters for {method}")
                self._send_response(data["id"], error=error.to_response_error())
                return _Answered()
            if "method" in data:
                log.warning("ignoring %s with invalid parameters: %s", data.get("method"), exc.__cause__)
                return _Answered()
            raise

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Answered):
            return
        if not hasattr(message, "jsonrpc"):
            log.warning("ignoring a message that is not JSON-RPC 2.0: %.200r", message)
            return
        super().handle_message(message)


def converter_of(protocol: LanguageServerProtocol) -> Converter:
    """The protocol's cattrs converter (pygls keeps it private)."""
    converter: Converter = protocol._converter
    return converter


def request_future(protocol: LanguageServerProtocol, msg_id: Any) -> Any:
    """The future of the request ``msg_id`` while pygls handles it (None when there is none): pygls 2.1.1 keeps
    them in ``JsonRPCProtocol._request_futures`` and cancels the one a ``$/cancelRequest`` names."""
    futures = protocol._request_futures
    return futures.get(msg_id) if isinstance(futures, dict) and msg_id is not None else None


def serve_stdio(server: LanguageServer, stdin: Any = None, stdout: Any = None) -> None:
    """Serve ``server`` over stdio, reading stdin with an asyncio pipe transport.

    pygls reads stdin through its thread pool, several thread hops per message (a third of the per-keystroke cost
    on small files); an event-loop pipe reader has none. When stdin is no pipe, socket or terminal (a regular
    file), pygls' own reader is used.
    """
    source = stdin or sys.stdin.buffer
    stop = server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    report = getattr(server, "report_server_error", None)

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        # A high limit: the transport pauses reading above twice this much buffered (big didOpen bodies).
        reader = asyncio.StreamReader(limit=1 << 26)
        try:
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), source)
            piped = True
        except ValueError:
            piped = False
        if piped:
            await run_async(stop, reader, server.protocol, log, report)
            return
        log.info("stdin is not a pipe: reading it through the thread pool")
        fallback = StdinAsyncReader(source, server.thread_pool)
        await run_async(stop, fallback, server.protocol, log, report)

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("the connection to the client is lost; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
