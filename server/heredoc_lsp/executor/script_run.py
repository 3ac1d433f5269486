"""Running a ``.cli`` script (docs/formats.md): refused when it has errors or a ``possible_heredoc`` warning, else each
command in order (its run text, docs/formats.md) with its heredoc."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.analysis.decode import decode_document
from heredoc_lsp.config import ConfigError, config_for_file
from heredoc_lsp.executor.agent import guard_inbox
from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.engine import RunContext, RunRefused, count_summary, drive
from heredoc_lsp.executor.events import EventSink
from heredoc_lsp.executor.model import (
    CommandStep,
    RunOptions,
    RunOutcome,
    StepResult,
    command_result_text,
)
from heredoc_lsp.fs import read_regular
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.cli import CliScript, blocks_run
from heredoc_lsp.syntax.diagnostics import Severity, diagnostic_json

if TYPE_CHECKING:
    from heredoc_lsp.config.model import Config
    from heredoc_lsp.syntax.diagnostics import Diagnostic


def load_config_for(path: Path, config: Config | None) -> Config:
    """``config`` or the one that applies to ``path`` (a broken config refuses the run with its problems)."""
    if config is not None:
        return config

    try:
        return config_for_file(path)
    except ConfigError as exc:
        raise RunRefused("parse_error", f"configuration error:\n{exc.format()}") from None


def read_document(path: Path, text: str | None) -> tuple[str, list[Diagnostic]]:
    """The document's text (``text`` when given: an editor's unsaved buffer) and an encoding warning if any."""
    if text is not None:
        return text, []
    try:
        data = read_regular(path)
    except OSError as exc:
        raise RunRefused("parse_error", f"cannot read '{path}': {exc.strerror or exc}") from None

    decoded = decode_document(data)
    return decoded.text, list(decoded.diagnostics)


def script_steps(
    path: Path, text: str | None, config: Config, lines: Collection[int] | None
) -> tuple[list[CommandStep], int, list[Diagnostic]]:
    """The script's commands as steps; refuses (``parse_error``) a script with any error or a ``possible_heredoc``
    warning (docs/formats.md). Returns steps, total and the diagnostics that do not block the run (warnings, hints)."""

    source, extra = read_document(path, text)
    analysis = analyze(source, Language.CLI, config, extra_diagnostics=extra)
    # Suppressed diagnostics are not in analysis.diagnostics: a suppressed possible_heredoc does not block.
    blocking = [d for d in analysis.diagnostics if blocks_run(d)]
    if blocking:
        first = blocking[0]
        raise RunRefused(
            "parse_error",
            f"{path.name} has {_problems(blocking)}; nothing was run "
            f"(line {first.span.start_line + 1}: {first.message})",
            diagnostics=[diagnostic_json(d) for d in analysis.diagnostics],
        )
    tree = analysis.tree
    assert isinstance(tree, CliScript)
    # The runner gets each command's run text: `cat <<EOF > out.txt` runs `cat > out.txt` (docs/formats.md).
    steps = [CommandStep(c.run_text, c.stdin_text(), c.line) for c in tree.commands]
    total = len(steps)
    if lines is not None:
        wanted = set(lines)
        steps = [s for s in steps if s.line in wanted]
    return steps, total, list(analysis.diagnostics)


def _problems(blocking: Collection[Diagnostic]) -> str:
    """``"2 errors"``, ``"1 possible_heredoc warning"``, ``"1 error and 1 possible_heredoc warning"``."""

    counts: dict[str, int] = {}
    for d in blocking:
        kind = "error" if d.severity == Severity.ERROR else f"{d.code} warning"
        counts[kind] = counts.get(kind, 0) + 1
    return " and ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items())


def default_script_workspace(config: Config) -> Path:
    """Where a script's commands run when no workspace is given: the config file's folder, else the current one."""
    if config.source is not None:
        return config.source.absolute().parent
    return Path.cwd()


async def run_script(
    path: Path | str,
    *,
    text: str | None = None,
    config: Config | None = None,
    options: RunOptions | None = None,
    workspace: Path | None = None,
    sink: EventSink | None = None,
    control: RunControl | None = None,
    run_id: str | None = None,
    lines: Collection[int] | None = None,
) -> RunOutcome:
    """Run a ``.cli`` script: every command in order, stopping at the first failure unless ``keep_going``.

    ``text`` replaces the file's contents (an editor's buffer); ``lines`` (0-based opener lines) runs only those
    commands. ``options`` default to the config's. Emits docs/jsonl.md events to ``sink``; never raises for anything
    the run does (the outcome and the terminal event say what happened).
    """
    script = Path(path)
    ctx = RunContext(workspace or Path.cwd(), options or RunOptions(), sink, control, run_id)

    async def body(ctx: RunContext) -> RunOutcome:
        cfg = load_config_for(script, config)
        opts = options or RunOptions.from_config(cfg)
        ctx.options = opts
        ctx.workspace = (workspace or default_script_workspace(cfg)).resolve()
        steps, total, warnings = script_steps(script, text, cfg, lines)
        if not ctx.workspace.is_dir():
            raise RunRefused("parse_error", f"workspace '{ctx.workspace}' is not a directory")
        # What check says about the script is shown before it runs, so a lint is seen next to the failure it explains.
        for d, shown in zip(warnings, map(diagnostic_json, warnings), strict=True):
            where = f"{script}:{shown['line']}:{shown['column']}:"
            ctx.emitter.status(f"{where} {shown['severity']}[{d.code}] {d.message}", diagnostic=shown)
        sandbox = ctx.sandbox()
        ctx.emitter.status(
            f"{len(steps)} command{'s' if len(steps) != 1 else ''} in {ctx.workspace} (sandbox: {sandbox.mode})",
            workspace=str(ctx.workspace),
            sandbox=sandbox.mode,
            commands=len(steps),
        )
        n = len(steps)
        await ctx.confirm(
            f"Run {n} command{'s' if n != 1 else ''} from {script.name} in {ctx.workspace} (sandbox: {sandbox.mode})?"
        )
        failed_at = None
        with guard_inbox(ctx.workspace, f"script {script.name}"):
            for i, step in enumerate(steps):
                ctx.control.check()
                result = await ctx.run_command(i, n, step.command, step.stdin, line=step.line, kind="command")
                ctx.record(result)
                if result.status == "cancelled":
                    ctx.control.check()
                if not result.ok and failed_at is None:
                    failed_at = result
                    if not opts.keep_going:
                        break
        summary = count_summary(ctx.results)
        if failed_at is not None:
            message = failure_message(ctx.results, n)
            ctx.emitter.failed("command_failed", message, summary=summary, results=ctx.results_json())
            return RunOutcome(ctx.run_id, "failed", tuple(ctx.results), summary, "command_failed", message)
        ctx.emitter.completed(summary, ctx.results_json(), total=total)
        return RunOutcome(ctx.run_id, "completed", tuple(ctx.results), summary)

    return await drive(ctx, {"kind": "script", "path": str(script.absolute())}, body)


def failure_message(results: list[StepResult], total: int) -> str:
    """The ``run.failed`` message of a script run: every failed command, and how many were not run."""
    failed = [command_result_text(r.to_json(), timed=False).partition("] ")[2] for r in results if not r.ok]
    skipped = total - len(results)
    head = "; ".join(failed)
    if len(failed) > 1:
        head = f"{len(failed)} of {total} commands failed: {head}"
    return head + (f"; {skipped} later command{'s' if skipped != 1 else ''} not run" if skipped else "")
