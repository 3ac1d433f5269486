"""``heredoc-lsp completion bash|zsh|fish``: a shell completion script generated from the command's own argparse
parser (docs/checking.md, "Shell completion and the manual page"), so an option added to a subcommand is completed
without a hand-written copy of the option list.

:func:`command_tree` reads the parser into plain frozen data (commands, options, positionals); the three
``*_script`` functions and cli/manpage.py render that data. The parser is read through public API only
(:func:`heredoc_lsp.cli.names.parser_actions`).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from heredoc_lsp.cli.main import build_parser
from heredoc_lsp.cli.names import SUMMARIES, parser_actions

PROG = "heredoc-lsp"
SHELLS = ("bash", "zsh", "fish")
# Value names (argparse metavars) completed as file or folder names; any other value without choices is free text.
FILE_METAVARS = frozenset({"FILE", "PATH", "REPLY", "SCRIPT.cli"})
DIR_METAVARS = frozenset({"DIR"})


@dataclass(frozen=True)
class Option:
    flags: tuple[str, ...]  # as declared: "-q", "--quiet"
    value: str  # the value's name ("" for a flag that takes none)
    choices: tuple[str, ...]
    help: str

    @property
    def completes(self) -> str:
        """What the value is: "choices", "file", "dir", "text" or "" (no value)."""
        return _value_kind(self.value, self.choices)


@dataclass(frozen=True)
class Positional:
    name: str
    choices: tuple[str, ...]
    help: str
    repeats: bool  # nargs "*" or "+"

    @property
    def completes(self) -> str:
        return _value_kind(self.name, self.choices)


@dataclass(frozen=True)
class Command:
    words: tuple[str, ...]  # ("heredoc-lsp", "agent", "watch")
    summary: str
    description: str
    usage: str  # argparse's own usage line, without "usage: "
    options: tuple[Option, ...]
    positionals: tuple[Positional, ...]
    subcommands: tuple[Command, ...]

    def walk(self) -> Iterable[Command]:
        """This command and every subcommand under it, parents first."""
        yield self
        for sub in self.subcommands:
            yield from sub.walk()


def _value_kind(name: str, choices: tuple[str, ...]) -> str:
    if choices:
        return "choices"
    if name in FILE_METAVARS:
        return "file"
    if name in DIR_METAVARS:
        return "dir"
    return "text" if name else ""


def command_tree(parser: argparse.ArgumentParser, words: tuple[str, ...] = (PROG,), summary: str = "") -> Command:
    """The commands, options and positionals of ``parser`` and of its subparsers, recursively."""
    options: list[Option] = []
    positionals: list[Positional] = []
    subcommands: list[Command] = []
    for action in parser_actions(parser):
        if action.help == argparse.SUPPRESS:
            continue
        help_text = " ".join((action.help or "").split()).replace("%(prog)s", parser.prog)
        if isinstance(action.choices, Mapping):  # the subparsers action: name -> parser
            for name, child in action.choices.items():
                if isinstance(child, argparse.ArgumentParser):
                    child_summary = SUMMARIES.get(name, "") if len(words) == 1 else ""
                    subcommands.append(command_tree(child, (*words, name), child_summary))
            continue
        choices = tuple(str(c) for c in action.choices) if action.choices is not None else ()
        if action.option_strings:
            takes = action.nargs != 0
            value = ""
            if takes:
                value = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
            options.append(Option(tuple(action.option_strings), value, choices, help_text))
        else:
            name = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
            positionals.append(Positional(name, choices, help_text, action.nargs in ("*", "+")))
    description = " ".join((parser.description or "").split())
    usage = " ".join(parser.format_usage().split()).removeprefix("usage: ")
    return Command(
        words,
        summary or _first_sentence(description),
        description,
        usage,
        tuple(options),
        tuple(positionals),
        tuple(subcommands),
    )


def _first_sentence(text: str) -> str:
    head, dot, _ = text.partition(". ")
    return head.rstrip(".") if dot or head.endswith(".") else head


def full_tree() -> Command:
    """The tree of the whole ``heredoc-lsp`` command, every subcommand's parser loaded."""
    return command_tree(build_parser(full=True))


# --- bash ------------------------------------------------------------------------------------------------------


def _fn(command: Command) -> str:
    return "_" + "__".join(w.replace("-", "_").replace(".", "_") for w in command.words)


def bash_script(tree: Command) -> str:
    """A completion function for bash (no bash-completion package needed): finds the subcommand the words so far
    name (skipping option values), then completes that command's options, option values or positionals."""
    walk_cases: list[str] = []
    complete_cases: list[str] = []
    for command in tree.walk():
        key = shlex.quote(" ".join(command.words))
        valued = [flag for o in command.options if o.value for flag in o.flags]
        arms: list[str] = []
        if valued:
            arms.append(f"            {'|'.join(map(shlex.quote, valued))}) ((i++)) ;;")
        if command.subcommands:
            names = "|".join(shlex.quote(s.words[-1]) for s in command.subcommands)
            arms.append(f'            {names}) path="$path $w" ;;')
        if arms:
            walk_cases.append(f'        {key})\n          case "$w" in\n' + "\n".join(arms) + "\n          esac ;;")
        value_arms: list[str] = []
        for option in command.options:
            if not option.value:
                continue
            pattern = "|".join(map(shlex.quote, option.flags))
            value_arms.append(f"            {pattern}) {_bash_values(option.completes, option.choices)} return ;;")
        flags = " ".join(flag for o in command.options for flag in o.flags)
        if command.subcommands:
            words = " ".join(s.words[-1] for s in command.subcommands)
            rest = f'COMPREPLY=($(compgen -W {shlex.quote(words)} -- "$cur"))'
        elif command.positionals:
            first = command.positionals[0]
            rest = _bash_values(first.completes, first.choices)
        else:
            rest = ":"
        body = '          case "$prev" in\n' + "\n".join(value_arms) + "\n          esac\n" if value_arms else ""
        body += (
            f'          if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W {shlex.quote(flags)} -- "$cur"))\n'
            f"          else {rest}\n          fi ;;"
        )
        complete_cases.append(f"        {key})\n{body}")
    fn = _fn(tree)
    return (
        f"# bash completion for {PROG}, generated by '{PROG} completion bash' from its argument parser.\n"
        f"# Load it with:  source <({PROG} completion bash)\n"
        f"{fn}() {{\n"
        "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
        '    if [[ $prev == "=" ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n'
        f"    local path={shlex.quote(PROG)} i w\n"
        "    COMPREPLY=()\n"
        "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
        "        w=${COMP_WORDS[i]}\n"
        '        case "$path" in\n' + "\n".join(walk_cases) + "\n        esac\n"
        "    done\n"
        '    case "$path" in\n' + "\n".join(complete_cases) + "\n    esac\n"
        "}\n"
        f"complete -o default -F {fn} {PROG}\n"
    )


def _bash_values(kind: str, choices: tuple[str, ...]) -> str:
    if kind == "choices":
        return f'COMPREPLY=($(compgen -W {shlex.quote(" ".join(choices))} -- "$cur"));'
    if kind == "dir":
        return 'COMPREPLY=($(compgen -d -- "$cur"));'
    if kind == "file":
        return 'COMPREPLY=($(compgen -f -- "$cur"));'
    return ":;"  # free text: nothing to offer (complete -o default then offers file names)


# --- zsh -------------------------------------------------------------------------------------------------------


def _zsh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _zsh_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def _zsh_action(kind: str, choices: tuple[str, ...]) -> str:
    if kind == "choices":
        return "(" + " ".join(c.replace(" ", "\\ ") for c in choices) + ")"
    return {"file": "_files", "dir": "_files -/"}.get(kind, " ")


def zsh_script(tree: Command) -> str:
    """A ``#compdef`` file: one function per command, each an ``_arguments`` spec; a command with subcommands
    lists them and hands the rest of the line to the chosen one's function."""
    functions: list[str] = []
    for command in tree.walk():
        specs: list[str] = []
        for option in command.options:
            help_text = _zsh_help(option.help)
            exclusive = f"({' '.join(option.flags)})" if len(option.flags) > 1 else ""
            for flag in option.flags:
                if option.value:
                    action = _zsh_action(option.completes, option.choices).replace(":", "\\:")
                    suffix = "=" if flag.startswith("--") else ""
                    spec = f"{exclusive}{flag}{suffix}[{help_text}]:{_zsh_help(option.value)}:{action}"
                else:
                    spec = f"{exclusive}{flag}[{help_text}]"
                specs.append(_zsh_quote(spec))
        dispatch = ""
        if command.subcommands:
            specs += ["'1: :->command'", "'*:: :->argument'"]
            described = " ".join(
                _zsh_quote(f"{s.words[-1]}:{s.summary.replace(':', chr(92) + ':')}") for s in command.subcommands
            )
            arms = "\n".join(f"        {s.words[-1]}) {_fn(s)} ;;" for s in command.subcommands)
            dispatch = (
                "  case $state in\n"
                f"    command) local -a commands=({described})\n"
                "      _describe -t commands command commands ;;\n"
                "    argument) case $line[1] in\n"
                f"{arms}\n"
                "      esac ;;\n"
                "  esac\n"
            )
        else:
            for positional in command.positionals:
                action = _zsh_action(positional.completes, positional.choices)
                name = _zsh_help(positional.name)
                specs.append(_zsh_quote(f"{'*' if positional.repeats else ''}:{name}:{action}"))
        head = "  local curcontext=$curcontext state line\n  typeset -A opt_args\n" if command.subcommands else ""
        args = " \\\n    ".join(specs)
        flag = "-C " if command.subcommands else ""
        functions.append(f"{_fn(command)}() {{\n{head}  _arguments -s {flag}\\\n    {args}\n{dispatch}}}\n")
    return (
        f"#compdef {PROG}\n"
        f"# zsh completion for {PROG}, generated by '{PROG} completion zsh' from its argument parser.\n"
        f"# Install it as _{PROG} in a folder of $fpath, or load it with:  source <({PROG} completion zsh)\n"
        + "\n".join(functions)
        + f'\nif [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n  {_fn(tree)} "$@"\n'
        f"else\n  compdef {_fn(tree)} {PROG}\nfi\n"
    )


# --- fish ------------------------------------------------------------------------------------------------------


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_condition(command: Command) -> str:
    """True when the words so far name exactly ``command`` (and none of its subcommands yet)."""
    parts = [f"__fish_seen_subcommand_from {w}" for w in command.words[1:]]
    if not command.words[1:]:
        parts = ["__fish_use_subcommand"]
    if command.subcommands and command.words[1:]:
        parts.append("not __fish_seen_subcommand_from " + " ".join(s.words[-1] for s in command.subcommands))
    return "; and ".join(parts)


def fish_script(tree: Command) -> str:
    """``complete`` lines: each command's subcommands, options (with their values) and positionals, under a
    condition on the subcommands already typed."""
    lines = [
        f"# fish completion for {PROG}, generated by '{PROG} completion fish' from its argument parser.",
        f"# Install it as ~/.config/fish/completions/{PROG}.fish, or load it with:  {PROG} completion fish | source",
        f"complete -c {PROG} -f",
    ]
    for command in tree.walk():
        condition = _fish_quote(_fish_condition(command))
        for sub in command.subcommands:
            lines.append(f"complete -c {PROG} -n {condition} -a {sub.words[-1]} -d {_fish_quote(sub.summary)}")
        for option in command.options:
            names = " ".join(
                f"-l {f[2:]}" if f.startswith("--") else (f"-s {f[1:]}" if len(f) == 2 else f"-o {f[1:]}")
                for f in option.flags
            )
            value = ""
            if option.completes == "choices":
                value = f" -x -a {_fish_quote(' '.join(option.choices))}"
            elif option.completes == "file":
                value = " -r -F"
            elif option.completes == "dir":
                value = " -x -a '(__fish_complete_directories)'"
            elif option.completes == "text":
                value = " -x"
            lines.append(f"complete -c {PROG} -n {condition} {names}{value} -d {_fish_quote(option.help)}")
        if not command.subcommands:
            for positional in command.positionals:
                if positional.completes == "choices":
                    lines.append(f"complete -c {PROG} -n {condition} -a {_fish_quote(' '.join(positional.choices))}")
                elif positional.completes in ("file", "dir"):
                    lines.append(f"complete -c {PROG} -n {condition} -F")
    return "\n".join(lines) + "\n"


SCRIPTS: Mapping[str, Callable[[Command], str]] = {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}


DESCRIPTION = (
    "Print a completion script for SHELL, generated from heredoc-lsp's own argument parser. "
    "bash: source <(heredoc-lsp completion bash); zsh: heredoc-lsp completion zsh > a folder of $fpath as "
    "_heredoc-lsp; fish: heredoc-lsp completion fish > ~/.config/fish/completions/heredoc-lsp.fish."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("shell", metavar="SHELL", choices=SHELLS, help="the shell: bash, zsh or fish")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(SCRIPTS[args.shell](full_tree()))
    return 0
