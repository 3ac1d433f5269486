"""Run code actions at the cursor (kind ``heredoc.run``): the same entry points as the lenses.

The run feature's :meth:`~heredoc_lsp.lsp.feature.Feature.code_actions` contribution. Offered: run the command or
``[RUN_COMMAND]`` block under the cursor, run the whole script / apply the whole reply, cancel a run of that target,
open the last run's output. Nothing in an untrusted workspace, nothing runnable when errors would make the run
refuse.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from heredoc_lsp.lsp.analysis import Snapshot
from heredoc_lsp.lsp.commands import (
    APPLY_REPLY,
    CANCEL_RUN,
    PREVIEW_REPLY,
    RUN_BLOCK,
    RUN_COMMAND,
    RUN_SCRIPT,
    SHOW_RUN_OUTPUT,
)
from heredoc_lsp.lsp.run.gate import RunGate
from heredoc_lsp.lsp.run.targets import RunTargets
from heredoc_lsp.runs.targets import target_at

RUN_KIND = "heredoc.run"


def wants_run_actions(only: list[str] | None) -> bool:
    """Whether a request restricted to ``only`` kinds admits ``heredoc.run`` actions."""
    if not only:
        return True
    return any(kind == RUN_KIND or RUN_KIND.startswith(f"{kind}.") for kind in only)


def _action(title: str, command: str, argument: dict[str, Any]) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=RUN_KIND,
        command=types.Command(title=title, command=command, arguments=[argument]),
    )


def run_code_actions(
    gate: RunGate, targets_of: RunTargets, snap: Snapshot, params: types.CodeActionParams
) -> list[types.CodeAction]:
    """The run actions for the cursor position of ``params`` (pure given the run state)."""
    if not gate.trusted() or not wants_run_actions(list(params.context.only or [])):
        return []
    state = targets_of.state
    targets = targets_of(snap)
    if not targets:
        return []
    base: dict[str, Any] = {"uri": snap.uri, "version": snap.version}
    out: list[types.CodeAction] = []
    line = params.range.start.line  # lines are the same in every position encoding
    here = target_at(targets, line)
    if here is not None:
        run = state.running(snap.uri, here.key)
        if run is not None:
            out.append(_action(f"■ Cancel the run of '{here.label}'", CANCEL_RUN, {"runId": run.run_id}))
        elif here.runnable:
            command = RUN_COMMAND if here.kind == "command" else RUN_BLOCK
            out.append(_action(f"▶ Run '{here.label}'", command, {**base, "line": here.line}))
        result = state.result(snap.uri, here.key)
        if result is not None:
            out.append(
                _action(f"Show the output of the last run of '{here.label}'", SHOW_RUN_OUTPUT, {"runId": result.run_id})
            )
    whole = targets[0]
    if whole.kind in ("script", "reply"):
        run = state.running(snap.uri, whole.key)
        name = (snap.path or snap.uri).rsplit("/", 1)[-1]
        if run is not None and run.kind == whole.kind:
            out.append(_action(f"■ Cancel the run of {name}", CANCEL_RUN, {"runId": run.run_id}))
        elif whole.runnable and run is None:
            if whole.kind == "script":
                out.append(_action(f"▶ Run script {name} ({whole.label})", RUN_SCRIPT, base))
            else:
                out.append(_action(f"▶ Apply reply {name} ({whole.label})", APPLY_REPLY, base))
                out.append(_action(f"Preview reply {name} ({whole.label})", PREVIEW_REPLY, base))
    return out
