"""``heredoc-lsp check [PATH...]``: report every problem in every supported file (SPEC §9).

Exit codes: 0 no errors (with ``--strict``: no errors and no warnings), 1 problems, 2 usage errors, a missing
path, an unreadable file or a broken config. Only the standard library and heredoc_lsp's own pure modules are
imported, so the command starts fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from heredoc_lsp.cli.sources import LANGUAGE_CHOICES, Source, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

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


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "check",
        help="check .cli scripts, inbox replies and outbox files for problems",
        description="Check every supported file under the PATHs (default: the current directory): *.cli, "
        "*.inbox, **/inbox/*.txt, *.outbox, **/outbox/*_seqNNNN.txt. Exit 0 when there are no errors, 1 when there "
        "are, 2 on usage errors.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or directories ('-' reads standard input)")
    p.add_argument("--format", choices=("text", "json", "github"), default="text", help="output format")
    p.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    p.add_argument("--no-color", action="store_true", help="never colour the output")
    p.add_argument("--config", metavar="FILE", help="use this config file for every file")
    p.add_argument(
        "--language",
        choices=LANGUAGE_CHOICES,
        help="the format of the files named on the command line (needed when their name does not tell)",
    )
    p.add_argument("--command", metavar="NAME", help="with --language params: the command whose schema applies")
    p.add_argument(
        "--workspace",
        metavar="DIR",
        help="root that inbox paths are checked against (default: the folder holding inbox/, else the config "
        "file's folder, else the reply's folder)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="say which files are checked and skipped")
    p.set_defaults(handler=run)


_LAST: list[object] = []

# The boolean options of ``check`` (their dests): all that the argparse-free command line below understands.
_FLAGS: dict[str, str] = {"--strict": "strict", "--no-color": "no_color", "-v": "verbose", "--verbose": "verbose"}


def simple_args(words: Sequence[str]) -> Any:
    """The arguments of ``check WORDS`` without argparse (its import and set-up are a tenth of a check's start-up),
    when the words are only the boolean options and one run of paths; None otherwise (then argparse parses them,
    errors and ``--help`` included). The result has the attributes that argparse's namespace would have."""
    from types import SimpleNamespace

    values: dict[str, Any] = {
        "subcommand": "check",
        "paths": [],
        "format": "text",
        "strict": False,
        "no_color": False,
        "config": None,
        "language": None,
        "command": None,
        "workspace": None,
        "verbose": False,
        "handler": run,
    }
    paths_ended = False
    for word in words:
        dest = _FLAGS.get(word)
        if dest is not None:
            values[dest] = True
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

    def note(self, message: str, *, always: bool = False) -> None:
        if always or self.verbose:
            sys.stderr.write(f"heredoc-lsp check: {message}\n")

    def add(self, source: Source) -> None:
        key = str(source.path.absolute()) if source.path is not None else "-"
        if key not in self.seen:
            self.seen.add(key)
            self.sources.append(source)


def _skip_reason(entry: os.DirEntry[str]) -> str | None:
    reason = SKIPPED_DIRS.get(entry.name)
    if reason is not None:
        return reason
    if os.path.isfile(os.path.join(entry.path, "pyvenv.cfg")):
        return "virtual environment"
    return None


def _walk(run: _Run, directory: Path, display: str) -> None:
    from heredoc_lsp.languages import language_from_path

    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        run.note(f"cannot read directory {display}: {exc.strerror or exc}", always=True)
        run.failed = True
        return
    for entry in entries:
        shown = entry.name if display == "." else os.path.join(display, entry.name)
        path = directory / entry.name
        if entry.is_dir(follow_symlinks=False):
            reason = _skip_reason(entry)
            if reason is not None:
                run.note(f"skipping {shown}{os.sep} ({reason})")
                continue
            _walk(run, path, shown)
        elif entry.is_symlink() and os.path.isdir(path):
            run.note(f"skipping {shown} (symbolic link to a directory)")
        elif entry.is_symlink() and not os.path.exists(path):
            run.note(f"skipping {shown} (broken symbolic link)")
        else:
            language = language_from_path(path)
            if language is not None:
                run.add(Source(shown, path, language))


def _collect(run: _Run, args: argparse.Namespace) -> None:
    from heredoc_lsp.languages import Language, language_from_path

    given: list[str] = args.paths or ["."]
    forced = Language(args.language) if args.language else None
    missing = [p for p in given if p != "-" and not os.path.lexists(p)]
    if missing:
        raise UsageError("; ".join(f"path not found: {p}" for p in missing))
    for raw in given:
        if raw == "-":
            if forced is None:
                raise UsageError("reading standard input ('-') needs --language cli|params|inbox|outbox")
            run.add(Source("<stdin>", None, forced))
            continue
        path = Path(raw)
        if path.is_dir():
            _walk(run, path, os.path.normpath(raw))
            continue
        language = forced or language_from_path(path)
        if language is None:
            raise UsageError(
                f"cannot tell the format of {raw} from its name (expected *.cli, *.inbox, inbox/*.txt, *.outbox "
                "or outbox/*_seqNNNN.txt); use --language cli|params|inbox|outbox"
            )
        run.add(Source(raw, path, language))


class _Counts:
    def __init__(self) -> None:
        self.files = 0
        self.by_severity: dict[int, int] = {1: 0, 2: 0, 3: 0, 4: 0}
        self.suppressed = 0


def run(args: argparse.Namespace) -> int:
    import gc

    from heredoc_lsp.cli.output import error_exit

    # A short-lived process whose parsers allocate many small acyclic objects: the cyclic collector would only
    # re-scan them (it doubles the parse time of a large file). Cycles are collected between files instead.
    gc.disable()
    try:
        return _check(args)
    except UsageError as exc:
        return error_exit(str(exc), "heredoc-lsp check")


def _check(args: argparse.Namespace) -> int:
    import gc

    from heredoc_lsp.analysis.config_file import ignored_diagnostics
    from heredoc_lsp.analysis.core import analyze_bytes
    from heredoc_lsp.cli.output import use_color
    from heredoc_lsp.cli.sources import (
        display_path,
        effective_for,
        explicit_config,
        explicit_workspace,
        read_source,
        workspace_for,
    )
    from heredoc_lsp.config.load import ConfigResolver
    from heredoc_lsp.config.model import ConfigError
    from heredoc_lsp.syntax.diagnostics import Diagnostic

    config_path = explicit_config(args.config)
    workspace = explicit_workspace(args.workspace)
    run_state = _Run(args.verbose)
    _collect(run_state, args)

    resolver = ConfigResolver(config_path)
    reported_configs: set[int] = set()
    config_errors: list[ConfigError] = []
    results: list[tuple[str, list[Diagnostic]]] = []
    counts = _Counts()
    for source in run_state.sources:
        try:
            data = read_source(source)
        except OSError as exc:
            run_state.note(f"cannot read {source.display}: {exc.strerror or exc}", always=True)
            run_state.failed = True
            continue
        if b"\0" in data:
            explicit = source.display in (args.paths or [])
            run_state.note(f"skipping {source.display} (binary file)", always=explicit)
            continue
        try:
            effective = effective_for(resolver, source)
        except ConfigError as exc:
            run_state.failed = True
            if id(exc) not in reported_configs:
                reported_configs.add(id(exc))
                config_errors.append(exc)
            run_state.note(f"not checking {source.display}: its config file is broken")
            continue
        config = effective.config
        if effective.ignored and id(effective) not in reported_configs:  # once per workspace config file
            reported_configs.add(id(effective))
            ignored_warnings = ignored_diagnostics(effective.ignored)
            counts.by_severity[int(ignored_warnings[0].severity)] += len(ignored_warnings)
            assert config.source is not None
            results.append((display_path(config.source), ignored_warnings))
        if args.verbose:
            where = f", config {config.source}" if config.source is not None else ""
            run_state.note(f"checking {source.display} ({source.language.value}{where})")
        analysis = analyze_bytes(
            data,
            source.language,
            config,
            path=source.path,
            workspace=workspace_for(source, config, workspace),
            command=args.command,
        )
        _LAST[:] = (analysis,)  # the last file's parse is not freed on return (see cli.main._exit_now)
        counts.files += 1
        if counts.files % 64 == 0:
            gc.collect()
        counts.suppressed += len(analysis.suppressed)
        for d in analysis.diagnostics:
            counts.by_severity[int(d.severity)] += 1
        if analysis.diagnostics:
            results.append((source.display, list(analysis.diagnostics)))

    color = use_color(sys.stdout, disabled=args.no_color)
    if args.format == "json":
        _print_json(results, config_errors, counts)
    elif args.format == "github":
        _print_github(results, config_errors)
    else:
        _print_text(results, config_errors, color=color)
    _print_summary(counts, config_errors, color=use_color(sys.stderr, disabled=args.no_color))

    if run_state.failed:
        return 2
    errors, warnings = counts.by_severity[1], counts.by_severity[2]
    return 1 if errors or (args.strict and warnings) else 0


def _print_text(results: list[tuple[str, list[Any]]], config_errors: list[Any], *, color: bool) -> None:
    from heredoc_lsp.cli.output import text_line
    from heredoc_lsp.cli.sources import config_error_lines, write_stdout

    for exc in config_errors:
        sys.stderr.write("".join(line + "\n" for line in config_error_lines(exc)))
    out = [text_line(path, d, color=color) + "\n" for path, diagnostics in results for d in diagnostics]
    if out:
        write_stdout("".join(out))


def _print_github(results: list[tuple[str, list[Any]]], config_errors: list[Any]) -> None:
    from heredoc_lsp.cli.output import github_line
    from heredoc_lsp.cli.sources import config_error_lines, display_path, write_stdout

    out: list[str] = []
    for exc in config_errors:
        sys.stderr.write("".join(line + "\n" for line in config_error_lines(exc)))
        for p in exc.problems:
            shown = display_path(p.path) if p.path is not None else "heredoc-lsp.toml"
            out.append(_config_github(shown, p) + "\n")
    out.extend(github_line(path, d) + "\n" for path, diagnostics in results for d in diagnostics)
    if out:
        write_stdout("".join(out))


def _config_github(shown: str, problem: Any) -> str:
    from heredoc_lsp.cli.output import github_line
    from heredoc_lsp.syntax.diagnostics import Span, error

    line, col = max(problem.line - 1, 0), max(problem.column - 1, 0)
    return github_line(shown, error(Span(line, col, line, col), "config_error", problem.message))


def _print_json(results: list[tuple[str, list[Any]]], config_errors: list[Any], counts: _Counts) -> None:
    import json

    from heredoc_lsp.cli.output import diagnostic_json
    from heredoc_lsp.cli.sources import display_path, write_stdout

    diagnostics: list[dict[str, Any]] = []
    for exc in config_errors:
        for p in exc.problems:
            line, col = max(p.line, 1), max(p.column, 1)
            diagnostics.append(
                {
                    "path": display_path(p.path) if p.path is not None else None,
                    "line": line,
                    "column": col,
                    "end_line": line,
                    "end_column": col,
                    "severity": "error",
                    "code": "config_error",
                    "message": p.message,
                }
            )
    for path, found in results:
        diagnostics.extend({"path": path, **diagnostic_json(d)} for d in found)
    document = {
        "files_checked": counts.files,
        "diagnostics": diagnostics,
        "summary": {
            "errors": counts.by_severity[1] + sum(len(e.problems) for e in config_errors),
            "warnings": counts.by_severity[2],
            "information": counts.by_severity[3],
            "hints": counts.by_severity[4],
            "suppressed": counts.suppressed,
        },
    }
    write_stdout(json.dumps(document, ensure_ascii=False, indent=2) + "\n")


def _print_summary(counts: _Counts, config_errors: list[Any], *, color: bool) -> None:
    from heredoc_lsp.cli.output import plural

    parts: list[str] = []
    for severity, word in ((1, "error"), (2, "warning"), (3, "info"), (4, "hint")):
        n = counts.by_severity[severity]
        if n:
            parts.append(f"{n} info" if word == "info" else plural(n, word))
    found = ", ".join(parts) if parts else "no problems"
    line = f"Checked {plural(counts.files, 'file')}: {found}"
    if counts.suppressed:
        line += f" ({counts.suppressed} suppressed)"
    if config_errors:
        line += f"; {plural(len(config_errors), 'broken config file')}"
    if color:
        bold = "\x1b[1;31m" if counts.by_severity[1] or config_errors else "\x1b[1;32m"
        line = f"{bold}{line}\x1b[0m"
    sys.stderr.write(line + "\n")
