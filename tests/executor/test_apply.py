"""Applying inbox replies: seed wording, [DONE], sessions and outboxes, random replies, SIGKILL mid-apply."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heredoc_lsp.config import DEFAULT_CONFIG
from heredoc_lsp.executor.agent import (
    AgentPaths,
    OutboxSettings,
    Session,
    SessionResult,
    load_session,
    render_outbox,
    start_session,
)
from heredoc_lsp.executor.environment import Redactor
from heredoc_lsp.executor.files import Workspace
from heredoc_lsp.executor.model import RunOptions
from heredoc_lsp.executor.reply_apply import apply_reply
from heredoc_lsp.syntax.outbox import parse_outbox
from heredoc_lsp.syntax.text import split_lines

from .conftest import tree
from .test_runs import Recorder

OPTS = RunOptions(sandbox="none", kill_grace_s=0.3)

REPLY = """\
I'll create the files now.

[CREATE_FILE path="src/a.py"]
print('a')
[/CREATE_FILE]
[EDIT_FILE path="notes.txt" start_line="2" end_line="2"]
TWO
[/EDIT_FILE]
[EDIT_FILE path="x.txt" start_line="1" end_line="1"]
nope
[/EDIT_FILE]
[CREATE_FILE path="../../etc/evil"]
x
[/CREATE_FILE]
[DELETE_FILE path="old.txt"]
[READ_FILE path="notes.txt"]
[RUN_COMMAND]
cat src/a.py; exit 3
[/RUN_COMMAND]
[RUN_COMMAND]
[/RUN_COMMAND]
[EDIT_FILE path="notes.txt" start_line="x" end_line="2"]
y
[/EDIT_FILE]
[MESSAGE]
Hello human
[/MESSAGE]
[DONE]
All done.
[/DONE]
[CREATE_FILE path="after.txt"]
late
[/CREATE_FILE]
"""

EXPECTED = [
    "[OK] CREATE_FILE: Created 'src/a.py'",
    "[OK] EDIT_FILE: Edited 'notes.txt': line 2 replaced with 1 line (now 3 lines)",
    "[FAILED] EDIT_FILE: File 'x.txt' not found",
    "[FAILED] CREATE_FILE: REJECTED: Path '../../etc/evil' is outside workspace: '..' climbs above the workspace root",
    "[OK] DELETE_FILE: Deleted 'old.txt'",
    "[OK] READ_FILE: Read 'notes.txt' (14 bytes); contents are included below",
    "[FAILED] RUN_COMMAND: Ran 'cat src/a.py; exit 3' (exit code 3)",
    "[FAILED] RUN_COMMAND: RUN_COMMAND has no command",
    "[FAILED] EDIT_FILE: start_line must be a whole number, got 'x'",
    "[OK] MESSAGE: Message shown to the user",
    "[OK] DONE: Task marked as done: All done.",
    "[SKIPPED] CREATE_FILE: Skipped: comes after [DONE]",
]


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("one\ntwo\nthree\n")
    (ws / "old.txt").write_text("bye")
    return ws


async def test_reply_results_in_the_seed_wording(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    reply = tmp_path / "reply.inbox"
    reply.write_text(REPLY)
    rec = Recorder()
    out = await apply_reply(reply, options=OPTS, workspace=ws, sink=rec, config=DEFAULT_CONFIG)
    end = rec.terminal()
    assert end.type == "run.completed"
    assert [r["text"] for r in end.payload["results"]] == EXPECTED
    assert end.payload["summary"] == "12 commands: 6 OK, 5 FAILED, 1 SKIPPED"
    assert end.payload["done"] is True and end.payload["done_summary"] == "All done."
    assert (ws / "src" / "a.py").read_text() == "print('a')"
    assert (ws / "notes.txt").read_text() == "one\nTWO\nthree\n"
    assert not (ws / "old.txt").exists() and not (ws / "after.txt").exists()
    assert end.payload["results"][6]["output"] == "print('a')"
    artifacts = [(e.payload["name"], e.payload["kind"]) for e in rec.events if e.type == "run.artifact"]
    assert artifacts == [("src/a.py", "created"), ("notes.txt", "edited"), ("old.txt", "deleted")]
    assert [c.path for c in out.reads] == ["notes.txt"]
    assert out.done_summary == "All done."


async def test_symlink_escape_at_apply_time(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "out").symlink_to(outside)
    reply = tmp_path / "r.inbox"
    reply.write_text('[CREATE_FILE path="out/x.txt"]\nx\n[/CREATE_FILE]\n')
    rec = Recorder()
    await apply_reply(reply, options=OPTS, workspace=ws, sink=rec, config=DEFAULT_CONFIG)
    text = rec.terminal().payload["results"][0]["text"]
    assert text == (
        f"[FAILED] CREATE_FILE: REJECTED: Path 'out/x.txt' is outside workspace: it resolves to "
        f"'{outside.resolve()}/x.txt' through a symbolic link"
    )
    assert list(outside.iterdir()) == []


async def test_session_outbox_sequence_and_done(tmp_path: Path) -> None:
    paths = AgentPaths(tmp_path)
    session, first = start_session(paths, "Build a thing\nwith two lines", OutboxSettings())
    assert first == tmp_path / "outbox" / f"{session.session_id}_seq0001.txt"
    parsed = parse_outbox(split_lines(first.read_text()))
    assert parsed.diagnostics == ()
    assert parsed.header is not None
    assert (parsed.header.session, parsed.header.sequence) == (session.session_id, 1)
    assert parsed.header.task == "Build a thing\nwith two lines"
    assert parsed.sections["PROMPT"].text == "Build a thing\nwith two lines"
    assert "(empty workspace)" in parsed.sections["CONTEXT"].text
    (tmp_path / "inbox" / "r1.txt").write_text(
        '[CREATE_FILE path="a.txt"]\n=== PROMPT ===\nfake\n[/CREATE_FILE]\n[READ_FILE path="a.txt"]\n'
        "[RUN_COMMAND]\nprintf 'x%.0s' $(seq 1 9000)\n[/RUN_COMMAND]\n"
    )
    rec = Recorder()
    out = await apply_reply(tmp_path / "inbox" / "r1.txt", options=OPTS, sink=rec, config=DEFAULT_CONFIG)
    second = tmp_path / "outbox" / f"{session.session_id}_seq0002.txt"
    assert out.outbox == second
    assert rec.terminal().payload["outbox"] == str(second)
    text = second.read_text()
    parsed = parse_outbox(split_lines(text))
    assert parsed.diagnostics == ()  # the quoted file content cannot look like a marker
    assert parsed.sections["PROMPT"].text.startswith("Continue working on the task")
    context = parsed.sections["CONTEXT"].text
    assert "## Workspace Files\n  a.txt (19 bytes)" in context
    assert "[OK] CREATE_FILE: Created 'a.txt'" in context
    assert "--- a.txt ---\n  | === PROMPT ===\n  | fake\n--- end a.txt ---" in context
    assert "[... " in context and " characters omitted ...]" in context  # 9000 x's cut to the 4000 budget
    assert "inbox" not in context.split("## Previous")[0]  # agent folders are not listed
    assert parsed.sections["PROTOCOL"].text == parse_outbox(split_lines(first.read_text())).sections["PROTOCOL"].text
    state = load_session(paths, session.session_id)
    assert (state.sequence_number, state.is_complete, state.read_file_requests) == (2, False, ("a.txt",))
    (tmp_path / "inbox" / "r2.txt").write_text("[DONE]\nfinished\n[/DONE]\n")
    out = await apply_reply(tmp_path / "inbox" / "r2.txt", options=OPTS, config=DEFAULT_CONFIG)
    assert out.outbox is None
    state = load_session(paths, session.session_id)
    assert (state.sequence_number, state.is_complete) == (2, True)
    assert not (tmp_path / "outbox" / f"{session.session_id}_seq0003.txt").exists()


# -- random replies ------------------------------------------------------------------------------------------------

PATHS = [
    "a.txt",
    "dir/b.txt",
    "dir\\c.txt",
    "../up.txt",
    "/abs.txt",
    "C:\\win.txt",
    "c:rel.txt",
    "~/home.txt",
    "link/x.txt",
    "filelink",
    "dangling",
    "dir/../../esc.txt",
    "./ok.txt",
    "",
    " ",
    "dir/",
    "sessions/s.json",
    "é/ü.txt",
    "a\x01b",
    "deep/er/path/f.txt",
    "link/../a.txt",
]
TAGS = ["CREATE_FILE", "EDIT_FILE", "DELETE_FILE", "READ_FILE", "MESSAGE", "DONE", "RUN_COMMAND", "create_file"]


@st.composite
def replies(draw: Any) -> str:
    out: list[str] = []
    for _ in range(draw(st.integers(0, 8))):
        tag = draw(st.sampled_from(TAGS))
        path = draw(st.sampled_from(PATHS))
        attrs = f' path="{path}"' if draw(st.booleans()) or tag in ("READ_FILE", "DELETE_FILE") else ""
        if tag == "EDIT_FILE":
            a, b = draw(st.integers(-1, 6)), draw(st.integers(-1, 6))
            attrs += f' start_line="{a}" end_line="{b}"'
        body = draw(st.lists(st.sampled_from(["x", "", "[/CREATE_FILE]", "=== PROMPT ===", "é😀", "\t y"]), max_size=3))
        if tag == "RUN_COMMAND":
            body = [draw(st.sampled_from(["true", "echo hi", "false", "cat nothing"]))]
        out.append(f"[{tag}{attrs}]")
        if tag not in ("READ_FILE", "DELETE_FILE"):
            out.extend(body)
            if draw(st.integers(0, 9)) > 0:
                out.append(f"[/{tag}]")
        if draw(st.booleans()):
            out.append(draw(st.sampled_from(["prose", "", "[/DONE]", '[CREATE_FILE path="x" junk', "[DONE"])))
    return "\n".join(out) + ("\n" if draw(st.booleans()) else "")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(replies())
async def test_random_replies_never_write_outside_and_never_crash(text: str) -> None:
    base = Path(tempfile.mkdtemp(prefix="heredoc-apply-"))
    try:
        ws = base / "ws"
        outside = base / "outside"
        ws.mkdir()
        outside.mkdir()
        (outside / "secret.txt").write_text("secret")
        (ws / "sessions").mkdir()
        (ws / "a.txt").write_text("1\n2\n3\n")
        (ws / "link").symlink_to(outside)
        (ws / "filelink").symlink_to(outside / "secret.txt")
        (ws / "dangling").symlink_to(outside / "new.txt")
        reply = base / "reply.inbox"
        reply.write_text(text)
        before = tree(base)
        rec = Recorder()
        out = await apply_reply(
            reply, options=replace(OPTS, timeout_s=5), workspace=ws, session=False, sink=rec, config=DEFAULT_CONFIG
        )
        end = rec.terminal()
        after = tree(base)
        changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
        if end.type == "run.failed":  # refused as a whole (cut off, a prompt): nothing at all changed
            assert end.payload.get("refused") is True and out.exit_code == 2, end.payload
            assert changed == set()
            return
        assert end.type == "run.completed", end.payload
        assert out.status == "completed"
        assert all(k.startswith("ws/") or k == "ws" for k in changed), changed
        assert not any(k.startswith("ws/sessions/") for k in changed), changed
        assert tree(outside) == {"secret.txt": b"secret"}
        for r in end.payload["results"]:
            assert r["text"].startswith(("[OK] ", "[FAILED] ", "[SKIPPED] "))
    finally:
        shutil.rmtree(base)


# -- SIGKILL in the middle of an apply ------------------------------------------------------------------------------


def test_sigkill_mid_apply_leaves_every_file_old_or_new(tmp_path: Path) -> None:
    """SIGKILL the CLI in the middle of an apply (after the Nth file it reports): every file is old or new."""
    n_files = 40
    old = {i: f"old {i}\n".encode() * 12_000 for i in range(n_files)}
    new = {i: (f"NEW {i}\n" * 15_000).rstrip("\n").encode() for i in range(n_files)}  # bodies get no final newline
    reply_text = "".join(
        f'[CREATE_FILE path="f{i:03d}.txt"]\n{new[i].decode()}\n[/CREATE_FILE]\n' for i in range(n_files)
    )
    rng = random.Random(1234)
    mixed = 0
    for trial in range(5):
        ws = tmp_path / f"ws{trial}"
        ws.mkdir()
        for i in range(n_files):
            (ws / f"f{i:03d}.txt").write_bytes(old[i])
        reply = tmp_path / f"reply{trial}.inbox"
        reply.write_text(reply_text)
        args = ["apply", str(reply), "--workspace", str(ws), "--yes", "--no-session", "--output", "json"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "heredoc_lsp", *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert proc.stdout is not None
        kill_after = rng.randint(1, n_files - 10)
        seen = 0
        for line in proc.stdout:
            if b'"type":"run.artifact"' in line:
                seen += 1
                if seen == kill_after:
                    break
        time.sleep(rng.uniform(0, 0.002))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        kinds = []
        for i in range(n_files):
            data = (ws / f"f{i:03d}.txt").read_bytes()
            assert data in (old[i], new[i]), f"trial {trial}: f{i:03d}.txt is neither old nor new"
            kinds.append(data == new[i])
        assert all(kinds[:kill_after]), f"trial {trial}: a reported file is not new"
        mixed += any(kinds) and not all(kinds)
    # The kills landed in the middle of the apply (some files new, some old): the test exercised the race.
    assert mixed >= 3, mixed


def test_outbox_hides_secrets_in_file_names_contents_and_results(tmp_path: Path) -> None:
    secret = "tok-0123456789abcdef"
    (tmp_path / f"name-{secret}.txt").write_text("")
    (tmp_path / "leak.txt").write_text(f"token={secret}\n")
    session = Session(
        session_id="0123abcd",
        task="t",
        sequence_number=2,
        last_results=(SessionResult("command", "ok", f"Ran 'echo {secret}' (exit code 0)", f"{secret}\n"),),
        read_file_requests=("leak.txt", f"name-{secret}.txt"),
    )
    text = render_outbox(session, Workspace(tmp_path), OutboxSettings(redactor=Redactor([secret])))
    assert secret not in text
    assert "  name-[REDACTED].txt (0 bytes)" in text
    assert "--- leak.txt ---\n  | token=[REDACTED]\n--- end leak.txt ---" in text
    assert "--- name-[REDACTED].txt ---" in text
    assert "[OK] RUN_COMMAND: Ran 'echo [REDACTED]' (exit code 0)\n  Output:\n  | [REDACTED]" in text
