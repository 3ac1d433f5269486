"""Raw LSP over a real server's stdio: bytes in, JSON messages out.

For the tests the pytest-lsp client of lsp_harness.py cannot drive: broken framing, requests before ``initialize``
or after ``shutdown``, and the end of the server's input. :class:`RawPeer` speaks over any pair of asyncio streams
(a server process, or a server in this process over pipes); :class:`RawServer` starts the real server process.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import IO, Any

from lsp_harness import SERVER_COMMAND, TIMEOUT, capabilities_for
from pygls.protocol import default_converter

Message = dict[str, Any]


def frame(payload: object) -> bytes:
    """``payload`` as JSON with its Content-Length header."""
    return framed(json.dumps(payload).encode())


def framed(data: bytes, length: int | None = None) -> bytes:
    """``data`` after a Content-Length header (of ``length``, to give a wrong one)."""
    return b"Content-Length: %d\r\n\r\n%s" % (len(data) if length is None else length, data)


def request(msg_id: object, method: str, params: object = None) -> Message:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}


def notification(method: str, params: object = None) -> Message:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def did_open(uri: str, text: str) -> Message:
    item = {"uri": uri, "languageId": "cli-script", "version": 1, "text": text}
    return notification("textDocument/didOpen", {"textDocument": item})


def initialize_params(root: Path, profile: str = "vscode") -> Message:
    caps = default_converter().unstructure(capabilities_for(profile))
    return {"processId": None, "rootUri": root.as_uri(), "capabilities": caps}


class RawPeer:
    """The client side of one connection: sends messages or raw bytes, reads the server's messages (answering
    the server's own requests with empty results), and keeps the latest diagnostics version per URI."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter | None) -> None:
        self.reader = reader
        self.writer = writer
        self.published: dict[str, int | None] = {}

    def send(self, *messages: Message | bytes) -> None:
        """Queue messages (framed) or raw bytes (as they are)."""
        assert self.writer is not None, "this server's input is not a pipe of ours"
        for message in messages:
            self.writer.write(message if isinstance(message, bytes) else frame(message))

    async def message(self, timeout: float = TIMEOUT) -> Message:
        """The next message from the server."""

        async def read() -> Message:
            length = 0
            while True:
                header = await self.reader.readline()
                if header == b"":
                    raise EOFError("the server closed its output")
                if header == b"\r\n":
                    break
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            message: Message = json.loads(await self.reader.readexactly(length))
            return message

        return await asyncio.wait_for(read(), timeout)

    async def response(self, msg_id: object, timeout: float = TIMEOUT) -> Message:
        """The server's answer to request ``msg_id`` (the messages before it are handled and dropped)."""
        if self.writer is not None:
            await self.writer.drain()

        async def wait() -> Message:
            while True:
                message = await self.message(timeout)
                if "method" in message:
                    self._handle(message)
                elif message.get("id") == msg_id:
                    return message

        return await asyncio.wait_for(wait(), timeout)

    async def published_version(self, uri: str, version: int, timeout: float = TIMEOUT) -> None:
        """Read the server's messages until the diagnostics of ``uri`` at ``version`` are published (push)."""
        if self.writer is not None:
            await self.writer.drain()

        async def wait() -> None:
            while self.published.get(uri) != version:
                message = await self.message(timeout)
                if "method" in message:
                    self._handle(message)

        await asyncio.wait_for(wait(), timeout)

    def _handle(self, message: Message) -> None:
        if "id" in message:  # the server asks the client (configuration, registration, progress)
            if self.writer is None:
                return
            items = (message.get("params") or {}).get("items")
            result = [None] * len(items) if isinstance(items, list) else None
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif message["method"] == "textDocument/publishDiagnostics":
            params = message["params"]
            self.published[params["uri"]] = params.get("version")

    async def call(self, msg_id: object, method: str, params: object = None) -> Message:
        """Send a request and return the server's answer to it."""
        self.send(request(msg_id, method, params))
        return await self.response(msg_id)

    async def initialize(self, root: Path, profile: str = "vscode") -> Message:
        answer = await self.call("init", "initialize", initialize_params(root, profile))
        self.send(notification("initialized", {}))
        return answer


class RawServer(RawPeer):
    """The real server process (``heredoc-lsp lsp``) with stdout and stderr on pipes."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        super().__init__(proc.stdout, proc.stdin)
        self.proc = proc

    @classmethod
    async def start(cls, *args: str, stdin: int | IO[Any] = asyncio.subprocess.PIPE) -> RawServer:
        """Start the server; with ``stdin`` a file or descriptor, that is its input (and :meth:`send` is refused)."""
        proc = await asyncio.create_subprocess_exec(
            *SERVER_COMMAND,
            *args,
            stdin=stdin,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        return cls(proc)

    async def ended(self, timeout: float = TIMEOUT) -> tuple[int, str]:
        """Wait for the process to end (killed after ``timeout`` seconds): its exit code and stderr."""
        assert self.proc.stderr is not None
        err = asyncio.ensure_future(self.proc.stderr.read())
        out = asyncio.ensure_future(self.proc.stdout.read()) if self.proc.stdout is not None else None
        try:
            code = await asyncio.wait_for(self.proc.wait(), timeout)
        finally:
            await self.kill()
        if out is not None:
            await out
        return code, (await err).decode(errors="replace")

    async def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


async def pipe_peer(stdin_w: int, stdout_r: int) -> RawPeer:
    """A peer over two pipe ends of this process (the server's stdin writer and stdout reader)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(stdout_r, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, os.fdopen(stdin_w, "wb", 0))
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return RawPeer(reader, writer)
