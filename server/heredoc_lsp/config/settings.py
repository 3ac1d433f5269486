"""LSP settings on top of a file config (docs/configuration.md): ``initializationOptions`` or
``workspace/configuration`` for the section ``heredocLsp``.

The settings object mirrors the TOML file with camelCase keys, nested (dotted keys such as ``"executor.timeoutS"``
are accepted too and mean the same). An optional outer ``{"heredocLsp": {...}}`` wrapper is unwrapped.

=============================  ================================
settings key (section heredocLsp)   TOML key
=============================  ================================
``compat``                      ``compat`` (``"arca-cli"`` or ``"none"``)
``cli.output``                  ``[cli] output``
``script.runner``               ``[script] runner``
``executor.timeoutS``           ``[executor] timeout_s``
``executor.sandbox``            ``[executor] sandbox``
``executor.allowNetwork``       ``[executor] allow_network``
``executor.maxOutputChars``     ``[executor] max_output_chars``
``executor.confirm``            ``[executor] confirm``
``executor.env``                ``[executor] env``
``commands.<name>.params``      ``[commands."<name>"] params``
``commands.<name>.required``    ``required``
``commands.<name>.singleParam`` ``single_param``
``commands.<name>.terminator``  ``terminator``
``commands.<name>.mode``        ``mode``
``commands.<name>.lang``        ``lang``
=============================  ================================

A ``null`` value means "not set" (the file's value or the default stays); ``commands.<name>: null`` removes a
command configured in the file; a command entry given in settings replaces the file's entry of the same name.
Invalid or unknown settings are skipped and reported as messages; they never make the config unusable.
"""

from __future__ import annotations

from collections.abc import Mapping

from heredoc_lsp.config.model import Config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SETTINGS_SECTION = "heredocLsp"


def _expand_dotted(settings: Mapping[str, Any]) -> dict[str, Any]:
    """``{"executor.timeoutS": 5}`` -> ``{"executor": {"timeoutS": 5}}`` (command names may contain dots: only
    the top level and the ``cli``/``script``/``executor`` sections are split)."""
    out: dict[str, Any] = {}
    for key, value in settings.items():
        head, dot, rest = key.partition(".")
        if dot and head in ("cli", "script", "executor", "commands"):
            section = out.setdefault(head, {})
            if isinstance(section, dict):
                section[rest] = value
                continue
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key].update(value)
        else:
            out[key] = dict(value) if isinstance(value, Mapping) else value
    return out


def apply_lsp_settings(config: Config, settings: Mapping[str, Any] | None) -> tuple[Config, tuple[str, ...]]:
    """``config`` with the editor's settings applied, and one message per setting that was ignored."""
    if not settings:
        return config, ()
    # deferred: check start-up: `check` with no settings never loads typing
    from heredoc_lsp.config.validate import Builder

    if not isinstance(settings, Mapping):
        return config, (f"{SETTINGS_SECTION}: expected an object of settings",)
    inner = settings.get(SETTINGS_SECTION)
    if isinstance(inner, Mapping):
        settings = inner
    builder = Builder("settings", None, lambda _key: (0, 0))
    new = builder.build(_expand_dotted(settings), config)
    messages = tuple(f"{SETTINGS_SECTION}.{p.message}" for p in builder.problems)
    return new, messages
