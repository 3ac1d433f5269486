"""Real bash as the oracle of ``heredoc-lsp guard``: rebuilds ``guard_oracle.json`` from ``guard_corpus.json``.

Each corpus case (``guard_corpus.txt``: a line ``%% NAME`` starts a case, ``%% intended`` starts what its author
meant; a case's text has no final newline) is a command an agent might run; a broken one also gives the command its
author meant (``intended``). Both run in real bash (``bash -c``, as agents' shell tools run commands) with every program
replaced by a stub that records its argv and its stdin (``cat`` also copies its stdin to stdout, so that
``$(cat <<'EOF' ...)`` yields its text); a command found nowhere is recorded too. A case runs as intended when bash
printed no warning or error and the recorded runs (as a multiset) are those of ``intended`` (of itself when it has
none).

Run: ``.venv/bin/python tests/cli/data/guard_oracle.py`` (needs bash). The test module imports :func:`trace` to
run the guard's rewrites the same way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "guard_corpus.txt"
ORACLE = HERE / "guard_oracle.json"
BASH = "/bin/bash"
STUBBED = (
    "cat",
    "git",
    "gh",
    "python3",
    "python",
    "node",
    "grep",
    "wc",
    "tee",
    "sed",
    "awk",
    "jq",
    "ls",
    "head",
    "tail",
    "sort",
    "more",
    "curl",
    "docker",
    "npm",
    "make",
    "mkdir",
    "rm",
    "cp",
    "mv",
    "chmod",
    "date",
    "psql",
    "sqlite3",
    "ssh",
    "kubectl",
    "tr",
    "xargs",
    "find",
    "diff",
    "patch",
    "chatroom",
    "tracker",
)
# The recorder every stub (and the handler of commands found nowhere) runs: argv NUL-separated, then stdin.
RECORDER = r"""
record() {
  out="$TRACE_DIR/$BASHPID.$RANDOM.$RANDOM"
  printf '%s\0' "$@" > "$out.argv"
  /bin/cat > "$out.stdin"
}
"""
STUB = """#!/bin/bash
. "$TRACE_DIR/../recorder.sh"
name=${0##*/}
record "$name" "$@"
if [ "$name" = cat ] && { [ $# -eq 0 ] || [ "$1" = - ]; }; then /bin/cat "$out.stdin"; fi
exit 0
"""
NOT_FOUND = """. "$TRACE_DIR/../recorder.sh"
command_not_found_handle() { record "$@"; return 127; }
"""


def _tools(root: Path) -> Path:
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (root / "recorder.sh").write_text(RECORDER, encoding="utf-8")
    (root / "prelude.sh").write_text(NOT_FOUND, encoding="utf-8")
    for name in STUBBED:
        stub = bin_dir / name
        stub.write_text(STUB, encoding="utf-8")
        stub.chmod(0o755)
    return bin_dir


def trace(command: str) -> dict[str, object]:
    """Run ``command`` in real bash with stubs: the runs recorded (sorted), bash's stderr and exit status."""
    with tempfile.TemporaryDirectory(prefix="guard-oracle-") as tmp:
        root = Path(tmp)
        bin_dir = _tools(root)
        trace_dir = root / "trace"
        trace_dir.mkdir()
        work = root / "work"
        work.mkdir()
        env = {
            "PATH": str(bin_dir),
            "TRACE_DIR": str(trace_dir),
            "BASH_ENV": str(root / "prelude.sh"),
            "HOME": str(work),
            "LC_ALL": "C",
        }
        done = subprocess.run(
            [BASH, "-c", command],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            check=False,
        )
        runs = []
        for argv_file in trace_dir.glob("*.argv"):
            argv = argv_file.read_bytes().split(b"\0")[:-1]
            stdin = argv_file.with_suffix(".stdin").read_bytes()
            runs.append(
                {
                    "argv": [a.decode("utf-8", "replace") for a in argv],
                    "stdin": stdin.decode("utf-8", "replace"),
                }
            )
        runs.sort(key=lambda r: json.dumps(r, sort_keys=True))
        stderr = done.stderr.decode("utf-8", "replace").replace(str(root), "<tmp>")
        return {"runs": runs, "stderr": stderr, "status": done.returncode}


def runs_as_intended(actual: dict[str, object], intended: dict[str, object]) -> bool:
    """No warning or error from bash, and the same runs with the same stdin."""
    return not actual["stderr"] and actual["runs"] == intended["runs"]


def read_corpus(path: Path = CORPUS) -> list[dict[str, str]]:
    cases: list[dict[str, str]] = []
    key = ""
    rows: list[str] = []

    def flush() -> None:
        if cases and key:
            cases[-1][key] = "\n".join(rows)

    for row in path.read_text(encoding="utf-8").split("\n"):
        if row.startswith("%% "):
            flush()
            name = row[3:].strip()
            if name == "intended":
                key = "intended"
            else:
                cases.append({"name": name})
                key = "command"
            rows = []
        elif key:
            rows.append(row)
    flush()
    for case in cases:  # the blank lines before the next case's header separate cases
        for k in ("command", "intended"):
            if k in case:
                case[k] = case[k].rstrip("\n")
    return cases


def build() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for case in read_corpus():
        actual = trace(case["command"])
        intended = trace(case["intended"]) if "intended" in case else actual
        if "intended" in case and not runs_as_intended(intended, intended):
            sys.exit(f"guard_oracle: the intended command of {case['name']!r} does not run cleanly: {intended}")
        out.append(
            {
                "name": case["name"],
                "runs_as_intended": runs_as_intended(actual, intended),
                "actual": actual,
                "intended": intended if "intended" in case else None,
            }
        )
    return out


def main() -> None:
    if not os.path.exists(BASH):
        sys.exit("guard_oracle: needs /bin/bash")
    ORACLE.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
