"""Entry points: the lens and code action lists, the command list, documents with errors, untrusted workspaces."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from heredoc_lsp.lsp.run.lenses import LAZY_LENSES
from lsp.lsp_harness import RecordingClient, command, session

pytestmark = pytest.mark.asyncio(loop_scope="module")

ALL_COMMANDS = [
    "heredoc-lsp.runCommand",
    "heredoc-lsp.runScript",
    "heredoc-lsp.applyReply",
    "heredoc-lsp.runBlock",
    "heredoc-lsp.cancelRun",
    "heredoc-lsp.showRunOutput",
    "heredoc-lsp.undoReply",
]
SCRIPT = "# build\necho one > one.txt\ncat > two.txt <<EOF\nbody\nEOF\n\necho é😀 > three.txt\n"
UNCLOSED = "echo ok\ncat <<EOF\nno end\n"
UNCLOSED_MESSAGE = "Unclosed heredoc starting at line 2: expected 'EOF' but reached end of file"
REPLY = (
    "I will create a file and run it.\n"
    '[CREATE_FILE path="a.txt"]\n'
    "hello\n"
    "[/CREATE_FILE]\n"
    "[RUN_COMMAND]\n"
    "cat a.txt\n"
    "[/RUN_COMMAND]\n"
    "[RUN_COMMAND]\n"
    "[/RUN_COMMAND]\n"
)


async def test_every_command_is_listed(client: RecordingClient) -> None:
    assert client.init_result is not None
    provider = client.init_result.capabilities.execute_command_provider
    assert provider is not None
    assert set(ALL_COMMANDS) <= set(provider.commands)
    # Resolving is for big scripts only (LAZY_LENSES); the lenses of the others come with their command.
    assert client.init_result.capabilities.code_lens_provider == types.CodeLensOptions(resolve_provider=True)


async def test_script_lenses(client: RecordingClient) -> None:
    uri = client.open_file(SCRIPT)
    lenses = await client.lenses(uri)
    got = [
        (lens.range.start.line, lens.command.title, lens.command.command, list(lens.command.arguments or []))
        for lens in lenses
        if lens.command is not None
    ]
    assert got == [
        (0, "▶ Run script", "heredoc-lsp.runScript", [{"uri": uri, "version": 1}]),
        (1, "▶ Run", "heredoc-lsp.runCommand", [{"uri": uri, "version": 1, "line": 1}]),
        (2, "▶ Run", "heredoc-lsp.runCommand", [{"uri": uri, "version": 1, "line": 2}]),
        (6, "▶ Run", "heredoc-lsp.runCommand", [{"uri": uri, "version": 1, "line": 6}]),
    ]
    # The lens covers the command text, in the negotiated position encoding.
    last = lenses[-1].range
    assert (last.start.character, last.end.line, last.end.character) == (0, 6, client.col("echo é😀 > three.txt", 19))


async def test_lenses_follow_the_version(client: RecordingClient) -> None:
    uri = client.open_file("echo a\n")
    version = client.replace_all(uri, "echo a\necho b\n")
    lenses = await client.lenses(uri)
    assert [lens.command.arguments for lens in lenses if lens.command] == [
        ({"uri": uri, "version": version},),
        ({"uri": uri, "version": version, "line": 0},),
        ({"uri": uri, "version": version, "line": 1},),
    ]


async def test_errors_say_why_instead_of_run(client: RecordingClient) -> None:
    uri = client.open_file(UNCLOSED)
    titles = [
        (lens.range.start.line, lens.command.title, lens.command.command)
        for lens in await client.lenses(uri)
        if lens.command
    ]
    # The script says why it cannot run; the command before the unclosed heredoc is whole and keeps its lens
    # (docs/running.md); the unclosed heredoc's own command has none.
    assert titles == [
        (0, f"⚠ The script has errors: line 2: {UNCLOSED_MESSAGE}", ""),
        (0, "▶ Run", "heredoc-lsp.runCommand"),
    ]
    assert [a.title for a in await client.actions(uri, 0)] == ["▶ Run 'echo ok'"]
    assert not [a.title for a in await client.actions(uri, 1) if a.title.startswith("▶")]
    result = await client.execute(command("runScript", uri=uri, version=1))
    assert result == {
        "status": "refused",
        "message": f"heredoc-lsp: nothing was run. The script has errors: line 2: {UNCLOSED_MESSAGE}",
    }
    assert client.messages[-1].type == types.MessageType.Warning
    assert client.messages[-1].message == result["message"]


async def test_possible_heredoc_blocks_the_run_unless_suppressed(client: RecordingClient) -> None:
    # docs/formats.md: the would-be body line `touch pwned` would run as a command.
    uri = client.open_file("echo ok\necho x<<END\ntouch pwned\nEND\n")
    titles = [(lens.range.start.line, lens.command.title) for lens in await client.lenses(uri) if lens.command]
    # The command before the warning is whole (docs/running.md); the lines the warning speaks for do not run alone.
    assert titles == [
        (
            0,
            "⚠ The script has a warning that blocks a run: line 2: '<<END' is not a heredoc opener (it needs a space "
            "before '<<'), so line 4 ('END') would run as a command: the script does not run while this warnin…",
        ),
        (0, "▶ Run"),
    ]
    result = await client.execute(command("runScript", uri=uri, version=1))
    assert result["status"] == "refused"
    assert "nothing was run" in result["message"]
    suppressed = client.open_file("echo ok\n# heredoc-lsp: disable=possible_heredoc\necho x<<END\nEND\n")
    assert "▶ Run script" in [lens.command.title for lens in await client.lenses(suppressed) if lens.command]


async def test_empty_script_offers_nothing(client: RecordingClient) -> None:
    uri = client.open_file("# only a comment\n\n")
    assert await client.lenses(uri) == []


async def test_code_actions_at_the_cursor(client: RecordingClient) -> None:
    uri = client.open_file(SCRIPT)
    name = uri.rsplit("/", 1)[-1]
    actions = await client.actions(uri, 3)  # inside the heredoc body of line 2
    assert [(a.title, a.kind, a.command.command if a.command else None) for a in actions] == [
        ("▶ Run 'cat > two.txt'", "heredoc.run", "heredoc-lsp.runCommand"),
        (f"▶ Run script {name} (3 commands)", "heredoc.run", "heredoc-lsp.runScript"),
    ]
    assert actions[0].command is not None
    assert list(actions[0].command.arguments or []) == [{"uri": uri, "version": 1, "line": 2}]
    # On a comment line only the whole script; when only quick fixes are asked for, nothing.
    assert [a.title for a in await client.actions(uri, 0)] == [f"▶ Run script {name} (3 commands)"]
    assert await client.actions(uri, 3, only=["quickfix"]) == []
    assert len(await client.actions(uri, 3, only=["heredoc.run"])) == 2


async def test_reply_lenses_and_actions(client: RecordingClient) -> None:
    uri = client.open_file(REPLY, suffix=".inbox", language_id="agent-inbox")
    got = [
        (lens.range.start.line, lens.command.title, lens.command.command, list(lens.command.arguments or []))
        for lens in await client.lenses(uri)
        if lens.command is not None
    ]
    assert got == [
        (0, "▶ Apply reply", "heredoc-lsp.applyReply", [{"uri": uri, "version": 1}]),
        (0, "Preview reply", "heredoc-lsp.previewReply", [{"uri": uri, "version": 1}]),
        (4, "▶ Run", "heredoc-lsp.runBlock", [{"uri": uri, "version": 1, "line": 4}]),
        (7, "⚠ This block has errors: line 8: RUN_COMMAND has no command", "", []),
    ]
    name = uri.rsplit("/", 1)[-1]
    assert [a.title for a in await client.actions(uri, 5)] == [
        "▶ Run 'cat a.txt'",
        f"▶ Apply reply {name} (3 commands)",
        f"Preview reply {name} (3 commands)",
    ]


async def test_outbox_has_no_lenses(client: RecordingClient) -> None:
    text = (
        "=== HEADER ===\nSession: 0123abcd\nSequence: 1\nTask: x\n"
        "=== PROTOCOL ===\n=== CONTEXT ===\n=== PROMPT ===\nx\n"
    )
    uri = client.open_file(text, suffix=".outbox", language_id="agent-outbox")
    assert await client.lenses(uri) == []


# Trust does not depend on the client's capabilities: one profile per way of saying it (each needs its own server).
@pytest.mark.parametrize(("how", "profile"), [("initializationOptions", "nvim-0.11"), ("settings", "vscode")])
async def test_untrusted_workspace_offers_and_runs_nothing(tmp_path: Path, profile: str, how: str) -> None:
    init = {"trusted": False} if how == "initializationOptions" else None
    settings = {"heredocLsp": {"trusted": False}} if how == "settings" else None
    async with session(profile, tmp_path, init_options=init, settings=settings) as client:
        uri = client.open_file("echo x > made.txt\n")
        if how == "settings":
            # The settings arrive through workspace/configuration after initialized.
            lenses = await client.wait_for_value(lambda: client.lenses(uri), lambda found: found == [])
        else:
            lenses = await client.lenses(uri)
        assert lenses == []
        assert await client.actions(uri, 0) == []
        result = await client.execute(command("runCommand", uri=uri, version=1, line=0))
        assert result["status"] == "refused"
        assert result["message"].startswith("heredoc-lsp: this workspace is not trusted")
        assert client.questions == []
        assert not (tmp_path / "made.txt").exists()


async def test_nothing_runs_on_open_edit_or_save(client: RecordingClient) -> None:
    target = client.root / f"never-{client.profile}.txt"
    uri = client.open_file(f"echo x > {target.name}\n")
    client.replace_all(uri, f"echo y > {target.name}\n")
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await client.lenses(uri)  # a round trip: the notifications before it were handled
    await asyncio.sleep(0.3)
    assert not target.exists()
    assert client.questions == [] or all("never-" not in q.message for q in client.questions)


async def test_many_lenses_are_resolved_when_shown(client: RecordingClient) -> None:
    """Above LAZY_LENSES run targets, lenses come without their command; codeLens/resolve adds it."""
    text = "".join(f"echo {i}\n" for i in range(LAZY_LENSES + 1))
    uri = client.open_file(text)
    lenses = await client.lenses(uri)
    assert len(lenses) == LAZY_LENSES + 2  # the script and every command
    assert lenses[0].command is not None and lenses[0].command.title == "▶ Run script"
    lazy = lenses[1 + 1234]
    assert lazy.command is None and lazy.range.start.line == 1234
    resolved = await client.code_lens_resolve_async(lazy)
    assert resolved.command is not None
    assert (resolved.command.title, resolved.command.command, list(resolved.command.arguments or [])) == (
        "▶ Run",
        "heredoc-lsp.runCommand",
        [{"uri": uri, "version": 1, "line": 1234}],
    )
    # A lens shown before an edit keeps the version it was made for: running it is refused as stale.
    client.replace_all(uri, "#" + text)
    resolved = await client.code_lens_resolve_async(lazy)
    assert resolved.command is not None
    assert list(resolved.command.arguments or []) == [{"uri": uri, "version": 1, "line": 1234}]
