"""Configuration (SPEC §8): ``heredoc-lsp.toml`` or ``[tool.heredoc-lsp]`` in ``pyproject.toml``, plus LSP settings.

Public API:

- :class:`Config`, :class:`ExecutorSettings`, :data:`DEFAULT_CONFIG` — typed, frozen values;
- :func:`load_config` (one file), :func:`parse_config_text` (unsaved text), :func:`find_config` (walk up),
  :func:`config_for_file` / :class:`ConfigResolver` (nearest config per file, or ``--config``);
- :class:`ConfigError` holding :class:`ConfigProblem` s (file, 1-based line and column, key, message);
- :func:`apply_lsp_settings` — editor settings (section ``heredocLsp``, camelCase keys; see
  :mod:`heredoc_lsp.config.settings` for the mapping) on top of a config.

Importing this package is cheap: the TOML parser and the validator load only when a file is read.
"""

from __future__ import annotations

from heredoc_lsp.config.load import (
    ConfigResolver,
    config_for_file,
    config_in_dir,
    find_config,
    load_config,
    parse_config_text,
)
from heredoc_lsp.config.model import (
    CONFIG_FILE_NAME,
    DEFAULT_CONFIG,
    DEFAULT_RUNNER,
    PYPROJECT_FILE_NAME,
    Config,
    ConfigError,
    ConfigProblem,
    ExecutorSettings,
)
from heredoc_lsp.config.settings import SETTINGS_SECTION, apply_lsp_settings

__all__ = [
    "CONFIG_FILE_NAME",
    "DEFAULT_CONFIG",
    "DEFAULT_RUNNER",
    "PYPROJECT_FILE_NAME",
    "SETTINGS_SECTION",
    "Config",
    "ConfigError",
    "ConfigProblem",
    "ConfigResolver",
    "ExecutorSettings",
    "apply_lsp_settings",
    "config_for_file",
    "config_in_dir",
    "find_config",
    "load_config",
    "parse_config_text",
]
