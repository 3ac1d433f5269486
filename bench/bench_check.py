#!/usr/bin/env python3
"""Whole-process ``heredoc-lsp check`` against ``bash -n`` on the same 100k-line text.

Generates the workload with the shared generator when missing (bench/workloads is not committed), runs both
commands alternately (one warm-up each, then --runs timed runs), and writes bench/results/check.md.

    .venv/bin/python bench/bench_check.py [--runs 15] [--lines 100000]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = ROOT / "bench" / "workloads"
RESULTS = ROOT / "bench" / "results" / "check.md"
GENERATOR = Path(os.environ.get("GEN_WORKLOADS", "/work/shared/tools/gen_workloads.py"))


def workload(lines: int) -> tuple[Path, Path]:
    name = f"w{lines // 1000}k" if lines % 1000 == 0 else f"w{lines}"
    cli, sh = WORKLOADS / f"{name}.cli", WORKLOADS / f"{name}.sh"
    if not (cli.exists() and sh.exists()):
        if not GENERATOR.exists():
            sys.exit(f"bench_check: workload generator not found: {GENERATOR} (set GEN_WORKLOADS)")
        subprocess.run([sys.executable, str(GENERATOR), "--out", str(WORKLOADS), "--lines", str(lines)], check=True)
    return cli, sh


# Installed packages have their .pyc files; an environment that forbids writing them would time the compiler.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def time_once(argv: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - start, proc.returncode


def measure(commands: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """Alternate the commands run by run, so that load changes on the machine hit all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for name, argv in commands.items():  # warm-up: page cache, .pyc files
        _, code = time_once(argv)
        if code != 0:
            sys.exit(f"bench_check: {name} exited {code}: {' '.join(argv)}")
    for _ in range(runs):
        for name, argv in commands.items():
            elapsed, _ = time_once(argv)
            times[name].append(elapsed)
    return times


def ms(x: float) -> str:
    return f"{x * 1000:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.runs < 10:
        parser.error("--runs must be at least 10")

    cli, sh = workload(args.lines)
    assert cli.read_bytes() == sh.read_bytes(), "the .cli and .sh workloads must be the same text"
    exe = ROOT / ".venv" / "bin" / "heredoc-lsp"
    empty = WORKLOADS / "empty.cli"
    empty.write_bytes(b"")
    commands = {
        "heredoc-lsp check": [str(exe), "check", str(cli)],
        "bash -n": ["bash", "-n", str(sh)],
        "heredoc-lsp check (empty file: start-up only)": [str(exe), "check", str(empty)],
        "python3 -c pass (interpreter floor)": [str(ROOT / ".venv" / "bin" / "python"), "-c", "pass"],
    }
    times = measure(commands, args.runs)

    rows = []
    for name, values in times.items():
        rows.append(f"| {name} | {ms(statistics.median(values))} | {ms(min(values))} | {ms(max(values))} |")
    check_median = statistics.median(times["heredoc-lsp check"])
    bash_median = statistics.median(times["bash -n"])
    ratio = check_median / bash_median
    size = cli.stat().st_size
    text = "\n".join(
        [
            "# `heredoc-lsp check` vs `bash -n`",
            "",
            f"Workload: `{cli.name}` / `{sh.name}` from gen_workloads.py, {args.lines} lines, {size // 1024} KiB, "
            "identical bytes. Whole-process wall time (bytecode cache enabled, as after an install), alternating runs, "
            "one warm-up each, "
            f"{args.runs} timed runs (bench/bench_check.py).",
            "",
            f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}; measured {time.strftime('%Y-%m-%d %H:%M')}.",
            "",
            "| command | median ms | min ms | max ms |",
            "|---|---|---|---|",
            *rows,
            "",
            f"**Ratio check / bash -n (medians): {ratio:.2f}** (target: at most 1.00).",
            "",
        ]
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
