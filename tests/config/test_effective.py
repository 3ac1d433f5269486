"""The effective config (docs/configuration.md): a workspace file may only make the safety settings stricter; the user's
own config, the editor's settings and the command line's overrides may loosen them; other keys keep their precedence."""

from __future__ import annotations

from pathlib import Path

import pytest

from heredoc_lsp.config import (
    DEFAULT_CONFIG,
    SAFETY_KEYS,
    Config,
    ConfigError,
    ConfigResolver,
    Overrides,
    effective_config,
    load_user_config,
    parse_config_text,
    user_config_path,
)

WS = Path("/ws/heredoc-lsp.toml")


def workspace(text: str, name: Path = WS) -> Config:
    return parse_config_text(text, name)


def user(text: str) -> Config:
    return parse_config_text(text, Path("/home/u/.config/heredoc-lsp/config.toml"), pyproject=False)


LOOSENING = [
    ('[executor]\nsandbox = "none"\n', "executor.sandbox", "sandbox", "auto"),
    ("[executor]\nallow_network = true\n", "executor.allow_network", "allow_network", False),
    ('[executor]\nconfirm = "never"\n', "executor.confirm", "confirm", "always"),
    ("[executor]\ntimeout_s = 3600\n", "executor.timeout_s", "timeout_s", 30.0),
    ('[executor]\nenv = ["GITHUB_TOKEN"]\n', "executor.env", "env", ()),
]


@pytest.mark.parametrize(("text", "key", "field", "default"), LOOSENING, ids=[k for _, k, _, _ in LOOSENING])
def test_a_workspace_file_cannot_loosen_a_safety_setting(text: str, key: str, field: str, default: object) -> None:
    result = effective_config(workspace(text))
    assert getattr(result.config.executor, field) == default
    assert [(i.key, i.line, i.column, i.path) for i in result.ignored] == [(key, 2, 1, WS)]
    assert "warning[ignored_setting]" in result.ignored[0].format()
    assert "config.toml" in result.ignored[0].message  # says where the person may loosen it


def test_a_workspace_file_cannot_change_the_runner() -> None:
    result = effective_config(workspace('[script]\nrunner = ["/bin/bash", "-c", "{command}"]\n'))
    assert result.config.script_runner == DEFAULT_CONFIG.script_runner
    assert [(i.key, i.line) for i in result.ignored] == [("script.runner", 2)]
    # The same runner as the person's is not a change.
    same = effective_config(workspace('[script]\nrunner = ["/bin/sh", "-c", "{command}"]\n'))
    assert same.ignored == ()


def test_the_pyproject_table_is_held_to_the_same_rules() -> None:
    text = '[project]\nname = "x"\n\n[tool.heredoc-lsp.executor]\nsandbox = "none"\nconfirm = "never"\n'
    result = effective_config(workspace(text, Path("/ws/pyproject.toml")))
    assert (result.config.executor.sandbox, result.config.executor.confirm) == ("auto", "always")
    assert [(i.key, i.line) for i in result.ignored] == [("executor.sandbox", 5), ("executor.confirm", 6)]


def test_a_workspace_file_may_make_every_safety_setting_stricter() -> None:
    person = user(
        '[executor]\nsandbox = "none"\nallow_network = true\nconfirm = "never"\ntimeout_s = 100\nenv = ["A", "B"]\n'
    )
    text = '[executor]\nsandbox = "bwrap"\nallow_network = false\nconfirm = "always"\ntimeout_s = 5\nenv = ["B"]\n'
    result = effective_config(workspace(text), user=person)
    ex = result.config.executor
    assert (ex.sandbox, ex.allow_network, ex.confirm, ex.timeout_s, ex.env) == ("bwrap", False, "always", 5, ("B",))
    assert result.ignored == ()


@pytest.mark.parametrize(
    ("person", "wanted", "expected", "is_ignored"),
    [
        ("none", "auto", "auto", False),
        ("auto", "none", "auto", True),
        ("bwrap", "auto", "bwrap", True),
        ("bwrap", "none", "bwrap", True),
        ("auto", "bwrap", "bwrap", False),
    ],
)
def test_sandbox_order_none_auto_bwrap(person: str, wanted: str, expected: str, is_ignored: bool) -> None:
    result = effective_config(
        workspace(f'[executor]\nsandbox = "{wanted}"\n'), user=user(f'[executor]\nsandbox = "{person}"\n')
    )
    assert result.config.executor.sandbox == expected
    assert bool(result.ignored) is is_ignored


def test_env_is_cut_to_the_names_the_person_allows() -> None:
    person = user('[executor]\nenv = ["MY_VAR", "OTHER"]\n')
    result = effective_config(workspace('[executor]\nenv = ["GITHUB_TOKEN", "MY_VAR"]\n'), user=person)
    assert result.config.executor.env == ("MY_VAR",)
    assert [(i.key, i.line) for i in result.ignored] == [("executor.env", 2)]
    assert '"GITHUB_TOKEN"' in result.ignored[0].message and '"MY_VAR"' not in result.ignored[0].message.split(":")[1]
    # No env key in the workspace file: the person's list stands.
    assert effective_config(workspace("compat = 'none'\n"), user=person).config.executor.env == ("MY_VAR", "OTHER")


def test_the_user_config_loosens_and_the_workspace_does_not_undo_it_silently() -> None:
    person = user('[executor]\nsandbox = "none"\nconfirm = "never"\nenv = ["GITHUB_TOKEN"]\ntimeout_s = 600\n')
    result = effective_config(None, user=person)
    ex = result.config.executor
    assert (ex.sandbox, ex.confirm, ex.env, ex.timeout_s) == ("none", "never", ("GITHUB_TOKEN",), 600)
    assert result.config.source is None  # the user's file never decides where commands run
    assert result.ignored == ()


def test_editor_settings_count_as_the_persons_own() -> None:
    settings = {"executor": {"sandbox": "none", "confirm": "never", "env": ["TOKEN"]}}
    result = effective_config(workspace('[executor]\nsandbox = "none"\nenv = ["TOKEN"]\n'), settings=settings)
    ex = result.config.executor
    assert (ex.sandbox, ex.confirm, ex.env) == ("none", "never", ("TOKEN",))
    assert result.ignored == ()


def test_overrides_win_and_silence_the_warning_for_their_key() -> None:
    text = '[executor]\nsandbox = "none"\nenv = ["GITHUB_TOKEN"]\ntimeout_s = 999\nconfirm = "never"\n'
    overrides = Overrides(sandbox="none", env=("GITHUB_TOKEN",), timeout_s=1.5, confirm="never", allow_network=True)
    result = effective_config(workspace(text), overrides=overrides)
    ex = result.config.executor
    assert (ex.sandbox, ex.env, ex.timeout_s, ex.confirm, ex.allow_network) == (
        "none",
        ("GITHUB_TOKEN",),
        1.5,
        "never",
        True,
    )
    assert result.ignored == ()  # the person chose every one of them for this run
    partly = effective_config(workspace(text), overrides=Overrides(sandbox="none"))
    assert partly.config.executor.sandbox == "none"
    assert [i.key for i in partly.ignored] == ["executor.env", "executor.timeout_s", "executor.confirm"]


def test_other_keys_keep_their_precedence() -> None:
    person = user('compat = "arca-cli"\n[cli]\noutput = "json"\n[executor]\nmax_output_chars = 10\n')
    text = '[executor]\nmax_output_chars = 99\n[commands."tool x"]\nsingle_param = "M"\nterminator = "END"\n'
    result = effective_config(workspace(text), user=person, settings={"cli": {"output": "text"}})
    config = result.config
    assert config.compat == "arca-cli"  # the user's file, not written by the workspace
    assert config.cli_output == "text"  # editor settings over both files
    assert config.executor.max_output_chars == 99  # the workspace over the user's file
    assert list(config.commands) == ["tool x"]
    assert config.source == WS
    assert result.ignored == ()


def test_the_safety_keys_are_the_specs() -> None:
    assert set(SAFETY_KEYS) == {
        "executor.sandbox",
        "executor.allow_network",
        "executor.confirm",
        "executor.env",
        "executor.timeout_s",
        "script.runner",
    }


def test_user_config_path_follows_xdg() -> None:
    assert user_config_path({"XDG_CONFIG_HOME": "/x", "HOME": "/h"}) == Path("/x/heredoc-lsp/config.toml")
    assert user_config_path({"HOME": "/h"}) == Path("/h/.config/heredoc-lsp/config.toml")
    # A relative XDG_CONFIG_HOME is ignored (XDG base directory specification).
    assert user_config_path({"XDG_CONFIG_HOME": "rel", "HOME": "/h"}) == Path("/h/.config/heredoc-lsp/config.toml")


def test_load_user_config(tmp_path: Path) -> None:
    assert load_user_config(tmp_path / "missing.toml") is DEFAULT_CONFIG
    path = tmp_path / "config.toml"
    path.write_text('[executor]\nsandbox = "none"\n', encoding="utf-8")
    assert load_user_config(path).executor.sandbox == "none"
    path.write_text('[executor]\nsandbox = "off"\n', encoding="utf-8")
    with pytest.raises(ConfigError):
        load_user_config(path)


def test_the_resolver_merges_the_nearest_workspace_file_with_the_user_config(tmp_path: Path) -> None:
    (tmp_path / "heredoc-lsp.toml").write_text('[executor]\nsandbox = "none"\nconfirm = "never"\n', encoding="utf-8")
    resolver = ConfigResolver(user=DEFAULT_CONFIG)
    effective = resolver.resolve(tmp_path / "a.cli")
    assert (effective.config.executor.sandbox, effective.config.executor.confirm) == ("auto", "always")
    assert [i.key for i in effective.ignored] == ["executor.sandbox", "executor.confirm"]
    trusting = ConfigResolver(user=user('[executor]\nsandbox = "none"\nconfirm = "never"\n'))
    assert trusting.resolve(tmp_path / "a.cli").ignored == ()
    flags = ConfigResolver(user=DEFAULT_CONFIG, overrides=Overrides(sandbox="none"))
    assert flags.config_for(tmp_path / "a.cli").executor.sandbox == "none"
