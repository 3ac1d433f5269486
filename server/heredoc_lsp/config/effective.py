"""The effective configuration (docs/configuration.md): the user's own config, a workspace config, the editor's settings
and the command line's overrides merged into one :class:`~heredoc_lsp.config.model.Config`. Pure: no I/O.

Safety settings (:data:`~heredoc_lsp.config.model.SAFETY_KEYS`) are the person's, not the repository's: a
workspace file (``heredoc-lsp.toml``, ``[tool.heredoc-lsp]``), which a cloned repository or an LLM's reply
controls, may only make them stricter than what the person chose (user config file, then editor settings, over the
defaults). A looser value is ignored and reported as an :class:`IgnoredSetting`. Strictness:

- ``executor.sandbox``: ``none`` < ``auto`` < ``bwrap``;
- ``executor.allow_network``: ``false`` is stricter;
- ``executor.confirm``: ``always`` is stricter;
- ``executor.env``: the workspace may only drop names (its list is cut to the names the person allows);
- ``executor.timeout_s``: only lower;
- ``script.runner``: the workspace may not change it.

Command-line flags and ``run.start`` options (:class:`Overrides`) are the person's explicit choice for one run and
win over everything. Every other key keeps the usual precedence: editor settings, then the workspace file, then the
user's file, then the defaults; command schemas are merged by name in the same order.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from heredoc_lsp.config.model import (
    DEFAULT_CONFIG,
    SAFETY_KEYS,
    Config,
    ExecutorSettings,
    WrittenKey,
)
from heredoc_lsp.config.settings import apply_lsp_settings
from heredoc_lsp.syntax.records import field, record
from heredoc_lsp.syntax.records import replace_fields as replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from heredoc_lsp.config.model import Confirm, Sandbox

IGNORED_SETTING = "ignored_setting"
USER_CONFIG_HINT = "$XDG_CONFIG_HOME/heredoc-lsp/config.toml"
_SANDBOX_RANK = {"none": 0, "auto": 1, "bwrap": 2}
# How the person loosens each safety setting for one run.
_FLAG: dict[str, str] = {
    "executor.sandbox": "--sandbox",
    "executor.allow_network": "--allow-network",
    "executor.confirm": "--yes",
    "executor.env": "--env NAME",
    "executor.timeout_s": "--timeout",
}
# Dotted key -> the Config field holding it (keys of the [executor] table live in Config.executor).
_CONFIG_FIELD: dict[str, str] = {
    "compat": "compat",
    "cli.output": "cli_output",
    "script.runner": "script_runner",
    "lint": "lint",
}


@record
class Overrides:
    """The person's choices for one invocation (command-line flags, ``run.start`` options): None = not given.
    ``env`` names are added to the allowed list."""

    timeout_s: float | None = None
    sandbox: Sandbox | None = None
    allow_network: bool | None = None
    confirm: Confirm | None = None
    env: tuple[str, ...] = ()


NO_OVERRIDES = Overrides()


@record
class IgnoredSetting:
    """A safety setting a workspace file tried to loosen: where (1-based line and columns of the key) and why."""

    path: Path | None
    line: int
    column: int
    end_column: int
    key: str
    message: str

    def format(self, display_path: str | None = None) -> str:
        """``heredoc-lsp.toml:3: warning[ignored_setting] executor.sandbox = "none" ignored: ...``"""
        where = display_path if display_path is not None else (str(self.path) if self.path else "<workspace>")
        if self.line > 0:
            where = f"{where}:{self.line}:{max(self.column, 1)}"
        return f"{where}: warning[{IGNORED_SETTING}] {self.message}"


@record
class EffectiveConfig:
    """The config to use, the workspace settings that were ignored, and the messages about invalid editor
    settings (which are skipped)."""

    config: Config
    ignored: tuple[IgnoredSetting, ...] = ()
    settings_messages: tuple[str, ...] = field(default=())


def _get(config: Config, key: str) -> Any:
    if key == "commands":
        return config.commands
    section, _, name = key.partition(".")
    if section == "executor":
        return getattr(config.executor, name)
    return getattr(config, _CONFIG_FIELD[key])


def _set(config: Config, key: str, value: Any) -> Config:
    section, _, name = key.partition(".")
    if section == "executor":
        executor: ExecutorSettings = replace(config.executor, **{name: value})
        return replace(config, executor=executor)
    return replace(config, **{_CONFIG_FIELD[key]: value})


def overlay(base: Config, top: Config) -> Config:
    """``base`` with every key ``top`` writes taken from ``top`` (command schemas merged by name)."""
    out = base
    for w in top.written:
        if w.key == "commands":
            out = replace(out, commands={**base.commands, **top.commands})
        else:
            out = _set(out, w.key, _get(top, w.key))
    return out


def _show(value: Any) -> str:
    from heredoc_lsp.config.validate import show_value  # deferred: check start-up

    if isinstance(value, tuple):
        value = list(value)
    return show_value(value)


def _loosen_hint(key: str) -> str:
    flag = _FLAG.get(key)
    via = f", with {flag}" if flag else ""
    return f"set it in your own config ({USER_CONFIG_HINT}){via} or in your editor's user settings"


def _ignored(ws: Config, w: WrittenKey, message: str) -> IgnoredSetting:
    return IgnoredSetting(ws.source, w.line, w.column, w.end_column, w.key, message)


def _stricter(key: str, user: Any, wanted: Any) -> tuple[Any, str | None]:
    """The value to use when a workspace file asks for ``wanted`` and the person chose ``user``, and why ``wanted``
    is not used (None when it is)."""
    if key == "executor.sandbox":
        if _SANDBOX_RANK[wanted] >= _SANDBOX_RANK[user]:
            return wanted, None
        return user, "a workspace config may only make the sandbox stricter (none < auto < bwrap)"
    if key == "executor.allow_network":
        if not wanted or user:
            return wanted, None
        return user, "a workspace config may not allow the network"
    if key == "executor.confirm":
        if wanted == "always" or user == "never":
            return wanted, None
        return user, "a workspace config may not turn confirmation off"
    if key == "executor.timeout_s":
        if wanted <= user:
            return wanted, None
        return user, "a workspace config may only lower the timeout"
    if key == "script.runner":
        if tuple(wanted) == tuple(user):
            return wanted, None
        return user, "a workspace config may not change how commands are started"
    raise AssertionError(key)


def _merge_safety(person: Config, ws: Config, out: Config, overrides: Overrides) -> tuple[Config, list[IgnoredSetting]]:
    """``out`` with each safety key set from ``person``, or from ``ws`` where that is not looser; what was not."""
    overridden = _overridden(overrides)
    ignored: list[IgnoredSetting] = []
    for key in SAFETY_KEYS:
        mine = _get(person, key)
        w = ws.written_key(key)
        if w is None:
            out = _set(out, key, mine)
            continue
        wanted = _get(ws, key)
        if key == "executor.env":
            allowed = set(mine)
            out = _set(out, key, tuple(n for n in wanted if n in allowed))
            extra = [n for n in wanted if n not in allowed and n not in overrides.env]
            if extra:
                names = ", ".join(_show(n) for n in extra)
                message = (
                    f"executor.env: {names} ignored: a workspace config may only drop environment variables from "
                    f"the ones you allow ({_show(mine)}); to pass one, {_loosen_hint(key)}"
                )
                ignored.append(_ignored(ws, w, message))
            continue
        value, why = _stricter(key, mine, wanted)
        out = _set(out, key, value)
        if why is not None and key not in overridden:
            message = f"{key} = {_show(wanted)} ignored: {why}; {_show(mine)} is used. To change it, "
            message += _loosen_hint(key)
            ignored.append(_ignored(ws, w, message))
    return out, ignored


def _overridden(overrides: Overrides) -> frozenset[str]:
    given = (
        ("executor.timeout_s", overrides.timeout_s),
        ("executor.sandbox", overrides.sandbox),
        ("executor.allow_network", overrides.allow_network),
        ("executor.confirm", overrides.confirm),
    )
    return frozenset(key for key, value in given if value is not None)


def _apply_overrides(config: Config, overrides: Overrides) -> Config:
    values = {
        "timeout_s": overrides.timeout_s,
        "sandbox": overrides.sandbox,
        "allow_network": overrides.allow_network,
        "confirm": overrides.confirm,
    }
    ex: ExecutorSettings = replace(config.executor, **{k: v for k, v in values.items() if v is not None})
    if overrides.env:
        ex = replace(ex, env=tuple(dict.fromkeys((*ex.env, *overrides.env))))
    return replace(config, executor=ex)


def effective_config(
    workspace: Config | None = None,
    *,
    user: Config = DEFAULT_CONFIG,
    settings: Mapping[str, Any] | None = None,
    overrides: Overrides = NO_OVERRIDES,
) -> EffectiveConfig:
    """Merge the layers (see the module's documentation) into the config to use.

    ``user`` is the user's own config file (or the defaults), ``workspace`` the workspace's file (None when there is
    none), ``settings`` the editor's user-level ``heredocLsp`` settings, ``overrides`` the command line's. The
    result's ``source`` is the workspace file (the user's file never decides where commands run).
    """
    person, messages = apply_lsp_settings(user, settings)  # what the person chose: their file, then the editor
    base = overlay(user, workspace) if workspace is not None else user
    merged, _ = apply_lsp_settings(base, settings)  # the usual precedence for the other keys
    merged = replace(merged, source=workspace.source if workspace is not None else None, written=())
    ignored: list[IgnoredSetting] = []
    if workspace is not None:
        merged, ignored = _merge_safety(person, workspace, merged, overrides)
    ignored.sort(key=lambda i: (i.line, i.column))
    return EffectiveConfig(_apply_overrides(merged, overrides), tuple(ignored), messages)
