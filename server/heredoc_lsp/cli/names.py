"""What every subcommand module and the entry point share: each subcommand's one-line summary, and did-you-mean.

A leaf module (no import of any subcommand), so that the subcommands and ``cli/main.py``, which dispatches to them,
never import each other.
"""

from __future__ import annotations

from collections.abc import Sequence

# One line per subcommand for the top-level help, which is built from these without importing the subcommands
# (start-up time of ``heredoc-lsp --help``); each module's ``add_parser`` takes its ``help`` from here.
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
