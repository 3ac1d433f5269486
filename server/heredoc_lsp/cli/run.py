"""``heredoc-lsp run SCRIPT.cli``: run a script's commands through the sandboxed executor (docs/formats.md; README.md).

Only ``.cli`` scripts run: an inbox reply, an outbox or any other file is refused (exit 2; replies are applied with
``apply``). A script with any error, or a ``possible_heredoc`` warning, runs nothing. Commands run in order, each
with its heredoc as stdin, and the run stops at the first failing command unless ``--keep-going``. ``--output json``
writes docs/jsonl.md events (JSONL) on stdout and reads ``run.start``/``run.input``/``run.cancel`` on stdin. Exit codes:
0 completed or cancelled, 1 failed, 2 usage.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from heredoc_lsp.cli.run_common import Preparer, Request, UsageError, file_preparer, main_for, starter
from heredoc_lsp.executor.script_run import run_script
from heredoc_lsp.languages import Language, language_from_path


def add_common_arguments(p: argparse.ArgumentParser, *, keep_going: bool = False) -> None:
    """The options of every subcommand that runs something (run, apply, agent)."""
    p.add_argument("--output", choices=("text", "json"), help="text (default, or [cli] output) or json (JSONL events)")
    p.add_argument("--yes", "-y", action="store_true", help='do not ask for confirmation (when confirm = "always")')
    p.add_argument("--timeout", type=float, metavar="S", help="per-command timeout in seconds (default 30)")
    p.add_argument("--sandbox", choices=("auto", "bwrap", "none"), help="isolation of commands (default auto)")
    p.add_argument("--allow-network", action="store_true", default=None, help="let commands use the network")
    p.add_argument(
        "--env",
        action="append",
        metavar="NAME",
        help="pass the environment variable NAME to commands (repeatable; a workspace config cannot do this)",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="use this config file instead of the nearest one (as a workspace config: safety settings only stricter)",
    )
    p.add_argument("--workspace", metavar="DIR", help="the directory commands run in and files are changed in")
    p.add_argument(
        "--question-timeout", type=float, metavar="S", help="give up on an unanswered question after S seconds"
    )
    if keep_going:
        p.add_argument("--keep-going", action="store_true", help="run every command even after one failed")


DESCRIPTION = (
    "Run every command of SCRIPT in order, each with its heredoc body as stdin, in the workspace "
    "(default: the config file's folder, else the current one), sandboxed with bubblewrap when available. "
    "Only .cli scripts run (apply an LLM's reply with 'heredoc-lsp apply'). A script with errors or a "
    "possible_heredoc warning runs nothing. Exit 0 when completed or cancelled, 1 when failed, 2 on usage errors."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("script", nargs="?", metavar="SCRIPT.cli", help="the script (JSON mode: may come in run.start)")
    add_common_arguments(p, keep_going=True)
    p.set_defaults(handler=run)


def not_a_script(path: Path) -> str | None:
    """Why ``path`` may not be run as a script (docs/formats.md: only ``.cli`` scripts are), or None when it may."""
    language = language_from_path(path)
    if language is Language.CLI:
        return None
    if language is Language.INBOX:
        return (
            f"{path}: an inbox reply is not a script and never runs as one; "
            f"use 'heredoc-lsp apply {path}' to apply a reply"
        )
    if language is Language.OUTBOX:
        return f"{path}: an outbox (what the agent sends the LLM) is not a script; nothing in it runs"
    return (
        f"{path}: not a .cli script; 'heredoc-lsp run' only runs .cli scripts "
        "(use 'heredoc-lsp apply' for an LLM's reply)"
    )


def run(args: argparse.Namespace) -> int:
    workspace = Path(args.workspace) if args.workspace else None

    start = starter(run_script, workspace=workspace)
    prepare_file = file_preparer(args)

    def prepare(path: Path, overrides: Mapping[str, Any] | None) -> Request:
        # Refused by name before anything else (its config is not even loaded): nothing in it may run.
        refusal = not_a_script(path)
        if refusal is not None:
            raise UsageError(refusal)
        return prepare_file(path, overrides)

    checked: Preparer = prepare
    return main_for(args, Path(args.script) if args.script else None, checked, start)
