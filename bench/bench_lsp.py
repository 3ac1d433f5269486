#!/usr/bin/env python3
"""Language-server latency, memory and start-up, measured from outside with the shared lsp_latency.py harness.

On the same generated workloads (1k, 10k, 100k lines; the .cli and .sh files have identical content) and in the
same run, alternating: heredoc-lsp pushing diagnostics (a client that does not pull: Emacs eglot, Neovim <= 0.10,
Helix) and answering pulls, the floor (a plain pygls 2 server doing one regex pass per change:
/work/shared/tools/floor_server.py), bash-language-server (npm, installed into bench/peers; shellcheck off, so it
reports what its parser finds) and, for start-up, a bare pygls server that does nothing
(bench/bare_pygls_server.py). Writes bench/results/lsp.md and lsp.json with the commit and the load average.

    .venv/bin/python bench/bench_lsp.py [--runs 3] [--sizes 1000 10000 100000] [--quick]
        [--open-runs 10 [--reference CHECKOUT]]

``--open-runs N`` adds N open-only sessions per size (heredoc-lsp, the floor and, with ``--reference``, the
heredoc-lsp of another checkout of this repository, e.g. a ``git worktree`` of an older commit), alternating: on a
shared 2-core machine one open varies by tens of percent, so its ratio to the floor is read from these medians.

Environment: LSP_LATENCY (default /work/shared/tools/lsp_latency.py), GEN_WORKLOADS (the generator), FLOOR_SERVER
(default /work/shared/tools/floor_server.py).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from workload_files import WORKLOADS, ensure_workloads, name_of

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PEERS = BENCH / "peers"
RESULTS_MD = BENCH / "results" / "lsp.md"
RESULTS_JSON = BENCH / "results" / "lsp.json"
LATENCY = Path(os.environ.get("LSP_LATENCY", "/work/shared/tools/lsp_latency.py"))
FLOOR_SERVER = Path(os.environ.get("FLOOR_SERVER", "/work/shared/tools/floor_server.py"))
PY = sys.executable
OURS = [PY, "-m", "heredoc_lsp", "lsp"]
BARE = [PY, str(BENCH / "bare_pygls_server.py")]
FLOOR = [PY, str(FLOOR_SERVER)]
BASH_LS = [str(PEERS / "node_modules" / ".bin" / "bash-language-server"), "start"]
# Targets as ratios to the floor, measured in the same run (medians): push keystroke -> diagnostics <= 1.0x at every
# size; open -> diagnostics at 100k <= 1.5x; peak RSS at 100k <= 1.3x.
# Servers run as installed ones do: with bytecode caches (PYTHONDONTWRITEBYTECODE, set on some machines, would make
# every start compile heredoc-lsp's modules again; pygls and the floor come from caches either way).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
KEYSTROKE_RATIO = 1.0
OPEN_RATIO_100K = 1.5
RSS_RATIO_100K = 1.3


def ensure_peers() -> None:
    if not Path(BASH_LS[0]).exists():
        lock = (PEERS / "package-lock.json").exists()
        subprocess.run(
            ["npm", "ci" if lock else "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=PEERS, check=True
        )


def measure(
    server: list[str], file: Path, extra: list[str], label: str, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """One fresh-server session of lsp_latency.py (``env``: the server's environment); its JSON result."""
    if not LATENCY.exists():
        sys.exit(f"bench_lsp: harness not found: {LATENCY} (set LSP_LATENCY)")
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        out_path = Path(out.name)
    try:
        cmd = [PY, str(LATENCY), "--file", str(file), "--runs", "1", "--json", "--out", str(out_path), "--label", label]
        subprocess.run([*cmd, *extra, "--", *server], check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env=env or ENV)
        result: dict[str, Any] = json.loads(out_path.read_text())
    finally:
        out_path.unlink(missing_ok=True)
    return result


def commit(root: Path = ROOT) -> str:
    """The commit of the checkout ``root`` (with ``+dirty`` when its server tree has changes)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=root)
    dirty = subprocess.run(["git", "status", "--porcelain", "server"], capture_output=True, text=True, cwd=root)
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def summary(result: dict[str, Any], key: str, stat: str = "median") -> float | None:
    value = (result.get("summary") or {}).get(key)
    if isinstance(value, dict):
        v = value.get(stat)
        return float(v) if v is not None else None
    return None


def med(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(statistics.median(present), 2) if present else None


def fmt(v: float | None, unit: str = "") -> str:
    return "n/a" if v is None else f"{v:.1f}{unit}" if v >= 10 else f"{v:.2f}{unit}"


def ratio(ours: float | None, floor: float | None) -> str:
    if ours is None or floor is None or floor == 0:
        return "n/a"
    return f"{ours / floor:.2f}x"


def verdict(ours: float | None, floor: float | None, limit: float) -> str:
    if ours is None or floor is None or floor == 0:
        return "n/a"
    return "met" if ours / floor <= limit else "MISSED"


def run(args: argparse.Namespace) -> dict[str, Any]:
    sizes = args.sizes
    ensure_workloads(sizes, "bench_lsp")
    ensure_peers()
    ours_opts = ["--language-id", "cli-script", "--pull", "off"]  # pushed diagnostics
    pull_opts = ["--language-id", "cli-script", "--pull", "on"]  # a client that pulls (diagnosticMode auto)
    floor_opts = ["--language-id", "cli-script", "--pull", "off"]
    peer_opts = ["--init-options", '{"shellcheckPath": ""}', "--pull", "off"]
    data: dict[str, Any] = {"sizes": {}, "modes": {}, "startup": {}, "open": {}, "commit": commit()}
    if args.reference:
        data["reference"] = commit(args.reference)
    for lines in sizes:
        cli = WORKLOADS / f"{name_of(lines)}.cli"
        sh = WORKLOADS / f"{name_of(lines)}.sh"
        edits = ["--edits", str(args.edits), "--pull-edits", str(args.edits)]
        big = lines >= 100000
        peer_edits = ["--edits", str(args.peer_edits if big else args.edits), "--timeout", "120", "--burst", "0"]
        ours_runs, pull_runs, floor_runs, peer_runs = [], [], [], []
        for r in range(args.runs):
            print(f"[{name_of(lines)}] run {r + 1}/{args.runs}: heredoc-lsp push, pull, floor", file=sys.stderr)
            ours_runs.append(measure(OURS, cli, [*ours_opts, *edits], "heredoc-lsp push"))
            pull_runs.append(measure(OURS, cli, [*pull_opts, *edits], "heredoc-lsp pull"))
            floor_runs.append(measure(FLOOR, cli, [*floor_opts, *edits], "floor"))
            if not args.no_peer:
                print(f"[{name_of(lines)}] run {r + 1}/{args.runs}: bash-language-server", file=sys.stderr)
                peer_runs.append(
                    measure(BASH_LS, sh, [*peer_opts, *peer_edits, "--open-timeout", "600"], "bash-language-server")
                )
        data["sizes"][lines] = {"ours": ours_runs, "pull": pull_runs, "floor": floor_runs, "peer": peer_runs}
        if args.open_runs:
            data["open"][lines] = open_samples(args, cli, ours_opts)
    # Edit modes that change diagnostics or add lines, on the biggest workload (heredoc-lsp only).
    biggest = max(sizes)
    for mode in ("marker-toggle", "newline"):
        cli = WORKLOADS / f"{name_of(biggest)}.cli"
        runs = [
            measure(OURS, cli, [*ours_opts, "--edits", str(args.edits), "--edit-mode", mode], f"heredoc-lsp {mode}")
            for _ in range(args.runs)
        ]
        data["modes"][mode] = runs
    # Start-up against a bare pygls server (same interpreter, same workload), alternating.
    smallest = WORKLOADS / f"{name_of(min(sizes))}.cli"
    ours_start, bare_start = [], []
    for _ in range(max(args.runs, 5)):
        ours_start.append(measure(OURS, smallest, [*ours_opts, "--edits", "1", "--burst", "0"], "heredoc-lsp start"))
        bare_start.append(measure(BARE, smallest, ["--edits", "1", "--burst", "0"], "bare pygls start"))
    data["startup"] = {"ours": ours_start, "bare": bare_start}
    data["imports"] = import_costs()
    return data


def open_samples(args: argparse.Namespace, cli: Path, opts: list[str]) -> dict[str, list[dict[str, Any]]]:
    """``args.open_runs`` open-only sessions each of heredoc-lsp, the floor and the reference, alternating."""
    one = [*opts, "--edits", "1", "--burst", "0"]
    servers = {"ours": (OURS, ENV), "floor": (FLOOR, ENV)}
    if args.reference:
        servers["reference"] = (OURS, {**ENV, "PYTHONPATH": str(args.reference / "server")})
    samples: dict[str, list[dict[str, Any]]] = {key: [] for key in servers}
    for r in range(args.open_runs):
        print(f"[{cli.stem}] open {r + 1}/{args.open_runs}: {', '.join(servers)}", file=sys.stderr)
        for key, (server, env) in servers.items():
            samples[key].append(measure(server, cli, one, f"open {key}", env))
    return samples


CORE_LSP = {
    "server",
    "protocol",
    "documents",
    "positions",
    "analysis",
    "settings",
    "diagnostics",
    "code_actions",
    "incremental",
}


def _owner(module: str) -> str:
    if module.split(".")[0] in ("pygls", "lsprotocol", "cattrs", "attr", "attrs"):
        return "pygls + lsprotocol + cattrs/attrs"
    if not module.startswith("heredoc_lsp"):
        return "standard library and others"
    parts = module.split(".")
    if parts[1:2] == ["executor"] or (
        parts[1:2] == ["lsp"] and len(parts) > 2 and parts[2].startswith(("run", "code_lens"))
    ):
        return "run features (lsp.run_*, code lens, executor)"
    if parts[1:2] == ["navigation"] or (parts[1:2] == ["lsp"] and len(parts) > 2 and parts[2] not in CORE_LSP):
        return "navigation features (symbols, folding, hover, completion, tokens, links, rename...)"
    return "heredoc-lsp core (server, documents, settings, diagnostics, quick fixes, config, parsers, cli)"


def import_costs() -> dict[str, float]:
    """Self import time (ms) at start-up, grouped by what the modules are for."""
    code = "from heredoc_lsp.cli import main, lsp; from heredoc_lsp.lsp.server import build_server; build_server()"
    proc = subprocess.run(
        [PY, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=ENV
    )
    totals: dict[str, float] = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        parts = line[len("import time:") :].split("|")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            continue
        owner = _owner(parts[2].strip())
        totals[owner] = totals.get(owner, 0.0) + int(parts[0]) / 1000
    return {k: round(v, 1) for k, v in sorted(totals.items(), key=lambda kv: -kv[1])}


def report(data: dict[str, Any], args: argparse.Namespace) -> str:
    def runs_med(runs: list[dict[str, Any]], key: str, stat: str = "median") -> float | None:
        return med([summary(r, key, stat) for r in runs])

    lines_out = [
        "# Language server: latency, memory, start-up",
        "",
        f"Measured by `bench/bench_lsp.py` at commit {data['commit']} on {time.strftime('%Y-%m-%d %H:%M')} "
        f"({platform.machine()}, {os.cpu_count()} CPUs, shared machine; load average at start "
        f"{data['load_start']}, at end {data['load_end']}), Python {platform.python_version()}, "
        f"{args.runs} fresh-server runs per cell, alternating servers. Harness: lsp_latency.py (from outside, over "
        "stdio; per-edit latency = didChange sent -> publishDiagnostics for that version received). Peer: "
        "bash-language-server 5.8.1 on the byte-identical .sh file, shellcheck off (its own parser only; it has "
        "full document sync).",
        "",
        "## Keystroke -> diagnostics, open, memory",
        "",
        "Push: didChange -> publishDiagnostics for that version. Pull: didChange, then textDocument/diagnostic -> "
        "its answer. The floor only pushes. Ratios are heredoc-lsp / floor (at most 1.0x: no slower than the floor).",
        "",
        "| workload | push keystroke median (p95) | floor | ratio | pull change -> report | bash-ls keystroke | "
        "open -> diagnostics | floor | ratio | bash-ls | peak RSS | floor | ratio | bash-ls |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    verdicts = []
    for lines, cell in data["sizes"].items():
        ours, floor, peer = cell["ours"], cell["floor"], cell["peer"]
        c, cp95 = runs_med(ours, "c_edit_latency_ms"), runs_med(ours, "c_edit_latency_ms", "p95")
        fc, pc = runs_med(floor, "c_edit_latency_ms"), runs_med(peer, "c_edit_latency_ms")
        pull = runs_med(cell["pull"], "e_pull_change_then_pull_ms")
        b, fb = runs_med(ours, "b_open_to_diagnostics_ms"), runs_med(floor, "b_open_to_diagnostics_ms")
        pb = runs_med(peer, "b_open_to_diagnostics_ms")
        d, fd = runs_med(ours, "d_vmhwm_mib"), runs_med(floor, "d_vmhwm_mib")
        pd = runs_med(peer, "d_vmhwm_mib")
        name = name_of(int(lines))
        verdicts.append(
            (
                f"push keystroke at {name} <= {KEYSTROKE_RATIO}x the floor ({ratio(c, fc)})",
                verdict(c, fc, KEYSTROKE_RATIO),
            )
        )
        lines_out.append(
            f"| {name} | {fmt(c, ' ms')} ({fmt(cp95, ' ms')}) | {fmt(fc, ' ms')} | {ratio(c, fc)} | "
            f"{fmt(pull, ' ms')} | {fmt(pc, ' ms')} | {fmt(b, ' ms')} | {fmt(fb, ' ms')} | {ratio(b, fb)} | "
            f"{fmt(pb, ' ms')} | "
            f"{fmt(d, ' MiB')} | {fmt(fd, ' MiB')} | {ratio(d, fd)} | {fmt(pd, ' MiB')} |"
        )
        more = data.get("open", {}).get(lines)
        if more:  # the open-only samples, when taken, decide the open's ratio
            b, fb = (
                runs_med(more["ours"], "b_open_to_diagnostics_ms"),
                runs_med(more["floor"], "b_open_to_diagnostics_ms"),
            )
        if int(lines) == 100000:
            verdicts.append(
                (
                    f"open -> diagnostics at 100k <= {OPEN_RATIO_100K}x the floor ({ratio(b, fb)})",
                    verdict(b, fb, OPEN_RATIO_100K),
                )
            )
            verdicts.append(
                (f"peak RSS at 100k <= {RSS_RATIO_100K}x the floor ({ratio(d, fd)})", verdict(d, fd, RSS_RATIO_100K))
            )
    if data.get("open"):
        reference = data.get("reference")
        lines_out += [
            "",
            f"## Open -> diagnostics, {args.open_runs} more samples per server (open-only sessions, alternating)",
            "",
            "These medians decide the open's ratio in the targets"
            + (f"; the reference is heredoc-lsp at commit {reference}, measured in the same run" if reference else "")
            + ".",
            "",
            "| workload | heredoc-lsp median (min) | floor median (min) | ratio | reference median (min) | ratio |",
            "|---|---|---|---|---|---|",
        ]
        for lines, more in data["open"].items():
            key = "b_open_to_diagnostics_ms"
            o, f = runs_med(more["ours"], key), runs_med(more["floor"], key)
            ref = runs_med(more.get("reference", []), key)
            lows = {
                k: min((v for v in (summary(r, key) for r in runs) if v is not None), default=None)
                for k, runs in more.items()
            }
            lines_out.append(
                f"| {name_of(int(lines))} | {fmt(o, ' ms')} ({fmt(lows['ours'], ' ms')}) | "
                f"{fmt(f, ' ms')} ({fmt(lows['floor'], ' ms')}) | {ratio(o, f)} | "
                f"{fmt(ref, ' ms')} ({fmt(lows.get('reference'), ' ms')}) | {ratio(ref, f)} |"
            )
    lines_out += [
        "",
        "## heredoc-lsp at the biggest workload, other edit kinds",
        "",
        "| edit mode | keystroke median | p95 | pull after change (median) |",
        "|---|---|---|---|",
    ]
    for mode, runs in data["modes"].items():
        lines_out.append(
            f"| {mode} | {fmt(runs_med(runs, 'c_edit_latency_ms'), ' ms')} | "
            f"{fmt(runs_med(runs, 'c_edit_latency_ms', 'p95'), ' ms')} | "
            f"{fmt(runs_med(runs, 'e_pull_change_then_pull_ms'), ' ms')} |"
        )
    ours_a = med([summary(r, "a_spawn_to_initialize_ms") for r in data["startup"]["ours"]])
    bare_a = med([summary(r, "a_spawn_to_initialize_ms") for r in data["startup"]["bare"]])
    verdicts.append(
        (
            "spawn -> initialize no slower than bare pygls",
            "met" if ours_a and bare_a and ours_a <= bare_a * 1.05 else "MISSED",
        )
    )
    lines_out += [
        "",
        "## Start-up",
        "",
        "| server | spawn -> initialize response (median) |",
        "|---|---|",
        f"| heredoc-lsp (`heredoc-lsp lsp`, every feature module registered) | {fmt(ours_a, ' ms')} |",
        f"| bare pygls 2 server (bench/bare_pygls_server.py) | {fmt(bare_a, ' ms')} |",
        "",
        "Where the import time goes (`python -X importtime`, self time of the modules loaded before `initialize` "
        "can be answered):",
        "",
        "| modules | import ms |",
        "|---|---|",
        *[f"| {group} | {ms:.1f} |" for group, ms in data.get("imports", {}).items()],
        "",
        "## Targets",
        "",
        *[f"- {what}: **{ok}**" for what, ok in verdicts],
        "",
        "Notes: the 100k-line edits re-scan only a window around the edit (incremental re-parse from the nearest safe "
        "line, old parse spliced after the point where both parses agree again) and never rebuild the text; "
        "`marker-toggle` breaks and restores a closing marker, so the heredoc runs on until the next line with its "
        "marker (or to the end of the file), and `newline` moves every later line.",
    ]
    return "\n".join(lines_out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--peer-edits", type=int, default=8, help="edits for bash-language-server at 100k lines")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--no-peer", action="store_true", help="skip bash-language-server")
    parser.add_argument("--quick", action="store_true", help="one run, fewer edits (a smoke test of the bench)")
    parser.add_argument("--open-runs", type=int, default=0, help="open-only sessions per server and size")
    parser.add_argument("--reference", type=Path, help="another checkout whose heredoc-lsp the open samples include")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.edits, args.peer_edits = 1, 10, 3
    subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "server" / "heredoc_lsp")], check=True, env=ENV)
    load_start = os.getloadavg()
    data = run(args)
    data["load_start"] = " ".join(f"{x:.2f}" for x in load_start)
    data["load_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    RESULTS_MD.parent.mkdir(parents=True, exist_ok=True)
    RESULTS_JSON.write_text(json.dumps(data, indent=1, default=str) + "\n")
    RESULTS_MD.write_text(report(data, args))
    print(RESULTS_MD.read_text())


if __name__ == "__main__":
    main()
