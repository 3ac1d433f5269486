"""What every subcommand module and the entry point share: each subcommand's one-line summary, did-you-mean, and
the reading of a parser's actions (completion, the manual page and the did-you-mean for an unknown option).

A leaf module (no import of any subcommand), so that the subcommands and ``cli/main.py``, which dispatches to them,
never import each other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

# One line per subcommand for the top-level help, which is built from these without importing the subcommands
# (start-up time of ``heredoc-lsp --help``); ``build_parser`` gives each its ``help`` from here.
SUMMARIES: dict[str, str] = {
    "check": "check .cli scripts, inbox replies and outbox files for problems",
    "parse": "print the parse of one file as JSON",
    "run": "run a .cli script through the sandboxed executor",
    "apply": "apply an inbox reply (CREATE_FILE, EDIT_FILE, RUN_COMMAND...) to the workspace",
    "undo": "put back the files the last applied reply changed",
    "agent": "start an agent session or process its inbox (the inbox/outbox loop)",
    "lsp": "run the language server (stdio)",
    "rule": "explain a diagnostic code",
    "guard": "pre-tool-use hook: check an agent's shell command before it runs",
    "completion": "print a bash, zsh or fish completion script generated from this parser",
    "manpage": "print the manual page (roff), generated from this parser",
}


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """`` (did you mean 'X'?)`` for the choice closest to a mistyped ``word`` (``-`` read as ``_``), or ``""``."""
    import difflib  # deferred: check start-up (only on a usage error)

    close = difflib.get_close_matches(word.replace("-", "_"), list(choices), n=1) or difflib.get_close_matches(
        word, list(choices), n=1
    )
    return f" (did you mean '{close[0]}'?)" if close else ""


def parser_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every action of ``parser`` (options, positionals, subcommands, those of its argument and mutually exclusive
    groups too), in declaration order, as ``format_usage`` hands them to the formatter (public API only)."""
    import argparse  # deferred: check start-up (only for a usage error, completion and the manual page)

    found: list[argparse.Action] = []

    class Collect(argparse.HelpFormatter):
        def add_usage(self, usage: Any, actions: Iterable[argparse.Action], *rest: Any, **kwargs: Any) -> None:
            found.extend(actions)

    original = parser.formatter_class
    parser.formatter_class = Collect
    try:
        parser.format_usage()
    finally:
        parser.formatter_class = original
    return found
