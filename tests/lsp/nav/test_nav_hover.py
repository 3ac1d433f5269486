"""Hover: heredoc openers and terminators, parameter delimiters, configured commands, inbox tags and attributes."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from nav_harness import at, doc, pos, rng

from lsp.lsp_harness import RecordingClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

CLI = """\
é😀 run <<-'EOF'
\tbody é😀
EOF
chatroom task-started <<PARAMS_END
---TITLE---
Titre é😀
---BOGUS---
x
PARAMS_END
é😀 plain
"""

HEREDOC = """\
**heredoc** `<<-'EOF'`: stdin of `é😀 run`

- marker `EOF`: the body ends at the first line that is exactly `EOF` (blanks around it allowed), line 3
- body: 1 line (line 2); stdin is 8 characters, each body line followed by a newline
- quoted marker: the same as unquoted here (nothing is ever interpolated)
- `<<-`: leading tabs are removed from every body line

stdin:

```text
body é😀
```"""

SCHEMA = """\
- mode multi: the body is `---NAME---` parameters
- parameters: `TITLE` (required), `DESCRIPTION` (required), `TECH_SPECS`
- terminator: `PARAMS_END` must not appear as a body line"""


async def hover(client: RecordingClient, uri: str, text: str, line: int, col: int) -> types.Hover | None:
    return await client.text_document_hover_async(
        types.HoverParams(text_document=doc(uri), position=pos(client, text, line, col))
    )


def markdown(h: types.Hover | None) -> str:
    assert h is not None and isinstance(h.contents, types.MarkupContent)
    assert h.contents.kind == types.MarkupKind.Markdown
    return h.contents.value


@pytest.mark.per_profile
async def test_heredoc_opener(client: RecordingClient) -> None:
    uri = client.open(CLI)
    h = await hover(client, uri, CLI, 0, 12)  # on the marker, after non-ASCII text
    assert markdown(h) == HEREDOC
    assert h is not None and h.range == rng(client, CLI, 0, 11, 0, 14)
    # the operator gives the same explanation
    assert markdown(await hover(client, uri, CLI, 0, 8)) == HEREDOC


async def test_heredoc_terminator(client: RecordingClient) -> None:
    uri = client.open(CLI)
    h = await hover(client, uri, CLI, 2, 1)
    assert markdown(h) == HEREDOC.replace("\n\n- marker", "\n\n- opened on line 1\n- marker", 1)
    assert h is not None and h.range == rng(client, CLI, 2, 0, 2, 3)


async def test_unclosed_and_empty_heredocs(client: RecordingClient) -> None:
    text = "é <<E\nE\n😀 x <<OPEN\n"
    uri = client.open(text)
    empty = markdown(await hover(client, uri, text, 0, 4))
    assert "- empty body: the command gets empty stdin" in empty
    unclosed = markdown(await hover(client, uri, text, 2, 7))
    assert "- **unclosed**: no line `OPEN` follows, so the body runs to the end of the file" in unclosed


async def test_parameter_delimiter(client: RecordingClient) -> None:
    uri = client.open(CLI)
    h = await hover(client, uri, CLI, 4, 5)
    assert markdown(h) == (
        "**parameter** `TITLE` of `chatroom task-started` (required)\n\n- value: 1 line, 8 characters\n"
        + SCHEMA
        + "\n- missing: `DESCRIPTION`"
    )
    assert h is not None and h.range == rng(client, CLI, 4, 0, 4, 11)
    bogus = markdown(await hover(client, uri, CLI, 6, 0))
    assert bogus.startswith("**parameter** `BOGUS` of `chatroom task-started`\n\n- **not allowed** here")


async def test_configured_command_schema(client: RecordingClient) -> None:
    uri = client.open(CLI)
    h = await hover(client, uri, CLI, 3, 3)
    assert markdown(h) == "**configured command** `chatroom task-started` (from `heredoc-lsp.toml`)\n\n" + SCHEMA
    assert h is not None and h.range == rng(client, CLI, 3, 0, 3, 21)


async def test_nothing_on_plain_commands_and_bodies(client: RecordingClient) -> None:
    uri = client.open(CLI)
    assert await hover(client, uri, CLI, 9, 3) is None  # an unconfigured command: nothing to explain
    assert await hover(client, uri, CLI, 5, 2) is None  # a value line


INBOX = """\
é😀 [not a tag]
[EDIT_FILE path="src/main.py" start_line="1" end_line="1" note="é"]
new
[/EDIT_FILE]
[CREATE_FILE path="../x"]
[/CREATE_FILE]
"""


@pytest.mark.per_profile
async def test_inbox_tag_and_attributes(client: RecordingClient, module_root: Path) -> None:
    uri = client.open(INBOX, suffix=".inbox", language_id="agent-inbox")
    real = (module_root / "src" / "main.py").resolve()
    tag = await hover(client, uri, INBOX, 1, 3)
    assert markdown(tag) == (
        "**EDIT_FILE** (block, closed by `[/EDIT_FILE]`)\n\n"
        "Replaces lines `start_line`..`end_line` (1-based, inclusive) of the file at `path` with the block's body; "
        "an empty body deletes them. The file's line endings are kept.\n\n"
        "- required attributes: `path`, `start_line`, `end_line`\n"
        f"- path `src/main.py` → `{real}` (exists)\n"
        "- replaces lines 1-1"
    )
    assert tag is not None and tag.range == rng(client, INBOX, 1, 1, 1, 10)
    closer = await hover(client, uri, INBOX, 3, 4)
    assert markdown(closer) == markdown(tag)
    line, col = at(INBOX, "src/main.py")
    value = await hover(client, uri, INBOX, line, col + 2)
    assert markdown(value).startswith("**path** (required by EDIT_FILE)\n\n")
    assert markdown(value).endswith(f"- value: `src/main.py`\n- path `src/main.py` → `{real}` (exists)")
    assert value is not None and value.range == rng(client, INBOX, line, col, line, col + 11)
    line, col = at(INBOX, "note")
    assert (
        markdown(await hover(client, uri, INBOX, line, col))
        == "**note**: not used by EDIT_FILE (kept, ignored)\n\n- value: `é`"
    )
    line, col = at(INBOX, "../x")
    refused = markdown(await hover(client, uri, INBOX, line, col))
    assert refused.endswith(
        "- path `../x`: **refused**: Path '../x' is outside workspace: '..' climbs above the workspace root"
    )


async def test_outbox_section(client: RecordingClient) -> None:
    text = "=== HEADER ===\nTask: é😀\n=== PROMPT ===\n"
    uri = client.open(text, suffix=".outbox", language_id="agent-outbox")
    h = await hover(client, uri, text, 0, 5)
    assert markdown(h) == (
        "**section HEADER** (1 line)\n\nSession id (8 hex digits), sequence number and the task; must be line 1."
    )
