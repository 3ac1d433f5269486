"""Configuration (docs/configuration.md): ``heredoc-lsp.toml`` or ``[tool.heredoc-lsp]`` in ``pyproject.toml``, plus LSP
settings.

Public API:

- :class:`Config`, :class:`ExecutorSettings`, :data:`DEFAULT_CONFIG` — typed, frozen values;
- :func:`load_config` (one file), :func:`parse_config_text` (unsaved text), :func:`find_config` (walk up),
  :func:`config_for_file` / :class:`ConfigResolver` (nearest config per file, or ``--config``);
- :class:`ConfigError` holding :class:`ConfigProblem` s (file, 1-based line and column, key, message);
- :func:`apply_lsp_settings` — editor settings (section ``heredocLsp``, camelCase keys; see
  :mod:`heredoc_lsp.config.settings` for the mapping) on top of a config;
- :func:`effective_config` — the one merge of the user's own config (:func:`load_user_config`,
  :func:`user_config_path`), a workspace config, the editor's settings and :class:`Overrides` (command-line flags),
  where a workspace file may only make the safety settings (:data:`SAFETY_KEYS`) stricter; what it tried to
  loosen comes back as :class:`IgnoredSetting` s (see :mod:`heredoc_lsp.config.effective`).

Importing this package is cheap: the TOML parser and the validator load only when a file is read.
"""

from __future__ import annotations

from heredoc_lsp.config.effective import (
    IGNORED_SETTING,
    EffectiveConfig,
    IgnoredSetting,
    Overrides,
    effective_config,
)
from heredoc_lsp.config.load import (
    ConfigResolver,
    config_for_file,
    config_in_dir,
    find_config,
    load_config,
    load_user_config,
    parse_config_text,
    user_config_path,
)
from heredoc_lsp.config.model import (
    CONFIG_FILE_NAME,
    DEFAULT_CONFIG,
    PYPROJECT_FILE_NAME,
    SAFETY_KEYS,
    Config,
    ConfigError,
    ConfigProblem,
    ExecutorSettings,
)
from heredoc_lsp.config.settings import SETTINGS_SECTION, apply_lsp_settings

__all__ = [
    "CONFIG_FILE_NAME",
    "DEFAULT_CONFIG",
    "IGNORED_SETTING",
    "PYPROJECT_FILE_NAME",
    "SAFETY_KEYS",
    "SETTINGS_SECTION",
    "Config",
    "ConfigError",
    "ConfigProblem",
    "ConfigResolver",
    "EffectiveConfig",
    "ExecutorSettings",
    "IgnoredSetting",
    "Overrides",
    "apply_lsp_settings",
    "config_for_file",
    "config_in_dir",
    "effective_config",
    "find_config",
    "load_config",
    "load_user_config",
    "parse_config_text",
    "user_config_path",
]
