"""docs/formats.md: which configured command a command text names (env prefixes skipped, blank runs read as one
space)."""

from __future__ import annotations

import pytest

from heredoc_lsp.syntax.schema import CommandSchema, env_prefix_end, is_only_assignments, lookup_schema, schema_match

CHATROOM = CommandSchema("chatroom", "text")
HANDOFF = CommandSchema("chatroom handoff", "single", single_param="MESSAGE")
SCHEMAS = {s.name: s for s in (CHATROOM, HANDOFF)}


@pytest.mark.parametrize(
    ("command", "expected", "start", "end"),
    [
        ("chatroom handoff j1", HANDOFF, 0, 16),
        ("chatroom  handoff j1", HANDOFF, 0, 17),
        ("chatroom\thandoff", HANDOFF, 0, 16),
        ("CHATROOM_URL=http://x chatroom  handoff j1", HANDOFF, 22, 39),
        ("A=1 B='x y' C=\"p q\" chatroom handoff", HANDOFF, 20, 36),
        ("X=1   chatroom\t\thandoff", HANDOFF, 6, 23),
        ("chatroom handoffs", CHATROOM, 0, 8),
        ("chatroom", CHATROOM, 0, 8),
        ("ü=1 chatroom", None, 0, 0),  # not a shell name: no prefix, and `ü=1` is no configured command
        ("chatroomx handoff", None, 0, 0),
        ("echo chatroom handoff", None, 0, 0),
    ],
)
def test_schema_match(command: str, expected: CommandSchema | None, start: int, end: int) -> None:
    found = schema_match(SCHEMAS, command)
    assert lookup_schema(SCHEMAS, command) is expected
    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert (found.schema, found.start, found.end) == (expected, start, end)
        assert command[found.start : found.end].split() == expected.name.split()


@pytest.mark.parametrize(
    ("command", "end", "only"),
    [
        ("make", 0, False),
        ("X=1 make", 4, False),
        # Only assignments that a blank follows are a prefix: what is left is where a command word would be.
        ("X=1", 0, True),
        ('X="a b"  Y=2', 9, True),
        ("X=1 Y='c d' run", 12, False),
        ("1X=2 run", 0, False),
        ("=x", 0, False),
    ],
)
def test_env_prefix(command: str, end: int, only: bool) -> None:
    assert env_prefix_end(command) == end
    assert is_only_assignments(command) is only
