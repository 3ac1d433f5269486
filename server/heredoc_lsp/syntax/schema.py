"""Schemas of commands that take structured heredoc bodies (SPEC §3, §8). Pure data, built by the config loader."""

from __future__ import annotations

from collections.abc import Mapping

from heredoc_lsp.syntax.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Mode = Literal["single", "multi", "text"]


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


def lookup_schema(schemas: Mapping[str, CommandSchema], command: str) -> CommandSchema | None:
    """The schema of the longest configured name that prefixes ``command`` at a word boundary."""
    best: CommandSchema | None = None
    for name, schema in schemas.items():
        if not command.startswith(name):
            continue
        at_boundary = len(command) == len(name) or command[len(name)] in " \t"
        if at_boundary and (best is None or len(name) > len(best.name)):
            best = schema
    return best
