"""The one place where the server calls the executor's run layer (``run_script``, ``apply_reply``).

Every run gets the editor's text of the version the request named (never the file on disk), the configuration the
server uses for that document, the workspace root, the event sink and the run's control. ``confirm`` is always
``"never"`` here: the server asks before it starts a run (:mod:`heredoc_lsp.lsp.run.gate`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from heredoc_lsp.config import Config
from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.events import EventSink
from heredoc_lsp.executor.model import RunOptions, RunOutcome
from heredoc_lsp.executor.reply_apply import apply_reply
from heredoc_lsp.executor.reply_preview import EditorApplied
from heredoc_lsp.executor.script_run import run_script
from heredoc_lsp.runs.targets import RunTarget

UNTITLED_SCRIPT = "untitled.cli"
UNTITLED_REPLY = "untitled.inbox"


@dataclass(frozen=True, slots=True)
class RunJob:
    """What to run: ``kind`` is script (all commands or ``lines``), reply (the whole reply) or block (one
    ``[RUN_COMMAND]`` of a reply, run without touching the agent session)."""

    kind: str
    path: Path | None
    text: str
    config: Config
    workspace: Path | None
    lines: tuple[int, ...] | None = None
    block: RunTarget | None = None
    editor: EditorApplied | None = None  # a reply whose file changes the editor applied from their preview


def document_text(lines: Sequence[str], newline: str) -> str:
    return "".join(line + newline for line in lines)


def command_text(lines: Sequence[str], newline: str, target: RunTarget) -> str:
    """The script with every line outside the command's blank: the executor runs the command alone, at its own
    line, whatever errors the rest of the script has (docs/running.md: a problem elsewhere does not hide a command)."""
    first, last = target.line, target.end_line
    return (
        newline * first
        + "".join(lines[i] + newline for i in range(first, last + 1))
        + newline * (len(lines) - last - 1)
    )


def block_text(target: RunTarget) -> str:
    """A reply holding only the block's command (its body is already trimmed; it cannot contain its closer)."""
    return f"[RUN_COMMAND]\n{target.command}\n[/RUN_COMMAND]\n"


async def execute(job: RunJob, sink: EventSink, control: RunControl, run_id: str) -> RunOutcome:
    """Run ``job`` to its end; never raises for what the run does (the outcome and the events say it)."""
    options = RunOptions.from_config(job.config, confirm="never")
    if job.kind == "script":
        lines: Collection[int] | None = job.lines
        return await run_script(
            job.path or Path(UNTITLED_SCRIPT),
            text=job.text,
            config=job.config,
            options=options,
            workspace=job.workspace,
            sink=sink,
            control=control,
            run_id=run_id,
            lines=lines,
        )
    block = job.kind == "block"
    text = job.text
    if block:
        assert job.block is not None
        text = block_text(job.block)
    return await apply_reply(
        job.path or Path(UNTITLED_REPLY),
        text=text,
        config=job.config,
        options=options,
        workspace=job.workspace,
        session=False if block else None,  # one block runs outside any agent session
        sink=sink,
        control=control,
        run_id=run_id,
        editor=None if block else job.editor,
    )
