"""``check``'s argparse-free command line gives exactly argparse's namespace, or leaves the words to argparse."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.cli.conftest import problems

from heredoc_lsp.cli.check import simple_args
from heredoc_lsp.cli.main import build_parser

HANDLED = [
    [],
    ["a.cli"],
    ["-"],
    ["a.cli", "dir", ""],
    ["--strict", "a.cli"],
    ["a.cli", "b.cli", "--strict", "-v"],
    ["--no-color", "--verbose", "x", "y"],
    ["-v", "--strict", "--no-color"],
    ["--strict", "--strict", "a"],
    ["--format", "json", "a.cli"],
    ["--format=json"],
    ["--output-format", "sarif", "x"],
    ["--config", "c.toml", "a.cli"],
    ["--language", "cli", "-"],
    ["--select", "duplicate,missing", "--select=empty", "--ignore", "collision", "a"],
    ["--extend-select", "no_effect", "--exclude", "build/,*.tmp.cli", "--exclude", "x"],
    ["--fix", "--unsafe-fixes", "--exit-zero", "--no-respect-gitignore", "a.cli"],
    ["--diff", "--watch", "--command", "chatroom handoff", "--workspace", "w"],
]
LEFT_TO_ARGPARSE = [
    ["--format", "xml", "a.cli"],  # not a choice: argparse says which are
    ["--format"],
    ["--config", "-x"],
    ["--strict=yes"],
    ["-h"],
    ["--help"],
    ["--", "-weird.cli"],
    ["-vv"],
    ["a.cli", "--strict", "b.cli"],  # argparse rejects paths after an option that follows paths
    ["--bogus"],
]


@pytest.mark.parametrize("words", HANDLED, ids=lambda w: " ".join(w) or "(none)")
def test_same_namespace_as_argparse(words: list[str]) -> None:
    fast = simple_args(words)
    assert fast is not None
    assert vars(fast) == vars(build_parser("check").parse_args(["check", *words]))


@pytest.mark.parametrize("words", LEFT_TO_ARGPARSE, ids=" ".join)
def test_other_words_go_to_argparse(words: list[str]) -> None:
    assert simple_args(words) is None


def test_paths_options_paths_is_still_a_usage_error() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "heredoc_lsp", "check", "a.cli", "--strict", "b.cli"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == "heredoc-lsp check: error: unrecognized arguments: b.cli"


def test_plain_check_does_not_import_argparse_typing_or_dataclasses(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from heredoc_lsp.cli.main import main\n"
        "code = main(['check', sys.argv[1]])\n"
        "print(sorted(m for m in ('argparse', 'typing', 'dataclasses', 'inspect') if m in sys.modules), code)\n"
    )
    script = tmp_path / "ok.cli"
    script.write_text("echo hi\ncat <<EOF\nbody\nEOF\n")
    proc = subprocess.run([sys.executable, "-c", code, str(script)], capture_output=True, text=True, check=True)
    assert proc.stdout == "[] 0\n"


def test_fast_exit_flushes_all_output(tmp_path: Path) -> None:
    """The console script leaves a check with os._exit: every line must still reach stdout and stderr."""
    script = tmp_path / "many.cli"
    script.write_text("".join(f"cmd{i} <<\n" for i in range(3000)))  # 3000 invalid_marker errors
    exe = Path(sys.executable).parent / "heredoc-lsp"
    out = tmp_path / "out.txt"
    with out.open("wb") as sink:
        proc = subprocess.run([str(exe), "check", str(script)], stdout=sink, stderr=subprocess.PIPE, check=False)
    assert proc.returncode == 1
    lines = problems(out.read_text())
    assert len(lines) == 3000
    assert lines[-1].endswith("error[invalid_marker] Missing heredoc marker after '<<'")
    assert proc.stderr.decode().splitlines() == ["Checked 1 file: 3000 errors"]
