"""The configuration as typed, immutable values (docs/configuration.md). No I/O here; see
:mod:`heredoc_lsp.config.load`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from heredoc_lsp.syntax.records import field, record
from heredoc_lsp.syntax.schema import CommandSchema

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Compat = Literal["arca-cli"]
    OutputFormat = Literal["text", "json"]
    Sandbox = Literal["auto", "bwrap", "none"]
    Confirm = Literal["always", "never"]

# The values of the aliases above, for their run-time versions (see __getattr__).
_LITERALS: dict[str, tuple[str, ...]] = {
    "Compat": ("arca-cli",),
    "OutputFormat": ("text", "json"),
    "Sandbox": ("auto", "bwrap", "none"),
    "Confirm": ("always", "never"),
}


def __getattr__(name: str) -> object:
    """The ``Literal`` aliases at run time (``typing.get_args`` works on them), built on first use: importing
    ``typing`` would cost ``check`` start-up time, and only type checkers and tests need them."""
    values = _LITERALS.get(name)
    if values is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from typing import Literal  # deferred: check start-up

    alias = Literal[values]  # type: ignore[valid-type]
    globals()[name] = alias
    return alias


DEFAULT_RUNNER: tuple[str, ...] = ("/bin/sh", "-c", "{command}")
# The shells whose syntax the `.cli` lints know (docs/checking.md): a runner's program by its file name.
_SHELLS = {"sh": "sh", "dash": "sh", "bash": "bash"}


def runner_shell(runner: tuple[str, ...]) -> str | None:
    """The shell dialect a runner's commands are judged by: ``"sh"`` (POSIX sh, as dash reads it) for ``sh`` or
    ``dash``, ``"bash"`` for ``bash`` (``env bash`` included), None for any other program (no shell lints)."""
    words = list(runner)
    if words and words[0].rsplit("/", 1)[-1] == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return _SHELLS.get(words[0].rsplit("/", 1)[-1]) if words else None


CONFIG_FILE_NAME = "heredoc-lsp.toml"
PYPROJECT_FILE_NAME = "pyproject.toml"
# The user's own config file, under $XDG_CONFIG_HOME (default ~/.config): same schema, trusted with everything.
USER_CONFIG_DIR = "heredoc-lsp"
USER_CONFIG_FILE_NAME = "config.toml"

# The settings a workspace file may only make stricter (docs/configuration.md), as dotted TOML keys.
SAFETY_KEYS: tuple[str, ...] = (
    "executor.sandbox",
    "executor.allow_network",
    "executor.confirm",
    "executor.env",
    "executor.timeout_s",
    "script.runner",
)


@record
class WrittenKey:
    """A key a config file sets, where it is written: 1-based line and columns of the key's name (0 when unknown,
    e.g. for editor settings)."""

    key: str
    line: int
    column: int
    end_column: int


@record
class ExecutorSettings:
    """The ``[executor]`` table: how commands run (docs/security.md)."""

    timeout_s: float = 30
    sandbox: Sandbox = "auto"
    allow_network: bool = False
    max_output_chars: int = 4000
    confirm: Confirm = "always"
    env: tuple[str, ...] = ()


@record
class LintSettings:
    """The ``[lint]`` table: which codes ``check`` reports. ``select`` None means every code; ``per_file_ignores``
    maps a glob (gitignore style, relative to the config file's folder) to codes ignored in matching files."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@record
class Config:
    """Everything heredoc-lsp reads from ``heredoc-lsp.toml`` / ``[tool.heredoc-lsp]``, with defaults filled in.

    ``source`` is the file it came from (None for the built-in defaults). ``commands`` maps a configured command
    name to its body schema; look it up with :func:`heredoc_lsp.syntax.schema.lookup_schema`. ``written`` lists
    the keys the file itself sets (the others are defaults), so layers can be merged key by key.
    """

    compat: Compat | None = None
    cli_output: OutputFormat = "text"
    script_runner: tuple[str, ...] = DEFAULT_RUNNER
    executor: ExecutorSettings = field(default_factory=ExecutorSettings)
    commands: Mapping[str, CommandSchema] = field(default_factory=dict)
    source: Path | None = None
    lint: LintSettings = field(default_factory=LintSettings)
    written: tuple[WrittenKey, ...] = field(default=(), compare=False)

    @property
    def shell(self) -> str | None:
        """The dialect of the runner's shell (:func:`runner_shell`): what ``shell_syntax`` and ``bashism`` judge."""
        return runner_shell(self.script_runner)

    def written_key(self, key: str) -> WrittenKey | None:
        """Where the file sets ``key`` (a dotted TOML key), or None when it leaves it to the defaults."""
        for w in self.written:
            if w.key == key:
                return w
        return None


DEFAULT_CONFIG = Config()


@record
class ConfigProblem:
    """One thing wrong in a config file. ``line`` and ``column`` are 1-based; 0 when unknown."""

    path: Path | None
    line: int
    column: int
    key: str
    message: str

    def format(self, display_path: str | None = None) -> str:
        """``heredoc-lsp.toml:12: error: executor.timeout_s: expected ...``"""
        where = display_path if display_path is not None else (str(self.path) if self.path else "<settings>")
        if self.line > 0:
            where = f"{where}:{self.line}"
        return f"{where}: error: {self.message}"


class ConfigError(Exception):
    """A config file that cannot be used. Holds every problem found, in file order."""

    def __init__(self, problems: tuple[ConfigProblem, ...]) -> None:
        super().__init__("\n".join(p.format() for p in problems))
        self.problems = problems

    @property
    def path(self) -> Path | None:
        return self.problems[0].path if self.problems else None

    def format(self, display_path: str | None = None) -> str:
        return "\n".join(p.format(display_path) for p in self.problems)
