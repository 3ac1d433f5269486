"""``heredoc-lsp check [PATH...]``: report every problem in every supported file (docs/checking.md), fix what can be
fixed (``--fix``, ``--diff``), choose codes (``--select``, ``--ignore``, ``[lint]``) and re-check on change
(``--watch``).

Exit codes: 0 no errors (with ``--strict``: no errors and no warnings; always with ``--exit-zero``), 1 problems
(with ``--diff``: a fix would change a file), 2 usage errors, a missing path or an unreadable file. A broken config
file is reported as ``config_error`` diagnostics on that file, and the files it governs are checked with the
defaults. Only the standard library and heredoc_lsp's own pure modules are imported on the plain path (start-up
time: deferred imports below are marked "start-up").
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from heredoc_lsp.cli.names import did_you_mean
from heredoc_lsp.cli.sources import LANGUAGE_CHOICES, Source, UsageError
from heredoc_lsp.fs import TreeWalk, read_regular
from heredoc_lsp.syntax.lazy_re import lazy_compile
from heredoc_lsp.syntax.visible import visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

    from heredoc_lsp.config.model import Config, ConfigError
    from heredoc_lsp.syntax.diagnostics import Diagnostic

# Directories never descended into (explicitly named ones are checked anyway).
SKIPPED_DIRS: dict[str, str] = {
    ".git": "version control",
    ".hg": "version control",
    ".svn": "version control",
    "node_modules": "npm packages",
    ".venv": "virtual environment",
    "venv": "virtual environment",
    "__pycache__": "Python cache",
    ".mypy_cache": "cache",
    ".ruff_cache": "cache",
    ".pytest_cache": "cache",
    ".tox": "tox environments",
}

_GLOB_SPLIT = lazy_compile(r"[*?/]+")
WATCH_TICK_MS = 200  # how often --watch's generator wakes up when nothing changes
OUTPUT_FORMATS = ("text", "full", "concise", "json", "github", "sarif", "gitlab", "junit")

# Every option of ``check``, declared once: ``add_arguments`` builds the argparse parser from it and ``simple_args``
# (the argparse-free fast path) reads the same table. (flags, dest, kind, default, choices, metavar, help); kind is
# "flag" (store_true), "value" (one value) or "list" (comma-separated values, repeatable, added up).
OPTIONS: tuple[tuple[tuple[str, ...], str, str, Any, tuple[str, ...] | None, str | None, str], ...] = (
    (("--output-format", "--format"), "output_format", "value", "text", OUTPUT_FORMATS, None, "output format"),
    (("--strict",), "strict", "flag", False, None, None, "warnings fail too (exit 1)"),
    (("--exit-zero",), "exit_zero", "flag", False, None, None, "exit 0 even when there are problems"),
    (
        ("--select",),
        "select",
        "list",
        None,
        None,
        "CODES",
        "report only these codes (comma-separated; ALL: every code)",
    ),
    (("--extend-select",), "extend_select", "list", [], None, "CODES", "report these codes too"),
    (("--ignore",), "ignore", "list", [], None, "CODES", "never report these codes"),
    (("--fix",), "fix", "flag", False, None, None, "apply the safe fixes to the files and report what is left"),
    (("--unsafe-fixes",), "unsafe_fixes", "flag", False, None, None, "with --fix/--diff: fixes that change what runs"),
    (
        ("--diff",),
        "diff",
        "flag",
        False,
        None,
        None,
        "show the fixes as a diff instead of writing them (exit 1 if any)",
    ),
    (("--exclude",), "exclude", "list", [], None, "GLOBS", "skip paths matching these gitignore-style globs"),
    (
        ("--force-exclude",),
        "force_exclude",
        "flag",
        False,
        None,
        None,
        "a path named here that --exclude matches is skipped quietly (for editors that pass every buffer)",
    ),
    (("--no-respect-gitignore",), "no_respect_gitignore", "flag", False, None, None, "check files .gitignore lists"),
    (("--watch",), "watch", "flag", False, None, None, "check again whenever a file changes (Ctrl-C stops)"),
    (("--no-color",), "no_color", "flag", False, None, None, "never colour the output"),
    (("--config",), "config", "value", None, None, "FILE", "use this config file for every file"),
    (
        ("--language",),
        "language",
        "value",
        None,
        LANGUAGE_CHOICES,
        None,
        "the format of the files named on the command line (needed when their name does not tell)",
    ),
    (
        ("--command",),
        "command",
        "value",
        None,
        None,
        "NAME",
        "with --language params: the command whose schema applies",
    ),
    (
        ("--workspace",),
        "workspace",
        "value",
        None,
        None,
        "DIR",
        "root that inbox paths are checked against (default: the folder holding inbox/, else the config file's "
        "folder, else the reply's folder)",
    ),
    (
        ("--stdin-filename",),
        "stdin_filename",
        "value",
        None,
        None,
        "PATH",
        "the file standard input ('-') stands for: its format, config and per-file ignores apply, and it is shown",
    ),
    (
        ("--statistics",),
        "statistics",
        "flag",
        False,
        None,
        None,
        "instead of each problem, how many of each code (most first)",
    ),
    (("-q", "--quiet"), "quiet", "flag", False, None, None, "print the problems and nothing else (no summary line)"),
    (
        ("-o", "--output-file"),
        "output_file",
        "value",
        None,
        None,
        "FILE",
        "write the report to FILE instead of standard output (replaced whole: never half-written)",
    ),
    (
        ("--show-fixes",),
        "show_fixes",
        "flag",
        False,
        None,
        None,
        "after the report, list the fixes applied (with --fix) or available, per file and code",
    ),
    (
        ("--add-noqa",),
        "add_noqa",
        "flag",
        False,
        None,
        None,
        "silence every problem found: add '# heredoc-lsp: disable=CODE' directives to the files (as ruff's "
        "--add-noqa), then report what no directive can silence",
    ),
    (("-v", "--verbose"), "verbose", "flag", False, None, None, "say which files are checked and skipped"),
)


def _split_codes(value: str) -> list[str]:
    return [c.strip(" \t") for c in value.split(",") if c.strip(" \t")]


DESCRIPTION = (
    "Check every supported file under the PATHs (default: the current directory): *.cli, "
    "*.inbox, **/inbox/*.txt, *.outbox, **/outbox/*_seqNNNN.txt. Exit 0 when there are no errors, 1 when there "
    "are, 2 on usage errors. 'heredoc-lsp rule CODE' explains a code."
)
ALLOW_ABBREV = False  # as ruff: a shortened option is unknown (and the fast path reads whole ones only)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or directories ('-' reads standard input)")
    for flags, dest, kind, default, choices, metavar, help_text in OPTIONS:
        if kind == "flag":
            p.add_argument(*flags, dest=dest, action="store_true", help=help_text)
        elif kind == "value":
            p.add_argument(*flags, dest=dest, default=default, choices=choices, metavar=metavar, help=help_text)
        else:
            p.add_argument(
                *flags, dest=dest, action="extend", type=_split_codes, default=default, metavar=metavar, help=help_text
            )
    p.set_defaults(handler=run)


_LAST: list[object] = []


def simple_args(words: Sequence[str]) -> Any:
    """The arguments of ``check WORDS`` read with :data:`OPTIONS` but without argparse (its import and set-up are
    a tenth of a check's start-up), when the words are known options (``--opt VALUE`` or ``--opt=VALUE``) and one
    run of paths; None otherwise (then argparse parses them, errors and ``--help`` included). The result has the
    attributes that argparse's namespace would have."""
    from types import SimpleNamespace  # deferred: check start-up

    values: dict[str, Any] = {"subcommand": "check", "paths": []}
    by_flag: dict[str, tuple[str, str, tuple[str, ...] | None]] = {}
    for flags, dest, kind, default, choices, _, _ in OPTIONS:
        values[dest] = list(default) if isinstance(default, list) else default
        for flag in flags:
            by_flag[flag] = (dest, kind, choices)
    values["handler"] = run
    paths_ended = False
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        name, eq, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        found = by_flag.get(name)
        if found is not None:
            dest, kind, choices = found
            if kind == "flag":
                if eq:
                    return None
                values[dest] = True
            else:
                if not eq:
                    if i >= len(words) or words[i].startswith("-"):
                        return None
                    inline = words[i]
                    i += 1
                if kind == "value":
                    if choices is not None and inline not in choices:
                        return None
                    values[dest] = inline
                else:
                    values[dest] = [*(values[dest] or []), *_split_codes(inline)]
            paths_ended = bool(values["paths"])
        elif word.startswith("-") and word != "-":
            return None
        elif paths_ended:
            return None  # paths, options, paths: argparse rejects the second run
        else:
            values["paths"].append(word)
    return SimpleNamespace(**values)


class _Run:
    """What the file discovery found and whether something already forces exit code 2."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.sources: list[Source] = []
        self.seen: set[str] = set()
        self.failed = False
        self.origin: dict[str, str] = {}  # source key -> the path named on the command line it came from
        self.why: dict[str, str] = {}  # named path -> why it was not checked (when it was skipped whole)
        self.quiet: set[str] = set()  # named paths skipped on purpose (--force-exclude)
        self.named = ""  # the named path being collected
        self.stdin_data = b""  # standard input as read

    def note(self, message: str, *, always: bool = False) -> None:
        if always or self.verbose:
            sys.stderr.write(f"heredoc-lsp check: {visible(message, one_line=True)}\n")

    def add(self, source: Source) -> None:
        key = str(source.path.absolute()) if source.path is not None else "-"
        if key not in self.seen:
            self.seen.add(key)
            self.origin[key] = self.named
            self.sources.append(source)

    def named_of(self, source: Source) -> str:
        return self.origin.get(str(source.path.absolute()) if source.path is not None else "-", "")


class _Ignores:
    """``--exclude`` globs (matched against paths as shown, relative to the current directory) and the
    ``.gitignore`` files of the walked folders and of their parents up to the repository root."""

    def __init__(self, exclude: Sequence[str], gitignore: bool) -> None:
        self.gitignore = gitignore
        self.exclude = None
        if exclude:
            import pathspec  # deferred: check start-up: only with --exclude

            self.exclude = pathspec.GitIgnoreSpec.from_lines(exclude)

    def excluded(self, shown: str, is_dir: bool) -> bool:
        if self.exclude is None:
            return False
        rel = os.path.normpath(shown).replace(os.sep, "/") + ("/" if is_dir else "")
        return bool(self.exclude.match_file(rel))

    def spec_of(self, directory: Path) -> _GitIgnore | None:
        """The ``.gitignore`` of ``directory``, if it has one."""
        if not self.gitignore:
            return None
        try:
            text = read_regular(directory / ".gitignore").decode("utf-8", errors="replace")
        except OSError:
            return None
        from heredoc_lsp.syntax.text import split_lines  # deferred: check start-up

        return _GitIgnore(directory.absolute(), split_lines(text))

    def parents_of(self, directory: Path) -> list[_GitIgnore]:
        """The .gitignore specs of ``directory``'s parents up to the repository root (outermost first); none
        outside a git repository."""
        if not self.gitignore:
            return []
        chain: list[Path] = []
        here = directory.absolute()
        while True:
            if (here / ".git").exists():
                break
            if here.parent == here:
                return []
            here = here.parent
            chain.append(here)
        specs = [self.spec_of(d) for d in reversed(chain)]
        return [s for s in specs if s is not None]

    @staticmethod
    def ignored_by(specs: Sequence[_GitIgnore], path: Path, is_dir: bool) -> bool:
        absolute = path.absolute()
        for spec in reversed(specs):  # the innermost .gitignore that has a say decides
            try:
                rel = absolute.relative_to(spec.base).as_posix()
            except ValueError:
                continue
            decided = spec.decide(rel + ("/" if is_dir else ""))
            if decided is not None:
                return decided
        return False


class _GitIgnore:
    """One ``.gitignore``, matched by pathspec. pathspec is imported (a sixth of a ``check`` start-up) and the
    patterns compiled only once some pattern may match a path: a gitwildmatch pattern matches only paths that
    hold each of its literal runs (the text between ``*``, ``?`` and ``/``); a pattern with ``[`` or ``\\``
    always may."""

    def __init__(self, base: Path, lines: Sequence[str]) -> None:
        self.base = base
        self.lines = lines
        self.literals: list[list[str] | None] = []
        for line in lines:
            pattern = line.rstrip(" ")
            if not pattern or pattern.startswith("#"):
                continue
            pattern = pattern.removeprefix("!")
            if "[" in pattern or "\\" in pattern:
                self.literals.append(None)
            else:
                self.literals.append([run for run in _GLOB_SPLIT.split(pattern) if run])
        self.spec: Any = None

    def decide(self, rel: str) -> bool | None:
        """True: ignored; False: re-included by a ``!`` pattern; None: no pattern matches."""
        if not any(runs is None or all(run in rel for run in runs) for runs in self.literals):
            return None
        if self.spec is None:
            import pathspec  # deferred: check start-up: only when a pattern may match

            self.spec = pathspec.GitIgnoreSpec.from_lines(self.lines)
        include = self.spec.check_file(rel).include
        return None if include is None else bool(include)


def _skip_reason(entry: os.DirEntry[str]) -> str | None:
    reason = SKIPPED_DIRS.get(entry.name)
    if reason is not None:
        return reason
    if os.path.isfile(os.path.join(entry.path, "pyvenv.cfg")):
        return "virtual environment"
    return None


def _walk(run: _Run, directory: Path, display: str, ignores: _Ignores, specs: list[_GitIgnore]) -> None:
    """Collect the sources under ``directory`` (:class:`heredoc_lsp.fs.TreeWalk`: no recursion, bounded)."""
    from heredoc_lsp.languages import language_from_path  # deferred: check start-up

    def unreadable(path: str, exc: OSError, context: tuple[str, list[_GitIgnore]]) -> None:
        run.note(f"cannot read directory {context[0]}: {exc.strerror or exc}", always=True)
        run.failed = True

    own = ignores.spec_of(directory)
    walk = TreeWalk(directory, (display, [*specs, own] if own is not None else specs), on_error=unreadable)
    for entry, (folder, folder_specs) in walk:
        shown = entry.name if folder == "." else os.path.join(folder, entry.name)
        path = Path(entry.path)
        is_dir = entry.is_dir(follow_symlinks=False)
        if ignores.excluded(shown, is_dir):
            run.note(f"skipping {shown}{os.sep if is_dir else ''} (--exclude)")
            continue
        if folder_specs and ignores.ignored_by(folder_specs, path, is_dir):
            run.note(f"skipping {shown}{os.sep if is_dir else ''} (.gitignore)")
            continue
        if is_dir:
            reason = _skip_reason(entry)
            if reason is not None:
                run.note(f"skipping {shown}{os.sep} ({reason})")
                continue
            inner = ignores.spec_of(path)
            if not walk.enter(entry, (shown, [*folder_specs, inner] if inner is not None else folder_specs)):
                run.note(f"skipping {shown}{os.sep} (more than {walk.max_depth} folders deep)", always=True)
        elif entry.is_symlink() and os.path.isdir(path):
            run.note(f"skipping {shown} (symbolic link to a directory)")
        elif entry.is_symlink() and not os.path.exists(path):
            run.note(f"skipping {shown} (broken symbolic link)")
        else:
            language = language_from_path(path)
            if language is None:
                continue
            if not entry.is_file():  # a FIFO or a device would block the read
                run.note(f"skipping {shown} (not a regular file)", always=True)
                continue
            run.add(Source(shown, path, language))
    if walk.cut:
        run.note(f"stopped after {walk.max_entries} entries under {display}", always=True)


def _collect(run: _Run, args: argparse.Namespace) -> None:
    import stat  # deferred: check start-up

    from heredoc_lsp.languages import Language, language_from_path  # deferred: check start-up

    given: list[str] = args.paths or (["-"] if args.stdin_filename else ["."])
    forced = Language(args.language) if args.language else None
    missing = [p for p in given if p != "-" and not os.path.lexists(p)]
    if missing:
        raise UsageError("; ".join(f"path not found: {p}" for p in missing))
    ignores = _Ignores(args.exclude, not args.no_respect_gitignore)
    for raw in given:
        run.named = raw
        if raw == "-":
            named = Path(args.stdin_filename) if args.stdin_filename else None
            language = forced or (language_from_path(named) if named is not None else None)
            if language is None:
                raise UsageError(
                    "reading standard input ('-') needs --language cli|params|inbox|outbox|bash, or a "
                    "--stdin-filename whose name tells"
                )
            run.add(Source(args.stdin_filename or "<stdin>", None, language, named))
            continue
        path = Path(raw)
        if path.is_dir():
            if ignores.excluded(raw, True):
                _skip_named(run, raw, "--exclude", args.force_exclude)
                continue
            _walk(run, path, os.path.normpath(raw), ignores, ignores.parents_of(path))
            continue
        if ignores.excluded(raw, False):
            _skip_named(run, raw, "--exclude", args.force_exclude)
            continue
        try:
            regular = stat.S_ISREG(os.stat(path).st_mode)
        except OSError as exc:
            run.note(f"cannot read {raw}: {exc.strerror or exc}", always=True)
            run.failed = True
            continue
        if not regular:
            run.why[raw] = "not a regular file"
            continue
        language = forced or language_from_path(path)
        if language is None:
            raise UsageError(
                f"cannot tell the format of {raw} from its name (expected *.cli, *.inbox, inbox/*.txt, *.outbox "
                "or outbox/*_seqNNNN.txt); use --language cli|params|inbox|outbox"
            )
        run.add(Source(raw, path, language))


def _skip_named(run: _Run, raw: str, why: str, quietly: bool) -> None:
    if quietly:
        run.quiet.add(raw)
        run.note(f"skipping {raw} ({why})")
    else:
        run.why[raw] = why


def _account(run: _Run, given: Sequence[str], checked_from: set[str]) -> bool:
    """Warn about each path named on the command line of which nothing was checked; True when there was one."""
    missed = False
    for raw in dict.fromkeys(given):
        if raw in checked_from or raw in run.quiet:
            continue
        why = run.why.get(raw)
        if why is None:
            why = "no supported file in it" if os.path.isdir(raw) else "nothing in it could be checked"
        run.note(f"warning: {raw} was not checked ({why})", always=True)
        missed = True
    return missed


class _Counts:
    def __init__(self) -> None:
        self.files = 0
        self.by_severity: dict[int, int] = {1: 0, 2: 0, 3: 0, 4: 0}
        self.suppressed = 0
        self.ignored = 0
        self.fixed = 0
        self.fixed_files = 0
        self.unsafe_available = 0
        self.would_change = 0
        self.fixed_codes: list[tuple[str, list[str]]] = []  # per file changed by --fix/--diff: the codes fixed
        self.directives = 0  # codes written into directives by --add-noqa
        self.directive_files = 0


class _Selection:
    """Which codes are reported in one file: ``[lint]`` of its config, then the command line, then the config's
    per-file ignores that match it."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        if args.select is None and not args.extend_select and not args.ignore:
            return
        from heredoc_lsp.rules import (
            RULES,  # deferred: check start-up: only when codes are given
            unknown_codes,  # deferred: check start-up: only when codes are given
        )

        for flag, codes in (
            ("--select", args.select),
            ("--extend-select", args.extend_select),
            ("--ignore", args.ignore),
        ):
            unknown = unknown_codes(codes or [])
            if unknown:
                shown = ", ".join(f"'{c}'{did_you_mean(c, list(RULES))}" for c in unknown)
                raise UsageError(f"unknown code {shown} in {flag} (see 'heredoc-lsp rule --all')")

    def for_file(self, config: Config, path: Path | None) -> Callable[[str], bool]:
        lint = config.lint
        args = self.args
        cli_default = args.select is None and not args.ignore and not args.extend_select
        if cli_default and lint.select is None and not lint.ignore and not lint.per_file_ignores:
            return _everything
        select = args.select if args.select is not None else lint.select
        everything = select is None or "ALL" in select
        chosen = frozenset(select or ()) | frozenset(lint.extend_select) | frozenset(args.extend_select)
        ignored = set(lint.ignore) | set(args.ignore)
        if lint.per_file_ignores and path is not None and config.source is not None:
            ignored |= _per_file_ignored(lint.per_file_ignores, config.source.absolute().parent, path)
        frozen = frozenset(ignored)
        return lambda code: (everything or code in chosen) and code not in frozen


def _everything(code: str) -> bool:
    return True


def _note_per_file_ignores(
    run_state: _Run, source: Source, config: Config, found: Sequence[Diagnostic], selected: Callable[[str], bool]
) -> None:
    """``-v``: what the config's per-file ignores removed from one file."""
    table = config.lint.per_file_ignores
    if not table or source.location is None or config.source is None:
        return
    codes = _per_file_ignored(table, config.source.absolute().parent, source.location)
    removed = [d for d in found if d.code in codes and not selected(d.code)]
    if removed:
        names = ", ".join(sorted({d.code for d in removed}))
        run_state.note(f"per-file-ignores of {config.source} removed {len(removed)} from {source.display} ({names})")


def _per_file_ignored(table: Any, base: Path, path: Path) -> set[str]:
    import pathspec  # deferred: check start-up: only with per-file-ignores

    try:
        rel = path.absolute().relative_to(base).as_posix()
    except ValueError:
        return set()
    out: set[str] = set()
    for glob, codes in table.items():
        if pathspec.GitIgnoreSpec.from_lines([glob]).match_file(rel):
            out |= set(codes)
    return out


def run(args: argparse.Namespace) -> int:
    import gc  # deferred: check start-up

    from heredoc_lsp.cli.output import error_exit  # deferred: check start-up

    # A short-lived process whose parsers allocate many small acyclic objects: the cyclic collector would only
    # re-scan them (it doubles the parse time of a large file). Cycles are collected between files instead.
    gc.disable()
    try:
        if args.watch:
            return _watch(args)
        return _check(args)
    except UsageError as exc:
        return error_exit(str(exc), "heredoc-lsp check")


def _watch(args: argparse.Namespace) -> int:
    """Check, then check again after every batch of changes under the paths, until interrupted."""
    import watchfiles  # deferred: check start-up: only with --watch

    if "-" in (args.paths or []):
        raise UsageError("--watch cannot read standard input ('-')")
    roots = [os.path.abspath(p) for p in (args.paths or ["."])]
    # The watcher starts on the generator's first step (it yields an empty set after WATCH_TICK_MS without
    # changes): started before the first check, it misses no change made during that check.
    batches = watchfiles.watch(*roots, raise_interrupt=False, yield_on_timeout=True, rust_timeout=WATCH_TICK_MS)
    next(batches, None)
    _check(args)
    sys.stderr.write("heredoc-lsp check: watching for changes (Ctrl-C stops)\n")
    sys.stderr.flush()
    for changes in batches:
        if not changes:
            continue
        sys.stderr.write(f"heredoc-lsp check: {len(changes)} change(s), checking again\n")
        _check(args)
        sys.stderr.flush()
    return 0


def _usage_conflicts(args: argparse.Namespace) -> None:
    if args.diff and args.output_format not in ("text", "full"):
        raise UsageError("--diff shows a diff; it takes no --output-format")
    if args.show_fixes and args.diff:
        raise UsageError("--show-fixes cannot be used with --diff (the diff shows the fixes)")
    if args.add_noqa and (args.fix or args.diff):
        raise UsageError("--add-noqa cannot be used with --fix or --diff (silence the problems, or fix them)")
    if args.add_noqa and args.watch:
        raise UsageError("--add-noqa cannot be used with --watch")
    given = args.paths or (["-"] if args.stdin_filename else [])
    if args.add_noqa and "-" in given:
        raise UsageError("--add-noqa changes files; it cannot read standard input ('-')")
    if args.unsafe_fixes and not (args.fix or args.diff):
        sys.stderr.write("heredoc-lsp check: warning: --unsafe-fixes does nothing without --fix or --diff\n")


class _Report:
    """Where the report goes: standard output; standard error when standard output carries the fixed buffer
    (``--fix`` of standard input, as ruff does); or ``--output-file``, written whole and atomically at the end."""

    def __init__(self, output_file: str | None, *, to_stderr: bool) -> None:
        self.output_file = output_file
        self.to_stderr = to_stderr and output_file is None
        self.parts: list[str] = []

    @property
    def terminal(self) -> Any:
        """The stream whose being a terminal decides the colour (None: a file, never coloured)."""
        if self.output_file is not None:
            return None
        return sys.stderr if self.to_stderr else sys.stdout

    def write(self, text: str) -> None:
        from heredoc_lsp.cli.sources import write_stdout  # deferred: check start-up

        if self.output_file is not None:
            self.parts.append(text)
        elif self.to_stderr:
            sys.stderr.write(text)
        else:
            write_stdout(text)

    def close(self) -> None:
        if self.output_file is None:
            return
        from heredoc_lsp.cli.fix import write_atomic  # deferred: check start-up

        try:
            write_atomic(Path(self.output_file), "".join(self.parts).encode("utf-8"), create=True)
        except OSError as exc:
            raise UsageError(f"cannot write {self.output_file}: {exc.strerror or exc}") from None


def _check(args: argparse.Namespace) -> int:
    import gc  # deferred: check start-up

    from heredoc_lsp.analysis.core import analyze_bytes  # deferred: check start-up
    from heredoc_lsp.cli.output import use_color  # deferred: check start-up
    from heredoc_lsp.cli.sources import explicit_config, explicit_workspace, workspace_for  # deferred: check start-up
    from heredoc_lsp.config.load import ConfigResolver  # deferred: check start-up

    _usage_conflicts(args)
    config_path = explicit_config(args.config)
    workspace = explicit_workspace(args.workspace)
    selection = _Selection(args)
    run_state = _Run(args.verbose)
    _collect(run_state, args)
    stdin_fixed = args.fix and any(source.path is None for source in run_state.sources)
    report = _Report(args.output_file, to_stderr=stdin_fixed)
    buffer_out: list[bytes] = []  # --fix of standard input: the buffer as it ends, for standard output

    resolver = ConfigResolver(config_path)
    broken: dict[str, tuple[str, list[Diagnostic]]] = {}
    warned: dict[str, tuple[str, list[Diagnostic]]] = {}  # ignored_setting warnings per workspace config file
    results: list[tuple[str, list[Diagnostic]]] = []
    checked: list[str] = []
    checked_from: set[str] = set()
    frames: dict[str, Sequence[str]] = {}  # the lines of each file with problems, for the code frames
    offers: dict[int, Any] = {}  # id of a shown diagnostic -> the fix offered for it (cli.fix.Offer)
    wants_offers = args.show_fixes or (not args.statistics and args.output_format in ("text", "full", "json", "sarif"))
    counts = _Counts()
    for source in run_state.sources:
        data = _read(run_state, source)
        if data is None:
            if stdin_fixed and source.path is None:
                buffer_out.append(run_state.stdin_data)  # binary: given back as it came
            continue
        config = _config(run_state, resolver, source, broken, warned)
        if args.verbose:
            where = f", config {config.source}" if config.source is not None else ""
            run_state.note(f"checking {source.display} ({source.language.value}{where})")
        ws = workspace_for(source, config, workspace)
        selected = selection.for_file(config, source.location)
        analysis = analyze_bytes(data, source.language, config, workspace=ws, command=args.command)
        fixed_buffer = data
        if (args.fix or args.diff) and analysis.diagnostics:
            analysis, fixed_buffer = _fix(run_state, source, data, analysis, config, ws, selected, args, counts, report)
        if args.add_noqa and analysis.diagnostics:
            analysis = _add_noqa(run_state, source, data, analysis, config, ws, selected, args, counts)
        if stdin_fixed and source.path is None:
            buffer_out.append(fixed_buffer)
        _LAST[:] = (analysis,)  # the last file's parse is not freed on return (see cli.main._exit_now)
        counts.files += 1
        checked.append(source.display)
        checked_from.add(run_state.named_of(source))
        if counts.files % 64 == 0:
            gc.collect()
        counts.suppressed += len(analysis.suppressed)
        shown = [d for d in analysis.diagnostics if selected(d.code)]
        if args.verbose:
            _note_per_file_ignores(run_state, source, config, analysis.diagnostics, selected)
        counts.ignored += len(analysis.diagnostics) - len(shown)
        for d in shown:
            counts.by_severity[int(d.severity)] += 1
        if shown:
            results.append((source.display, shown))
            frames[source.display] = analysis.lines
            if wants_offers:
                _offer_fixes(analysis, shown, offers, data, ws)
    config_results = [(display, found) for display, found in (*broken.values(), *warned.values()) if found]
    for _, found in config_results:
        for d in found:
            counts.by_severity[int(d.severity)] += 1
    results = config_results + results
    if config_results and args.output_format in ("text", "full"):
        _config_frames(config_results, frames)

    missed = _account(run_state, args.paths or [], checked_from)
    if not args.diff:
        _print(args, results, checked, counts, frames, offers, report)
    report.close()
    if buffer_out:
        _write_buffer(b"".join(buffer_out))
    if args.show_fixes and not args.quiet:
        _print_fixes(args, results, offers, counts)
    _print_summary(args, counts, len(broken), color=use_color(sys.stderr, disabled=args.no_color))

    if run_state.failed or (missed and not counts.files):
        return 2
    if args.exit_zero:
        return 0
    if args.diff:
        return 1 if counts.would_change else 0
    errors, warnings = counts.by_severity[1], counts.by_severity[2]
    return 1 if errors or (args.strict and warnings) else 0


def _config_frames(config_results: Sequence[tuple[str, Sequence[Diagnostic]]], frames: dict[str, Any]) -> None:
    """The lines of the config files with problems, for their code frames (a file gone since: no frame)."""
    from heredoc_lsp.syntax.text import split_lines  # deferred: check start-up

    for display, _ in config_results:
        try:
            frames[display] = split_lines(read_regular(Path(display)).decode("utf-8", errors="replace"))
        except OSError:
            continue


def _write_buffer(data: bytes) -> None:
    """``--fix`` of standard input: the whole buffer, fixed or as it came, on standard output (an editor replaces
    its buffer with it)."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(data.decode("utf-8", "replace"))
    else:
        buffer.write(data)
    sys.stdout.flush()


def _offer_fixes(
    analysis: Any, shown: Sequence[Diagnostic], offers: dict[int, Any], data: bytes, ws: Path | None
) -> None:
    """The fix offered for each shown diagnostic whose rule has one (into ``offers``, by ``id``)."""
    from heredoc_lsp.rules import RULES  # deferred: check start-up

    fixable = [d for d in shown if (rule := RULES.get(d.code)) is not None and rule.fix_safety]
    if not fixable:
        return
    from heredoc_lsp.cli.fix import id_generator, offered_fix  # deferred: check start-up (only with a fixable problem)

    new_id = id_generator()
    final_newline = data.endswith((b"\n", b"\r"))
    for d in fixable:
        offer = offered_fix(analysis, d, final_newline=final_newline, workspace=ws, new_id=new_id)
        if offer is not None:
            offers[id(d)] = offer


def _read(run_state: _Run, source: Source) -> bytes | None:
    from heredoc_lsp.cli.sources import read_source  # deferred: check start-up

    try:
        data = read_source(source)
    except OSError as exc:
        run_state.note(f"cannot read {source.display}: {exc.strerror or exc}", always=True)
        run_state.failed = True
        return None
    if source.path is None:
        run_state.stdin_data = data
    if b"\0" in data:
        named = run_state.named_of(source)
        if named == source.display:
            run_state.why[named] = "binary file"
        else:
            run_state.note(f"skipping {source.display} (binary file)")
        return None
    return data


def _config(
    run_state: _Run,
    resolver: Any,
    source: Source,
    broken: dict[str, tuple[str, list[Diagnostic]]],
    warned: dict[str, tuple[str, list[Diagnostic]]],
) -> Config:
    """The file's effective config; a broken one is reported once (diagnostics on the config file, a note) and the
    defaults apply, as in the editor. The safety settings its workspace file may not loosen are reported once per
    file in ``warned`` (warnings ``ignored_setting``, docs/configuration.md)."""
    from heredoc_lsp.analysis.config_file import ignored_diagnostics  # deferred: check start-up
    from heredoc_lsp.cli.sources import display_path, effective_for  # deferred: check start-up
    from heredoc_lsp.config.model import DEFAULT_CONFIG, ConfigError  # deferred: check start-up

    try:
        effective = effective_for(resolver, source)
        where = effective.config.source
        if effective.ignored and where is not None and str(where) not in warned:
            warned[str(where)] = (display_path(where), ignored_diagnostics(effective.ignored))
        return effective.config
    except ConfigError as exc:
        key = str(exc.path) if exc.path is not None else "<config>"
        if key not in broken:
            broken[key] = _config_diagnostics(exc)
            run_state.note(f"{broken[key][0]}: the config file is broken; checking with the defaults", always=True)
        return DEFAULT_CONFIG


def _config_diagnostics(exc: ConfigError) -> tuple[str, list[Diagnostic]]:
    from heredoc_lsp.analysis.config_file import error_diagnostics  # deferred: check start-up
    from heredoc_lsp.cli.sources import display_path  # deferred: check start-up

    text = ""
    if exc.path is not None:
        try:
            text = read_regular(exc.path).decode("utf-8", errors="replace")
        except OSError:
            text = ""
    shown = display_path(exc.path) if exc.path is not None else "heredoc-lsp.toml"
    return shown, error_diagnostics(text, exc)


def _fix(
    run_state: _Run,
    source: Source,
    data: bytes,
    analysis: Any,
    config: Config,
    workspace: Path | None,
    selected: Callable[[str], bool],
    args: argparse.Namespace,
    counts: _Counts,
    report: _Report,
) -> tuple[Any, bytes]:
    """Fix one document (write it, print its diff, or for standard input give the fixed buffer back); returns the
    analysis of the result and the document's bytes as they end."""
    from heredoc_lsp.cli.fix import fix_document, id_generator, unified_diff  # deferred: check start-up
    from heredoc_lsp.syntax.text import decode_bytes  # deferred: check start-up

    decoded = decode_bytes(data)
    if decoded.first_invalid_line is not None:
        run_state.note(f"not fixing {source.display}: it is not valid UTF-8", always=True)
        return analysis, data
    result = fix_document(
        decoded.text,
        source.language,
        config,
        selected=selected,
        unsafe=args.unsafe_fixes,
        workspace=workspace,
        command=args.command,
        new_id=id_generator(),
    )
    counts.unsafe_available += result.unsafe_available
    for d, added in result.rolled_back:
        where = f"{source.display}:{d.span.start_line + 1}:{d.span.start_col + 1}"
        run_state.note(f"not fixing {where} {d.code}: the fix would add {', '.join(added)}", always=True)
    if result.text == decoded.text:
        return result.analysis, data
    counts.fixed += len(result.fixed)
    counts.fixed_files += 1
    counts.fixed_codes.append((source.display, [d.code for d in result.fixed]))
    if args.diff:
        counts.would_change += 1
        report.write(unified_diff(source.display, decoded.text, result.text))
        return analysis, data
    new_data = ("\ufeff" if decoded.had_bom else "").encode() + result.text.encode("utf-8")
    if source.path is None:
        return result.analysis, new_data  # standard input: the fixed buffer goes to standard output
    if not _written(run_state, source, source.path, new_data):
        return analysis, data
    codes = ", ".join(sorted({d.code for d in result.fixed}))
    run_state.note(f"fixed {source.display}: {len(result.fixed)} ({codes})", always=True)
    return result.analysis, new_data


def _written(run_state: _Run, source: Source, path: Path, data: bytes) -> bool:
    """Write a fixed file; a failure is told and makes the exit code 2."""
    from heredoc_lsp.cli.fix import write_atomic  # deferred: check start-up

    try:
        write_atomic(path, data)
    except OSError as exc:
        run_state.note(f"cannot write {source.display}: {exc.strerror or exc}", always=True)
        run_state.failed = True
        return False
    return True


def _add_noqa(
    run_state: _Run,
    source: Source,
    data: bytes,
    analysis: Any,
    config: Config,
    workspace: Path | None,
    selected: Callable[[str], bool],
    args: argparse.Namespace,
    counts: _Counts,
) -> Any:
    """``--add-noqa``: write a directive for every selected problem of one file; returns the new analysis."""
    from heredoc_lsp.cli.fix import suppress_all  # deferred: check start-up
    from heredoc_lsp.syntax.text import decode_bytes  # deferred: check start-up

    if source.path is None or not any(selected(d.code) for d in analysis.diagnostics):
        return analysis
    decoded = decode_bytes(data)
    if decoded.first_invalid_line is not None:
        run_state.note(f"not adding directives to {source.display}: it is not valid UTF-8", always=True)
        return analysis
    done = suppress_all(
        decoded.text, source.language, config, selected=selected, workspace=workspace, command=args.command
    )
    if not done.added:
        return analysis
    if not _written(
        run_state, source, source.path, ("\ufeff" if decoded.had_bom else "").encode() + done.text.encode()
    ):
        return analysis
    counts.directives += done.added
    counts.directive_files += 1
    run_state.note(f"silenced {source.display}: {done.added} (# heredoc-lsp: disable=...)", always=True)
    return done.analysis


def _print(
    args: argparse.Namespace,
    results: list[tuple[str, list[Any]]],
    checked: list[str],
    counts: _Counts,
    frames: dict[str, Sequence[str]],
    offers: dict[int, Any],
    report: _Report,
) -> None:
    from heredoc_lsp.cli import output  # deferred: check start-up

    fmt = args.output_format
    if args.statistics:
        _print_statistics(results, report)
        return
    if fmt == "json":
        _print_json(results, counts, offers, report)
        return
    if fmt in ("sarif", "gitlab", "junit"):
        import json  # deferred: check start-up

        from heredoc_lsp import __version__  # deferred: check start-up

        if fmt == "sarif":
            root = output.source_root(Path.cwd())
            text = json.dumps(output.sarif_document(results, __version__, root, offers), ensure_ascii=False, indent=2)
            text += "\n"
        elif fmt == "gitlab":
            text = json.dumps(output.gitlab_document(results), ensure_ascii=False, indent=2) + "\n"
        else:
            text = output.junit_document(checked, results)
        report.write(text)
        return
    if fmt == "github":
        out = [output.github_line(path, d) + "\n" for path, found in results for d in found]
    elif fmt == "concise":
        out = [output.concise_line(path, d) + "\n" for path, found in results for d in found]
    else:  # text (the default) and full: a code frame under each problem
        terminal = report.terminal
        color = terminal is not None and output.use_color(terminal, disabled=args.no_color)
        out = [
            "\n".join(
                [
                    output.text_line(path, d, color=color),
                    *output.code_frame(frames.get(path, ()), d, offers.get(id(d)), color=color),
                    "",
                ]
            )
            + "\n"
            for path, found in results
            for d in found
        ]
    if out:
        report.write("".join(out))


def _print_statistics(results: list[tuple[str, list[Any]]], report: _Report) -> None:
    """``--statistics``: one line per code, ``COUNT  CODE  severity  [*]`` (``[*]``: it has a quick fix), the most
    frequent first, as ruff prints them."""
    from heredoc_lsp.rules import RULES  # deferred: check start-up

    counted: dict[str, int] = {}
    severity: dict[str, str] = {}
    for _, found in results:
        for d in found:
            counted[d.code] = counted.get(d.code, 0) + 1
            severity[d.code] = d.severity.label
    if not counted:
        return
    width = max(len(str(n)) for n in counted.values())
    code_width = max(len(code) for code in counted)
    lines = []
    for code, n in sorted(counted.items(), key=lambda item: (-item[1], item[0])):
        rule = RULES.get(code)
        mark = "[*]" if rule is not None and rule.fix_safety else "   "
        lines.append(f"{n:>{width}}  {code:<{code_width}}  {severity[code]:<7}  {mark}".rstrip() + "\n")
    report.write("".join(lines))


def _print_json(results: list[tuple[str, list[Any]]], counts: _Counts, offers: dict[int, Any], report: _Report) -> None:
    import json  # deferred: check start-up

    from heredoc_lsp.cli.output import fix_json  # deferred: check start-up
    from heredoc_lsp.rules import doc_url  # deferred: check start-up
    from heredoc_lsp.syntax.diagnostics import diagnostic_json  # deferred: check start-up

    diagnostics: list[dict[str, Any]] = []
    for path, found in results:
        diagnostics.extend(
            {"path": path, **diagnostic_json(d), "url": doc_url(d.code), "fix": fix_json(offers.get(id(d)))}
            for d in found
        )
    document = {
        "files_checked": counts.files,
        "diagnostics": diagnostics,
        "summary": {
            "errors": counts.by_severity[1],
            "warnings": counts.by_severity[2],
            "information": counts.by_severity[3],
            "hints": counts.by_severity[4],
            "suppressed": counts.suppressed,
            "ignored": counts.ignored,
            "fixed": counts.fixed,
        },
    }
    report.write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")


def _print_fixes(
    args: argparse.Namespace, results: list[tuple[str, list[Any]]], offers: dict[int, Any], counts: _Counts
) -> None:
    """``--show-fixes`` (on standard error, before the summary): with ``--fix``, what was fixed, per file and
    code, as ruff lists it; without, the fixes available for the problems reported (``unsafe``: with
    ``--unsafe-fixes`` only)."""
    from heredoc_lsp.syntax.text import plural  # deferred: check start-up

    lines: list[str] = []
    if args.fix:
        total = sum(len(codes) for _, codes in counts.fixed_codes)
        if total:
            lines.append(f"Fixed {plural(total, 'problem')}:")
            for path, codes in counts.fixed_codes:
                lines.append(f"- {visible(path, one_line=True)}:")
                lines += [f"    {n} × {code}" for code, n in _tally(codes)]
    by_file: list[tuple[str, list[str]]] = []
    for path, found in results:
        codes = [f"{d.code} ({offers[id(d)].applicability})" for d in found if id(d) in offers]
        if codes:
            by_file.append((path, codes))
    total = sum(len(codes) for _, codes in by_file)
    if total:
        what = "left" if args.fix else "available"
        lines.append(f"{total} fix{'' if total == 1 else 'es'} {what}:")
        for path, codes in by_file:
            lines.append(f"- {visible(path, one_line=True)}:")
            lines += [f"    {n} × {code}" for code, n in _tally(codes)]
    if not lines and not args.quiet:
        lines.append("No fixes applied or available." if args.fix else "No fixes available.")
    sys.stderr.write("".join(line + "\n" for line in lines))


def _tally(codes: Sequence[str]) -> list[tuple[str, int]]:
    counted: dict[str, int] = {}
    for code in codes:
        counted[code] = counted.get(code, 0) + 1
    return sorted(counted.items(), key=lambda item: (-item[1], item[0]))


def _print_summary(args: argparse.Namespace, counts: _Counts, broken: int, *, color: bool) -> None:
    from heredoc_lsp.syntax.text import plural  # deferred: check start-up

    if args.quiet:
        return
    if args.diff:
        line = (
            f"Would fix {plural(counts.fixed, 'problem')} in {plural(counts.fixed_files, 'file')}"
            if counts.fixed
            else f"Checked {plural(counts.files, 'file')}: nothing to fix"
        )
        if counts.unsafe_available:
            line += f" ({counts.unsafe_available} more with --unsafe-fixes)"
        sys.stderr.write(line + "\n")
        return
    parts: list[str] = []
    for severity, word in ((1, "error"), (2, "warning"), (3, "info"), (4, "hint")):
        n = counts.by_severity[severity]
        if n:
            parts.append(f"{n} info" if word == "info" else plural(n, word))
    found = ", ".join(parts) if parts else "no problems"
    if args.fix and counts.fixed:  # nothing fixed: the summary of a plain check, as ruff's "Found 2 errors."
        found = f"fixed {counts.fixed}, {found} left"
    line = f"Checked {plural(counts.files, 'file')}: {found}"
    if counts.suppressed:
        line += f" ({counts.suppressed} suppressed)"
    if broken:
        line += f"; {plural(broken, 'broken config file')} (defaults used)"
    if args.fix and counts.unsafe_available:
        line += f"; {counts.unsafe_available} more fixable with --unsafe-fixes"
    if args.add_noqa:
        line += f"; silenced {plural(counts.directives, 'problem')} in {plural(counts.directive_files, 'file')}"
    if color:
        bold = "\x1b[1;31m" if counts.by_severity[1] else "\x1b[1;32m"
        line = f"{bold}{line}\x1b[0m"
    sys.stderr.write(line + "\n")
