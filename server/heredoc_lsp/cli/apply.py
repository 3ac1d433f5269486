"""``heredoc-lsp apply REPLY``: apply an LLM's inbox reply to the workspace and write the next outbox (docs/formats.md).

Each command runs in order; one with an error is not executed and reported FAILED; ``[DONE]`` ends processing.
Results use the seed's wording (``[OK] CREATE_FILE: Created 'src/a.py'``). With an active agent session in the
workspace (``sessions/``), the results are stored and the next ``outbox/<id>_seqNNNN.txt`` is written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.analysis.decode import decode_document
from heredoc_lsp.cli.run import add_common_arguments
from heredoc_lsp.cli.run_common import (
    EXIT_USAGE,
    Request,
    UsageError,
    file_preparer,
    main_for,
    output_format,
    starter,
)
from heredoc_lsp.config import Config
from heredoc_lsp.executor.engine import RunRefused
from heredoc_lsp.executor.events import RunEmitter, new_id
from heredoc_lsp.executor.jsonl import JsonlWriter
from heredoc_lsp.executor.protocol_text import example_fingerprints
from heredoc_lsp.executor.reply_apply import apply_reply
from heredoc_lsp.executor.reply_preview import preview_reply
from heredoc_lsp.fs import read_regular
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.reply_shape import prompt_problem
from heredoc_lsp.syntax.text import split_lines
from heredoc_lsp.syntax.visible import visible

DESCRIPTION = (
    "Apply the commands of REPLY to the workspace (default: the agent root for inbox/x.txt, else "
    "the config file's folder, else the reply's folder). With an active session, write the next outbox. "
    "Exit 0 when every block succeeded, 1 when any block failed (or the run failed), 2 on usage errors and "
    "refusals (a file with no commands, a prompt pasted back, a reply that looks cut off, a reply applied "
    "before: the ledger .heredoc-lsp/replies.json of the workspace), 130 when cancelled. What the reply "
    "changes is kept for 'heredoc-lsp undo'."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reply", nargs="?", metavar="REPLY", help="the reply file (JSON mode: may come in run.start)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--session", metavar="ID", help="the agent session (default: the active one, if any)")
    group.add_argument("--no-session", action="store_true", help="do not record results or write an outbox")
    p.add_argument(
        "--preview",
        action="store_true",
        help="show what applying would do (a diff per file block, the commands it would run); write and run nothing",
    )
    p.add_argument("--again", action="store_true", help="apply a reply that was applied before (on purpose)")
    p.add_argument(
        "--partial", action="store_true", help="apply the closed blocks of a reply that looks cut off (no [DONE])"
    )
    p.add_argument(
        "--allow-invalid",
        action="store_true",
        help="apply a reply even when a file it creates is not valid in its language (body_syntax, docs/bodies.md)",
    )
    add_common_arguments(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    workspace = Path(args.workspace) if args.workspace else None
    session: str | Literal[False] | None = False if args.no_session else args.session
    if args.preview:
        return _preview(args, workspace, session)

    start = starter(apply_reply, workspace=workspace, session=session, again=args.again, partial=args.partial)
    prepare_file = file_preparer(args)

    def prepare(path: Path, overrides: Mapping[str, Any] | None) -> Request:
        request = prepare_file(path, overrides)
        if not _has_commands(path):
            raise UsageError(
                f"{path}: not a reply: it holds no commands ([CREATE_FILE], [EDIT_FILE], [RUN_COMMAND], ...); "
                "nothing was applied"
            )
        if not args.allow_invalid:
            _refuse_invalid_bodies(path, request.config)
        return request

    return main_for(args, Path(args.reply) if args.reply else None, prepare, start)


def _preview(args: argparse.Namespace, workspace: Path | None, session: str | Literal[False] | None) -> int:
    """``--preview``: the preview on stdout (text, or one ``run.completed`` event with ``preview``); exit 0, or 2
    when the file is refused as a whole (not a reply, a prompt)."""
    fmt = "text"
    try:
        if not args.reply:
            raise UsageError("--preview needs the REPLY file on the command line")
        path = Path(args.reply)
        request = file_preparer(args)(path, None)
        fmt = output_format(args, request.config)
        if not _has_commands(path):
            raise UsageError(f"{path}: not a reply: it holds no commands; nothing to preview")
        preview = preview_reply(
            path, config=request.config, workspace=workspace, session=session, again=args.again, partial=args.partial
        )
    except UsageError as exc:
        sys.stderr.write(f"heredoc-lsp: {exc}\n")
        return EXIT_USAGE
    except RunRefused as exc:
        sys.stderr.write(f"heredoc-lsp: {exc.message}\n")
        return EXIT_USAGE if exc.refused else 1
    invalid = _invalid_bodies(path, request.config)
    if fmt == "json":
        emitter = RunEmitter(new_id("run"), JsonlWriter(sys.stdout.buffer))
        emitter.started(kind="reply.preview", path=str(path.absolute()))
        extra = {"body_syntax": invalid} if invalid else {}
        emitter.completed(f"preview of {len(preview.blocks)} blocks", [], preview=preview.to_json(), **extra)
    else:
        lines = preview.lines()
        if invalid:  # what apply would refuse (docs/bodies.md)
            refused = "Refused without --allow-invalid: files not valid in their language:"
            lines = [*lines, refused, *(f"  {line}" for line in invalid)]
        sys.stdout.write(visible_lines(lines))
    return 0


def visible_lines(lines: list[str]) -> str:
    """The lines for a terminal: control characters (escape sequences, a lone CR) and hidden or bidirectional
    characters of a reply's text shown as escapes (:func:`heredoc_lsp.syntax.visible.visible`), never acted on."""
    return "".join(visible(line, one_line=True) + "\n" for line in lines)


def _has_commands(path: Path) -> bool:
    """Whether the file holds at least one inbox command (a usage error otherwise: it is not a reply)."""

    try:
        text = decode_document(read_regular(path)).text
    except OSError:
        return True  # the run reports the read error itself
    return bool(parse_inbox(split_lines(text)).commands)


def _invalid_bodies(path: Path, config: Config) -> list[str]:
    """``path:line:col: error[body_syntax] message`` for each file the reply creates that fails its language's
    check (``body_syntax`` not suppressed in the reply; docs/bodies.md)."""
    try:
        text = decode_document(read_regular(path)).text
    except OSError:
        return []  # the run reports the read error itself
    lines = split_lines(text)
    if prompt_problem(lines, parse_inbox(lines), example_fingerprints()) is not None:
        return []  # not a reply at all: the run refuses it as such, which says what to do instead
    diagnostics = analyze(text, Language.INBOX, config).diagnostics
    return [
        f"{path}:{d.span.start_line + 1}:{d.span.start_col + 1}: error[body_syntax] {d.message}"
        for d in diagnostics
        if d.code == "body_syntax"
    ]


def _refuse_invalid_bodies(path: Path, config: Config) -> None:
    """A usage error (exit 2, nothing applied) when a file the reply creates fails its language's check."""
    found = _invalid_bodies(path, config)
    if not found:
        return
    where = "\n".join(f"  {line}" for line in found)
    files = "a file" if len(found) == 1 else f"{len(found)} files"
    raise UsageError(
        f"{path}: {files} of this reply would not be valid in its language; nothing was applied "
        f"(--allow-invalid applies it anyway):\n{where}"
    )
