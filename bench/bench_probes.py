#!/usr/bin/env python3
"""Whole-process time of the probes editors and wrappers run: ``heredoc-lsp --version``, ``--help`` and the bare
command (usage), p50/p95 over N runs of ``python -m heredoc_lsp`` with the code under ``--server`` (default: this
checkout's server/, so a second checkout gives the numbers before a change), next to ``python -c pass`` (the
interpreter's floor) and the import time of the probe (``python -X importtime``, the sum of the top-level rows).

    .venv/bin/python bench/bench_probes.py [--runs 30] [--server /path/to/checkout/server]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def import_ms(args: list[str], env: dict[str, str]) -> float:
    """Sum of the cumulative import times of the top-level imports (``-X importtime``) of ``-m heredoc_lsp ARGS``."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "heredoc_lsp", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    total = 0
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        if cumulative.strip().isdigit() and not name[1:].startswith(" "):  # a top-level row: " name"
            total += int(cumulative)
    return total / 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--server", type=Path, default=ROOT / "server")
    ns = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ns.server.resolve()))
    print(f"code: {ns.server.resolve()}; load average {os.getloadavg()[0]:.2f}; {ns.runs} runs each")
    p50, p95 = timed([sys.executable, "-c", "pass"], env, ns.runs)
    print(f"{'python -c pass':<34} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms")
    script = Path(sys.executable).parent / "heredoc-lsp"  # the console script editors run (PYTHONPATH still wins)
    for args in (["--version"], ["--help"], []):
        p50, p95 = timed([sys.executable, "-m", "heredoc_lsp", *args], env, ns.runs)
        label = "python -m heredoc_lsp " + " ".join(args)
        print(f"{label:<34} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  imports {import_ms(args, env):6.1f} ms")
        if script.exists():
            p50, p95 = timed([str(script), *args], env, ns.runs)
            label = "heredoc-lsp " + " ".join(args)
            print(f"{label:<34} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
