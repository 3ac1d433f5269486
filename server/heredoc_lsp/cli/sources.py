"""Pieces shared by ``check`` and ``parse``: reading a document, its config and its workspace."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from heredoc_lsp.config.effective import EffectiveConfig
from heredoc_lsp.config.load import ConfigResolver
from heredoc_lsp.config.model import Config, ConfigError
from heredoc_lsp.languages import Language

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

LANGUAGE_CHOICES = tuple(lang.value for lang in Language)


class UsageError(Exception):
    """Bad command-line input: printed as ``heredoc-lsp <cmd>: error: ...``, exit code 2."""


def display_path(path: Path) -> str:
    """``path`` relative to the current directory when it is inside it, else absolute."""
    absolute = path.absolute()
    try:
        rel = os.path.relpath(absolute)
    except ValueError:
        return str(absolute)
    return str(absolute) if rel.startswith("..") else rel


def config_error_lines(exc: ConfigError) -> list[str]:
    """``heredoc-lsp.toml:LINE: error: ...`` for every problem, the path shown relative to the current directory."""
    shown = display_path(exc.path) if exc.path is not None else None
    return [p.format(shown) for p in exc.problems]


def explicit_config(value: str | None) -> Path | None:
    """The ``--config FILE`` path, checked to exist."""
    return _explicit(value, Path.is_file, "config file not found")


def explicit_workspace(value: str | None) -> Path | None:
    return _explicit(value, Path.is_dir, "workspace is not a directory")


def _explicit(value: str | None, exists: Callable[[Path], bool], missing: str) -> Path | None:
    if value is None:
        return None
    if not exists(Path(value)):
        raise UsageError(f"{missing}: {value}")
    return Path(value)


class Source:
    """A document to read: ``path`` is None for standard input, and ``stands_for`` then the file the piped buffer
    is (``--stdin-filename``: its config and per-file ignores apply). (A plain class: start-up time matters here.)"""

    __slots__ = ("display", "language", "path", "stands_for")

    def __init__(self, display: str, path: Path | None, language: Language, stands_for: Path | None = None) -> None:
        self.display = display
        self.path = path
        self.language = language
        self.stands_for = stands_for

    @property
    def location(self) -> Path | None:
        """Where the document is, or is meant to be: its path, or for a piped buffer the name it was given."""
        return self.path if self.path is not None else self.stands_for


def read_source(source: Source) -> bytes:
    """The document's bytes; OSError propagates, also for a FIFO or device (opened without blocking, refused
    before any read: it could wait forever)."""
    if source.path is None:
        return sys.stdin.buffer.read()
    from heredoc_lsp.fs import NotRegularFile, read_regular  # deferred: check start-up

    try:
        return read_regular(source.path)
    except NotRegularFile:
        raise OSError(f"{source.display} is not a regular file") from None


def config_for(resolver: ConfigResolver, source: Source) -> Config:
    """Raises ConfigError."""
    return effective_for(resolver, source).config


def effective_for(resolver: ConfigResolver, source: Source) -> EffectiveConfig:
    """The effective config of ``source`` and the workspace settings it ignores. Raises ConfigError."""
    anchor = source.location if source.location is not None else Path.cwd() / "stdin"
    return resolver.resolve(anchor)


def workspace_for(source: Source, config: Config, explicit: Path | None) -> Path | None:
    """Inbox replies get a workspace for the file-system checks; other formats need none."""
    if source.language is not Language.INBOX:
        return None
    if explicit is not None:
        return explicit
    if source.location is None:
        return Path.cwd()
    from heredoc_lsp.analysis.core import default_workspace  # deferred: check start-up

    return default_workspace(source.location, config)


def write_stdout(text: str) -> None:
    """UTF-8 on stdout whatever the locale says."""
    from heredoc_lsp.cli.output import write  # deferred: check start-up

    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        write(sys.stdout, text)
        return
    sys.stdout.flush()
    try:
        buffer.write(text.encode("utf-8", "replace"))
        buffer.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise
