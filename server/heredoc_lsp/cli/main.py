"""`heredoc-lsp` entry point: dispatches to one module per subcommand.

Each subcommand module exposes ``DESCRIPTION``, ``add_arguments(parser)`` (which sets the ``handler``) and
``run(args) -> int`` and keeps heavy imports (pygls, lsprotocol, rich) inside ``run`` so that ``check`` and
``parse`` start fast.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from heredoc_lsp import __version__
from heredoc_lsp.cli.names import SUMMARIES, did_you_mean, parser_actions

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

# Each subcommand is the module of its name under heredoc_lsp.cli.
SUBCOMMANDS: tuple[str, ...] = tuple(SUMMARIES)

VERSION_LINE = f"heredoc-lsp {__version__}"


def _parser_class() -> type[argparse.ArgumentParser]:
    # argparse is imported on demand: ``check`` with plain arguments never needs it (see main).
    import argparse  # deferred: check start-up

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            # Usage errors exit 2 with one clear line, never a traceback.
            self.print_usage(sys.stderr)
            sys.stderr.write(f"{self.prog}: error: {message}\n")
            raise SystemExit(2)

    return _Parser


def build_parser(only: str | None = None, *, full: bool = False) -> argparse.ArgumentParser:
    """With ``only``, the parser of that subcommand alone (start-up time: ``check`` imports nothing else); without,
    the top-level parser whose subcommands carry only their summaries (enough for ``--help`` and usage errors), or
    with ``full`` every subcommand's whole parser (what ``completion`` and ``manpage`` are generated from)."""
    import importlib  # deferred: check start-up (with its warnings import: not needed by a plain check)

    _Parser = _parser_class()
    parser = _Parser(prog="heredoc-lsp", description="Check, parse and run heredoc command scripts and agent replies.")
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    sub = parser.add_subparsers(dest="subcommand", metavar="COMMAND", parser_class=_Parser)
    summaries_only = not full and only is None
    for name in SUBCOMMANDS:
        if only is not None and name != only:
            continue
        if summaries_only:
            sub.add_parser(name, help=SUMMARIES[name])  # top-level help or a usage error: no module needed
            continue
        module = importlib.import_module(f"heredoc_lsp.cli.{name}")
        p = sub.add_parser(
            name,
            help=SUMMARIES[name],
            description=module.DESCRIPTION,
            allow_abbrev=getattr(module, "ALLOW_ABBREV", True),
        )
        module.add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    args = None
    if words == ["--version"]:  # editors and wrappers probe this: no argparse, no subcommand module
        sys.stdout.write(VERSION_LINE + "\n")
        return 0
    if words and words[0] == "guard":  # a hook before every shell call of an agent: no argparse (start-up time)
        from heredoc_lsp.cli.guard import main as guard_main  # deferred: check start-up (guard: routed before argparse)

        fast = guard_main(words[1:])
        if fast is not None:
            if argv is None:
                _exit_now(fast)  # as for check: no teardown of what the process built
            return fast
    if words and not words[0].startswith("-") and words[0] not in SUBCOMMANDS:
        sys.stderr.write(
            f"usage: heredoc-lsp [-h] [--version] COMMAND ...\nheredoc-lsp: error: unknown command "
            f"'{words[0]}'{did_you_mean(words[0], list(SUBCOMMANDS))}; 'heredoc-lsp --help' lists them\n"
        )
        return 2
    if words and words[0] == "check":  # the common case, parsed without argparse (start-up time)
        from heredoc_lsp.cli.check import simple_args  # deferred: check start-up

        args = simple_args(words[1:])
    if args is None:
        parser = build_parser(words[0] if words and words[0] in SUBCOMMANDS else None)
        args, unknown = parser.parse_known_args(words)
        if unknown:
            _unknown_options(parser, args, unknown)
        if not getattr(args, "subcommand", None) or not hasattr(args, "handler"):
            parser.print_help(sys.stderr)
            return 2
    try:
        code = int(args.handler(args))
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        return 1
    if argv is None and args.subcommand in ("check", "guard"):
        _exit_now(code)
    return code


def _unknown_options(parser: argparse.ArgumentParser, args: argparse.Namespace, unknown: Sequence[str]) -> None:
    """An option the (sub)command does not have: the usage of the innermost subcommand the words chose (``agent
    watch``'s, not ``agent``'s) and a did-you-mean among all its options, those of its groups included, for the
    first one, as ruff and git say it (argparse's own error shows the top-level usage)."""
    import argparse  # deferred: check start-up

    target = parser
    while True:
        chosen = None
        for action in parser_actions(target):
            if isinstance(action.choices, Mapping) and action.dest != argparse.SUPPRESS:
                chosen = action.choices.get(getattr(args, action.dest, None))
        if not isinstance(chosen, argparse.ArgumentParser):
            break
        target = chosen
    names = [name for action in parser_actions(target) for name in action.option_strings]
    first = next((word for word in unknown if word.startswith("-")), unknown[0])
    hint = did_you_mean(first.partition("=")[0], names) if first.startswith("-") else ""
    target.error(f"unrecognized arguments: {' '.join(unknown)}{hint}")


def _exit_now(code: int) -> None:
    """End a ``check`` (or ``guard``) process without freeing what it built: the parse of a 100k-line file is
    hundreds of thousands of objects, and freeing them one by one (then the modules) took 3-5 ms of a 75 ms run.
    Only for the process entry points (``argv`` None): ``check`` and ``guard`` write nothing after this, hold no
    temporary files and register no exit handlers; both output streams are flushed first."""
    import os  # deferred: check start-up

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, OSError):
            code = code or 1
    os._exit(code)
