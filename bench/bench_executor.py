#!/usr/bin/env python3
"""Executor costs: per-command overhead against a bare ``subprocess.run``, bubblewrap's cost, flood throughput.

1. Overhead: the same command (``true`` through the default runner, i.e. ``/bin/sh -c true``) run N times by
   ``subprocess.run`` and by the executor in the same process, alternating in rounds so that load changes on the
   shared machine hit both alike. Two executor levels are timed: ``run_process`` (one command: limits, pipes, pidfd,
   deadline, capture), interleaved command by command with the bare call, and ``run_script`` (a whole script:
   parse, events, results; per-command average of each run). The ratio is executor / bare on the median.
2. bubblewrap: per-command time with ``sandbox = "bwrap"`` minus ``"none"``.
3. Flood: a command printing 300 MB (``head -c 300000000 /dev/zero``) drained by ``run_process`` in a fresh Python
   process, which reports its wall time and peak RSS (``VmHWM``).

Writes bench/results/executor.md.

    .venv/bin/python bench/bench_executor.py [--blocks 30] [--block 10] [--flood-mb 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "executor.md"
sys.path.insert(0, str(ROOT / "server"))

from heredoc_lsp.config import DEFAULT_CONFIG  # noqa: E402
from heredoc_lsp.executor.environment import build_environment  # noqa: E402
from heredoc_lsp.executor.model import RunOptions  # noqa: E402
from heredoc_lsp.executor.process import ProcessSpec, run_process  # noqa: E402
from heredoc_lsp.executor.sandbox import ResourceLimits, choose_sandbox, command_argv  # noqa: E402
from heredoc_lsp.executor.script_run import run_script  # noqa: E402

RUNNER = ["/bin/sh", "-c", "true"]


def bare_once(ws: Path, argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ws, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    return time.perf_counter() - start


async def process_once(spec: ProcessSpec) -> float:
    start = time.perf_counter()
    result = await run_process(spec)
    elapsed = time.perf_counter() - start
    assert result.exit_code == 0, result
    return elapsed


async def script(n: int, ws: Path, mode: str) -> float:
    path = ws / f"bench{n}.cli"
    if not path.exists():
        path.write_text("true\n" * n)
    options = RunOptions(sandbox=mode)  # type: ignore[arg-type]
    start = time.perf_counter()
    outcome = await run_script(path, config=DEFAULT_CONFIG, options=options, workspace=ws)
    elapsed = time.perf_counter() - start
    assert outcome.status == "completed" and len(outcome.results) == n, outcome.summary
    return elapsed / n


async def measure(blocks: int, size: int, ws: Path) -> dict[str, list[float]]:
    """Two phases, so that bubblewrap's namespace teardown (kernel work after each sandbox) does not slow down the
    commands measured next to it: (A) bare, executor and ``true`` interleaved command by command, plus one script
    run after each block; (B) executor without and with bubblewrap interleaved, plus one bwrap script run per block.
    """
    specs = {
        mode: ProcessSpec(
            command_argv(RUNNER, ws, choose_sandbox(mode), ResourceLimits(), allow_network=False),  # type: ignore[arg-type]
            ws,
            ENV,
        )
        for mode in ("none", "bwrap")
    }
    series: dict[str, list[float]] = {k: [] for k in VARIANTS}
    for _block in range(blocks):
        for _ in range(size):
            series["bare"].append(bare_once(ws, RUNNER))
            series["process_none"].append(await process_once(specs["none"]))
            series["bare_true"].append(bare_once(ws, ["true"]))
        series["script_none"].append(await script(size, ws, "none"))
    for _block in range(blocks):
        for _ in range(max(1, size // 2)):
            series["process_none_b"].append(await process_once(specs["none"]))
            series["process_bwrap"].append(await process_once(specs["bwrap"]))
        series["script_bwrap"].append(await script(max(1, size // 2), ws, "bwrap"))
    return series


VARIANTS = ("bare", "bare_true", "process_none", "script_none", "process_none_b", "process_bwrap", "script_bwrap")
ENV = build_environment()


FLOOD = """
import asyncio, json, sys, time
# VmHWM is this process image's peak RSS (ru_maxrss would also count the parent's pages at fork/exec time).
def peak_kb():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM:")).split()[1])
from pathlib import Path
sys.path.insert(0, {server!r})
from heredoc_lsp.executor.environment import build_environment
from heredoc_lsp.executor.process import ProcessSpec, run_process
from heredoc_lsp.executor.sandbox import ResourceLimits, choose_sandbox, command_argv
ws = Path({ws!r})
argv = command_argv(["/bin/sh", "-c", "head -c {size} /dev/zero"], ws, choose_sandbox("none"), ResourceLimits(),
                    allow_network=False)
start = time.perf_counter()
r = asyncio.run(run_process(ProcessSpec(argv, ws, build_environment(), timeout_s=300)))
elapsed = time.perf_counter() - start
print(json.dumps({{"seconds": elapsed, "bytes": r.stdout.total_bytes, "exit": r.exit_code,
                  "maxrss_kb": peak_kb()}}))
"""


def flood(size: int, ws: Path) -> dict[str, float]:
    code = FLOOD.format(server=str(ROOT / "server"), ws=str(ws), size=size)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600)
    data: dict[str, float] = json.loads(done.stdout)
    assert data["bytes"] == size and data["exit"] == 0, data
    # The producer alone, for reference: how fast can head fill a pipe that is simply discarded?
    start = time.perf_counter()
    subprocess.run(["/bin/sh", "-c", f"head -c {size} /dev/zero | cat > /dev/null"], check=True)
    data["producer_seconds"] = time.perf_counter() - start
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blocks", type=int, default=30, help="blocks (one script run per sandbox mode each)")
    ap.add_argument("--block", type=int, default=10, help="single commands per variant and block (bwrap: half)")
    ap.add_argument("--flood-mb", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-executor-") as tmp:
        ws = Path(tmp)
        asyncio.run(measure(2, 5, ws))  # warm-up: imports, page cache, the bwrap probe
        series = asyncio.run(measure(args.blocks, args.block, ws))
        fl = flood(args.flood_mb * 1_000_000, ws)

    def ms(values: list[float]) -> tuple[float, float]:
        """(10th percentile, median) in milliseconds: the typical cost, without the tails other users cause."""
        return statistics.quantiles(values, n=10)[0] * 1000, statistics.median(values) * 1000

    b_min, b_med = ms(series["bare"])
    bt_min, bt_med = ms(series["bare_true"])
    rows = []
    for key, label in (
        ("bare", "subprocess.run(['/bin/sh', '-c', 'true'])"),
        ("bare_true", "subprocess.run(['true']) (for reference)"),
        ("process_none", "executor run_process, sandbox none"),
        ("script_none", "executor run_script (per command), sandbox none"),
        ("process_bwrap", "executor run_process, sandbox bwrap"),
        ("script_bwrap", "executor run_script (per command), sandbox bwrap"),
    ):
        lo, med = ms(series[key])
        rows.append(f"| {label} | {lo:.2f} | {med:.2f} | {lo / b_min:.2f}x | {med / b_med:.2f}x |")
    p_min, p_med = ms(series["process_none"])
    s_min, s_med = ms(series["script_none"])
    bw_min, bw_med = ms(series["process_bwrap"])
    pb_min, pb_med = ms(series["process_none_b"])
    mbps = fl["bytes"] / 1e6 / fl["seconds"]
    producer = fl["bytes"] / 1e6 / fl["producer_seconds"]
    text = f"""# Executor benchmark

`{" ".join(["python", "bench/bench_executor.py", *sys.argv[1:]])}` on {platform.machine()}, Python
{platform.python_version()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end (a shared
machine: single commands interleaved one by one, {args.blocks * args.block} per variant ({args.blocks * args.block // 2}
in the bwrap phase); script rows are {args.blocks} runs of {args.block} commands ({max(1, args.block // 2)} with bwrap),
one after each block; 10th percentile and median).

## Per-command overhead (`true` through the default runner `/bin/sh -c`)

| what | p10 ms/command | median ms/command | ratio (p10) | ratio (median) |
|---|---|---|---|---|
{chr(10).join(rows)}

- Executor overhead ratio (run_process / subprocess.run, same argv): **{p_min / b_min:.2f}x** (p10),
  **{p_med / b_med:.2f}x** (median); whole script runs with events and results:
  **{s_min / b_min:.2f}x** / **{s_med / b_med:.2f}x**.
  Target: <= 1.5x.
- Against `subprocess.run(['true'])` (no shell at all): {p_min / bt_min:.2f}x (p10), {p_med / bt_med:.2f}x (median).
- bubblewrap adds **{bw_min - pb_min:.1f} ms** (p10) / **{bw_med - pb_med:.1f} ms** (median) per command (phase B:
  run_process with and without bwrap interleaved; without: {pb_min:.2f} / {pb_med:.2f} ms). Target: <= 20 ms.
- Each command gets a new session (`setsid`, so it has no controlling terminal); with the kernel's autogroup
  scheduling that makes it its own scheduling group, which on a loaded machine lengthens the tail (p90) of every
  variant that does it, not the median.

What the executor does per command on top of `subprocess.run`: resource limits (a `ulimit` line merged into the
`/bin/sh -c` script, so no extra exec), a new session, three non-blocking pipes (enlarged when output is large),
a pidfd for the exit, a wall-clock deadline and a cancellation callback on the event loop, incremental decoding
and capture, a `killpg` of leftovers before the child is reaped.

## Output flood

| what | value |
|---|---|
| bytes drained | {fl["bytes"]:,.0f} |
| wall time | {fl["seconds"]:.2f} s |
| throughput | **{mbps:.0f} MB/s** (target >= 200 MB/s) |
| producer alone (`head -c … /dev/zero \\| cat > /dev/null`) | {producer:.0f} MB/s |
| executor process peak RSS | **{fl["maxrss_kb"] / 1024:.1f} MB** (target < 100 MB) |

Memory stays bounded because only the first and last 512 KiB of each stream are kept (the middle is counted);
reads are 1 MiB from 1 MiB pipes.
"""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
