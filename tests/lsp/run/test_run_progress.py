"""Progress and cancellation: work-done progress per run, cancel from the progress UI or the lens, the process tree
gone afterwards, several runs at once, timeouts."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from tests.executor.conftest import processes_with, unique_sleep

from lsp.lsp_harness import RUN, RecordingClient, command, server_process, session

pytestmark = pytest.mark.asyncio(loop_scope="module")

ASK_ALWAYS = "Run and don't ask again for this file"
TIMEOUT_S = 5  # short enough for the timeout test, long enough that no load lets a run a test cancels time out first


@pytest.fixture(scope="module")
def module_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ws")
    (root / "heredoc-lsp.toml").write_text(f"[executor]\ntimeout_s = {TIMEOUT_S}\n", encoding="utf-8")
    return root


async def start(client: RecordingClient, command: types.Command | None) -> tuple[asyncio.Task[Any], str]:
    """Execute ``command`` in the background; return the task and the run's progress token once it began."""
    before = set(client.progress_reports)
    task = asyncio.ensure_future(client.execute(command, timeout=60))

    def begun() -> str | None:
        for token, reports in client.progress_reports.items():
            if token not in before and reports and isinstance(reports[0], types.WorkDoneProgressBegin):
                return str(token)
        return None

    token = await client.wait_for(begun)
    return task, token


async def test_progress_then_cancel_from_the_progress_ui_kills_the_tree(client: RecordingClient) -> None:
    m = unique_sleep()
    uri = client.open_file(f"# long\nsh -c 'sleep {m} & sleep {m}; echo never'\n")
    client.answers.append(ASK_ALWAYS)
    task, token = await start(client, (await client.lens(uri, 1, RUN)).command)
    await client.wait_for(lambda: len(processes_with(f"sleep {m}")) >= 2)
    begin = client.progress_reports[token][0]
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == f"Run 'sh -c 'sleep {m} & sleep {m}; echo never''"
    assert begin.cancellable is True
    # While it runs: the lens offers Cancel, the elapsed time is reported.
    titles = await client.lens_titles(uri)
    running = [t for line, t in titles if line == 1]
    assert len(running) == 1 and re.fullmatch(r"⏳ running \d+(\.\d+)? s · ■ Cancel", running[0]), titles
    await client.wait_for(
        lambda: any(
            isinstance(r, types.WorkDoneProgressReport) and re.search(r" · 1\.\d s$", r.message or "")
            for r in client.progress_reports[token]
        ),
        timeout=10,
    )
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await task
    assert result["status"] == "cancelled"
    assert [r["status"] for r in result["results"]] == ["cancelled"]
    assert processes_with(f"sleep {m}") == []
    end = client.progress_reports[token][-1]
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert end.message == "■ cancelled: cancelled from the editor"
    titles = await client.lens_titles(uri)
    on_command = [t for line, t in titles if line == 1]
    assert on_command[0] == RUN
    assert re.fullmatch(r"■ cancelled · \d+(\.\d+)? s", on_command[1]), titles


async def test_cancel_lens_and_several_runs_at_once(client: RecordingClient) -> None:
    m1, m2 = unique_sleep(), unique_sleep()
    first = client.open_file(f"sleep {m1}\n")
    second = client.open_file(f"sleep {m2}\n")
    client.answers += [ASK_ALWAYS, ASK_ALWAYS]
    task1, token1 = await start(client, (await client.lens(first, 0, RUN)).command)
    task2, token2 = await start(client, (await client.lens(second, 0, RUN)).command)
    assert token1 != token2
    await client.wait_for(lambda: processes_with(f"sleep {m1}") and processes_with(f"sleep {m2}"))
    # The running lens of the first document cancels only that run.
    cancel = next(lens for lens in await client.lenses(first) if lens.command and "■ Cancel" in lens.command.title)
    assert cancel.command is not None and cancel.command.command == "heredoc-lsp.cancelRun"
    answer = await client.execute(cancel.command)
    assert answer["status"] == "cancelling"
    assert (await task1)["status"] == "cancelled"
    assert processes_with(f"sleep {m1}") == []
    assert processes_with(f"sleep {m2}") and not task2.done()
    assert not isinstance(client.progress_reports[token2][-1], types.WorkDoneProgressEnd)
    # Cancelling every run of a document by its URI.
    assert (await client.execute(command("cancelRun", uri=second)))["status"] == "cancelling"
    assert (await task2)["status"] == "cancelled"
    assert processes_with(f"sleep {m2}") == []


async def test_same_target_twice_is_refused_while_running(client: RecordingClient) -> None:
    m = unique_sleep()
    uri = client.open_file(f"sleep {m}\n")
    client.answers.append(ASK_ALWAYS)
    lens = await client.lens(uri, 0, RUN)
    task, _token = await start(client, lens.command)
    again = await client.execute(lens.command)
    assert again == {"status": "refused", "message": f"heredoc-lsp: 'sleep {m}' is already running; cancel it first"}
    await client.execute(command("cancelRun", uri=uri))
    assert (await task)["status"] == "cancelled"


async def test_timeout_ends_the_run_and_says_so(client: RecordingClient) -> None:
    m = unique_sleep()
    uri = client.open_file(f"sleep {m}\n")
    client.answers.append(ASK_ALWAYS)
    task, token = await start(client, (await client.lens(uri, 0, RUN)).command)
    result = await task
    assert result["status"] == "failed"
    assert [(r["status"], r["summary"]) for r in result["results"]] == [
        ("timeout", f"Command timed out ({TIMEOUT_S}s): sleep {m}")
    ]
    assert processes_with(f"sleep {m}") == []
    titles = [t for _line, t in await client.lens_titles(uri)]
    assert titles[:2] == ["▶ Run script", RUN]
    assert re.fullmatch(r"⏱ timed out · \d+(\.\d+)? s", titles[2]), titles
    end = client.progress_reports[token][-1]
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert end.message == f"✗ line 1: sleep {m} (timed out)"


async def test_cancelling_the_request_cancels_the_run(client: RecordingClient) -> None:
    m = unique_sleep()
    uri = client.open_file(f"sleep {m}\n")
    client.answers.append(ASK_ALWAYS)
    lens = await client.lens(uri, 0, RUN)
    assert lens.command is not None
    request_id = f"run-request-{m}"
    params = types.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
    pending = asyncio.ensure_future(
        client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND, params, msg_id=request_id)
    )
    await client.wait_for(lambda: processes_with(f"sleep {m}"))
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request_id))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(pending, 20)
    await client.wait_for(lambda: not processes_with(f"sleep {m}"))
    titles = await client.wait_for_value(
        lambda: client.lens_titles(uri), lambda found: any(t.startswith("■ cancelled") for _, t in found)
    )
    assert [t for _, t in titles][:2] == ["▶ Run script", RUN]


async def test_shutdown_ends_the_runs(tmp_path: Path) -> None:
    """The server kills its runs' trees before it exits (every other way it ends: test_run_server_end.py)."""
    m = unique_sleep()
    async with session("nvim-0.11", tmp_path, init_options={"executor": {"confirm": "never"}}) as other:
        uri = other.open_file(f"sleep {m}\n")
        task, _token = await start(other, (await other.lens(uri, 0, RUN)).command)
        await other.wait_for(lambda: processes_with(f"sleep {m}"))
        assert other.questions == []  # confirm = "never" from the initialization options
    # shutdown and exit were answered and the server process has exited (the session waited for it): no waiting.
    assert server_process(other).returncode == 0
    assert processes_with(f"sleep {m}") == []
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_an_unisolated_run_says_so_in_the_editor(tmp_path: Path) -> None:
    """docs/security.md: never silently unisolated. A user-level sandbox = "none" warns once and says so in the
    progress."""
    options = {"executor": {"confirm": "never", "sandbox": "none"}}
    async with session("vscode", tmp_path, init_options=options) as client:
        uri = client.open_file("true\n")
        for _ in range(2):
            result = await client.execute((await client.lens(uri, 0, RUN)).command)
            assert result["status"] == "completed", result
        warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
        assert len(warnings) == 1 and "/proc" in warnings[0] and "sandbox" in warnings[0], warnings
        reports = [getattr(r, "message", None) or "" for rs in client.progress_reports.values() for r in rs]
        assert sum("/proc" in r for r in reports) == 2, reports
