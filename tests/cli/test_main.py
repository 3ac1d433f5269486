"""heredoc_lsp.cli.main: the probes editors and wrappers run (``--version``, ``--help``, no arguments, a mistyped
subcommand) answer without importing any subcommand module; the work they do is guarded here, their time is
bench/bench_probes.py's."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.cli.conftest import Runner

from heredoc_lsp import __version__
from heredoc_lsp.cli.main import SUBCOMMANDS, SUMMARIES, build_parser

ONLY_MAIN = ["argparse", "heredoc_lsp", "heredoc_lsp.cli", "heredoc_lsp.cli.main", "heredoc_lsp.cli.names"]


def imported_by(args: list[str]) -> tuple[str, list[str]]:
    """Run ``main(args)`` in a fresh interpreter: what it wrote and the modules (ours and argparse) it imported."""
    code = (
        "import json, sys\nfrom heredoc_lsp.cli.main import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "sys.stdout.flush()\n"
        "mods = sorted(m for m in sys.modules if m.startswith('heredoc_lsp') or m == 'argparse')\n"
        "print(json.dumps(mods), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    *_, modules = done.stderr.strip().splitlines()
    return done.stdout + "".join(done.stderr.strip().splitlines(keepends=True)[:-1]), json.loads(modules)


def test_version_imports_no_subcommand_and_no_argparse() -> None:
    out, modules = imported_by(["--version"])
    assert out == f"heredoc-lsp {__version__}\n"
    assert modules == [m for m in ONLY_MAIN if m != "argparse"]


@pytest.mark.parametrize("args", [["--help"], [], ["--bogus"]])
def test_top_level_help_and_usage_errors_import_no_subcommand(args: list[str]) -> None:
    out, modules = imported_by(args)
    assert modules == ONLY_MAIN
    shown = " ".join(out.split())
    assert "usage: heredoc-lsp" in shown
    if args != ["--bogus"]:
        assert all(f"{name} {summary}" in shown for name, summary in SUMMARIES.items())


def test_a_mistyped_subcommand_gets_a_did_you_mean_without_argparse() -> None:
    out, modules = imported_by(["chek", "x.cli"])
    assert modules == [m for m in ONLY_MAIN if m != "argparse"]
    assert "heredoc-lsp: error: unknown command 'chek' (did you mean 'check'?)" in out


def test_every_subcommand_has_a_summary_and_its_own_parser_uses_it() -> None:
    assert set(SUMMARIES) == set(SUBCOMMANDS)
    for name in SUBCOMMANDS:
        assert f"{name} {SUMMARIES[name]}" in " ".join(build_parser(name).format_help().split())


def test_version_help_and_a_mistyped_subcommand_through_the_real_command(cli: Runner) -> None:
    version = cli("--version")
    assert (version.returncode, version.stdout) == (0, f"heredoc-lsp {__version__}\n")
    mistyped = cli("chek")
    assert mistyped.returncode == 2 and "unknown command 'chek' (did you mean 'check'?)" in mistyped.stderr
    assert cli("--help").stdout.startswith("usage: heredoc-lsp")


@pytest.mark.parametrize(
    ("words", "usage", "typo", "meant"),
    [
        # options of a mutually exclusive group (apply's --session | --no-session) and of a nested subcommand
        (["apply", "--no-sesion", "r.txt"], "heredoc-lsp apply", "--no-sesion", "--no-session"),
        (["apply", "--sesion", "s1", "r.txt"], "heredoc-lsp apply", "--sesion", "--session"),
        (["agent", "watch", "--oncee"], "heredoc-lsp agent watch", "--oncee", "--once"),
        (["agent", "new", "--workspce", "w", "task"], "heredoc-lsp agent new", "--workspce", "--workspace"),
        (["--verison"], "heredoc-lsp", "--verison", "--version"),
    ],
)
def test_a_mistyped_option_of_a_group_or_nested_subcommand_gets_a_did_you_mean(
    cli: Runner, words: list[str], usage: str, typo: str, meant: str
) -> None:
    done = cli(*words)
    assert done.returncode == 2
    assert done.stderr.startswith(f"usage: {usage} ["), done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith(f"{usage}: error: unrecognized arguments: {typo}"), done.stderr
    assert last.endswith(f" (did you mean '{meant}'?)"), done.stderr
