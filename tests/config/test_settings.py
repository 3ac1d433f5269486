"""LSP settings (section heredocLsp, camelCase keys) applied on top of a file config."""

from __future__ import annotations

from pathlib import Path

from heredoc_lsp.config import DEFAULT_CONFIG, ExecutorSettings, apply_lsp_settings, parse_config_text
from heredoc_lsp.syntax.schema import CommandSchema

FILE_CONFIG = parse_config_text(
    '[executor]\ntimeout_s = 10\nenv = ["A"]\n'
    '[commands."chatroom handoff"]\nsingle_param = "MESSAGE"\n'
    '[commands."tracker note"]\nmode = "multi"\n',
    Path("heredoc-lsp.toml"),
)


def test_nothing_to_apply() -> None:
    assert apply_lsp_settings(FILE_CONFIG, None) == (FILE_CONFIG, ())
    assert apply_lsp_settings(FILE_CONFIG, {}) == (FILE_CONFIG, ())


def test_every_key_of_the_mapping() -> None:
    settings = {
        "compat": "arca-cli",
        "cli": {"output": "json"},
        "script": {"runner": ["/bin/bash", "-c", "{command}"]},
        "executor": {
            "timeoutS": 5,
            "sandbox": "none",
            "allowNetwork": True,
            "maxOutputChars": 100,
            "confirm": "never",
            "env": ["B"],
        },
        "commands": {"deploy": {"params": ["TARGET"], "required": ["TARGET"], "terminator": "END"}},
    }
    config, messages = apply_lsp_settings(FILE_CONFIG, settings)
    assert messages == ()
    assert config.compat == "arca-cli"
    assert config.cli_output == "json"
    assert config.script_runner == ("/bin/bash", "-c", "{command}")
    assert config.executor == ExecutorSettings(5, "none", True, 100, "never", ("B",))
    assert config.commands["deploy"] == CommandSchema("deploy", "multi", ("TARGET",), ("TARGET",), None, "END")
    # File commands stay unless replaced or removed.
    assert set(config.commands) == {"chatroom handoff", "tracker note", "deploy"}
    assert config.source == FILE_CONFIG.source


def test_dotted_keys_and_the_outer_wrapper_mean_the_same() -> None:
    nested, _ = apply_lsp_settings(DEFAULT_CONFIG, {"executor": {"timeoutS": 3, "sandbox": "bwrap"}})
    dotted, _ = apply_lsp_settings(DEFAULT_CONFIG, {"executor.timeoutS": 3, "executor.sandbox": "bwrap"})
    wrapped, _ = apply_lsp_settings(DEFAULT_CONFIG, {"heredocLsp": {"executor": {"timeoutS": 3, "sandbox": "bwrap"}}})
    assert nested == dotted == wrapped
    assert nested.executor.timeout_s == 3 and nested.executor.sandbox == "bwrap"


def test_null_keeps_the_file_value_and_removes_a_command() -> None:
    config, messages = apply_lsp_settings(
        FILE_CONFIG, {"executor": {"timeoutS": None}, "compat": None, "commands": {"tracker note": None}}
    )
    assert messages == ()
    assert config.executor.timeout_s == 10
    assert set(config.commands) == {"chatroom handoff"}


def test_a_settings_command_replaces_the_file_entry() -> None:
    config, _ = apply_lsp_settings(FILE_CONFIG, {"commands": {"chatroom handoff": {"singleParam": "TEXT"}}})
    assert config.commands["chatroom handoff"] == CommandSchema("chatroom handoff", "single", None, (), "TEXT", None)


def test_compat_none_turns_hints_off() -> None:
    base, _ = apply_lsp_settings(DEFAULT_CONFIG, {"compat": "arca-cli"})
    config, _ = apply_lsp_settings(base, {"compat": "none"})
    assert config.compat is None


def test_invalid_and_unknown_settings_are_skipped_with_messages() -> None:
    config, messages = apply_lsp_settings(
        FILE_CONFIG,
        {
            "executor": {"timeoutS": "soon", "timeout_s": 4, "sandbox": "none"},
            "colors": True,
            "commands": {"x": {"single_param": "M"}},
        },
    )
    assert messages == (
        "heredocLsp.colors: unknown key (expected one of: compat, cli, script, executor, commands, lint)",
        "heredocLsp.executor.timeout_s: unknown key (did you mean 'timeoutS'?)",
        'heredocLsp.executor.timeoutS: expected a positive number of seconds, got "soon"',
        "heredocLsp.commands.x.single_param: unknown key (did you mean 'singleParam'?)",
    )
    assert config.executor.timeout_s == 10  # the bad value did not replace the file's
    assert config.executor.sandbox == "none"  # the good one in the same section applied


def test_settings_that_are_not_an_object() -> None:
    config, messages = apply_lsp_settings(FILE_CONFIG, ["x"])  # type: ignore[arg-type]
    assert config == FILE_CONFIG
    assert messages == ("heredocLsp: expected an object of settings",)
