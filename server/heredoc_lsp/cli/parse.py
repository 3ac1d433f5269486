"""``heredoc-lsp parse FILE``: the parse of one document as JSON, for tools and agents; its shape and exit codes
are those of docs/formats.md ("The parse as JSON"). The diagnostics are those ``check`` reports."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heredoc_lsp.analysis.core import analyze_bytes
from heredoc_lsp.cli.output import error_exit
from heredoc_lsp.cli.sources import (
    LANGUAGE_CHOICES,
    Source,
    UsageError,
    config_error_lines,
    config_for,
    explicit_config,
    explicit_workspace,
    read_source,
    workspace_for,
    write_stdout,
)
from heredoc_lsp.config.load import ConfigResolver
from heredoc_lsp.config.model import ConfigError
from heredoc_lsp.languages import Language, language_from_path
from heredoc_lsp.syntax.diagnostics import diagnostic_json

if TYPE_CHECKING:
    from heredoc_lsp.analysis.core import Analysis


DESCRIPTION = (
    "Print the parse of FILE as JSON (commands, parameters or sections, and diagnostics). "
    "Exit 0 when the file has no errors, 1 when it has, 2 on usage errors."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="the file to parse ('-' reads standard input)")
    p.add_argument("--language", choices=LANGUAGE_CHOICES, help="the format (default: from the file name)")
    p.add_argument("--command", metavar="NAME", help="with --language params: the command whose schema applies")
    p.add_argument("--config", metavar="FILE", help="use this config file instead of the nearest one")
    p.add_argument(
        "--workspace",
        metavar="DIR",
        help="root that inbox paths are checked against (default: the folder holding inbox/, else the config "
        "file's folder, else the reply's folder)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    gc.disable()  # one document, many small acyclic objects: see cli/check.py
    try:
        return _parse(args)
    except UsageError as exc:
        return error_exit(str(exc), "heredoc-lsp parse")


def _source(args: argparse.Namespace) -> Source:
    forced = Language(args.language) if args.language else None
    if args.file == "-":
        if forced is None:
            raise UsageError("reading standard input ('-') needs --language cli|params|inbox|outbox")
        return Source("<stdin>", None, forced)
    path = Path(args.file)
    if not path.exists():
        raise UsageError(f"file not found: {args.file}")
    if path.is_dir():
        raise UsageError(f"{args.file} is a directory; parse takes one file (use 'heredoc-lsp check' for trees)")
    language = forced or language_from_path(path)
    if language is None:
        raise UsageError(
            f"cannot tell the format of {args.file} from its name (expected *.cli, *.inbox, inbox/*.txt, *.outbox "
            "or outbox/*_seqNNNN.txt); use --language cli|params|inbox|outbox"
        )
    return Source(args.file, path, language)


def _parse(args: argparse.Namespace) -> int:
    config_path = explicit_config(args.config)
    workspace = explicit_workspace(args.workspace)
    source = _source(args)
    try:
        data = read_source(source)
    except OSError as exc:
        raise UsageError(f"cannot read {source.display}: {exc.strerror or exc}") from None
    try:
        config = config_for(ConfigResolver(config_path), source)
    except ConfigError as exc:
        sys.stderr.write("".join(line + "\n" for line in config_error_lines(exc)))
        raise UsageError(f"cannot parse {source.display}: its config file is broken") from None
    analysis = analyze_bytes(
        data,
        source.language,
        config,
        workspace=workspace_for(source, config, workspace),
        command=args.command,
    )
    write_stdout(json.dumps(parse_document(analysis), ensure_ascii=False, indent=2) + "\n")
    return 1 if analysis.has_errors else 0


def parse_document(analysis: Analysis) -> dict[str, Any]:
    """The JSON object of docs/formats.md for one analysed document."""

    out: dict[str, Any] = {"language": analysis.language.value}
    tree: Any = analysis.tree
    if analysis.language is Language.CLI:
        out["commands"] = [
            {
                "line": c.line + 1,
                "command": c.run_text,
                "stdin": list(c.heredoc.body) if c.heredoc is not None else None,
                "marker": c.heredoc.marker if c.heredoc is not None else None,
            }
            for c in tree.commands
        ]
    elif analysis.language is Language.PARAMS:
        out["params"] = dict(tree.values) if tree.values is not None and not analysis.has_errors else None
    elif analysis.language is Language.BASH:
        out["heredocs"] = [
            {
                "line": h.line + 1,
                "command": h.command,
                "marker": h.marker,
                "stdin": tree.body(h) if h.closed else None,
            }
            for h in tree.heredocs
        ]
    elif analysis.language is Language.INBOX:
        out["commands"] = [
            {"line": c.line + 1, "name": c.name, "attrs": dict(c.attrs), "body": c.body} for c in tree.commands
        ]
    else:
        out["sections"] = {name: {"line": s.line + 1, "text": s.text} for name, s in tree.sections.items()}
        header = tree.header
        out["header"] = {
            "session": header.session if header is not None else None,
            "sequence": header.sequence if header is not None else None,
            "task": header.task if header is not None else None,
        }
    out["diagnostics"] = [diagnostic_json(d) for d in analysis.diagnostics]
    return out
