"""Schemas of commands that take structured heredoc bodies (docs/formats.md; docs/configuration.md). Pure data, built by
the config loader.

Matching a command text to a configured name (docs/formats.md): leading ``NAME=value`` environment assignments are
skipped (a value may hold quoted parts: ``X="a b"``), runs of blanks read as one space, and the longest configured name
that prefixes what is left at a word boundary wins (``CHATROOM_URL=http://x chatroom  handoff j1`` is
``chatroom handoff``).
"""

from __future__ import annotations

from collections.abc import Mapping

from heredoc_lsp.syntax.lazy_re import lazy_compile
from heredoc_lsp.syntax.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Mode = Literal["single", "multi", "text"]

# One `NAME=value` shell assignment; the value is unquoted characters, '...' and "..." parts (with \-escapes).
ASSIGNMENT = r"""[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"(?:[^"\\]|\\.)*"|\\.|[^ \t\f\v'"\\])*"""
_ENV_PREFIX = lazy_compile(rf"(?:{ASSIGNMENT}[ \t\f\v]+)*")
_ONLY_ASSIGNMENTS = lazy_compile(rf"{ASSIGNMENT}(?:[ \t\f\v]+{ASSIGNMENT})*[ \t\f\v]*\Z")
_WORD = lazy_compile(r"[^ \t\f\v]+")
_BLANKS = " \t\f\v"


@record
class CommandSchema:
    """How the heredoc body of one configured command is checked.

    ``params`` is None in multi mode when any name is allowed. ``single_param`` is set in single mode.
    """

    name: str
    mode: Mode
    params: tuple[str, ...] | None = None
    required: tuple[str, ...] = ()
    single_param: str | None = None
    terminator: str | None = None
    lang: str | None = None  # the language of the body (docs/bodies.md); "none": data


@record
class SchemaMatch:
    """A configured command found in a command text: ``start``..``end`` are the columns its name covers there."""

    schema: CommandSchema
    start: int
    end: int


def env_prefix_end(command: str) -> int:
    """The column where ``command``'s command word starts, after leading ``NAME=value`` assignments."""
    if "=" not in command:
        return 0
    m = _ENV_PREFIX.match(command)
    return m.end() if m is not None else 0


def is_only_assignments(command: str) -> bool:
    """True for a command made of ``NAME=value`` assignments only (``X=1``, ``A=1 B="x y"``)."""
    name, eq, value = command.partition("=")
    if eq and name.isascii() and name.isidentifier() and not any(c in value for c in _BLANKS + "'\"\\"):
        return True  # one assignment of a plain value (the common case) needs no pattern, so none is compiled
    return bool(eq) and _ONLY_ASSIGNMENTS.match(command) is not None


def _irregular(text: str) -> bool:
    """True when ``text`` has blanks other than single spaces."""
    return "  " in text or "\t" in text or "\f" in text or "\v" in text


def _normal(text: str) -> str:
    return " ".join(_WORD.findall(text)) if _irregular(text) else text


def schema_match(schemas: Mapping[str, CommandSchema], command: str) -> SchemaMatch | None:
    """The longest configured name that prefixes ``command`` at a word boundary (see the module doc), with where
    its words are in ``command``; None when no name matches."""
    start = env_prefix_end(command)
    rest = command[start:] if start else command
    irregular = _irregular(rest)
    text = _normal(rest) if irregular else rest
    best: CommandSchema | None = None
    best_len = -1
    for name, schema in schemas.items():
        key = _normal(name)
        if len(key) <= best_len or not text.startswith(key):
            continue
        if len(text) == len(key) or text[len(key)] == " ":
            best, best_len = schema, len(key)
    if best is None:
        return None
    if not irregular:
        return SchemaMatch(best, start, start + best_len)
    # Map the normalised length back to the original columns: the name covers whole words.
    words = _normal(best.name).count(" ") + 1
    end = start
    for k, m in enumerate(_WORD.finditer(rest)):
        end = start + m.end()
        if k + 1 == words:
            break
    return SchemaMatch(best, start + len(rest) - len(rest.lstrip(_BLANKS)), end)


def lookup_schema(schemas: Mapping[str, CommandSchema], command: str) -> CommandSchema | None:
    """The schema of the longest configured name that prefixes ``command`` at a word boundary (see the module
    doc); None when there is none."""
    found = schema_match(schemas, command)
    return found.schema if found is not None else None
