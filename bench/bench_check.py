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

from workload_files import WORKLOADS, workload

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "check.md"

# Installed packages have their .pyc files; an environment that forbids writing them would time the compiler.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def time_once(argv: list[str]) -> tuple[float, float, int]:
    """Wall time, CPU time (user + system) and exit code of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_utime + usage.ru_stime, proc.returncode


def measure(commands: dict[str, list[str]], runs: int) -> dict[str, tuple[list[float], list[float]]]:
    """Alternate the commands run by run, so that load changes on the machine hit all of them alike."""
    times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in commands}
    for name, argv in commands.items():  # warm-up: page cache, .pyc files
        _, _, code = time_once(argv)
        if code not in (0, 1):  # 1: check found problems (the workloads have lint warnings); 2 and up: it failed
            sys.exit(f"bench_check: {name} exited {code}: {' '.join(argv)}")
    for _ in range(runs):
        for name, argv in commands.items():
            wall, cpu, _ = time_once(argv)
            times[name][0].append(wall)
            times[name][1].append(cpu)
    return times


_BREAKDOWN = """
import gc, json, sys, time
t0 = time.perf_counter()
from heredoc_lsp.cli.main import main
from heredoc_lsp.cli.check import simple_args
simple_args([sys.argv[1]])  # what main does for a plain check (argparse only for other command lines)
import heredoc_lsp.cli.output, heredoc_lsp.cli.sources, heredoc_lsp.config.load
from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.languages import Language
import heredoc_lsp.syntax.cli
t1 = time.perf_counter()
gc.disable()
best = {}
for _ in range(5):
    a = time.perf_counter()
    data = open(sys.argv[1], "rb").read()
    from heredoc_lsp.syntax.text import decode_bytes, split_lines
    lines = split_lines(decode_bytes(data).text)
    b = time.perf_counter()
    heredoc_lsp.syntax.cli.parse_cli(lines)
    c = time.perf_counter()
    analyze(decode_bytes(data).text, Language.CLI)
    d = time.perf_counter()
    for k, v in (("read+decode+split", b - a), ("parse_cli", c - b), ("analyze (all of it)", d - c)):
        best[k] = min(best.get(k, 9.0), v)
print(json.dumps({"imports and argument parsing": t1 - t0, **best}))
"""


def breakdown(cli: Path) -> dict[str, float]:
    """In-process times (best of several) of the parts of a check run, cyclic GC off as in ``check``."""
    import json

    python = str(ROOT / ".venv" / "bin" / "python")
    runs = [
        json.loads(
            subprocess.run(
                [python, "-c", _BREAKDOWN, str(cli)], env=ENV, capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(5)
    ]
    return {key: min(r[key] for r in runs) for key in runs[0]}


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

    cli = workload(args.lines, "bench_check")
    sh = cli.with_suffix(".sh")
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
    for name, (wall, cpu) in times.items():
        rows.append(
            f"| {name} | {ms(statistics.median(wall))} | {ms(min(wall))} | {ms(statistics.median(cpu))} | "
            f"{ms(min(cpu))} |"
        )
    check_wall = times["heredoc-lsp check"][0]
    bash_wall = times["bash -n"][0]
    ratio = statistics.median(check_wall) / statistics.median(bash_wall)
    ratio_min = min(check_wall) / min(bash_wall)
    size = cli.stat().st_size
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    text = "\n".join(
        [
            "# `heredoc-lsp check` vs `bash -n`",
            "",
            f"Workload: `{cli.name}` / `{sh.name}` from gen_workloads.py, {args.lines} lines, {size // 1024} KiB, "
            "identical bytes. Whole-process times (bytecode cache enabled, as after an install), alternating runs, "
            f"one warm-up each, {args.runs} timed runs (bench/bench_check.py).",
            "",
            f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}; load average {load} when measured "
            f"({time.strftime('%Y-%m-%d %H:%M')}).",
            "",
            "| command | wall median ms | wall min ms | CPU median ms | CPU min ms |",
            "|---|---|---|---|---|",
            *rows,
            "",
            f"**Ratio check / bash -n: {ratio:.2f} (wall medians), {ratio_min:.2f} (wall minimums)** "
            "(target: at most 1.00).",
            "",
            "Where the time of one check goes (in-process, best of 5 fresh processes; the start-up figure excludes",
            "the interpreter floor above):",
            "",
            "| part | ms |",
            "|---|---|",
            *(f"| {name} | {ms(value)} |" for name, value in breakdown(cli).items()),
            "",
        ]
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
