"""Executing runs: confirmation, stale versions, results in lenses, hover, diagnostics and the log."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types

from lsp.lsp_harness import RUN, RecordingClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

ASK_RUN = "Run"
ASK_ALWAYS = "Run and don't ask again for this file"
ASK_CANCEL = "Cancel"
OK_TITLE = re.compile(r"✓ exit 0 · \d+(\.\d+)? s")


def unique(client: RecordingClient, stem: str) -> str:
    """A file name unique in the module's workspace (one server per profile shares it)."""
    return f"{stem}-{client.profile}-{len(client.questions)}-{len(client.progress_reports)}.txt"


async def test_a_command_runs_although_the_script_has_an_error_elsewhere(client: RecordingClient) -> None:
    target = unique(client, "whole")
    uri = client.open_file(f"echo whole > {target}\ncat <<EOF\nno end\n")
    result = await client.run_lens(uri, 0, RUN, ASK_RUN)
    assert result["status"] == "completed", result
    assert result["summary"] == "1 command: 1 OK"
    assert (client.root / target).read_text(encoding="utf-8") == "whole\n"
    titles = await client.lens_titles(uri)
    assert titles[1] == (0, "▶ Run") and OK_TITLE.fullmatch(titles[2][1]), titles


async def test_confirmed_run_creates_the_file(client: RecordingClient) -> None:
    target = unique(client, "made")
    uri = client.open_file(f"# make a file\necho hello > {target}\n")
    name = uri.rsplit("/", 1)[-1]
    asked = len(client.questions)
    result = await client.run_lens(uri, 1, RUN, ASK_RUN)
    assert result["status"] == "completed"
    assert result["summary"] == "1 command: 1 OK"
    (text,) = [r["text"] for r in result["results"]]  # a .cli line reports in its own words (not the reply's)
    assert re.fullmatch(rf"\[OK\] line 2: echo hello > {re.escape(target)} \(exit 0, \d+\.\d\d s\)", text), text
    assert (client.root / target).read_text(encoding="utf-8") == "hello\n"
    question = client.questions[asked]
    assert question.message == f"Run 'echo hello > {target}' from {name} in {client.root} (sandbox: auto)?"
    assert [a.title for a in question.actions or []] == [ASK_RUN, ASK_ALWAYS, ASK_CANCEL]
    # The result is where the user looks: the lens, the hover, the log.
    titles = await client.lens_titles(uri)
    assert titles[:2] == [(0, "▶ Run script"), (1, "▶ Run")]
    assert titles[2][0] == 1 and OK_TITLE.fullmatch(titles[2][1]), titles
    hover = await client.hover_text(uri, 1, 3)
    assert hover is not None
    assert hover.startswith("**Last run** ✓ exit 0 · ")
    assert f"Ran 'echo hello > {target}' (exit code 0)" in hover
    log = Path(result["log"])
    assert f"[Full output]({log.as_uri()})" in hover
    assert log.parent == client.root / ".heredoc-lsp" / "runs"
    text = log.read_text(encoding="utf-8")
    assert f"$ echo hello > {target}  (line 2)\n" in text
    assert re.search(rf"\[OK\] line 2: echo hello > {re.escape(target)} \(exit 0, \d+\.\d\d s\)", text), text
    assert (client.root / ".heredoc-lsp" / ".gitignore").read_text(encoding="utf-8").endswith("*\n")
    # Clients that can be asked to refresh their lenses are asked (VS Code); the others re-request them.
    assert client.capabilities is not None and client.capabilities.workspace is not None
    lens_caps = client.capabilities.workspace.code_lens
    assert (client.lens_refreshes > 0) == bool(lens_caps and lens_caps.refresh_support)


async def test_declined_or_dismissed_runs_nothing(client: RecordingClient) -> None:
    target = unique(client, "declined")
    uri = client.open_file(f"echo no > {target}\n")
    for answer in (ASK_CANCEL, None):
        client.answers.append(answer)
        result = await client.execute((await client.lens(uri, 0, RUN)).command)
        assert result == {"status": "declined", "message": "not run: the confirmation was declined"}
    assert not (client.root / target).exists()
    assert [title for _, title in await client.lens_titles(uri)] == ["▶ Run script", RUN]


async def test_dont_ask_again_for_this_file(client: RecordingClient) -> None:
    first, second = unique(client, "first"), unique(client, "second")
    uri = client.open_file(f"echo 1 > {first}\necho 2 > {second}\n")
    asked = len(client.questions)
    assert (await client.run_lens(uri, 0, RUN, ASK_ALWAYS))["status"] == "completed"
    assert (await client.execute((await client.lens(uri, 1, RUN)).command))["status"] == "completed"
    assert len(client.questions) == asked + 1
    assert (client.root / first).exists() and (client.root / second).exists()
    # Another document asks again.
    other = client.open_file("true\n")
    assert (await client.run_lens(other, 0, RUN, ASK_CANCEL))["status"] == "declined"
    assert len(client.questions) == asked + 2


async def test_stale_version_is_refused(client: RecordingClient) -> None:
    target = unique(client, "stale")
    uri = client.open_file(f"echo old > {target}\n")
    lens = await client.lens(uri, 0, RUN)
    client.replace_all(uri, f"echo new > {target}\n")
    asked = len(client.questions)
    result = await client.execute(lens.command)
    message = (
        "heredoc-lsp: the document changed since this was offered (version 1, now 2); nothing was run. "
        "Run it again from the updated lens or action."
    )
    assert result == {"status": "refused", "message": message}
    assert client.messages[-1] == types.ShowMessageParams(type=types.MessageType.Warning, message=message)
    assert len(client.questions) == asked  # refused before asking
    assert not (client.root / target).exists()


async def test_change_while_the_question_is_open_is_refused(client: RecordingClient) -> None:
    target = unique(client, "raced")
    uri = client.open_file(f"echo old > {target}\n")
    lens = await client.lens(uri, 0, RUN)

    original = client.answers

    class EditThenRun(list[str | None]):
        def pop(self, index: int = -1) -> str | None:  # type: ignore[override]
            client.replace_all(uri, f"echo edited > {target}\n")  # sent before the answer
            return ASK_RUN

        def __bool__(self) -> bool:
            return True

    client.answers = EditThenRun()
    try:
        result = await client.execute(lens.command)
    finally:
        client.answers = original
    assert result["status"] == "refused"
    assert "the document changed since this was offered (version 1, now 2)" in result["message"]
    assert not (client.root / target).exists()


async def test_missing_or_bad_arguments_are_refused(client: RecordingClient) -> None:
    uri = client.open_file("true\n")
    cases = [
        ([], 'heredoc-lsp.runCommand expects one argument {"uri": ..., "version": ..., "line": ...}'),
        (
            [{"uri": uri, "line": 0}],
            "heredoc-lsp: the run request names no document version; run it from a current lens",
        ),
        ([{"uri": uri, "version": 1, "line": 5}], "heredoc-lsp: no command starts at line 6"),
        ([{"uri": uri, "version": 1}], "heredoc-lsp.runCommand: 'line' must be a 0-based line number"),
        ([{"uri": uri + "x", "version": 1, "line": 0}], f"heredoc-lsp: {uri}x is not open in the editor"),
    ]
    for arguments, message in cases:
        result = await client.execute(types.Command(title="", command="heredoc-lsp.runCommand", arguments=arguments))
        assert result == {"status": "refused", "message": message}


async def test_failed_command_shows_exit_stderr_and_a_diagnostic(client: RecordingClient) -> None:
    warning_lines = "cd /tmp\n"  # a no_effect warning (it blocks no run): syntax diagnostics stay next to run ones
    uri = client.open_file("# fails\nsh -c 'echo out; echo oops >&2; exit 3'\n" + warning_lines)
    result = await client.run_lens(uri, 1, RUN, ASK_ALWAYS)
    assert result["status"] == "failed"
    titles = await client.lens_titles(uri)
    assert titles[2][0] == 1 and re.fullmatch(r"✗ exit 3 · \d+(\.\d+)? s", titles[2][1]), titles
    hover = await client.hover_text(uri, 1)
    assert hover is not None and "```text\nout\n[stderr]\noops\n```" in hover
    diags = await client.wait_for_value(lambda: client.run_diagnostics(uri), bool)
    assert [(d.code, d.severity, d.message, d.range.start.line) for d in diags] == [
        (
            "run_failed",
            types.DiagnosticSeverity.Information,
            "Failed with exit code 3: sh -c 'echo out; echo oops >&2; exit 3'\noops",
            1,
        )
    ]
    # One list per document, push or pull: the run diagnostics travel with the syntax ones.
    assert sorted(str(d.code) for d in await client.shown_diagnostics(uri)) == ["no_effect", "run_failed"]
    if client.pulls:
        assert client.last_push(uri) is None
    else:
        last = client.last_push(uri)
        assert last is not None and last.version == 1
    # Editing the comment keeps the result; editing the command clears it (lens, hover and diagnostic).
    client.replace_all(uri, "# fails, on purpose\nsh -c 'echo out; echo oops >&2; exit 3'\n" + warning_lines)
    assert re.fullmatch(r"✗ exit 3 · .*", (await client.lens_titles(uri))[2][1])
    client.replace_all(uri, "# fails, on purpose\nsh -c 'exit 4'\n" + warning_lines)
    assert [t for line, t in await client.lens_titles(uri) if line <= 1] == ["▶ Run script", RUN]
    hover = await client.hover_text(uri, 1)
    assert hover is None or "Last run" not in hover
    if not client.pulls:
        await client.wait_for(lambda: (p := client.last_push(uri)) is not None and p.version == 3)
    assert await client.run_diagnostics(uri) == []


async def test_script_run_stops_at_the_first_failure(client: RecordingClient) -> None:
    first, third = unique(client, "s1"), unique(client, "s3")
    uri = client.open_file(f"echo a > {first}\nfalse\necho c > {third}\n")
    result = await client.run_lens(uri, 0, "▶ Run script", ASK_ALWAYS)
    assert result["status"] == "failed"
    assert [r["status"] for r in result["results"]] == ["ok", "failed"]
    assert (client.root / first).exists() and not (client.root / third).exists()
    titles = await client.lens_titles(uri)
    assert titles[1][0] == 0 and titles[1][1].startswith("✗ 1 ok, 1 failed · ")
    assert [t for line, t in titles if line == 1][1].startswith("✗ exit 1 · ")
    assert [t for line, t in titles if line == 2] == [RUN]  # never ran: no result


async def test_show_run_output_opens_the_log(client: RecordingClient) -> None:
    uri = client.open_file("echo shown-in-log\n")
    result = await client.run_lens(uri, 0, RUN, ASK_RUN)
    lens = next(lens for lens in await client.lenses(uri) if lens.command and lens.command.title.startswith("✓"))
    assert lens.command is not None and lens.command.command == "heredoc-lsp.showRunOutput"
    shown = await client.execute(lens.command)
    log = Path(result["log"])
    assert shown == {"status": "shown", "log": str(log)}
    assert "shown-in-log\n" in log.read_text(encoding="utf-8")
    assert client.capabilities is not None and client.capabilities.window is not None
    if client.capabilities.window.show_document is not None and client.capabilities.window.show_document.support:
        assert client.shown_documents[-1].uri == log.as_uri()
    else:
        assert client.log_messages[-1].message == f"heredoc-lsp: open {log}"
