#!/usr/bin/env python3
"""Running from the editor, through the real server over stdio (pytest-lsp client, Neovim 0.11 profile).

- run latency: ``workspace/executeCommand heredoc-lsp.runCommand`` on ``true`` (confirm = never), from the request
  to its answer (progress, log, results included), in the default sandbox mode (bubblewrap when installed) — the
  first run (which loads the executor) and the median of the next ``--runs``;
- lens latency: ``textDocument/codeLens`` on scripts of ``--commands`` commands (half of them with a heredoc):
  right after an edit (re-analysis and targets included), unchanged (cached), and after an edit with results on
  every tenth command.

Writes bench/results/run_lsp.md.

    .venv/bin/python bench/bench_run_lsp.py [--runs 20] [--commands 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "run_lsp.md"
sys.path.insert(0, str(ROOT / "tests" / "lsp"))

from lsp_harness import CONFIG, RecordingClient, initialize  # noqa: E402
from lsprotocol import types  # noqa: E402


def script(commands: int) -> str:
    out = []
    for i in range(commands):
        if i % 2:
            out.append(f"cat > /dev/null <<EOF\nline {i}\nEOF")
        else:
            out.append(f"echo {i}")
    return "\n".join(out) + "\n"


async def timed(coro: object) -> float:
    start = time.perf_counter()
    await coro  # type: ignore[misc]
    return (time.perf_counter() - start) * 1000


async def main(runs: int, sizes: list[int]) -> str:
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    root = Path(tempfile.mkdtemp(prefix="bench-run-"))
    client = await CONFIG.start()
    assert isinstance(client, RecordingClient)
    await initialize(client, "nvim-0.11", root, {"executor": {"confirm": "never"}})
    uri = client.open_file("true\n", name="one.cli")
    lens = await client.lens(uri, 0, "▶ Run")
    first = await timed(client.execute(lens.command))
    run_ms = [await timed(client.execute(lens.command)) for _ in range(runs)]

    rows = []
    for commands in sizes:
        big = client.open_file(script(commands), name=f"big{commands}.cli")
        await client.lenses(big)
        lens_ms = []
        for i in range(5):
            client.replace_all(big, f"# edit {i}\n" + script(commands))
            lens_ms.append(await timed(client.lenses(big)))
        cached = [await timed(client.lenses(big)) for _ in range(5)]
        # Results on every tenth command, at most 100 (run through the executor like any run).
        targets = [lens for lens in await client.lenses(big) if lens.command and lens.command.title == "▶ Run"]
        ran = targets[::10][:100]
        for lens in ran:
            await client.execute(lens.command)
        client.replace_all(big, "# edited\n" + script(commands))
        with_results = await timed(client.lenses(big))
        count = len(await client.lenses(big))
        rows += [
            f"| codeLens, {commands} commands, right after an edit (re-analysis included; median of 5) "
            f"| {statistics.median(lens_ms):.0f} |",
            f"| codeLens, {commands} commands, unchanged (cached; median of 5) | {statistics.median(cached):.1f} |",
            f"| codeLens, {commands} commands with {len(ran)} results, after an edit ({count} lenses) "
            f"| {with_results:.0f} |",
        ]
    await client.shutdown_session()
    await client.stop()
    return "\n".join(
        [
            "# Running from the editor: latency through the real server",
            "",
            f"`bench/bench_run_lsp.py --runs {runs} --commands {' '.join(map(str, sizes))}` on {platform.machine()} "
            f"({platform.python_implementation()} {platform.python_version()}), Neovim 0.11 client profile, "
            "sandbox `auto`. Round trips include pytest-lsp turning the answer into lsprotocol objects "
            "(most of the cached codeLens time at 10000 commands). "
            f"Load average before: {load} "
            "(a shared 2-core machine: compare rows, not runs).",
            "",
            "| measure | ms |",
            "|---|---|",
            f"| first run of `true` (request to answer; loads the executor) | {first:.0f} |",
            f"| run of `true`, median of {runs} | {statistics.median(run_ms):.0f} |",
            f"| run of `true`, max of {runs} | {max(run_ms):.0f} |",
            *rows,
            "",
        ]
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--commands", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    text = asyncio.run(main(args.runs, args.commands))
    RESULTS.write_text(text, encoding="utf-8")
    print(text)
    del types
