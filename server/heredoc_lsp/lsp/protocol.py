"""pygls' protocol with our document store in place of its ``TextDocument`` rebuild, two robustness fixes, and
the one place that uses pygls internals (each checked against :data:`PYGLS_CHECKED`; the names are listed in
:data:`PYGLS_INTERNALS` and ``tests/lsp/test_lsp_pygls.py`` checks that they exist and are used nowhere else):

- ``Workspace._text_documents``: pygls' workspace is handed a view of each open document;
- ``JsonRPCProtocol._send_response`` and ``_result_types``: answers that are already JSON text (:class:`Prerendered`)
  are written as they are;
- ``JsonRPCProtocol._converter``: the cattrs converter, warmed up before the first document arrives;
- ``JsonRPCProtocol._request_futures``: the future of a request in progress, which ``$/cancelRequest`` cancels
  (:func:`request_future`: a run learns that its ``executeCommand`` was cancelled); pygls 2.1.1 also adds the
  future of every notification and never removes it, so the finished ones are dropped after each message
  (:meth:`HeredocProtocol.forget_finished`; docs/decisions.md, "Language server").

- ``didOpen``/``didChange``/``didClose`` update :class:`~heredoc_lsp.lsp.documents.DocumentStore` line by line
  (pygls would rebuild and re-split the whole text per change) and then run the user handlers as pygls does. pygls'
  own workspace is given a read-only view of each open document, so ``workspace.get_text_document(uri)`` still
  returns the editor's text rather than the file on disk.
- A request whose parameters do not match the LSP types gets an ``InvalidParams`` error response; pygls would only
  log it and leave the client waiting forever.
- A request before ``initialize`` is refused with ``ServerNotInitialized`` and one after ``shutdown`` with
  ``InvalidRequest`` (pygls answers the first and leaves the second unanswered); notifications then are dropped.
- stdio is read and framed here (:func:`serve_stdio`, :class:`Frames`): a broken frame is skipped and the next
  message is found again, and the server ends quietly when its input ends or its output breaks (docs/editors.md,
  "The connection"), or on SIGTERM or SIGHUP. However it ends, its runs end first: their process trees are killed
  before the process exits (docs/running.md, "When the server ends").
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import os
import re
import selectors
import signal
import sys
import threading
from collections.abc import Callable, Generator, Sequence
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.workspace import TextDocument

from heredoc_lsp.executor.jsonl import StreamSink
from heredoc_lsp.executor.process import kill_trees, trees_ended
from heredoc_lsp.lsp.documents import Document, DocumentStore, LineEdit
from heredoc_lsp.lsp.positions import from_client

if TYPE_CHECKING:
    from cattrs import Converter

log = logging.getLogger(__name__)

PYGLS_CHECKED = "2.1.1"
PYGLS_INTERNALS = (
    "_text_documents",
    "_send_response",
    "_result_types",
    "_converter",
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


# -- framing ------------------------------------------------------------------------------------------------------

# A Content-Length header at the end of a line (what comes before it on the line is junk: the rest of a cut body).
_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d{1,15})[ \t]*\r?$", re.IGNORECASE)
# The same header inside a body, ended by its line break: no valid JSON text holds it (a JSON string cannot hold a
# raw line break), so the body was cut short by a Content-Length too large and the next message starts there.
_LENGTH_IN_BODY = re.compile(rb"content-length[ \t]*:[ \t]*\d{1,15}[ \t]*\r?\n$", re.IGNORECASE)
# The header as clients write it, with its blank line: read without splitting lines.
_PLAIN_HEADER = re.compile(rb"Content-Length: (\d{1,15})\r\n\r\n")
# The start of such a header, cut by the end of a body whose Content-Length was a few bytes too large.
_LENGTH_START = re.compile(rb"content-length[ \t]*(?::[ \t]*\d*[ \t]*\r?)?", re.IGNORECASE)
_WINDOW = 96  # bytes before a line break searched for a header (a header line is shorter)
_MAX_LINE = 1 << 16  # a header line longer than this is junk: all but its last _WINDOW bytes are dropped


class Frames:
    """Splits the client's byte stream into message bodies (``Content-Length: N`` headers, a blank line, N bytes)
    and finds the next message again after a broken frame, as long as the client keeps sending:

    - a header is found at the end of any line, in any letter case; the last one before the blank line counts, so
      a header without a body, or without its blank line, loses nothing but itself;
    - a length too small leaves the body's rest before the next header, where it is skipped as junk;
    - a length too large runs into the next message's header, which is recognised inside the body
      (:data:`_LENGTH_IN_BODY`, or its start at the body's end): the body ends there. When nothing follows,
      :meth:`idle` hands over a body that is already a whole JSON value.

    Pure: bytes in, bodies out. The bodies returned may still be invalid (cut, not JSON, not UTF-8).
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._length: int | None = None  # the Content-Length of the headers read so far
        self._body = False  # reading a body of self._length bytes, from the start of the buffer
        self._scanned = 0  # how far the body was searched for a header
        self._tried = -1  # buffer size when idle() last tried the body as a whole message
        self.junk = 0  # bytes skipped so far (broken frames)

    @property
    def partial(self) -> bool:
        """Whether an unfinished message (header or body) is buffered."""
        return self._body or self._length is not None or bool(self._buf.strip())

    @property
    def in_body(self) -> bool:
        return self._body

    @property
    def buffered(self) -> int:
        """Bytes held (an unfinished header or body)."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[bytes]:
        """The bodies completed by ``data``."""
        self._buf += data
        out: list[bytes] = []
        while self._step(out):
            pass
        return out

    def idle(self) -> list[bytes]:
        """Called when no more input is coming for now: an unfinished body that already is a whole JSON value
        (its Content-Length was too large) is a message. Valid JSON is never a proper prefix of another, so a
        slow client's body in flight is never taken for a whole one."""
        buf = self._buf
        if not self._body or len(buf) == self._tried:
            return []
        self._tried = len(buf)
        if not buf.rstrip().endswith(b"}"):
            return []
        try:
            json.loads(bytes(buf).decode("utf-8-sig"))
        except ValueError:
            return []
        body = bytes(buf)
        self._reset_header()
        buf.clear()
        return [body]

    def _reset_header(self) -> None:
        self._length = None
        self._body = False
        self._scanned = 0
        self._tried = -1

    def _step(self, out: list[bytes]) -> bool:
        buf = self._buf
        if self._body:
            length = self._length
            assert length is not None
            end = min(len(buf), length)
            if end > self._scanned:
                cut = self._header_in_body(end)
                if cut is not None:
                    out.append(_head(buf, cut))
                    del buf[:cut]
                    self._reset_header()
                    return True
                self._scanned = end
            if len(buf) < length:
                return False
            if end and buf[end - 1] != 0x7D:  # not "}": maybe the start of the next header
                end = self._partial_header(end)
            out.append(_head(buf, end))
            del buf[:end]
            self._reset_header()
            return True
        if self._length is None and (plain := _PLAIN_HEADER.match(buf)) is not None:  # what every client sends
            self._length = int(plain.group(1))
            del buf[: plain.end()]
            self._body = True
            return True
        newline = buf.find(b"\n")
        if newline < 0:
            if len(buf) > _MAX_LINE:
                self.junk += len(buf) - _WINDOW
                del buf[:-_WINDOW]
            return False
        line = bytes(buf[:newline])
        del buf[: newline + 1]
        if not line.strip(b" \t\r"):
            if self._length is not None:
                self._body = True
                self._scanned = 0
            return True
        match = _LENGTH.search(line, max(0, len(line) - _WINDOW))
        if match is not None:
            self.junk += match.start()
            self._length = int(match.group(1))
        elif b":" not in line:
            self.junk += len(line) + 1  # not a header ("Name: value"): junk
        return True

    def _partial_header(self, end: int) -> int:
        """Where the body of ``end`` bytes really ends: a message is a JSON object, so a body that does not end
        with ``}`` but with the start of a header (``Content-Le``) ends before that header."""
        buf = self._buf
        tail = bytes(buf[max(0, end - _WINDOW) : end])
        if tail.rstrip().endswith(b"}"):
            return end
        for at in range(len(tail)):
            rest = tail[at:]
            if rest[:1] in (b"c", b"C") and (
                b"content-length".startswith(rest.lower()) or _LENGTH_START.fullmatch(rest) is not None
            ):
                return end - len(rest)
        return end

    def _header_in_body(self, end: int) -> int | None:
        """Where a header starts in the body's bytes before ``end`` (searched once per line break)."""
        buf = self._buf
        newline = buf.find(b"\n", self._scanned, end)
        while newline >= 0:
            start = max(0, newline + 1 - _WINDOW)
            match = _LENGTH_IN_BODY.search(bytes(buf[start : newline + 1]))
            if match is not None:
                return start + match.start()
            newline = buf.find(b"\n", newline + 1, end)
        return None


def _head(buf: bytearray, end: int) -> bytes:
    """The first ``end`` bytes of ``buf``, copied once (a 50 MB body is not sliced twice)."""
    with memoryview(buf) as view:
        return bytes(view[:end])


class StdioWriter(StreamSink):
    """The server's output stream: whole messages, one writer at a time. When the client's end is gone (a broken
    pipe, a closed terminal) the error ends the connection (``lost``) instead of reaching pygls, which would log a
    traceback per message; later writes are dropped."""

    def __init__(self, stream: IO[bytes], lost: Callable[[], None]) -> None:
        super().__init__(stream)
        self._on_lost = lost

    def write(self, data: bytes) -> None:
        self.send(data)

    def lost(self, exc: Exception) -> None:
        log.info("the client's end of the output is gone (%s): ending", exc)
        self._silence()
        self._on_lost()

    def close(self) -> None:
        with self._lock, contextlib.suppress(OSError, ValueError):
            self._stream.close()

    def _silence(self) -> None:
        # What is still buffered is flushed again at interpreter exit and would fail again ("Exception ignored ...
        # BrokenPipeError"): the descriptor now writes to /dev/null, as the Python docs advise for SIGPIPE.
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)


class DocumentServer(LanguageServer):
    """A pygls server that keeps its open documents in a :class:`DocumentStore` (the language server is one)."""

    documents: DocumentStore

    def note_edit(self, doc: Document, edit: LineEdit) -> None:
        """Called after a change was applied to ``doc``, before the didChange handlers run."""


class HeredocProtocol(LanguageServerProtocol):
    _server: DocumentServer

    def __init__(self, server: Any, converter: Converter) -> None:
        super().__init__(server, converter)
        self.initialize_seen = False  # requests before initialize are refused
        self.shutdown_seen = False  # requests after shutdown are refused
        self._sweep_at = 64  # size of pygls' request futures that starts a sweep of the finished ones

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
        method = getattr(message, "method", None)
        if isinstance(method, str) and method != types.EXIT:
            if self.shutdown_seen or (not self.initialize_seen and method != types.INITIALIZE):
                self._refuse(message, method)
                return
            if method == types.INITIALIZE:
                self.initialize_seen = True
            elif method == types.SHUTDOWN:
                self.shutdown_seen = True
        try:
            super().handle_message(message)
        finally:
            self.forget_finished()

    def _refuse(self, message: Any, method: str) -> None:
        """A message the lifecycle does not allow now: a request gets the LSP error, a notification is dropped."""
        if self.shutdown_seen:
            code, text = types.ErrorCodes.InvalidRequest, f"{method}: the server is shutting down"
        else:
            code, text = types.ErrorCodes.ServerNotInitialized, f"{method}: the server is not initialized yet"
        if hasattr(message, "id"):
            log.info("refusing request %r: %s", message.id, text)
            self._send_response(message.id, error=types.ResponseError(code=code, message=text))
        else:
            log.debug("dropping notification %s: %s", method, text)

    def forget_finished(self) -> None:
        """Drop finished futures from pygls' ``_request_futures``: pygls 2.1.1 adds one for every notification
        handled by a generator, a coroutine or a thread (every didOpen, didChange and didClose) and removes only
        those of requests, a ``concurrent.futures.Future`` (~1.9 kB) retained per keystroke. A finished future
        there serves nothing: cancelling it is a no-op and a late answer to it is ignored.

        The newest entries are checked after every message (the notification just handled); all of them once the
        dict doubled since the last sweep, for the notifications that finish later."""
        futures = self._request_futures
        with contextlib.suppress(KeyError, StopIteration, RuntimeError):  # emptied or changed by another thread
            while futures:
                key = next(reversed(futures))
                if not futures[key].done():
                    break
                del futures[key]
        if len(futures) > self._sweep_at:
            for key, future in list(futures.items()):
                if future.done():
                    futures.pop(key, None)
            self._sweep_at = 2 * len(futures) + 64

    # -- stdio ------------------------------------------------------------------------------------------------
    async def read_frames(self, reader: asyncio.StreamReader) -> None:
        """Handle the messages of ``reader`` until it ends (end of file, a read error, or the output lost)."""
        frames = Frames()
        junk = 0
        while True:
            try:
                if frames.in_body:
                    try:
                        data = await asyncio.wait_for(reader.read(_CHUNK), _IDLE)
                    except asyncio.TimeoutError:
                        for body in frames.idle():
                            log.warning("a message's Content-Length is larger than the message")
                            self.handle_frame(body)
                        data = await reader.read(_CHUNK)
                else:
                    data = await reader.read(_CHUNK)
            except OSError as exc:  # a terminal that went away (EIO), a reset socket
                log.info("the client's input failed (%s): ending", exc)
                return
            if not data:
                if frames.partial:
                    log.info("the input ended in the middle of a message")
                return
            for body in frames.feed(data):
                self.handle_frame(body)
            if frames.junk != junk:
                log.warning("skipped %d bytes of broken message framing", frames.junk - junk)
                junk = frames.junk

    def handle_frame(self, body: bytes) -> None:
        """Decode and handle one message body; one that is not UTF-8 JSON is reported and skipped."""
        try:
            text = body.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            self._refuse_undecodable(body, exc)
            return
        try:
            message = json.loads(text, object_hook=self.structure_message)
        except ValueError as exc:
            log.warning("ignoring a message that is not JSON (%s): %.200r", exc, text)
            return
        except Exception as exc:  # a response pygls cannot structure, JSON nested too deep
            log.warning("ignoring a message that cannot be read (%s): %.200r", exc, text)
            return
        try:
            self.handle_message(message)
        except Exception as exc:
            log.exception("unable to handle a message")
            self._server.report_server_error(exc, JsonRpcException)

    def _refuse_undecodable(self, body: bytes, exc: UnicodeDecodeError) -> None:
        """A body that is not UTF-8: a request whose id can still be read gets a parse error."""
        log.warning("ignoring a message that is not UTF-8 (%s)", exc)
        try:
            message = json.loads(body.decode("utf-8", "replace"))
        except ValueError:
            return
        if isinstance(message, dict) and "method" in message and isinstance(message.get("id"), (int, str)):
            error = types.ResponseError(code=types.ErrorCodes.ParseError, message=f"the message is not UTF-8: {exc}")
            self._send_response(message["id"], error=error)

    def connection_ended(self) -> None:
        """The client is gone without a shutdown request: shut down as on one (runs end, watchers stop)."""
        if self.shutdown_seen:
            return
        self.shutdown_seen = True
        if (handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            try:
                handler(None)
            except Exception:
                log.exception("error in the shutdown handler")


def converter_of(protocol: LanguageServerProtocol) -> Converter:
    """The protocol's cattrs converter (pygls keeps it private)."""
    converter: Converter = protocol._converter
    return converter


def request_future(protocol: LanguageServerProtocol, msg_id: Any) -> Any:
    """The future of the request ``msg_id`` while pygls handles it (None when there is none): pygls 2.1.1 keeps
    them in ``JsonRPCProtocol._request_futures`` and cancels the one a ``$/cancelRequest`` names."""
    futures = protocol._request_futures
    return futures.get(msg_id) if isinstance(futures, dict) and msg_id is not None else None


def serve_stdio(server: LanguageServer, stdin: Any = None, stdout: Any = None) -> int:
    """Serve ``server`` over stdio until its input ends, its output breaks, ``exit``, SIGTERM or SIGHUP; the
    process's exit code.

    A pipe, socket or terminal is read by the event loop (pygls would read through its thread pool, several thread
    hops per message: a third of the per-keystroke cost on small files); anything the loop cannot poll (a regular
    file, ``/dev/null``) by a thread of its own. The end of the input ends the server, quietly: exit code 0, or the
    code of an ``exit`` notification (1 without ``shutdown`` first); a signal ends it as the end of the input does,
    with 128 + its number. Every way out shuts down as ``shutdown`` does (runs are cancelled) and waits, at most
    :data:`END_RUNS_S`, for the runs' process trees to end (SIGTERM, their grace, SIGKILL); what is left once the
    event loop is gone is killed before this returns (docs/running.md, "When the server ends").
    """
    protocol = server.protocol
    assert isinstance(protocol, HeredocProtocol)
    source = stdin or sys.stdin.buffer
    sink = stdout or sys.stdout.buffer
    loops: list[asyncio.AbstractEventLoop] = []
    signalled: list[int] = []

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        loops.append(loop)
        # A high limit: the transport pauses reading above twice this much buffered (big didOpen bodies).
        reader = asyncio.StreamReader(limit=1 << 26)
        stop_input = await _open_input(loop, reader, source)

        def lost() -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server has ended already
                loop.call_soon_threadsafe(stop_input)

        def ended_by(signum: int) -> None:
            if not signalled:
                log.info("%s: ending", signal.Signals(signum).name)
                signalled.append(signum)
            stop_input()

        for signum in END_SIGNALS:
            with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):  # not the main thread
                loop.add_signal_handler(signum, ended_by, signum)
        protocol.set_writer(StdioWriter(sink, lost))
        try:
            await protocol.read_frames(reader)
        finally:
            stop_input()
            protocol.connection_ended()
            if not await trees_ended(END_RUNS_S):
                log.warning("runs still going %g s after the server's end: killing them", END_RUNS_S)

    code = 0
    try:
        asyncio.run(serve())
    except SystemExit as exc:  # the exit notification
        code = exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        pass
    finally:
        for loop in loops:  # the runs' tasks were cancelled with the loop and killed their trees; this is the rest
            kill_trees(loop)
        server.shutdown()  # type: ignore[no-untyped-call]
    return 128 + signalled[0] if signalled else code


END_SIGNALS = (signal.SIGTERM, signal.SIGHUP)  # what editors send a server they end (after a timeout, on quit)
END_RUNS_S = 5.0  # at most this long for the runs' trees to end after the server's end, then SIGKILL
_CHUNK = 1 << 20  # bytes read at a time
_IDLE = 0.1  # seconds without input after which an unfinished body is tried as a whole message (Frames.idle)


def _pollable(source: Any) -> bool:
    """Whether the event loop can wait on ``source`` (epoll refuses regular files and /dev/null)."""
    try:
        fd = source.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
    except (OSError, ValueError, AttributeError):
        return False
    return True


async def _open_input(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader, source: Any) -> Callable[[], None]:
    """Feed ``reader`` from ``source``; returns what ends the input early (the output was lost)."""
    if _pollable(source):
        try:
            transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), source)
        except ValueError:
            pass
        else:
            return transport.close
    log.info("stdin cannot be polled: reading it in a thread")
    stopped = threading.Event()

    def deliver(data: bytes) -> None:
        if stopped.is_set():
            return
        if data:
            reader.feed_data(data)
        else:
            stop()

    def stop() -> None:
        if not stopped.is_set():
            stopped.set()
            reader.feed_eof()

    def pump() -> None:
        read = getattr(source, "read1", source.read)
        data = b"-"
        while data and not stopped.is_set():
            try:
                data = read(_CHUNK)
            except (OSError, ValueError):
                data = b""
            try:
                loop.call_soon_threadsafe(deliver, data)
            except RuntimeError:  # the loop is closed
                return

    threading.Thread(target=pump, name="heredoc-lsp stdin", daemon=True).start()
    return stop
