#!/usr/bin/env python3
"""The language server's memory over a long session and how fast it ends when its client is gone, from outside.

- Memory: the real server process (stdio), one open 150-line script, 20,000 didChange notifications (one character
  each, as typed) and then 1,500 documents opened, asked for their outline and closed; the process's resident size
  (VmRSS) after every 2,500 changes / 250 documents, once the server has answered a request sent after them.
  Target: flat (no growth per keystroke or per document past the first checkpoints).
- End of input: seconds from the end of the server's input to the end of the process, for ``< /dev/null`` (from
  the start: the input ends at once), an input pipe closed after initialize, and an editor that goes away (input
  and output closed) while a 300k-line document is parsed. Target: under 1 s after the input ended.

Writes bench/results/stdio.md with the commit and the load average.

    .venv/bin/python bench/bench_stdio.py [--server-path DIR] [--edits 20000] [--documents 1500] [--runs 3]

``--server-path`` runs the server from another checkout's ``server/`` folder (e.g. a worktree of an older commit),
to measure before and after on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "stdio.md"
END_TARGET = 1.0
LIMIT = 20.0  # seconds after which a server that did not end is killed


def frame(payload: object) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class Server:
    """The server process, with a thread reading its messages (answers are kept by id)."""

    def __init__(self, server_path: str | None, stdin: Any = subprocess.PIPE, reader: bool = True) -> None:
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if server_path:
            env["PYTHONPATH"] = server_path
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "heredoc_lsp", "lsp"],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.answers: dict[object, dict[str, Any]] = {}
        self.cond = threading.Condition()
        self.err = b""
        if reader:  # else the caller reads (read_message) and may close the output under the server
            threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def read_message(self) -> dict[str, Any] | None:
        out = self.proc.stdout
        assert out is not None
        length = 0
        while True:
            line = out.readline()
            if not line:
                return None
            if line == b"\r\n":
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message: dict[str, Any] = json.loads(out.read(length))
        return message

    def _read(self) -> None:
        while (message := self.read_message()) is not None:
            if "id" in message and "method" in message:  # the server asks: an empty answer
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "id" in message:
                with self.cond:
                    self.answers[message["id"]] = message
                    self.cond.notify_all()

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.err = self.proc.stderr.read()

    def send(self, *messages: object) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(b"".join(frame(m) for m in messages))
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def call(self, msg_id: object, method: str, params: object = None, timeout: float = 300) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        with self.cond:
            if not self.cond.wait_for(lambda: msg_id in self.answers, timeout):
                raise TimeoutError(f"no answer to {method}")
            return self.answers.pop(msg_id)

    def initialize(self, root: Path) -> None:
        self.call(0, "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def ended(self) -> float | None:
        """Seconds until the process ended (None: killed after LIMIT)."""
        start = time.monotonic()
        try:
            self.proc.wait(LIMIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        return time.monotonic() - start


def open_doc(uri: str, text: str) -> dict[str, Any]:
    item = {"uri": uri, "languageId": "cli-script", "version": 1, "text": text}
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}}


def close_doc(uri: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}}


def memory(server_path: str | None, edits: int, documents: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """RSS (KiB) after each batch of edits, then after each batch of documents opened and closed."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        server = Server(server_path)
        server.initialize(root)
        uri = (root / "typed.cli").as_uri()
        server.send(open_doc(uri, "".join(f"cmd{i} <<EOF\nbody {i}\nEOF\n" for i in range(50))))
        symbols = {"textDocument": {"uri": uri}}
        server.call("warm", "textDocument/documentSymbol", symbols)
        by_edits = [(0, server.rss_kib())]
        step = 2500
        for done in range(0, edits, step):
            batch = []
            for k in range(done, done + step):
                where = {
                    "start": {"line": (k * 3 + 1) % 150, "character": 0},
                    "end": {"line": (k * 3 + 1) % 150, "character": 1},
                }
                batch.append(
                    {
                        "jsonrpc": "2.0",
                        "method": "textDocument/didChange",
                        "params": {
                            "textDocument": {"uri": uri, "version": k + 2},
                            "contentChanges": [{"range": where, "text": "xyz"[k % 3]}],
                        },
                    }
                )
            server.send(*batch)
            server.call(f"e{done}", "textDocument/documentSymbol", symbols)
            by_edits.append((done + step, server.rss_kib()))
        by_documents = [(0, server.rss_kib())]
        step = 250
        for done in range(0, documents, step):
            for k in range(done, done + step):
                other = (root / f"open{k}.cli").as_uri()
                server.send(open_doc(other, f"tool{k} <<EOF\nx\n"))
                server.call(f"d{k}", "textDocument/documentSymbol", {"textDocument": {"uri": other}})
                server.send(close_doc(other))
            server.call(f"ds{done}", "textDocument/documentSymbol", symbols)
            by_documents.append((done + step, server.rss_kib()))
        server.call("bye", "shutdown")
        server.send({"jsonrpc": "2.0", "method": "exit", "params": None})
        server.ended()
        return by_edits, by_documents


def end_dev_null(server_path: str | None) -> float | None:
    with open(os.devnull, "rb") as devnull:
        server = Server(server_path, stdin=devnull)
    took = server.ended()
    return None if took is None else time.monotonic() - server.started


def end_closed_pipe(server_path: str | None) -> float | None:
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(server_path)
        server.initialize(Path(tmp))
        assert server.proc.stdin is not None
        server.proc.stdin.close()
        return server.ended()


def end_editor_gone(server_path: str | None) -> float | None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        server = Server(server_path, reader=False)
        init = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
        server.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        while (message := server.read_message()) is not None and message.get("id") != 0:
            pass
        uri = (root / "big.cli").as_uri()
        server.send(
            open_doc(uri, "cat <<EOF\nx\nEOF\n" * 100_000 + "tail <<END\n"),
            {
                "jsonrpc": "2.0",
                "id": "big",
                "method": "textDocument/documentSymbol",
                "params": {"textDocument": {"uri": uri}},
            },
        )
        assert server.proc.stdin is not None and server.proc.stdout is not None
        server.proc.stdin.close()
        server.proc.stdout.close()
        return server.ended()


def fmt(seconds: float | None) -> str:
    return f"did not end (killed after {LIMIT:.0f} s)" if seconds is None else f"{seconds:.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server-path", help="run the server from this folder (another checkout's server/)")
    parser.add_argument("--edits", type=int, default=20_000)
    parser.add_argument("--documents", type=int, default=1_500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    source = Path(args.server_path) if args.server_path else ROOT / "server"
    commit = (
        subprocess.run(
            ["git", "-C", str(source), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        or "?"
    )
    load = os.getloadavg()
    lines = [
        "# The server over stdio: memory over a long session, and the end of its input",
        "",
        f"Server from `{source}` at `{commit}`; Python {sys.version.split()[0]}; load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the start. Command: `.venv/bin/python bench/bench_stdio.py"
        + (f" --server-path {args.server_path}" if args.server_path else "")
        + "`.",
        "",
    ]
    by_edits, by_documents = memory(args.server_path, args.edits, args.documents)
    lines += ["## Memory (VmRSS, KiB)", "", "| didChange sent | RSS | since the previous row |", "|---:|---:|---:|"]
    previous = by_edits[0][1]
    for count, rss in by_edits:
        lines.append(f"| {count} | {rss} | {rss - previous:+d} |")
        previous = rss
    first_half = by_edits[len(by_edits) // 2][1]
    per_edit = (by_edits[-1][1] - first_half) * 1024 / max(1, by_edits[-1][0] - by_edits[len(by_edits) // 2][0])
    lines += ["", f"Growth over the second half of the edits: {per_edit:.0f} bytes per didChange.", ""]
    lines += ["| documents opened, outlined, closed | RSS | since the previous row |", "|---:|---:|---:|"]
    previous = by_documents[0][1]
    for count, rss in by_documents:
        lines.append(f"| {count} | {rss} | {rss - previous:+d} |")
        previous = rss
    half = len(by_documents) // 2
    per_doc = (by_documents[-1][1] - by_documents[half][1]) * 1024 / max(1, by_documents[-1][0] - by_documents[half][0])
    lines += ["", f"Growth over the second half of the documents: {per_doc:.0f} bytes per document.", ""]
    lines += [
        f"## End of input (seconds, median of {args.runs}; target < {END_TARGET} s after the input ended)",
        "",
        "| case | median | runs |",
        "|---|---:|---|",
    ]
    for name, case in (
        ("`< /dev/null` (from the start, start-up included)", end_dev_null),
        ("input pipe closed after initialize", end_closed_pipe),
        ("editor gone (input and output closed) during a 300k-line open", end_editor_gone),
    ):
        runs = [case(args.server_path) for _ in range(args.runs)]
        ended = [r for r in runs if r is not None]
        median = fmt(statistics.median(ended)) if len(ended) == len(runs) else fmt(None)
        lines.append(f"| {name} | {median} | {', '.join(fmt(r) for r in runs)} |")
    load = os.getloadavg()
    lines += ["", f"Load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}.", ""]
    text = "\n".join(lines)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
