"""``heredoc-lsp manpage``: the manual page heredoc-lsp(1) in roff, generated from the command's own argparse
parser (through cli/completion.py's :func:`command_tree`), so every subcommand and option is in it
(docs/checking.md, "Shell completion and the manual page")."""

from __future__ import annotations

import argparse
import sys

from heredoc_lsp import __version__
from heredoc_lsp.cli.completion import PROG, Command, Option, Positional, full_tree
from heredoc_lsp.cli.names import SUMMARIES

EXIT_STATUS = (
    ("0", "no errors (check: with --strict no warnings either; always with --exit-zero)"),
    ("1", "problems found, a command failed, or (check --diff) a fix would change a file"),
    ("2", "usage error: an unknown option, a missing path, an unreadable file, nothing checked"),
)


def roff(text: str) -> str:
    """``text`` as roff running text: backslashes and hyphens escaped, no line read as a request."""
    out = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + out if out.startswith((".", "'")) else out


def _bold(text: str) -> str:
    return f"\\fB{roff(text)}\\fR"


def _italic(text: str) -> str:
    return f"\\fI{roff(text)}\\fR"


def _option_line(option: Option) -> str:
    value = ""
    if option.value:
        value = " " + _italic("{" + ",".join(option.choices) + "}" if option.choices else option.value)
    return ", ".join(_bold(flag) for flag in option.flags) + value


def _positional_line(positional: Positional) -> str:
    name = "{" + ",".join(positional.choices) + "}" if positional.choices else positional.name
    return _italic(name) + (" ..." if positional.repeats else "")


def _command_section(command: Command) -> list[str]:
    lines = [f'.SS "{roff(" ".join(command.words[1:]))}"', f".B {roff(' '.join(command.words))}"]
    usage = command.usage.removeprefix(" ".join(command.words)).strip()
    if usage:
        lines.append(roff(usage))
    lines += [".PP", roff(command.description or command.summary)]
    for positional in command.positionals:
        lines += [".TP", _positional_line(positional), roff(positional.help)]
    for option in command.options:
        lines += [".TP", _option_line(option), roff(option.help)]
    if command.subcommands:
        for sub in command.subcommands:
            lines += [".TP", _bold(sub.words[-1]), roff(sub.summary)]
    return lines


def manpage(tree: Command) -> str:
    """heredoc-lsp(1): NAME, SYNOPSIS, DESCRIPTION, the global OPTIONS, one subsection per (sub)command, EXIT
    STATUS, SEE ALSO."""
    lines = [
        f'.TH HEREDOC\\-LSP 1 "" "{roff(PROG)} {roff(__version__)}" "User Commands"',
        ".nh",  # no hyphenation: option names are words to copy
        ".ad l",
        ".SH NAME",
        f"{roff(PROG)} \\- {roff(tree.description[:1].lower() + tree.description[1:].rstrip('.'))}",
        ".SH SYNOPSIS",
        f".B {roff(PROG)}",
        f"[{_bold('--version')}] [{_bold('-h')}] {_italic('COMMAND')} [{_italic('OPTION')} ...] [{_italic('ARG')} ...]",
        ".SH DESCRIPTION",
        roff(
            f"{tree.description} Each command is listed under COMMANDS with its options; "
            f"'{PROG} COMMAND --help' shows the same. Its documentation is in the docs/ folder of the project."
        ),
        ".SH OPTIONS",
    ]
    for option in tree.options:
        lines += [".TP", _option_line(option), roff(option.help)]
    lines.append(".SH COMMANDS")
    for name in tree.subcommands:
        lines += [".TP", _bold(name.words[-1]), roff(SUMMARIES.get(name.words[-1], name.summary))]
    for command in tree.walk():
        if command is not tree:
            lines += _command_section(command)
    lines.append(".SH EXIT STATUS")
    for code, meaning in EXIT_STATUS:
        lines += [".TP", _bold(code), roff(meaning)]
    lines += [
        ".SH SEE ALSO",
        roff(
            f"'{PROG} rule --all' explains every diagnostic code; '{PROG} completion bash|zsh|fish' completes "
            "these options in a shell."
        ),
    ]
    return "\n".join(lines) + "\n"


DESCRIPTION = (
    "Print the manual page heredoc-lsp(1) in roff, generated from heredoc-lsp's own argument "
    "parser. Read it with: heredoc-lsp manpage | man -l -  (or save it as "
    "~/.local/share/man/man1/heredoc-lsp.1)."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    del args
    sys.stdout.write(manpage(full_tree()))
    return 0
