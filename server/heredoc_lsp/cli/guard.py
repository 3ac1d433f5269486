"""``heredoc-lsp guard``: a pre-tool-use hook that checks the shell command a coding agent is about to run.

docs/guard.md says which hook events it reads (Claude Code, Codex, gemini-cli), how it answers each (deny, or with
``--rewrite`` the fixed command) and what it does with input that is not such an event (one line on stderr, exit
1; reading stops after :data:`READ_TIMEOUT_S` seconds). The command is checked with bash's rules
(:mod:`heredoc_lsp.syntax.bash`) and the structured bodies of the config found from the event's ``cwd``.

Start-up time matters (it runs before every shell call): only the standard library's ``json``, ``os`` and
``sys`` and the lexer are imported; the config loader only when a config file may apply.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence

from heredoc_lsp.syntax.bash import parse_bash, rewrite_bash

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from heredoc_lsp.syntax.bash import BashCommand
    from heredoc_lsp.syntax.schema import CommandSchema

FORMATS = ("auto", "claude", "codex", "gemini")
MAX_EVENT_BYTES = 8 * 1024 * 1024
READ_TIMEOUT_S = 10.0
REASON_LIMIT = 8000  # characters of a deny reason (agents show it to the model; Claude Code caps hook output)
SHELL_TOOLS = {"claude": ("Bash",), "codex": ("Bash",), "gemini": ("run_shell_command",)}
# The names of config/model.py (CONFIG_FILE_NAME, PYPROJECT_FILE_NAME, USER_CONFIG_DIR, USER_CONFIG_FILE_NAME),
# repeated so that a command with no config near it never loads the config package (tests check they agree).
CONFIG_NAMES = ("heredoc-lsp.toml", "pyproject.toml", "heredoc-lsp", "config.toml")


class GuardError(Exception):
    """Input the guard cannot use: one line on stderr, exit 1."""


DESCRIPTION = (
    "A pre-tool-use hook for coding agents: read one hook event (Claude Code PreToolUse, Codex "
    "PreToolUse, gemini-cli BeforeTool) as JSON on stdin and deny a shell command whose heredocs or syntax bash "
    "would not run as written. Nothing wrong: exit 0, no output. See docs/guard.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--format",
        dest="format",
        choices=FORMATS,
        default="auto",
        help="the agent's hook protocol (default auto: recognised from the event)",
    )
    p.add_argument(
        "--rewrite", action="store_true", help="answer with the fixed command where the fix is provably safe"
    )
    p.set_defaults(handler=run)


def run(args: Any) -> int:
    return guard(args.format, args.rewrite)


def main(words: Sequence[str]) -> int | None:
    """The fast path of ``heredoc-lsp guard WORDS`` (no argparse); None when the words need the full parser: a
    usage error, or ``-h``/``--help`` (the help is argparse's, generated from :func:`add_arguments`)."""
    fmt, rewrite = "auto", False
    k = 0
    while k < len(words):
        word = words[k]
        if word == "--rewrite":
            rewrite = True
        elif word == "--format" and k + 1 < len(words) and words[k + 1] in FORMATS:
            fmt = words[k + 1]
            k += 1
        elif word.startswith("--format=") and word[9:] in FORMATS:
            fmt = word[9:]
        else:
            return None
        k += 1
    return guard(fmt, rewrite)


def guard(fmt: str, rewrite: bool) -> int:
    """Read the event on stdin, write the answer; the exit code."""
    try:
        event = json.loads(read_event(sys.stdin.fileno()))
        answer = answer_event(event, fmt, rewrite)
    except GuardError as exc:
        sys.stderr.write(f"heredoc-lsp guard: {exc}\n")
        return 1
    except ValueError as exc:  # JSON (UnicodeDecodeError included)
        sys.stderr.write(f"heredoc-lsp guard: not a hook event: invalid JSON ({_one_line(str(exc))})\n")
        return 1
    except RecursionError:
        sys.stderr.write("heredoc-lsp guard: not a hook event: JSON nested too deeply\n")
        return 1
    except Exception as exc:  # never a traceback in an agent's hook output
        sys.stderr.write(f"heredoc-lsp guard: internal error, command not checked: {_one_line(repr(exc))}\n")
        return 1
    if answer is not None:
        try:
            sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        except OSError:  # the agent stopped reading (a closed pipe)
            return 1
    return 0


def read_event(fd: int, limit: int = MAX_EVENT_BYTES, timeout: float = READ_TIMEOUT_S) -> bytes:
    """At most ``limit`` bytes of stdin, up to its end; raises :class:`GuardError` past the limit or the time."""
    if os.isatty(fd):
        raise GuardError("reads one hook event as JSON on standard input (see 'heredoc-lsp guard --help')")
    import select  # deferred: check start-up (guard: only to read an event)
    import time  # deferred: check start-up (guard: only to read an event)

    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise GuardError(f"no complete hook event on stdin within {timeout:g} s")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise GuardError(f"hook event larger than {limit} bytes: command not checked")
        chunks.append(chunk)


def answer_event(event: object, fmt: str, rewrite: bool) -> dict[str, Any] | None:
    """The answer to one event (None: nothing to say, exit 0)."""
    if not isinstance(event, dict):
        raise GuardError("not a hook event: expected a JSON object")
    name = event.get("hook_event_name")
    if fmt == "auto":
        fmt = _recognise(event, name)
    expected = "BeforeTool" if fmt == "gemini" else "PreToolUse"
    if name is not None and name != expected:
        raise GuardError(f"expected a {expected} event, got {_one_line(str(name))!r}")
    tool = event.get("tool_name")
    if not isinstance(tool, str):
        raise GuardError("not a hook event: no tool_name")
    if tool not in SHELL_TOOLS[fmt]:
        return None
    tool_input = event.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        raise GuardError(f"a {tool} event without tool_input.command")
    cwd = event.get("cwd")
    checked = parse_bash(command, _schemas(cwd if isinstance(cwd, str) else None))
    if not checked.diagnostics:
        return None
    fixed = rewrite_bash(checked) if checked.heredocs else None
    assert isinstance(tool_input, dict)
    return _answer(fmt, checked, fixed, tool_input, rewrite)


def _recognise(event: Mapping[str, Any], name: object) -> str:
    if name == "BeforeTool":
        return "gemini"
    if name == "PreToolUse":
        return "codex" if event.get("turn_id") else "claude"
    if name is None:
        raise GuardError("not a hook event: no hook_event_name")
    raise GuardError(f"expected a PreToolUse or BeforeTool event, got {_one_line(str(name))!r}")


def _answer(
    fmt: str, checked: BashCommand, fixed: str | None, tool_input: dict[str, Any], rewrite: bool
) -> dict[str, Any]:
    reason = deny_reason(checked, fixed)
    if rewrite and fixed is not None and fmt == "claude":
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "ask",
                "permissionDecisionReason": rewrite_reason(checked),
                "updatedInput": {**tool_input, "command": fixed},
            }
        }
    if rewrite and fixed is not None and fmt == "gemini":
        return {"systemMessage": rewrite_reason(checked), "hookSpecificOutput": {"tool_input": {"command": fixed}}}
    if fmt == "gemini":
        return {"decision": "deny", "reason": reason}
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def problem_lines(checked: BashCommand) -> list[str]:
    """One line per problem: ``line N [code]: message``."""
    return [f"- line {d.span.start_line + 1} [{d.code}]: {d.message}" for d in checked.diagnostics]


def deny_reason(checked: BashCommand, fixed: str | None) -> str:
    head = (
        "heredoc-lsp guard: bash would not run this command as written "
        "(each line below names the problem and the fix; 'heredoc-lsp rule CODE' explains a code):"
    )
    text = "\n".join([head, *problem_lines(checked)])
    if fixed is not None and len(text) + len(fixed) + 80 <= REASON_LIMIT:
        text += "\nThe same command with these fixes, which keeps every heredoc body as written:\n" + fixed
    return _bounded(text)


def rewrite_reason(checked: BashCommand) -> str:
    head = "heredoc-lsp guard fixed the command's heredocs (the bodies are unchanged); it had:"
    return _bounded("\n".join([head, *problem_lines(checked)]))


def _bounded(text: str) -> str:
    return text if len(text) <= REASON_LIMIT else text[: REASON_LIMIT - 20] + "\n... (more problems)"


def _one_line(text: str) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= 200 else text[:197] + "..."


# -- configured commands ---------------------------------------------------------------------------------------


def _schemas(cwd: str | None) -> Mapping[str, CommandSchema]:
    """The configured commands of the config found from ``cwd`` (workspace and user config, with the trust rules of
    config/load.py); none when no config file may apply or the config is broken."""
    if not cwd or not os.path.isabs(cwd) or not os.path.isdir(cwd) or not _may_have_config(cwd):
        return {}
    from pathlib import Path  # deferred: check start-up (guard: only with a config file near)

    from heredoc_lsp.config.load import ConfigResolver  # deferred: check start-up (guard: only with a config file near)
    from heredoc_lsp.config.model import ConfigError  # deferred: check start-up (guard: only with a config file near)

    try:
        return ConfigResolver().config_for(Path(cwd) / "command.sh").commands
    except ConfigError as exc:
        sys.stderr.write(f"heredoc-lsp guard: broken config ignored: {_one_line(str(exc))}\n")
        return {}


def _may_have_config(cwd: str) -> bool:
    """Whether a workspace config (``heredoc-lsp.toml``, a pyproject.toml naming heredoc-lsp) or the user's config
    file exists: a cheap test before loading the config package."""
    config_file, pyproject, user_dir, user_file = CONFIG_NAMES
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    base = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".config")
    if os.path.isfile(os.path.join(base, user_dir, user_file)):
        return True
    directory = os.path.abspath(cwd)
    while True:
        if os.path.isfile(os.path.join(directory, config_file)):
            return True
        candidate = os.path.join(directory, pyproject)
        if os.path.isfile(candidate):
            try:
                with open(candidate, "rb") as f:
                    if b"heredoc-lsp" in f.read(1 << 20):
                        return True
            except OSError:
                pass
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent
