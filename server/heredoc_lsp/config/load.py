"""Finding and reading config files: ``heredoc-lsp.toml`` or ``[tool.heredoc-lsp]`` in ``pyproject.toml``."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from heredoc_lsp.config.effective import EffectiveConfig, Overrides, effective_config
from heredoc_lsp.config.model import (
    CONFIG_FILE_NAME,
    DEFAULT_CONFIG,
    PYPROJECT_FILE_NAME,
    USER_CONFIG_DIR,
    USER_CONFIG_FILE_NAME,
    Config,
    ConfigError,
    ConfigProblem,
)
from heredoc_lsp.fs import read_regular
from heredoc_lsp.syntax.records import replace_fields
from heredoc_lsp.syntax.toml_load import loads as toml_loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PYPROJECT_PREFIX = ("tool", "heredoc-lsp")
# A cheap test that a pyproject.toml may configure heredoc-lsp, so most are never parsed (tomllib is slow to import).
_MENTIONS_US = re.compile(r"tool[ \t]*\.[ \t]*[\"']?heredoc-lsp|^[ \t]*\[[ \t]*tool[ \t]*\]", re.MULTILINE)
_TOML_ERROR_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def _syntax_problem(path: Path | None, text: str, exc: Exception) -> ConfigProblem:
    message = str(exc)
    m = _TOML_ERROR_AT.search(message)
    if m is not None:
        line, col = int(m.group(1)), int(m.group(2))
        message = message[: m.start()].rstrip()
    else:
        from heredoc_lsp.syntax.text import split_lines  # deferred: check start-up

        line, col = max(len(split_lines(text)), 1), 1
        message = message.replace("(at end of document)", "").rstrip()
    return ConfigProblem(path, line, col, "", f"invalid TOML: {message}")


def parse_config_text(text: str, path: Path | None = None, *, pyproject: bool | None = None) -> Config:
    """Build a :class:`Config` from the text of a config file; raise :class:`ConfigError` with every problem.

    ``pyproject`` selects the ``[tool.heredoc-lsp]`` table; by default it is inferred from the file name. A
    pyproject.toml without that table gives the defaults.
    """
    from heredoc_lsp.config.toml_lines import locate_keys, position_of  # deferred: check start-up
    from heredoc_lsp.config.validate import Builder  # deferred: check start-up

    if pyproject is None:
        pyproject = path is not None and path.name == PYPROJECT_FILE_NAME
    try:
        data = toml_loads(text)
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError
        raise ConfigError((_syntax_problem(path, text, exc),)) from None
    prefix: tuple[str, ...] = ()
    raw: Mapping[str, Any] = data
    if pyproject:
        prefix = PYPROJECT_PREFIX
        tool = data.get("tool")
        section = tool.get("heredoc-lsp") if isinstance(tool, dict) else None
        if section is None:
            return Config(source=path)
        raw = section if isinstance(section, dict) else {}
    located: dict[tuple[str, ...], Any] | None = None

    def locate(key: tuple[str, ...]) -> tuple[int, int]:
        nonlocal located
        if located is None:
            located = locate_keys(text)
        pos = position_of(located, key)
        return (pos.line + 1, pos.start_col + 1) if pos is not None else (1, 1)

    if pyproject and not isinstance(data["tool"]["heredoc-lsp"], dict):
        line, col = locate(PYPROJECT_PREFIX)
        message = "tool.heredoc-lsp: expected a table"
        raise ConfigError((ConfigProblem(path, line, col, "tool.heredoc-lsp", message),))
    builder = Builder("toml", path, locate, prefix)
    config = builder.build(raw, DEFAULT_CONFIG)
    if builder.problems:
        raise ConfigError(tuple(sorted(builder.problems, key=lambda p: (p.line, p.column))))
    return replace_fields(config, source=path, written=tuple(builder.written))


def _read_text(path: Path) -> str:
    try:
        data = read_regular(path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ConfigError((ConfigProblem(path, 0, 0, "", f"cannot read config file: {reason}"),)) from None
    from heredoc_lsp.syntax.text import decode_bytes  # deferred: check start-up

    decoded = decode_bytes(data)
    if decoded.first_invalid_line is not None:
        line = decoded.first_invalid_line + 1
        raise ConfigError((ConfigProblem(path, line, 1, "", "config file is not valid UTF-8"),))
    return decoded.text


def load_config(path: Path) -> Config:
    """Read one config file (``heredoc-lsp.toml`` or a ``pyproject.toml``); raise :class:`ConfigError`."""
    return parse_config_text(_read_text(path), path)


def user_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The user's own config file: ``$XDG_CONFIG_HOME/heredoc-lsp/config.toml``, by default under ``~/.config``
    (a relative ``XDG_CONFIG_HOME`` is ignored, as the XDG specification says)."""
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg and os.path.isabs(xdg):
        base = Path(xdg)
    else:
        home = env.get("HOME", "")
        base = (Path(home) if home else Path.home()) / ".config"
    return base / USER_CONFIG_DIR / USER_CONFIG_FILE_NAME


def load_user_config(path: Path | None = None) -> Config:
    """The user's own config (:func:`user_config_path` by default); the defaults when the file does not exist.
    Raises :class:`ConfigError` when it exists but cannot be used."""
    path = user_config_path() if path is None else path
    if not path.is_file():
        return DEFAULT_CONFIG
    return parse_config_text(_read_text(path), path, pyproject=False)


def configures_heredoc_lsp(pyproject_text: str) -> bool:
    """Whether a pyproject.toml's text may hold a ``[tool.heredoc-lsp]`` table (cheap; no TOML parse)."""
    return _MENTIONS_US.search(pyproject_text) is not None


def config_in_dir(directory: Path) -> Path | None:
    """The config file of one directory: ``heredoc-lsp.toml`` first, then a pyproject.toml that configures us."""
    candidate = directory / CONFIG_FILE_NAME
    if candidate.is_file():
        return candidate
    pyproject = directory / PYPROJECT_FILE_NAME
    if pyproject.is_file():
        try:
            text = read_regular(pyproject).decode("utf-8", errors="replace")
        except OSError:
            return None
        if configures_heredoc_lsp(text):
            try:
                data = toml_loads(text)
            except ValueError:
                return pyproject  # broken TOML that mentions us: let loading report it
            tool = data.get("tool")
            if isinstance(tool, dict) and "heredoc-lsp" in tool:
                return pyproject
    return None


def find_config(start_dir: Path) -> Path | None:
    """The nearest config file in ``start_dir`` or its parents, else None (the defaults apply)."""
    directory = start_dir.absolute()
    for d in (directory, *directory.parents):
        found = config_in_dir(d)
        if found is not None:
            return found
    return None


class ConfigResolver:
    """The effective config per file: the nearest workspace config (or ``explicit``, from ``--config FILE``, for every
    file) merged with the user's own config and ``overrides`` by :func:`effective_config`; results are cached per
    directory and per config file (for checking many files).

    ``user`` is the user's config; by default it is read from :func:`user_config_path` on first use.
    """

    def __init__(
        self, explicit: Path | None = None, *, user: Config | None = None, overrides: Overrides | None = None
    ) -> None:
        self.explicit = explicit
        self.overrides = overrides if overrides is not None else Overrides()
        self._user: Config | ConfigError | None = user
        self._by_dir: dict[Path, Path | None] = {}
        self._loaded: dict[Path | None, EffectiveConfig | ConfigError] = {}

    def config_path_for(self, file: Path) -> Path | None:
        if self.explicit is not None:
            return self.explicit
        start = file.absolute().parent
        pending: list[Path] = []
        found: Path | None = None
        for d in (start, *start.parents):
            if d in self._by_dir:
                found = self._by_dir[d]
                break
            pending.append(d)
            found = config_in_dir(d)
            if found is not None:
                break
        for d in pending:
            self._by_dir[d] = found
        return found

    def user_config(self) -> Config:
        """The user's own config; raises :class:`ConfigError` (the same object every time) when it is broken."""
        if self._user is None:
            try:
                self._user = load_user_config()
            except ConfigError as exc:
                self._user = exc
        if isinstance(self._user, ConfigError):
            raise self._user
        return self._user

    def resolve(self, file: Path) -> EffectiveConfig:
        """The effective config for ``file`` and the workspace settings it ignores; raises :class:`ConfigError`
        (the same object for every file sharing it) when the workspace's or the user's config is broken."""
        path = self.config_path_for(file)
        result = self._loaded.get(path)
        if result is None:
            try:
                workspace = load_config(path) if path is not None else None
                result = effective_config(workspace, user=self.user_config(), overrides=self.overrides)
            except ConfigError as exc:
                result = exc
            self._loaded[path] = result
        if isinstance(result, ConfigError):
            raise result
        return result

    def config_for(self, file: Path) -> Config:
        """The config for ``file``; raises :class:`ConfigError` (see :meth:`resolve`)."""
        return self.resolve(file).config


def config_for_file(file: Path, explicit: Path | None = None) -> Config:
    """The config that applies to ``file``: ``explicit`` when given, else the nearest one, merged with the user's
    own config (the defaults when there is neither)."""
    return ConfigResolver(explicit).config_for(file)
