"""``heredoc-lsp undo``: put back what the last applied reply changed (see docs/running.md, "Undo").

Files are restored byte for byte (content and mode) and files the reply created are removed; a file changed since
the reply was applied is left as it is and named. Commands the reply ran cannot be undone: they are listed. Each
``undo`` goes one reply further back; with nothing left: "nothing to undo", exit 1. Exit 0 when every file was put
back, 1 otherwise, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from heredoc_lsp.cli.apply import visible_lines
from heredoc_lsp.cli.run_common import EXIT_USAGE
from heredoc_lsp.executor.agent import AGENT_DIRS, AgentPaths
from heredoc_lsp.executor.files import FileOpError, Workspace
from heredoc_lsp.executor.undo import UndoError, undo_last

DESCRIPTION = (
    "Restore the files that the last applied reply created, edited or deleted, byte for byte, "
    "from the copies 'apply' kept under .heredoc-lsp/undo/. A file changed since is left as it is. Run it "
    "again to go one reply further back. Exit 0 when every file was put back, 1 when one could not be or "
    "there is nothing to undo, 2 on usage errors."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workspace", metavar="DIR", help="the workspace the reply changed (default: the current directory)"
    )
    p.add_argument("--output", choices=("text", "json"), default="text", help="text (default) or one JSON object")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    root = Path(args.workspace or ".").absolute()
    try:
        ws = Workspace(root, protected=AGENT_DIRS if AgentPaths(root).is_agent_root() else ())
        report = undo_last(ws)
    except (FileOpError, UndoError) as exc:
        sys.stderr.write(f"heredoc-lsp: {exc}\n")
        return EXIT_USAGE
    if args.output == "json":
        sys.stdout.write(json.dumps(report.to_json(), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(visible_lines(report.lines()))
    return 0 if report.ok else 1
