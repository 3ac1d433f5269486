"""The texts that show runs (heredoc_lsp.runs.view): lens titles, hover Markdown and result diagnostics."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.runs.state import ActiveRun, TargetResult
from heredoc_lsp.runs.targets import RunTarget
from heredoc_lsp.runs.view import (
    HOVER_OUTPUT_CHARS,
    RESULT_CODE,
    exit_text,
    hover_markdown,
    result_diagnostics,
    result_title,
    running_title,
    seconds,
    tail_lines,
)
from heredoc_lsp.syntax.diagnostics import Severity, Span

COMMAND = RunTarget("command", ("cmd", "make", None, 0), 2, 2, 0, 4, "make", command="make")
SCRIPT = RunTarget("script", ("script", ()), 0, 0, 0, 0, "2 commands")
REPLY = RunTarget("reply", ("reply", ()), 0, 0, 0, 0, "2 commands")
FILE_BLOCK = RunTarget("block", ("CREATE_FILE", (), "x", 0), 1, 3, 0, 25, "CREATE_FILE a.py", index=0)


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, "?"), (0.031, "0.03 s"), (0.3, "0.3 s"), (9.94, "9.9 s"), (12.4, "12 s"), (125, "2 min 05 s")],
)
def test_seconds(value: float | None, text: str) -> None:
    assert seconds(value) == text


def test_exit_text() -> None:
    assert [exit_text(c) for c in (None, 0, 2, -9)] == ["not started", "exit 0", "exit 2", "signal 9"]


@pytest.mark.parametrize(
    ("result", "title"),
    [
        (TargetResult("ok", "r", exit_code=0, duration_s=0.3), "✓ exit 0 · 0.3 s"),
        (TargetResult("failed", "r", exit_code=2, duration_s=1.1), "✗ exit 2 · 1.1 s"),
        (TargetResult("failed", "r", exit_code=-15, duration_s=1.1), "✗ signal 15 · 1.1 s"),
        (TargetResult("timeout", "r", duration_s=30), "⏱ timed out · 30 s"),
        (TargetResult("cancelled", "r", duration_s=0.02), "■ cancelled · 0.02 s"),
        (TargetResult("skipped", "r"), "– skipped"),
        (TargetResult("rejected", "r", summary="Refused: protected path\nmore"), "✗ Refused: protected path"),
        (TargetResult("rejected", "r"), "✗ failed"),
    ],
)
def test_command_titles(result: TargetResult, title: str) -> None:
    assert result_title(COMMAND, result) == title


def test_whole_document_titles() -> None:
    assert result_title(SCRIPT, TargetResult("ok", "r", duration_s=0.3, counts=(2, 0))) == "✓ 2 commands ok · 0.3 s"
    assert result_title(SCRIPT, TargetResult("ok", "r", duration_s=0.3, counts=(1, 0))) == "✓ 1 command ok · 0.3 s"
    assert result_title(SCRIPT, TargetResult("failed", "r", duration_s=2, counts=(1, 1))) == "✗ 1 ok, 1 failed · 2.0 s"
    assert result_title(SCRIPT, TargetResult("cancelled", "r", duration_s=2, counts=(1, 0))) == (
        "■ cancelled after 1 of the commands · 2.0 s"
    )
    refused = TargetResult("rejected", "r", summary="Untrusted workspace")
    assert result_title(SCRIPT, refused) == "✗ Untrusted workspace"
    applied = TargetResult("ok", "r", duration_s=0.3, counts=(2, 0), outbox=Path("/o/x_seq0002.txt"))
    assert result_title(REPLY, applied) == "✓ 2 ok · 0.3 s · x_seq0002.txt"


def test_file_block_titles_use_the_summary() -> None:
    assert result_title(FILE_BLOCK, TargetResult("ok", "r", summary="Created 'a.py'")) == "✓ Created 'a.py'"
    assert result_title(FILE_BLOCK, TargetResult("failed", "r", summary="x" * 100)) == "✗ " + "x" * 79 + "…"


def test_running_title() -> None:
    run = ActiveRun("r", "file:///a.cli", "command", "make", RunControl(), frozenset(), started=time.monotonic())
    assert running_title(run).startswith("⏳ running ") and running_title(run).endswith(" s · ■ Cancel")


def test_hover_shows_output_in_a_fence_longer_than_its_backticks(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    result = TargetResult("ok", "r", exit_code=0, duration_s=0.3, output="a ```` b\n", log_path=log)
    text = hover_markdown(COMMAND, result, None)
    assert text is not None
    assert text.startswith("**Last run** ✓ exit 0 · 0.3 s (at ")
    assert "`````text\na ```` b\n`````" in text
    assert text.endswith(f"[Full output]({log.as_uri()})")


def test_hover_clips_long_output_and_says_so() -> None:
    out = "x" * (HOVER_OUTPUT_CHARS + 500)
    text = hover_markdown(COMMAND, TargetResult("ok", "r", exit_code=0, output=out), None)
    assert text is not None
    assert "… 500 characters not shown …" in text and text.endswith("*Output truncated.*")
    assert hover_markdown(COMMAND, TargetResult("ok", "r", exit_code=0), None) is not None
    assert "*(no output)*" in (hover_markdown(COMMAND, TargetResult("ok", "r", exit_code=0), None) or "")
    assert hover_markdown(COMMAND, None, None) is None


def test_tail_lines_keeps_the_last_non_blank_lines() -> None:
    assert tail_lines("1\n\n2\n \t\n3\n4\n5\n6\n7\n") == "3\n4\n5\n6\n7"
    assert tail_lines("é" * 1000, chars=10) == "…" + "é" * 9


def test_result_diagnostics_only_for_failed_commands_and_blocks() -> None:
    pairs = [
        (COMMAND, TargetResult("failed", "r1", exit_code=2, stderr_tail="warn\nerror: é😀 boom\n")),
        (COMMAND, TargetResult("ok", "r2", exit_code=0)),
        (COMMAND, TargetResult("cancelled", "r3")),
        (SCRIPT, TargetResult("failed", "r4", counts=(0, 1))),
        (COMMAND, TargetResult("timeout", "r5", duration_s=30)),
        (FILE_BLOCK, TargetResult("failed", "r6", summary="File 'a.py' exists")),
    ]
    found = result_diagnostics(pairs)
    assert [(d.message, d.data) for d in found] == [
        ("Failed with exit code 2: make\nwarn\nerror: é😀 boom", {"run_id": "r1"}),
        ("Timed out after 30 s: make", {"run_id": "r5"}),
        ("File 'a.py' exists", {"run_id": "r6"}),
    ]
    assert all(d.severity == Severity.INFORMATION and d.code == RESULT_CODE for d in found)
    assert found[0].span == Span(2, 0, 2, 4)
