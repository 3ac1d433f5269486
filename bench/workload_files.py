"""The generated workloads the benchmarks read: ``wNk.cli`` and ``wNk.sh`` (the same bytes) in bench/workloads, which
is not committed; the shared generator writes the missing ones on first use."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

WORKLOADS = Path(__file__).resolve().parent / "workloads"
GENERATOR = Path(os.environ.get("GEN_WORKLOADS", "/work/shared/tools/gen_workloads.py"))


def name_of(lines: int) -> str:
    return f"w{lines // 1000}k" if lines % 1000 == 0 else f"w{lines}"


def ensure_workloads(sizes: Iterable[int], tool: str) -> None:
    """Generate the workloads of these line counts whose ``.cli`` or ``.sh`` file is missing."""
    missing = [n for n in sizes if not all((WORKLOADS / f"{name_of(n)}{ext}").exists() for ext in (".cli", ".sh"))]
    if missing:
        if not GENERATOR.exists():
            sys.exit(f"{tool}: workload generator not found: {GENERATOR} (set GEN_WORKLOADS)")
        cmd = [sys.executable, str(GENERATOR), "--out", str(WORKLOADS), "--lines", *map(str, missing)]
        subprocess.run(cmd, check=True)


def workload(lines: int, tool: str) -> Path:
    """The ``.cli`` workload of ``lines`` lines (its ``.sh`` twin beside it), generated when missing."""
    ensure_workloads([lines], tool)
    return WORKLOADS / f"{name_of(lines)}.cli"
