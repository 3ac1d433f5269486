"""Settings and configuration for the server (docs/configuration.md).

Sources, later ones winning key by key: the user's own config file (``$XDG_CONFIG_HOME/heredoc-lsp/config.toml``),
the workspace root's ``heredoc-lsp.toml`` / ``[tool.heredoc-lsp]`` (or, for a file outside every workspace folder,
the nearest one walking up, as the command line does), ``initializationOptions``, the client's
``workspace/configuration`` answer for section ``heredocLsp`` (also pushed through
``workspace/didChangeConfiguration``). The editor's settings count as the user's own: the safety settings may be
loosened by them and by the user's file, and only made stricter by the workspace's file; the merge is
:func:`heredoc_lsp.config.effective_config`, and what a workspace file may not loosen is a warning
``ignored_setting`` on that file. The settings keys and their TOML equivalents are documented in
:mod:`heredoc_lsp.config.settings`; :data:`SERVER_KEYS` are read here and not passed on.

Config files are watched: through ``workspace/didChangeWatchedFiles`` when the client can register watchers, and
by a cheap stat poll otherwise (editors such as Neovim 0.10 cannot). A change re-checks every open document. A
broken config file gets its problems published as diagnostics on that file, a warning in the log, and the
defaults are used; it never stops the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lsprotocol import types

from heredoc_lsp.analysis.config_file import config_diagnostics, error_diagnostics, ignored_diagnostics
from heredoc_lsp.config import (
    CONFIG_FILE_NAME,
    DEFAULT_CONFIG,
    PYPROJECT_FILE_NAME,
    SETTINGS_SECTION,
    Config,
    ConfigError,
    IgnoredSetting,
    config_in_dir,
    effective_config,
    find_config,
    load_config,
    load_user_config,
    user_config_path,
)
from heredoc_lsp.fs import read_regular
from heredoc_lsp.lsp.diagnostics import to_lsp
from heredoc_lsp.lsp.documents import Document, uri_to_path
from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.syntax.text import decode_bytes, split_lines

if TYPE_CHECKING:
    from heredoc_lsp.lsp.feature import Server

log = logging.getLogger(__name__)

DiagnosticMode = Literal["auto", "push", "both"]
DIAGNOSTIC_MODES: tuple[str, ...] = ("auto", "push", "both")
# Keys of the heredocLsp settings that belong to the server itself (not to heredoc-lsp.toml).
SERVER_KEYS: tuple[str, ...] = ("diagnosticMode", "trusted")  # trusted: read by lsp.run.gate
POLL_SECONDS = 2.0
WATCHER_ID = "heredoc-lsp-config-files"
# How long the first analyses wait for the client's workspace/configuration answer.
SETTINGS_WAIT_SECONDS = 2.0

_Signature = tuple[tuple[str, int, int], ...]


def unwrap(settings: Any) -> dict[str, Any]:
    """The ``heredocLsp`` object of a settings payload (with or without the outer section name)."""
    if not isinstance(settings, Mapping):
        return {}
    inner = settings.get(SETTINGS_SECTION)
    if isinstance(inner, Mapping):
        return dict(inner)
    return dict(settings)


def merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """``top`` over ``base``, recursively for objects; a ``None`` in ``top`` leaves ``base``'s value."""
    out = dict(base)
    for key, value in top.items():
        if value is None and key in out:
            continue
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def _stat_signature(paths: list[Path]) -> _Signature:
    out: list[tuple[str, int, int]] = []
    for p in paths:
        try:
            st = os.stat(p)
            out.append((str(p), st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((str(p), -1, -1))
    return tuple(out)


@dataclass
class _LoadedConfig:
    config: Config
    error: ConfigError | None


def _read(load: Callable[[Path], Config], path: Path) -> _LoadedConfig:
    """The config file at ``path``; the defaults (and the error) when it is broken."""
    try:
        return _LoadedConfig(load(path), None)
    except ConfigError as exc:
        log.warning("%s; using the defaults", exc.format())
        return _LoadedConfig(DEFAULT_CONFIG, exc)


class SettingsManager(Feature):
    """Effective settings, the config per document, and watching config files (the first of ``server.features``)."""

    def __init__(self, server: Server) -> None:
        super().__init__(server)
        self.init_options: dict[str, Any] = {}
        self.client_settings: dict[str, Any] = {}
        self.diagnostic_mode: DiagnosticMode = "auto"
        # Bumped whenever the effective configuration may have changed; analyses compare it.
        self.generation = 0
        self._loaded: dict[Path, _LoadedConfig] = {}
        self._user: _LoadedConfig | None = None  # the user's own config file
        self._resolved: dict[tuple[str, str], Path | None] = {}
        self._effective: dict[Path | None, Config] = {}
        self._by_document: dict[str | None, tuple[int, Config]] = {}  # path -> (generation, config)
        self._roots: dict[str | None, Path | None] = {}
        self._config_problems: dict[str, list[types.Diagnostic]] = {}  # per config file URI (empty: cleared)
        self._signature: _Signature = ()
        self._poll_task: asyncio.Task[None] | None = None
        self._reported_settings: tuple[str, ...] = ()
        # Set once the client's settings are known (or it has none to give): the first diagnostics wait for it,
        # so a document is not checked once with the wrong settings and again a moment later.
        self._ready = False
        self._when_ready: list[Any] = []

    # -- wiring ------------------------------------------------------------------------------------------------
    def register(self) -> None:
        server = self.server

        @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
        def on_did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
            pushed = params.settings
            if isinstance(pushed, Mapping) and isinstance(pushed.get(SETTINGS_SECTION), Mapping):
                self._set_client_settings(unwrap(pushed))
            elif self._client_has_configuration():
                self._spawn(self._fetch_client_settings())

        @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
        def on_did_change_workspace_folders(params: types.DidChangeWorkspaceFoldersParams) -> None:
            # pygls has updated its folders already; roots and configs are looked up again.
            self._roots.clear()
            self._resolved.clear()
            self._changed()

        @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
        def on_did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
            names = (CONFIG_FILE_NAME, PYPROJECT_FILE_NAME)
            if any(c.uri.rsplit("/", 1)[-1] in names for c in params.changes):
                self.invalidate_files()

    def initialize(self, params: types.InitializeParams) -> None:
        self.init_options = unwrap(params.initialization_options)
        mode = self.init_options.get("diagnosticMode")
        if mode is not None:
            if mode in DIAGNOSTIC_MODES:
                self.diagnostic_mode = mode
            else:
                log.warning("heredocLsp.diagnosticMode: expected one of %s, got %r", ", ".join(DIAGNOSTIC_MODES), mode)

    # -- readiness -------------------------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        return self._ready

    def when_ready(self, callback: Any) -> None:
        """Run ``callback()`` once the client's settings are known (now, if they are)."""
        if self._ready:
            callback()
        else:
            self._when_ready.append(callback)

    async def wait_ready(self) -> None:
        if self._ready:
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def release() -> None:
            if not done.done():
                done.set_result(None)

        self._when_ready.append(release)
        await done

    def _set_ready(self) -> None:
        if self._ready:
            return
        self._ready = True
        callbacks, self._when_ready = self._when_ready, []
        for callback in callbacks:
            try:
                callback()
            except Exception:
                log.exception("settings-ready callback failed")

    def initialized(self) -> None:
        if self._client_has_configuration():
            self._spawn(self._fetch_client_settings(initial=True))
            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().call_later(SETTINGS_WAIT_SECONDS, self._set_ready)
        else:
            self._set_ready()
        if self.server.client.watched_files_registration:
            self._spawn(self._register_watchers())
        self._signature = _stat_signature(self._watched_paths())
        with contextlib.suppress(RuntimeError):  # no running loop (unit tests drive the manager directly)
            self._poll_task = asyncio.get_running_loop().create_task(self._poll())

    def saved(self, uri: str) -> None:
        if self.is_config_file(uri_to_path(uri)):
            self.invalidate_files()

    def _client_has_configuration(self) -> bool:
        return self.server.client.configuration

    def _spawn(self, coro: Any) -> None:
        try:
            asyncio.get_running_loop().create_task(coro)
        except RuntimeError:
            coro.close()

    async def _fetch_client_settings(self, initial: bool = False) -> None:
        try:
            answer = await self.server.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SETTINGS_SECTION)])
            )
        except Exception as exc:
            log.warning("workspace/configuration failed: %s", exc)
            self._set_ready()
            return
        first = answer[0] if answer else None
        settings = unwrap(first) if first is not None else {}
        if initial and not self._ready:
            # Nothing was checked yet: take the settings without announcing a change.
            self.client_settings = settings
            self.generation += 1
            self._effective.clear()
            self._set_ready()
        else:
            self._set_client_settings(settings)

    async def _register_watchers(self) -> None:
        watchers = [
            types.FileSystemWatcher(glob_pattern=f"**/{CONFIG_FILE_NAME}"),
            types.FileSystemWatcher(glob_pattern=f"**/{PYPROJECT_FILE_NAME}"),
        ]
        registration = types.Registration(
            id=WATCHER_ID,
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        try:
            await self.server.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
        except Exception as exc:  # the poll still notices changes
            log.info("could not register file watchers: %s", exc)

    # -- settings ----------------------------------------------------------------------------------------------
    def _set_client_settings(self, settings: dict[str, Any]) -> None:
        if settings == self.client_settings:
            return
        self.client_settings = settings
        self._changed()

    def effective_settings(self) -> dict[str, Any]:
        """The merged ``heredocLsp`` settings for heredoc-lsp.toml's keys (server-only keys removed)."""
        merged = merge(self.init_options, self.client_settings)
        for key in SERVER_KEYS:
            merged.pop(key, None)
        return merged

    def _changed(self) -> None:
        self.generation += 1
        self._effective.clear()
        self._by_document.clear()
        self.server.config_changed()

    # -- configuration per document ----------------------------------------------------------------------------
    def workspace_roots(self) -> list[Path]:
        try:
            ws = self.server.workspace
        except RuntimeError:
            return []
        roots: list[Path] = []
        for folder in ws.folders.values():
            p = uri_to_path(folder.uri)
            if p:
                roots.append(Path(p))
        if not roots and ws.root_path:
            roots.append(Path(ws.root_path))
        return roots

    def workspace_root_for(self, path: str | None) -> Path | None:
        """The innermost workspace folder holding ``path``, else None (cached until the folders change)."""
        if path is None:
            return None
        if path in self._roots:
            return self._roots[path]
        root = self._innermost_root(path)
        self._roots[path] = root
        return root

    def _innermost_root(self, path: str) -> Path | None:
        best: Path | None = None
        target = Path(path)
        for root in self.workspace_roots():
            if (target == root or root in target.parents) and (best is None or len(root.parts) > len(best.parts)):
                best = root
        return best

    def config_path_for(self, doc: Document) -> Path | None:
        root = self.workspace_root_for(doc.path)
        if root is not None:
            key = ("root", str(root))
            if key not in self._resolved:
                self._resolved[key] = config_in_dir(root)
            return self._resolved[key]
        if doc.path is None:
            return None
        directory = str(Path(doc.path).parent)
        key = ("walk", directory)
        if key not in self._resolved:
            self._resolved[key] = find_config(Path(directory))
        return self._resolved[key]

    def config_for(self, doc: Document) -> Config:
        """The configuration that applies to ``doc`` with the editor settings on top."""
        known = self._by_document.get(doc.path)
        if known is not None and known[0] == self.generation:
            return known[1]
        config = self._config_for(doc)
        self._by_document[doc.path] = (self.generation, config)
        return config

    def _config_for(self, doc: Document) -> Config:
        path = self.config_path_for(doc)
        cached = self._effective.get(path)
        if cached is not None:
            return cached
        loaded = self._load(path) if path is not None else None
        workspace = loaded.config if loaded is not None and loaded.error is None else None
        effective = effective_config(workspace, user=self.user_config(), settings=self.effective_settings())
        config, messages = effective.config, effective.settings_messages
        if path is not None and workspace is not None:
            self._publish_config_problems(path, None, effective.ignored)
            for item in effective.ignored:
                log.warning("%s", item.format())
        if messages and messages != self._reported_settings:
            self._reported_settings = messages
            for message in messages:
                log.warning("ignored setting: %s", message)
        self._effective[path] = config
        return config

    def user_config(self) -> Config:
        """The user's own config file (the defaults when there is none or it is broken: its problems are
        published on it)."""
        if self._user is None:
            path = user_config_path()
            self._user = _read(load_user_config, path)
            if path.is_file():
                self._publish_config_problems(path, self._user.error)
        return self._user.config

    def _load(self, path: Path) -> _LoadedConfig:
        loaded = self._loaded.get(path)
        if loaded is None:
            loaded = self._loaded[path] = _read(load_config, path)
            self._publish_config_problems(path, loaded.error)
        return loaded

    def _publish_config_problems(
        self, path: Path, error: ConfigError | None, ignored: tuple[IgnoredSetting, ...] = ()
    ) -> None:
        """Keep the problems of the config file at ``path`` (none: clear what was shown) for the publisher
        (:meth:`file_diagnostics`)."""
        uri = path.as_uri()
        if error is None and not ignored and not self._config_problems.get(uri):
            return
        diagnostics: list[types.Diagnostic] = []
        if error is not None or ignored:
            try:
                text = decode_bytes(read_regular(path)).text
            except OSError:
                text = ""
            lines = split_lines(text)
            codec = self.server.position_codec
            found = error_diagnostics(text, error) if error is not None else ignored_diagnostics(ignored)
            diagnostics = [to_lsp(uri, lines, codec, d) for d in found]
        self._config_problems[uri] = diagnostics
        self.server.diagnostics_changed(uri)

    def is_config_file(self, path: str | None) -> bool:
        return path is not None and Path(path).name in (CONFIG_FILE_NAME, PYPROJECT_FILE_NAME)

    def file_diagnostics(self, uri: str) -> list[types.Diagnostic] | None:
        """A config file's problems: for one open in the editor, from its current (maybe unsaved) text (the config
        in use stays the saved file's until it is saved); else those of the file on disk, once found."""
        doc = self.server.documents.get(uri)
        if doc is not None and doc.language is None and self.is_config_file(doc.path):
            assert doc.path is not None
            found = config_diagnostics(doc.text(), Path(doc.path), self.user_config(), self.effective_settings())
            return [to_lsp(doc.uri, doc.lines, self.server.position_codec, d) for d in found]
        return self._config_problems.get(uri)

    # -- watching ----------------------------------------------------------------------------------------------
    def _watched_paths(self) -> list[Path]:
        paths: set[Path] = {*self._loaded, user_config_path()}
        for root in self.workspace_roots():
            paths.add(root / CONFIG_FILE_NAME)
            paths.add(root / PYPROJECT_FILE_NAME)
        for resolved in self._resolved.values():
            if resolved is not None:
                paths.add(resolved)
        return sorted(paths)

    def invalidate_files(self) -> None:
        """Config files may have changed on disk: reload them and re-check open documents."""
        old_errors = {p for p, loaded in self._loaded.items() if loaded.error is not None}
        self._loaded.clear()
        self._user = None
        self._resolved.clear()
        self._by_document.clear()
        self._signature = _stat_signature(self._watched_paths())
        # A config that was broken must have its diagnostics refreshed (or cleared) even if no document uses it.
        for path in old_errors:
            if path.is_file():
                self._load(path)
            else:
                self._publish_config_problems(path, None)
        self._changed()

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                signature = _stat_signature(self._watched_paths())
                if signature != self._signature:
                    log.info("config files changed on disk")
                    self.invalidate_files()
            except Exception:
                log.exception("config poll failed")

    def closed(self, uri: str) -> None:
        # What is kept per document path is kept while it is open only.
        path = uri_to_path(uri)
        self._by_document.pop(path, None)
        self._roots.pop(path, None)

    def shutdown(self) -> None:
        if self._poll_task is not None:
            self._poll_task.cancel()
            self._poll_task = None
