"""Turn a raw mapping (a parsed TOML table or LSP settings) into a :class:`Config`, checking every key and type.

Both sources share one set of rules; only the key spelling differs (``timeout_s`` in TOML, ``timeoutS`` in
settings). Every problem is collected, not just the first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from heredoc_lsp.config.model import Config, ConfigProblem, ExecutorSettings, LintSettings, WrittenKey
from heredoc_lsp.syntax.records import replace_fields as replace
from heredoc_lsp.syntax.schema import CommandSchema

if TYPE_CHECKING:
    from heredoc_lsp.syntax.schema import Mode

Style = Literal["toml", "settings"]
KeyPath = tuple[str, ...]
# Where a key is written: (1-based line, 1-based column), (0, 0) when unknown.
Locator = Callable[[KeyPath], tuple[int, int]]

_CAMEL: dict[str, str] = {
    "timeout_s": "timeoutS",
    "allow_network": "allowNetwork",
    "max_output_chars": "maxOutputChars",
    "single_param": "singleParam",
    "extend-select": "extendSelect",
    "per-file-ignores": "perFileIgnores",
}
_SECTIONS: dict[str, tuple[str, ...]] = {
    "cli": ("output",),
    "script": ("runner",),
    "executor": ("timeout_s", "sandbox", "allow_network", "max_output_chars", "confirm", "env"),
    "lint": ("select", "extend-select", "ignore", "per-file-ignores"),
}
_TOP_KEYS = ("compat", "cli", "script", "executor", "commands", "lint")
_COMMAND_KEYS = ("params", "required", "single_param", "terminator", "mode", "lang")

_PARAM_NAME = re.compile(r"[A-Z_]+")
_SINGLE_PARAM_NAME = re.compile(r"[A-Za-z_]+")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def key_name(key: str, style: Style) -> str:
    """How a TOML key is spelled in ``style``."""
    return _CAMEL.get(key, key) if style == "settings" else key


def display_key(path: KeyPath) -> str:
    """``commands."chatroom handoff".single_param``"""
    return ".".join(p if _BARE_KEY.fullmatch(p) else _quote(p) for p in path)


def _quote(s: str) -> str:
    """A TOML basic string for messages: one line, control characters escaped."""
    out = s.replace("\\", "\\\\").replace('"', '\\"')
    out = out.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    out = re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\u{ord(m.group()):04x}", out)
    return '"' + out + '"'


def show_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, (dict, Mapping)):
        return "a table"
    if isinstance(value, list):
        return "[" + ", ".join(show_value(v) for v in value) + "]"
    return str(value)


class _Invalid(Exception):
    pass


def _choice(value: object, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise _Invalid(f"expected one of {', '.join(show_value(c) for c in choices)}, got {show_value(value)}")
    return value


def _string_list(value: object, what: str = "a list of strings") -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Invalid(f"expected {what}, got {show_value(value)}")
    return cast("list[str]", value)


class Builder:
    """Validates one raw mapping on top of a base config, collecting :class:`ConfigProblem`s."""

    def __init__(self, style: Style, source: Path | None, locate: Locator, prefix: KeyPath = ()) -> None:
        self.style = style
        self.source = source
        self.locate = locate
        self.prefix = prefix  # e.g. ("tool", "heredoc-lsp") in pyproject.toml, for locating keys
        self.problems: list[ConfigProblem] = []
        self.written: list[WrittenKey] = []  # the setting keys the mapping sets with a valid value

    # -- reporting ------------------------------------------------------------------------------------------------
    def problem(self, path: KeyPath, message: str) -> None:
        line, col = self.locate(self.prefix + path)
        key = display_key(path)
        self.problems.append(ConfigProblem(self.source, line, col, key, f"{key}: {message}"))

    def _spell(self, key: str) -> str:
        return key_name(key, self.style)

    def _table(self, value: object, path: KeyPath) -> Mapping[str, Any] | None:
        if isinstance(value, Mapping):
            return cast("Mapping[str, Any]", value)
        self.problem(path, f"expected a table, got {show_value(value)}")
        return None

    def _unknown(self, table: Mapping[str, Any], allowed: tuple[str, ...], path: KeyPath) -> None:
        spelled = [self._spell(k) for k in allowed]
        for key in table:
            if key not in spelled:
                import difflib  # deferred: check start-up

                close = difflib.get_close_matches(key, spelled, n=1, cutoff=0.6)
                hint = f" (did you mean '{close[0]}'?)" if close else f" (expected one of: {', '.join(spelled)})"
                self.problem((*path, key), f"unknown key{hint}")

    def _field(self, table: Mapping[str, Any], key: str, path: KeyPath, check: Callable[[Any], Any]) -> Any:
        """The checked value of ``key``, or None when absent, null (settings) or invalid."""
        spelled = self._spell(key)
        if spelled not in table or table[spelled] is None:
            return None
        try:
            return check(table[spelled])
        except _Invalid as exc:
            self.problem((*path, spelled), str(exc))
            return None

    def _wrote(self, path: KeyPath) -> None:
        spelled = tuple(self._spell(p) for p in path)
        line, col = self.locate(self.prefix + spelled)
        end = col + len(spelled[-1]) if col > 0 else 0
        self.written.append(WrittenKey(".".join(path), line, col, end))

    # -- the document ---------------------------------------------------------------------------------------------
    def build(self, raw: Mapping[str, Any], base: Config) -> Config:
        self._unknown(raw, _TOP_KEYS, ())
        config = base
        compat = self._field(raw, "compat", (), lambda v: _choice(v, ("arca-cli", "none")))
        if compat is not None:
            self._wrote(("compat",))
            config = replace(config, compat=None if compat == "none" else "arca-cli")
        cli = self._section(raw, "cli")
        if cli is not None:
            output = self._field(cli, "output", ("cli",), lambda v: _choice(v, ("text", "json")))
            if output is not None:
                self._wrote(("cli", "output"))
                config = replace(config, cli_output=output)
        script = self._section(raw, "script")
        if script is not None:
            runner = self._field(script, "runner", ("script",), _check_runner)
            if runner is not None:
                self._wrote(("script", "runner"))
                config = replace(config, script_runner=tuple(runner))
        executor = self._section(raw, "executor")
        if executor is not None:
            config = replace(config, executor=self._executor(executor, config.executor))
        lint = self._section(raw, "lint")
        if lint is not None and self.style == "settings":
            # [lint] chooses what `check` reports; the editor shows every problem, so it is a config-file key only.
            self.problem(("lint",), "is read from heredoc-lsp.toml by `heredoc-lsp check`, not from editor settings")
        elif lint is not None:
            self._wrote(("lint",))
            config = replace(config, lint=self._lint(lint, config.lint))
        if "commands" in raw and raw["commands"] is not None:
            commands = self._table(raw["commands"], ("commands",))
            if commands is not None:
                self._wrote(("commands",))
                config = replace(config, commands=self._commands(commands, config))
        return config

    def _section(self, raw: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
        if name not in raw or raw[name] is None:
            return None
        table = self._table(raw[name], (name,))
        if table is not None:
            self._unknown(table, _SECTIONS[name], (name,))
        return table

    def _executor(self, table: Mapping[str, Any], base: ExecutorSettings) -> ExecutorSettings:
        out = base
        for key, check in _EXECUTOR_CHECKS.items():
            value = self._field(table, key, ("executor",), check)
            if value is not None:
                self._wrote(("executor", key))
                out = replace(out, **{key: tuple(value) if isinstance(value, list) else value})
        return out

    def _lint(self, table: Mapping[str, Any], base: LintSettings) -> LintSettings:
        out = base
        for key, check in _LINT_CHECKS.items():
            value = self._field(table, key, ("lint",), check)
            if value is not None:
                out = replace(out, **{key.replace("-", "_"): tuple(value) if isinstance(value, list) else value})
        return out

    def _commands(self, table: Mapping[str, Any], base: Config) -> dict[str, CommandSchema]:
        # A config file defines the whole set; settings replace (or, with null, remove) entries by name.
        commands: dict[str, CommandSchema] = dict(base.commands) if self.style == "settings" else {}
        for name, entry in table.items():
            path = ("commands", name)
            if entry is None and self.style == "settings":
                commands.pop(name, None)
                continue
            if not name.strip(" \t") or name != name.strip(" \t\f\v") or any(c in name for c in "\r\n"):
                self.problem(path, "a command name must be non-empty, on one line, without leading or trailing blanks")
                continue
            entry_table = self._table(entry, path)
            if entry_table is None:
                continue
            self._unknown(entry_table, _COMMAND_KEYS, path)
            schema = self._command(name, entry_table, path)
            if schema is not None:
                commands[name] = schema
        return commands

    def _command(self, name: str, entry: Mapping[str, Any], path: KeyPath) -> CommandSchema | None:
        before = len(self.problems)
        params = self._field(entry, "params", path, _check_param_list)
        required = self._field(entry, "required", path, _check_param_list)
        single = self._field(entry, "single_param", path, _check_single_param)
        terminator = self._field(entry, "terminator", path, _check_terminator)
        lang = self._field(entry, "lang", path, _check_lang)
        mode_raw = self._field(entry, "mode", path, lambda v: _choice(v, ("single", "multi", "text")))
        sp, pp, rp, mp = (self._spell(k) for k in ("single_param", "params", "required", "mode"))
        mode: Mode
        if single is not None:
            mode = "single"
            if params is not None:
                self.problem((*path, pp), f"'{pp}' and '{sp}' exclude each other: a command is multi or single mode")
            if mode_raw not in (None, "single"):
                self.problem((*path, mp), f"mode {show_value(mode_raw)} contradicts '{sp}' (single mode)")
        elif params is not None or mode_raw == "multi":
            mode = "multi"
            if mode_raw not in (None, "multi"):
                self.problem((*path, mp), f"mode {show_value(mode_raw)} contradicts '{pp}' (multi mode)")
        else:
            mode = "text"
            if mode_raw == "single":
                self.problem((*path, mp), f"mode \"single\" needs '{sp}' (the parameter's name)")
        if required is not None:
            if mode != "multi":
                self.problem((*path, rp), f"'{rp}' is only used in multi mode (set '{pp}' or mode = \"multi\")")
            elif params is not None:
                for r in required:
                    if r not in params:
                        import difflib  # deferred: check start-up

                        close = difflib.get_close_matches(r, params, n=1, cutoff=0.6)
                        hint = f" (did you mean '{close[0]}'?)" if close else ""
                        self.problem((*path, rp), f"required parameter '{r}' is not in '{pp}'{hint}")
        if len(self.problems) > before:
            return None
        return CommandSchema(
            name=name,
            mode=mode,
            params=tuple(params) if params is not None else None,
            required=tuple(required) if required is not None and mode == "multi" else (),
            single_param=single,
            terminator=terminator,
            lang=lang,
        )


def _check_codes(value: object) -> list[str]:
    # deferred: check start-up: the registry only when a [lint] table names codes
    from heredoc_lsp.rules import unknown_codes

    codes = _string_list(value, "a list of diagnostic codes")
    unknown = unknown_codes(codes)
    if unknown:
        raise _Invalid(f"unknown code {', '.join(map(_quote, unknown))} (see 'heredoc-lsp rule --all')")
    return codes


def _check_per_file_ignores(value: object) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, Mapping):
        raise _Invalid(f'expected a table of glob = ["code", ...], got {show_value(value)}')
    return {str(glob): tuple(_check_codes(codes)) for glob, codes in value.items()}


def _check_bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise _Invalid(f"expected true or false, got {show_value(value)}")
    return value


def _check_timeout(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise _Invalid(f"expected a positive number of seconds, got {show_value(value)}")
    return value


def _check_max_chars(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _Invalid(f"expected a positive whole number of characters, got {show_value(value)}")
    return value


def _check_env(value: object) -> list[str]:
    names = _string_list(value, "a list of environment variable names")
    for n in names:
        if not _ENV_NAME.fullmatch(n):
            raise _Invalid(f"{show_value(n)} is not an environment variable name")
    return names


def _check_runner(value: object) -> list[str]:
    argv = _string_list(value, 'an argv list of strings such as ["/bin/sh", "-c", "{command}"]')
    if not argv or not argv[0]:
        raise _Invalid("expected a non-empty argv list whose first item names a program")
    if "{command}" not in argv:
        raise _Invalid('the argv list must contain the item "{command}" (replaced by the command text)')
    return argv


def _check_param_list(value: object) -> list[str]:
    names = _string_list(value, "a list of parameter names")
    seen: set[str] = set()
    for n in names:
        if not _PARAM_NAME.fullmatch(n):
            raise _Invalid(f"{show_value(n)} is not a parameter name (A-Z and _ only, as in ---NAME---)")
        if n in seen:
            raise _Invalid(f"{show_value(n)} is listed twice")
        seen.add(n)
    return names


def _check_single_param(value: object) -> str:
    if not isinstance(value, str) or not _SINGLE_PARAM_NAME.fullmatch(value):
        raise _Invalid(f"expected a parameter name (letters and _), got {show_value(value)}")
    return value


def _check_terminator(value: object) -> str:
    if not isinstance(value, str) or not value or value != value.strip(" \t\f\v") or any(c in value for c in "\r\n"):
        raise _Invalid(f"expected a non-empty word on one line without surrounding blanks, got {show_value(value)}")
    return value


def _check_lang(value: object) -> str:
    from heredoc_lsp.syntax.body_language import LANGUAGES, language_name  # deferred: check start-up

    if not isinstance(value, str) or language_name(value) is None:
        names = ", ".join(sorted({*LANGUAGES.values(), "none"}))
        raise _Invalid(f"expected a language ({names}), got {show_value(value)}")
    return language_name(value) or value


# The keys of [executor] and [lint] with their checks (a list read becomes a tuple).
_EXECUTOR_CHECKS: dict[str, Callable[[Any], Any]] = {
    "timeout_s": _check_timeout,
    "sandbox": lambda v: _choice(v, ("auto", "bwrap", "none")),
    "allow_network": _check_bool,
    "max_output_chars": _check_max_chars,
    "confirm": lambda v: _choice(v, ("always", "never")),
    "env": _check_env,
}
_LINT_CHECKS: dict[str, Callable[[Any], Any]] = {
    "select": _check_codes,
    "extend-select": _check_codes,
    "ignore": _check_codes,
    "per-file-ignores": _check_per_file_ignores,
}
