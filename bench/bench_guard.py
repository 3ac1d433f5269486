#!/usr/bin/env python3
"""Whole-process ``heredoc-lsp guard`` on a 10 KB command, next to ``bash -n`` on the same command.

The hook runs before every shell call of an agent, so what counts is the time from the process's start to its
answer. Four commands run alternately (one warm-up each, then --runs timed runs): the guard on a correct 10 KB
command (no answer), the guard on a broken one (a deny), ``bash -n`` on each command's text, and the interpreter's
floor. Writes bench/results/guard.md with p50 and p95 of the wall times.

    .venv/bin/python bench/bench_guard.py [--runs 100]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "guard.md"
HEREDOC_LSP = Path(sys.executable).parent / "heredoc-lsp"
# Installed packages have their .pyc files; an environment that forbids writing them would time the compiler.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def commit_command(size: int) -> str:
    """A commit through ``$(cat <<'EOF' ...)`` of about ``size`` bytes, the idiom agents use most."""
    rows = []
    n = 0
    while sum(len(r) + 1 for r in rows) < size - 60:
        rows.append(f"- change {n}: handle 'quoted' text, $VARS, (parens) and `ticks` in the parser")
        n += 1
    return "git commit -m \"$(cat <<'EOF'\nSummary line\n\n" + "\n".join(rows) + '\nEOF\n)"'


def broken_command(size: int) -> str:
    """The same with the marker glued to the closing parenthesis (``EOF)``): a deny."""
    return commit_command(size).replace("\nEOF\n)", "\nEOF)")


def event(command: str) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": "/",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "commit"},
        }
    ).encode()


def time_once(argv: list[str], stdin_path: Path) -> tuple[float, int, bytes]:
    with open(stdin_path, "rb") as stdin:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
        out, _ = proc.communicate()
        elapsed = time.perf_counter() - start
    return elapsed, proc.returncode, out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def own_imports(event_path: Path, tries: int = 5) -> tuple[float, float]:
    """Best of ``tries``: the milliseconds ``python -X importtime`` gives the imports of ``heredoc_lsp`` (cumulative
    of its top-level imports) and of everything the guard imports beyond ``python -c pass``."""
    best_ours, best_all = float("inf"), float("inf")
    for _ in range(tries):
        with open(event_path, "rb") as stdin:
            err = subprocess.run(
                [sys.executable, "-X", "importtime", str(HEREDOC_LSP), "guard"],
                stdin=stdin,
                capture_output=True,
                env=ENV,
                check=False,
            ).stderr.decode()
        base = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, env=ENV, check=False
        ).stderr.decode()
        seen = {row.rsplit("|", 1)[-1].strip() for row in base.splitlines() if row.startswith("import time:")}
        ours = extra = 0
        for row in err.splitlines():
            if not row.startswith("import time:") or "self [us]" in row:
                continue
            self_us, cumulative, name = (part.strip() for part in row[len("import time:") :].split("|"))
            if name.startswith("heredoc_lsp") and not row.split("|")[-1].startswith("  "):
                ours += int(cumulative)
            if name not in seen:
                extra += int(self_us)
        best_ours, best_all = min(best_ours, ours / 1000), min(best_all, extra / 1000)
    return best_ours, best_all


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--size", type=int, default=10_240)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-guard-") as tmp:
        d = Path(tmp)
        good, bad = commit_command(args.size), broken_command(args.size)
        files = {
            "good.json": event(good),
            "bad.json": event(bad),
            "good.sh": good.encode(),
            "bad.sh": bad.encode(),
            "empty": b"",
        }
        for name, data in files.items():
            (d / name).write_bytes(data)
        commands: dict[str, tuple[list[str], Path]] = {
            "guard, correct command (no answer)": ([str(HEREDOC_LSP), "guard"], d / "good.json"),
            "guard, broken command (deny)": ([str(HEREDOC_LSP), "guard"], d / "bad.json"),
            "bash -n, correct command": (["bash", "-n"], d / "good.sh"),
            "bash -n, broken command": (["bash", "-n"], d / "bad.sh"),
            "python3 -c pass (interpreter floor)": ([sys.executable, "-c", "pass"], d / "empty"),
        }
        for name, (argv, path) in commands.items():  # warm-up: page cache, .pyc files; check the answers
            _, code, out = time_once(argv, path)
            if name.startswith("guard, correct") and (code, out) != (0, b""):
                sys.exit(f"bench_guard: the correct command was answered: {code} {out[:200]!r}")
            if name.startswith("guard, broken") and (code != 0 or b'"deny"' not in out):
                sys.exit(f"bench_guard: the broken command was not denied: {code} {out[:200]!r}")
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, (argv, path) in commands.items():
                times[name].append(time_once(argv, path)[0])
        load = os.getloadavg()
        ours, extra = own_imports(d / "good.json")
    rows = [
        f"| {name} | {percentile(v, 50) * 1000:.1f} | {percentile(v, 95) * 1000:.1f} | {min(v) * 1000:.1f} |"
        for name, v in times.items()
    ]
    text = "\n".join(
        [
            "# `heredoc-lsp guard` vs `bash -n`",
            "",
            f"Workload: a `git commit -m \"$(cat <<'EOF' ...)\"` command of {len(good.encode())} bytes (correct), and "
            "the same with `EOF)` glued (broken), as PreToolUse events on stdin. Whole-process wall times from start "
            f"to exit (bytecode cache enabled, as after an install), alternating runs, one warm-up each, {args.runs} "
            "timed runs (bench/bench_guard.py).",
            "",
            f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}; load average {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} "
            f"when measured ({time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC).",
            "",
            "| command | wall p50 ms | wall p95 ms | wall min ms |",
            "|---|---|---|---|",
            *rows,
            "",
            f"Imports (python -X importtime, best of 5): {extra:.1f} ms for every module the guard loads beyond "
            f"`python3 -c pass`, of which {ours:.1f} ms cumulative under `heredoc_lsp` (json and re included).",
            "",
            "Target: guard p95 at most 50 ms for a 10 KB command.",
            "",
        ]
    )
    RESULTS.write_text(text, encoding="utf-8")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
