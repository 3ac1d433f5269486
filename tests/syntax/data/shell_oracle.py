"""Rebuild ``shell_oracle.json`` from real shells: ``bash -n`` and ``dash -n`` on each case of ``shell_cases.txt``.

Run: ``.venv/bin/python tests/syntax/data/shell_oracle.py`` (needs bash and dash on PATH).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "shell_cases.txt"
ORACLE = HERE / "shell_oracle.json"
SHELLS = ("bash", "dash")


def read_cases(path: Path = CASES) -> list[str]:
    """The cases of the corpus: text after the header, split at lines holding only ``%%``."""
    text = path.read_text(encoding="utf-8")
    body = text.split("\n%%\n", 1)[1]
    return [case for case in body.split("\n%%\n") if case.strip("%\n")]


def accepts(shell: str, case: str) -> bool:
    """Whether ``shell -n`` accepts ``case`` (read from stdin, as a script)."""
    done = subprocess.run([shell, "-n"], input=case.encode(), capture_output=True, timeout=10, check=False)
    return done.returncode == 0


def build() -> list[dict[str, object]]:
    return [{"case": case, **{shell: accepts(shell, case) for shell in SHELLS}} for case in read_cases()]


def main() -> None:
    ORACLE.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
