"""The extension's ``contributes.configuration`` and the server's settings schema agree (one schema, two spellings).

The server's schema is its validator (heredoc_lsp.config.validate: the sections and keys it accepts and how
they are spelled in settings) plus the server-only keys of heredoc_lsp.lsp.settings. Every value the manifest
offers (defaults, enum members) must pass the server's validation, every enum must list exactly the server's
choices, and a value of the wrong type must be refused by the server too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest

from heredoc_lsp.config import DEFAULT_CONFIG, apply_lsp_settings
from heredoc_lsp.config.model import SAFETY_KEYS, Compat, Confirm, OutputFormat, Sandbox
from heredoc_lsp.config.validate import _COMMAND_KEYS, _SECTIONS, _TOP_KEYS, key_name
from heredoc_lsp.lsp.settings import DIAGNOSTIC_MODES, SERVER_KEYS

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = json.loads((ROOT / "client-vscode" / "package.json").read_text(encoding="utf-8"))
PROPERTIES: dict[str, dict[str, Any]] = MANIFEST["contributes"]["configuration"]["properties"]
PREFIX = "heredocLsp."
EXTENSION_ONLY = {"python.path", "trace.server"}
# Keys the server reads itself (not heredoc-lsp.toml keys), and the TOML file's keys in settings spelling.
# Server-only keys a user sets. "trusted" is not one: the extension sends vscode.workspace.isTrusted itself, and a
# workspace setting must never be able to turn Restricted Mode's refusal off.
EXTENSION_DERIVED = {"trusted"}
SERVER_ONLY = set(SERVER_KEYS) - EXTENSION_DERIVED
# [lint] is a `check` setting read from config files only; the server refuses it in editor settings.
CONFIG_ONLY_SECTIONS = {"lint"}
CONFIG_KEYS = {
    *(k for k in _TOP_KEYS if k not in _SECTIONS),
    *(
        f"{section}.{key_name(k, 'settings')}"
        for section, keys in _SECTIONS.items()
        if section not in CONFIG_ONLY_SECTIONS
        for k in keys
    ),
}


def test_the_server_refuses_lint_in_editor_settings() -> None:
    config, messages = apply_lsp_settings(DEFAULT_CONFIG, {"lint": {"ignore": ["no_effect"]}})
    assert config.lint == DEFAULT_CONFIG.lint
    assert messages == (
        "heredocLsp.lint: is read from heredoc-lsp.toml by `heredoc-lsp check`, not from editor settings",
    )


def declared() -> dict[str, dict[str, Any]]:
    assert all(k.startswith(PREFIX) for k in PROPERTIES)
    return {k[len(PREFIX) :]: v for k, v in PROPERTIES.items() if k[len(PREFIX) :] not in EXTENSION_ONLY}


def nested(key: str, value: Any) -> dict[str, Any]:
    head, _, rest = key.partition(".")
    return {head: nested(rest, value)} if rest else {head: value}


def server_messages(key: str, value: Any) -> tuple[str, ...]:
    if key in SERVER_ONLY:
        return ()
    return apply_lsp_settings(DEFAULT_CONFIG, nested(key, value))[1]


def test_the_manifest_declares_exactly_the_servers_keys() -> None:
    assert set(declared()) == CONFIG_KEYS | SERVER_ONLY
    assert not EXTENSION_DERIVED & set(declared())
    assert set(SERVER_KEYS) >= EXTENSION_DERIVED
    assert {k[len(PREFIX) :] for k in PROPERTIES} >= EXTENSION_ONLY


def test_every_default_is_the_servers_default() -> None:
    settings: dict[str, Any] = {}
    for key, prop in declared().items():
        if key in SERVER_ONLY:
            continue
        value = prop["default"]
        head, _, rest = key.partition(".")
        if rest:
            settings.setdefault(head, {})[rest] = value
        else:
            settings[head] = value
    config, messages = apply_lsp_settings(DEFAULT_CONFIG, settings)
    assert messages == ()
    assert config == DEFAULT_CONFIG
    assert declared()["diagnosticMode"]["default"] == "auto"


@pytest.mark.parametrize(
    ("key", "choices"),
    [
        ("compat", ("none", *get_args(Compat))),
        ("cli.output", get_args(OutputFormat)),
        ("executor.sandbox", get_args(Sandbox)),
        ("executor.confirm", get_args(Confirm)),
        ("diagnosticMode", DIAGNOSTIC_MODES),
    ],
)
def test_enums_list_the_servers_choices(key: str, choices: tuple[str, ...]) -> None:
    prop = declared()[key]
    assert prop["enum"] == list(choices)
    if "enumDescriptions" in prop:
        assert len(prop["enumDescriptions"]) == len(prop["enum"])
    for choice in choices:
        assert server_messages(key, choice) == ()
    assert server_messages(key, "bogus") != () or key in SERVER_ONLY


WRONG_TYPE = {"string": 7, "number": "7", "integer": 1.5, "boolean": "yes", "array": "x", "object": ["x"]}


@pytest.mark.parametrize("key", sorted(CONFIG_KEYS))
def test_the_server_refuses_what_the_manifest_types_refuse(key: str) -> None:
    prop = declared()[key]
    wrong = WRONG_TYPE[prop["type"]]
    messages = server_messages(key, wrong)
    assert len(messages) == 1, messages
    assert messages[0].startswith(f"{PREFIX}{key}"), messages


def test_numeric_minimums_agree() -> None:
    assert declared()["executor.timeoutS"]["exclusiveMinimum"] == 0
    assert server_messages("executor.timeoutS", 0) != ()
    assert server_messages("executor.timeoutS", 0.5) == ()
    assert declared()["executor.maxOutputChars"]["minimum"] == 1
    assert server_messages("executor.maxOutputChars", 0) != ()
    assert server_messages("executor.maxOutputChars", 1) == ()


def test_command_entries_have_the_servers_keys_and_choices() -> None:
    entry = declared()["commands"]["additionalProperties"]
    assert set(entry["properties"]) == {key_name(k, "settings") for k in _COMMAND_KEYS}
    assert entry["properties"]["mode"]["enum"] == ["single", "multi", "text"]
    sample = {
        "chatroom task-started": {"params": ["TITLE", "BODY"], "required": ["TITLE"], "terminator": "PARAMS_END"},
        "chatroom handoff": {"singleParam": "MESSAGE", "terminator": "END"},
        "tracker note": {"mode": "multi", "required": ["BODY"]},
        "plain": {"mode": "text"},
    }
    config, messages = apply_lsp_settings(DEFAULT_CONFIG, {"commands": sample})
    assert messages == ()
    assert set(config.commands) == set(sample)
    assert config.commands["chatroom handoff"].single_param == "MESSAGE"
    # The manifest's name patterns are the server's: a lower-case parameter is refused by both.
    assert entry["properties"]["params"]["items"]["pattern"] == "^[A-Z_]+$"
    assert apply_lsp_settings(DEFAULT_CONFIG, {"commands": {"x": {"params": ["title"]}}})[1] != ()


def _extension_safety_keys() -> set[str]:
    """``SAFETY_SETTING_KEYS`` of client-vscode/src/settings.ts."""
    source = (ROOT / "client-vscode" / "src" / "settings.ts").read_text(encoding="utf-8")
    block = source.split("export const SAFETY_SETTING_KEYS", 1)[1].split("]);", 1)[0]
    return set(re.findall(r"'([^']+)'", block.split("new Set([", 1)[1]))


def test_the_extensions_safety_settings_are_the_servers_and_the_programs_it_runs() -> None:
    # One rule: the server's SAFETY_KEYS (heredoc_lsp/config/model.py), plus every setting that names a program the
    # extension executes (the interpreter that runs the server), and only those, are read from the user level.
    server = {".".join(key_name(part, "settings") for part in key.split(".")) for key in SAFETY_KEYS}
    programs = {"python.path"}
    assert _extension_safety_keys() == server | programs
    for key in server | programs:
        assert PROPERTIES[PREFIX + key]["scope"] in ("application", "machine"), key
        assert "only your user setting counts" in PROPERTIES[PREFIX + key]["markdownDescription"], key
