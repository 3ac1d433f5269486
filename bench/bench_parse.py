#!/usr/bin/env python3
"""Parse time of ``parse_cli`` on 1k/10k/100k-line ``.cli`` workloads against a plain line scan in the same run.

The baseline is the simplest scanner that does the job at all (the seed's two-state machine): trim each line,
skip blanks and comments, match ``^(.+?)\\s+<<(\\w+)$`` on lines containing ``<<``, wait for the marker, collect
the commands. ``parse_cli`` is timed as the diagnostics pass uses it (items not built), then with all items built,
and an incremental re-parse after a one-line edit in the middle is timed too. The variants alternate run by run so
that load changes on the (shared) machine hit all of them alike; min and median are reported.

Generates the workloads with the shared generator when missing (bench/workloads is not committed) and writes
bench/results/parse.md.

    .venv/bin/python bench/bench_parse.py [--runs 25]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from workload_files import workload

from heredoc_lsp.syntax.cli import parse_cli, reparse_cli
from heredoc_lsp.syntax.diagnostics import Severity
from heredoc_lsp.syntax.text import split_lines

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "parse.md"
SIZES = (1000, 10000, 100000)

_BASELINE_OPENER = re.compile(r"^(.+?)\s+<<(\w+)$")


def baseline_scan(lines: Sequence[str]) -> list[str]:
    """The plain line scan every parser is compared with."""
    commands: list[str] = []
    marker: str | None = None
    for line in lines:
        t = line.strip(" \t\f\v")
        if marker is not None:
            if t == marker:
                marker = None
            continue
        if not t or t[0] == "#":
            continue
        if "<<" in t:
            m = _BASELINE_OPENER.match(t)
            if m:
                commands.append(m.group(1))
                marker = m.group(2)
                continue
        commands.append(t)
    return commands


def _parse_with_items(lines: Sequence[str]) -> object:
    return parse_cli(lines).items


def _parse_with_outline(lines: Sequence[str]) -> object:
    return sum(1 for _ in parse_cli(lines).outline())


def measure(variants: dict[str, Callable[[], object]], runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in variants}
    for fn in variants.values():  # warm-up
        fn()
    for _ in range(runs):
        for name, fn in variants.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--runs", type=int, default=25)
    args = ap.parse_args()

    rows: list[str] = []
    for size in SIZES:
        # A tuple, as the language server's snapshots pass it: parse_cli copies a list (one copy per parse, which
        # also costs a traversal by the garbage collector while the copy is young).
        lines = tuple(split_lines(workload(size, "bench_parse").read_text(encoding="utf-8")))
        previous = parse_cli(lines)
        assert not any(d.severity == Severity.ERROR for d in previous.diagnostics), "workloads are valid scripts"
        middle = len(lines) // 2
        edited = list(lines)
        edited[middle] = edited[middle] + " x"
        variants: dict[str, Callable[[], object]] = {
            "baseline line scan": partial(baseline_scan, lines),
            "parse_cli": partial(parse_cli, lines),
            "parse_cli + items": partial(_parse_with_items, lines),
            "parse_cli + outline()": partial(_parse_with_outline, lines),
            "reparse_cli (1 line edited mid-file)": partial(reparse_cli, previous, edited, middle),
        }
        times = measure(variants, args.runs if size < 100000 else max(5, args.runs))
        base_times = times["baseline line scan"]
        base = min(base_times)
        for name, ts in times.items():
            ratio = min(ts) / base
            # Each variant's time over the baseline's in the same round: robust when the machine's load changes.
            paired = statistics.median(t / b for t, b in zip(ts, base_times, strict=True))
            rows.append(
                f"| {size:,} | {name} | {min(ts) * 1000:.2f} | {statistics.median(ts) * 1000:.2f} | {ratio:.2f}x "
                f"| {paired:.2f}x |"
            )
        print(f"{size:>7} lines: " + ", ".join(f"{n} {min(t) * 1000:.2f} ms" for n, t in times.items()))

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        "# parse_cli benchmark\n\n"
        f"`bench/bench_parse.py --runs {args.runs}` on {platform.python_implementation()} "
        f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f} at the end (shared machine; variants alternate run by run). "
        "Workloads from `gen_workloads.py` (about 1/3 heredoc lines, all valid).\n\n"
        "Input: the split lines as a tuple (as the language server's snapshots pass them; a list is copied first)."
        "\n\nBaseline: the seed's two-state line scan (trim, skip blanks/comments, `^(.+?)\\s+<<(\\w+)$`, wait for "
        "the marker). `parse_cli` = the diagnostics pass (items are built lazily); `+ items` also builds every "
        "Command/Comment/Heredoc object; `+ outline()` walks all items building only heredoc commands; "
        "`reparse_cli` re-scans from the edited line's item and splices the "
        "untouched prefix.\n\n"
        "| lines | variant | min ms | median ms | min / baseline min | median of per-round ratios |\n"
        "|---:|---|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n",
        encoding="utf-8",
    )
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
