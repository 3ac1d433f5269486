#!/usr/bin/env python3
"""Latency of the navigation requests on a 100k-line ``.cli`` script, through the real server over stdio.

For each request: make a one-character edit in the middle of the document, force the new snapshot with a hover at
line 0 (re-analysis, timed separately), then time the request (round trip, JSON included) with a fresh result
(no per-version cache hit); repeated ``--runs`` times, medians reported. Client profiles: VS Code 1.65 (UTF-16) and
Neovim 0.11 (UTF-8), as recorded by pytest-lsp. Writes bench/results/nav.md.

    .venv/bin/python bench/bench_nav.py [--runs 7] [--lines 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import client_capabilities
from workload_files import workload

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "nav.md"
STDERR = open(os.devnull, "w") if not os.environ.get("BENCH_NAV_STDERR") else None  # noqa: SIM115
PROFILES = {"VS Code (UTF-16)": "visual-studio-code", "Neovim 0.11 (UTF-8)": "neovim"}


def heredoc_lines(text: str) -> tuple[int, int]:
    """(opener line, marker column) of a heredoc near the middle of the document."""
    lines = text.split("\n")
    for i in range(len(lines) // 2, len(lines)):
        k = lines[i].rfind(" <<")
        if k > 0 and lines[i][k + 3 :].isidentifier():
            return i, k + 3
    raise SystemExit("bench_nav: no heredoc in the second half of the workload")


class RawClient:
    """A minimal JSON-RPC client over the server's stdio: results are parsed with ``json`` only (as an editor does),
    never structured into lsprotocol objects, so the timings are the server's plus the transport."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 0
        self.waiting: dict[int, asyncio.Future[Any]] = {}
        self.reader = asyncio.create_task(self._read())

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return await asyncio.wait_for(future, TIMEOUT)

    async def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := await stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:  # the server is gone: fail whatever still waits, never hang
                for future in self.waiting.values():
                    future.set_exception(RuntimeError(f"server exited (code {await self.proc.wait()})"))
                self.waiting.clear()
                return
            message = json.loads(await stream.readexactly(length))
            if "id" in message and "method" in message:  # a request from the server: answer it
                result: Any = [{} for _ in message["params"]["items"]] if message["method"] == CONFIG else None
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            elif "id" in message and message["id"] in self.waiting:
                self.waiting.pop(message["id"]).set_result(message.get("result"))


CONFIG = "workspace/configuration"
TIMEOUT = 120.0


async def profile_run(profile: str, text: str, runs: int) -> dict[str, list[float]]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "heredoc_lsp",
        "lsp",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=STDERR,
        limit=1 << 26,
    )
    client = RawClient(proc)
    converter = default_converter()
    times: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        init = types.InitializeParams(
            capabilities=client_capabilities(profile),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")],
        )
        await client.request("initialize", converter.unstructure(init))
        client.notify("initialized", {})
        uri = (root / "bench.cli").as_uri()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "cli-script", "version": 1, "text": text}},
        )
        doc = {"uri": uri}
        opener, marker_col = heredoc_lines(text)
        middle = len(text.split("\n")) // 2
        version = 1
        token_id = [""]

        async def edit() -> None:
            nonlocal version
            version += 1
            at = {"line": middle, "character": 0}
            client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": {"start": at, "end": at}, "text": "x"}],
                },
            )
            start = time.perf_counter()
            await client.request("textDocument/hover", {"textDocument": doc, "position": {"line": 0, "character": 0}})
            times.setdefault("re-analysis after a one-character edit (+ hover at line 0)", []).append(
                time.perf_counter() - start
            )

        marker = {"line": opener, "character": marker_col}
        at_marker = {"textDocument": doc, "position": marker}
        window = {"start": {"line": middle, "character": 0}, "end": {"line": middle + 100, "character": 0}}
        requests: dict[str, Callable[[], Awaitable[Any]]] = {
            "documentSymbol": lambda: client.request("textDocument/documentSymbol", {"textDocument": doc}),
            "foldingRange": lambda: client.request("textDocument/foldingRange", {"textDocument": doc}),
            "semanticTokens/full": lambda: client.request("textDocument/semanticTokens/full", {"textDocument": doc}),
            "semanticTokens/full/delta": lambda: client.request(
                "textDocument/semanticTokens/full/delta", {"textDocument": doc, "previousResultId": token_id[0]}
            ),
            "semanticTokens/range (100 lines)": lambda: client.request(
                "textDocument/semanticTokens/range", {"textDocument": doc, "range": window}
            ),
            "hover (heredoc marker)": lambda: client.request("textDocument/hover", at_marker),
            "definition (marker)": lambda: client.request("textDocument/definition", at_marker),
            "documentHighlight (marker)": lambda: client.request("textDocument/documentHighlight", at_marker),
            "prepareRename + rename (marker)": lambda: _rename(client, at_marker),
            "completion (start of a line)": lambda: client.request(
                "textDocument/completion",
                {"textDocument": doc, "position": {"line": middle + 1, "character": 0}},
            ),
        }
        for name, request in requests.items():
            for _ in range(runs):
                await edit()
                if name.endswith("delta"):
                    full = await client.request("textDocument/semanticTokens/full", {"textDocument": doc})
                    token_id[0] = (full or {}).get("resultId", "")
                    await edit()
                start = time.perf_counter()
                await request()
                times.setdefault(name, []).append(time.perf_counter() - start)
        await client.request("shutdown", None)
        client.notify("exit", None)
        await proc.wait()
    client.reader.cancel()
    return times


async def _rename(client: RawClient, at: dict[str, Any]) -> None:
    await client.request("textDocument/prepareRename", at)
    await client.request("textDocument/rename", {**at, "newName": "RENAMED"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    cli = workload(args.lines, "bench_nav")
    text = cli.read_text(encoding="utf-8")
    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    results = {label: asyncio.run(profile_run(profile, text, args.runs)) for label, profile in PROFILES.items()}
    names = list(next(iter(results.values())))
    labels = list(results)
    out = [
        "# Navigation requests on a large `.cli` script",
        "",
        f"Workload: `{cli.name}` from gen_workloads.py, {len(text.splitlines())} lines, "
        f"{len(text.encode()) // 1024} KiB. "
        f"Median of {args.runs} runs per request, each after a one-character edit in the middle of the document "
        "(so no per-version cache helps): round trip through the real server over stdio, the answer parsed with "
        "`json` as an editor would (bench/bench_nav.py).",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"measured {time.strftime('%Y-%m-%d %H:%M')}; load average before/after: {load_before} / "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} (a shared machine: compare rows, not runs).",
        "",
        "| request | " + " | ".join(f"{label} ms" for label in labels) + " |",
        "|---|" + "---|" * len(labels),
    ]
    for name in names:
        cells = [f"{statistics.median(results[label][name]) * 1000:.1f}" for label in labels]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(out) + "\n", encoding="utf-8")
    print("\n".join(out))


if __name__ == "__main__":
    main()
