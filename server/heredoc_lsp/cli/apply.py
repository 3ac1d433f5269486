"""``heredoc-lsp apply REPLY``: apply an LLM's inbox reply to the workspace and write the next outbox (SPEC §4.8, §5).

Each command runs in order; one with an error is not executed and reported FAILED; ``[DONE]`` ends processing.
Results use the seed's wording (``[OK] CREATE_FILE: Created 'src/a.py'``). With an active agent session in the
workspace (``sessions/``), the results are stored and the next ``outbox/<id>_seqNNNN.txt`` is written.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from heredoc_lsp.analysis.decode import decode_document
from heredoc_lsp.cli.run import add_common_arguments
from heredoc_lsp.cli.run_common import Request, UsageError, file_preparer, main_for
from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.events import EventSink
from heredoc_lsp.executor.model import RunOutcome
from heredoc_lsp.executor.reply_apply import apply_reply
from heredoc_lsp.fs import read_regular
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.text import split_lines


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "apply",
        help="apply an inbox reply (CREATE_FILE, EDIT_FILE, RUN_COMMAND...) to the workspace",
        description="Apply the commands of REPLY to the workspace (default: the agent root for inbox/x.txt, else "
        "the config file's folder, else the reply's folder). With an active session, write the next outbox. "
        "Exit 0 when completed (FAILED commands are results, not a failed run), 1 when failed, 2 on usage errors "
        "(a file with no commands at all is not a reply), 130 when cancelled. A reply is applied only once "
        "(the ledger .heredoc-lsp/replies.json of an agent root).",
    )
    p.add_argument("reply", nargs="?", metavar="REPLY", help="the reply file (JSON mode: may come in run.start)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--session", metavar="ID", help="the agent session (default: the active one, if any)")
    group.add_argument("--no-session", action="store_true", help="do not record results or write an outbox")
    add_common_arguments(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    workspace = Path(args.workspace) if args.workspace else None
    session: str | Literal[False] | None = False if args.no_session else args.session

    async def start(request: Request, sink: EventSink, control: RunControl) -> RunOutcome:
        return await apply_reply(
            request.path,
            config=request.config,
            options=request.options,
            workspace=workspace,
            session=session,
            sink=sink,
            control=control,
            run_id=request.run_id,
        )

    prepare_file = file_preparer(args)

    def prepare(path: Path, overrides: Mapping[str, Any] | None) -> Request:
        request = prepare_file(path, overrides)
        if not _has_commands(path):
            raise UsageError(
                f"{path}: not a reply: it holds no commands ([CREATE_FILE], [EDIT_FILE], [RUN_COMMAND], ...); "
                "nothing was applied"
            )
        return request

    return main_for(args, Path(args.reply) if args.reply else None, prepare, start)


def _has_commands(path: Path) -> bool:
    """Whether the file holds at least one inbox command (a usage error otherwise: it is not a reply)."""

    try:
        text = decode_document(read_regular(path)).text
    except OSError:
        return True  # the run reports the read error itself
    return bool(parse_inbox(split_lines(text)).commands)
