"""The extension in a real VS Code: code-server 4.100.3 (VS Code 1.100.3) in headless Chromium (e2e.mjs).

The .vsix built from the working tree is installed into a fresh code-server; the driver opens a small workspace
and checks, each as its own test below:

- ``diagnostics``: an unclosed heredoc shows a red squiggle and a Problems entry with the server's message;
- ``grammar``: the heredoc marker has the grammar's scope (token inspector) and the theme's keyword colour;
- ``languages``: ``inbox/reply.txt`` opens as Agent Inbox with its ``[RUN_COMMAND]`` body in VS Code's shell grammar
  (embedded ``shellscript``), ``outbox/<id>_seq0002.txt`` as Agent Outbox with its section marker scoped;
- ``bodies``: a Python body is in VS Code's Python grammar, and its syntax error is a ``body_syntax`` squiggle with
  Python's message at the column of the unclosed parenthesis (docs/bodies.md);
- ``run-lens``: the "▶ Run" lens runs the command after the confirmation and shows ``✓ exit 0``; its log shows the
  command's output;
- ``quick-fix``: "Switch to UUID-prefixed delimiters" rewrites the delimiters, in the editor and on disk;
- ``lints``: one warning of each new ``.cli`` lint (docs/checking.md) in the Problems panel, and the ``early_close``
  quick fix renames the marker;
- ``agent-loop``: the copy-paste agent loop from the command palette (docs/vscode.md, "The agent loop"): "New
  agent session" opens the first outbox, "Copy outbox for the LLM" puts exactly its text on the browser's clipboard,
  "Paste reply" writes the clipboard into ``inbox/`` and opens it with its lenses, "Preview reply" shows VS Code's
  Refactor Preview with a box per file (unchecked: VS Code's rule for changes that need confirmation) and writes
  nothing; two of the three files ticked and applied, those are on disk, the third is untouched and the next outbox
  opens reporting it ``[SKIPPED]``; the outbox pasted back as the reply is refused and nothing is written; "Undo
  last reply" from the outbox removes the new files;
- ``restricted-mode``: a second code-server with workspace trust on opens an untrusted folder: Restricted Mode,
  diagnostics still shown, the status bar item shows the shield, and no run lens is offered.

Screenshots and code-server's log go to test-artifacts/vscode/ (gitignored). Only the selected checks run
(``-k agent`` runs the agent loop alone); the set-up always runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "vscode"
CHECKS = (
    "diagnostics",
    "grammar",
    "languages",
    "bodies",
    "run-lens",
    "quick-fix",
    "lints",
    "agent-loop",
    "restricted-mode",
)
TIMEOUT_S = 300


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def selected_checks(items: list[pytest.Item]) -> list[str]:
    """The checks of the selected ``test_vscode`` items, in the driver's order."""
    chosen = {
        item.callspec.params["check"]
        for item in items
        if isinstance(item, pytest.Function) and item.originalname == "test_vscode" and hasattr(item, "callspec")
    }
    return [c for c in CHECKS if c in chosen]


@pytest.fixture(scope="module")
def e2e(vsix: Path, request: pytest.FixtureRequest) -> dict[str, Any]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*"):
        if old.is_file():
            old.unlink()
    only = selected_checks(request.session.items)
    argv = ["node", str(HERE / "e2e.mjs"), "--vsix", str(vsix), "--artifacts", str(ARTIFACTS)]
    if only and only != list(CHECKS):
        argv += ["--checks", ",".join(only)]
    proc = subprocess.Popen(
        argv,
        cwd=HERE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        output, _ = proc.communicate()
        pid_file = ARTIFACTS / "code-server.pid"
        if pid_file.exists():
            _kill_group(int(pid_file.read_text()))
        pytest.fail(f"the VS Code e2e driver did not finish within {TIMEOUT_S} s:\n{output}")
    (ARTIFACTS / "driver.log").write_text(output, encoding="utf-8")
    results_file = ARTIFACTS / "results.json"
    assert results_file.exists(), f"no results (exit {proc.returncode}):\n{output}"
    results: dict[str, Any] = json.loads(results_file.read_text(encoding="utf-8"))
    assert "setup" not in results["checks"], f"set-up failed:\n{results['checks']['setup']['detail']}\n{output}"
    assert proc.returncode in (0, 1), output
    return results


@pytest.mark.parametrize("check", CHECKS)
def test_vscode(e2e: dict[str, Any], check: str) -> None:
    result = e2e["checks"].get(check)
    assert result is not None, f"check {check} did not run"
    assert result["ok"], f"{check}: {result['detail']}"
    assert (ARTIFACTS / f"{check}.png").is_file()
