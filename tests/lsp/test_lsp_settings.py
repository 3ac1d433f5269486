"""Settings from initializationOptions and workspace/configuration, the watched heredoc-lsp.toml, a broken config,
and the diagnostic modes; each with a server of its own, for every client profile."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_harness import PROFILES, RecordingClient, capabilities_for, session
from lsprotocol import types

PROFILE_NAMES = list(PROFILES)
SCRIPT = "tool x é😀 <<EOF\n---B---\nb é😀\nEOF\n"
SCHEMA = {"commands": {"tool x": {"params": ["A"], "required": ["A"]}}}
TOML = '[commands."tool x"]\nparams = ["A", "B"]\nrequired = ["B"]\n'


async def codes(client: RecordingClient, uri: str) -> list[str]:
    return sorted(d.code for d in await client.diagnostics_of(uri))


def watched(client: RecordingClient, path: Path, change: types.FileChangeType) -> None:
    """Tell the server a watched file changed, as an editor's file watcher does."""
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=path.as_uri(), type=change)])
    )


async def recheck(client: RecordingClient, uri: str, before: int) -> list[str]:
    """The diagnostics after a configuration change (a new push, or the next pull)."""
    if client.pulls:
        return await codes(client, uri)
    return sorted(d.code for d in await client.wait_publish(uri, None, after=before))


@pytest.mark.parametrize("profile", PROFILE_NAMES)
async def test_initialization_options(tmp_path: Path, profile: str) -> None:
    async with session(profile, tmp_path, init_options={"heredocLsp": SCHEMA}) as client:
        uri = client.open(SCRIPT)
        assert await codes(client, uri) == ["missing", "unknown"]


@pytest.mark.parametrize("profile", PROFILE_NAMES)
async def test_workspace_configuration_applies_from_the_first_check(tmp_path: Path, profile: str) -> None:
    async with session(profile, tmp_path, settings={"heredocLsp": SCHEMA}) as client:
        uri = client.open(SCRIPT)
        assert await codes(client, uri) == ["missing", "unknown"]
        if not client.pulls:
            # Checked once, with the client's settings: no first publish made with the defaults.
            assert [p.version for p in client.publishes if p.uri == uri] == [1]


@pytest.mark.parametrize("profile", PROFILE_NAMES)
async def test_did_change_configuration_rechecks(tmp_path: Path, profile: str) -> None:
    async with session(profile, tmp_path) as client:
        uri = client.open(SCRIPT)
        assert await codes(client, uri) == []
        before = len(client.publishes)
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"heredocLsp": SCHEMA}))
        assert await recheck(client, uri, before) == ["missing", "unknown"]


@pytest.mark.parametrize("profile", PROFILE_NAMES)
async def test_editing_the_config_file_rechecks(tmp_path: Path, profile: str) -> None:
    async with session(profile, tmp_path) as client:
        uri = client.open(SCRIPT)
        assert await codes(client, uri) == []
        before = len(client.publishes)
        config = tmp_path / "heredoc-lsp.toml"
        config.write_text(TOML, encoding="utf-8")
        watched(client, config, types.FileChangeType.Created)
        assert await recheck(client, uri, before) == []  # B allowed now, and present
        before = len(client.publishes)
        config.write_text(TOML.replace('required = ["B"]', 'required = ["A", "B"]'), encoding="utf-8")
        watched(client, config, types.FileChangeType.Changed)
        assert await recheck(client, uri, before) == ["missing"]
        caps = capabilities_for(profile)
        dynamic = bool(
            caps.workspace
            and caps.workspace.did_change_watched_files
            and caps.workspace.did_change_watched_files.dynamic_registration
        )

        if dynamic:
            await client.wait_for(
                lambda: any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations), 8.0
            )
        else:
            assert client.registrations == []  # Neovim 0.10/0.11 cannot: the stat poll covers them


@pytest.mark.parametrize("profile", PROFILE_NAMES)
async def test_config_file_changes_are_noticed_without_notifications(tmp_path: Path, profile: str) -> None:
    async with session(profile, tmp_path) as client:
        uri = client.open(SCRIPT)
        assert await codes(client, uri) == []
        (tmp_path / "heredoc-lsp.toml").write_text('[commands."tool x"]\nparams = ["A"]\nrequired = ["A"]\n')

        await client.wait_for_value(
            lambda: client.shown_diagnostics(uri),
            lambda found: sorted(d.code for d in found) == ["missing", "unknown"],
            8.0,
        )


@pytest.mark.parametrize("profile", PROFILE_NAMES)
async def test_broken_config_is_reported_on_the_file(tmp_path: Path, profile: str) -> None:
    config = tmp_path / "heredoc-lsp.toml"
    config.write_text('[executor]\ntimeout_s = "soon"\n', encoding="utf-8")
    async with session(profile, tmp_path) as client:
        uri = client.open(SCRIPT)
        assert await codes(client, uri) == []  # the defaults apply
        problems = await client.wait_publish(config.as_uri(), None)
        assert [(d.code, d.range.start.line) for d in problems] == [("config_error", 1)]
        assert "timeout_s" in problems[0].message
        assert any("using the defaults" in m.message for m in client.log_messages)
        before = len(client.publishes)
        config.write_text("[executor]\ntimeout_s = 5\n", encoding="utf-8")
        watched(client, config, types.FileChangeType.Changed)
        assert await client.wait_publish(config.as_uri(), None, after=before) == []


@pytest.mark.parametrize("profile", PROFILE_NAMES)
@pytest.mark.parametrize("mode", ["auto", "push", "both"])
async def test_diagnostic_modes(tmp_path: Path, profile: str, mode: str) -> None:
    caps = capabilities_for(profile)
    client_pulls = caps.text_document is not None and caps.text_document.diagnostic is not None
    async with session(profile, tmp_path, init_options={"diagnosticMode": mode}) as client:
        offers_pull = client.pulls
        assert offers_pull == (client_pulls and mode != "push")
        uri = client.open("é😀 <<EOF\n")
        if offers_pull:
            assert await codes(client, uri) == ["unclosed_heredoc"]
        pushes = mode in ("push", "both") or not client_pulls
        if pushes:
            assert [d.code for d in await client.wait_publish(uri, 1)] == ["unclosed_heredoc"]
        else:
            await client.actions(uri, 0)
            assert [p for p in client.publishes if p.uri == uri] == []


@pytest.mark.parametrize("profile", PROFILE_NAMES)
async def test_invalid_settings_are_logged_not_fatal(tmp_path: Path, profile: str) -> None:
    options = {"heredocLsp": {"executor": {"timeoutS": "never"}, "diagnosticMode": "sometimes"}}
    async with session(profile, tmp_path, init_options=options) as client:
        uri = client.open("é😀 <<EOF\n")
        assert await codes(client, uri) == ["unclosed_heredoc"]
        messages = [m.message for m in client.log_messages]
        assert any("diagnosticMode" in m for m in messages), messages
        assert any("timeoutS" in m or "timeout" in m for m in messages), messages
        assert client.messages == []  # never a pop-up


@pytest.mark.parametrize("profile", PROFILE_NAMES)
async def test_open_config_file_is_checked_as_typed(tmp_path: Path, profile: str) -> None:
    async with session(profile, tmp_path) as client:
        uri = client.open('[executor]\ntimeout_s = "é😀"\n', language_id="toml", name="heredoc-lsp.toml")
        problems = await client.diagnostics_of(uri)
        assert [(d.code, d.range.start.line) for d in problems] == [("config_error", 1)]
        client.replace(uri, (1, 0), (2, 0), "timeout_s = 5\n")
        assert await client.diagnostics_of(uri) == []


@pytest.mark.parametrize("profile", PROFILE_NAMES)
async def test_loosening_workspace_config_is_warned_and_ignored(workspace: Path, profile: str) -> None:
    """docs/configuration.md: a workspace file may not loosen a safety setting; the warning sits on the key, in the
    watched file and in the open config document. The editor's settings (user level) may loosen it. (No user config:
    the test's own config home is empty, tests/conftest.py.)"""
    text = '[executor]\ntimeout_s = 5\nsandbox = "none"\nenv = ["GITHUB_TOKEN"]\n'
    config = workspace / "heredoc-lsp.toml"
    config.write_text(text, encoding="utf-8")
    async with session(profile, workspace) as client:
        assert await codes(client, client.open(SCRIPT)) == []  # analysed with the workspace config
        published = await client.wait_publish(config.as_uri(), None)
        found = [(d.code, d.range.start.line, d.range.start.character) for d in published]
        assert found == [("ignored_setting", 2, 0), ("ignored_setting", 3, 0)]
        assert all(d.severity == types.DiagnosticSeverity.Warning for d in published)
        uri = client.open(text, language_id="toml", name="heredoc-lsp.toml")
        assert [d.code for d in await client.diagnostics_of(uri)] == ["ignored_setting", "ignored_setting"]
    trusting = {"executor": {"sandbox": "none", "env": ["GITHUB_TOKEN"]}}
    async with session(profile, workspace, init_options={"heredocLsp": trusting}) as client:
        uri = client.open(text, language_id="toml", name="heredoc-lsp.toml")
        assert await client.diagnostics_of(uri) == []


async def test_a_config_nested_3000_deep_is_a_config_error_and_scripts_are_still_checked(tmp_path: Path) -> None:
    config = tmp_path / "heredoc-lsp.toml"
    config.write_text("x = " + "[" * 3000 + "]" * 3000 + "\n", encoding="utf-8")
    async with session(PROFILE_NAMES[0], tmp_path) as client:
        uri = client.open("cat <<EOF\nno end\n")
        assert await codes(client, uri) == ["unclosed_heredoc"]
        problems = await client.wait_publish(config.as_uri(), None)
        assert [d.code for d in problems] == ["config_error"]
        assert "nested deeper than 100 levels" in problems[0].message
