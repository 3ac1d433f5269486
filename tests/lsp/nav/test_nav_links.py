"""Document links for inbox paths (accepted ones only) and go-to-definition: paths, heredoc ends, inbox tag pairs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lsprotocol import types
from nav_harness import at, doc, pos, rng

from lsp.lsp_harness import RecordingClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

INBOX = """\
é😀 prose
[EDIT_FILE note="é😀" path="src/main.py" start_line="1" end_line="1"]
x
[/EDIT_FILE]
[CREATE_FILE path="docs/nouveau é.md"]
y
[/CREATE_FILE]
[DELETE_FILE path="../outside.txt"]
[READ_FILE path="/etc/passwd"]
[READ_FILE path="escape/secret.txt"]
[RUN_COMMAND path="src/main.py"]
ls
[/RUN_COMMAND]
"""


def supports_tooltips(client: RecordingClient) -> bool:
    caps = client.capabilities.text_document if client.capabilities else None
    return bool(caps and caps.document_link and caps.document_link.tooltip_support)


def links_supported(client: RecordingClient) -> bool:
    caps = client.capabilities.text_document if client.capabilities else None
    return bool(caps and caps.definition and caps.definition.link_support)


@pytest.mark.per_profile
async def test_document_links_only_inside_the_workspace(client: RecordingClient, module_root: Path) -> None:
    escape = module_root / "escape"
    if not escape.exists():
        os.symlink("/tmp", escape)  # a symbolic link leading out of the workspace
    uri = client.open(INBOX, suffix=".inbox", language_id="agent-inbox")
    result = await client.text_document_document_link_async(types.DocumentLinkParams(text_document=doc(uri)))
    assert result is not None
    main = (module_root / "src" / "main.py").resolve()
    new = (module_root / "docs" / "nouveau é.md").resolve()
    l1, c1 = at(INBOX, "src/main.py")
    l2, c2 = at(INBOX, "docs/nouveau é.md")
    assert [(link.range, link.target) for link in result] == [
        (rng(client, INBOX, l1, c1, l1, c1 + 11), main.as_uri()),
        (rng(client, INBOX, l2, c2, l2, c2 + 17), new.as_uri()),
    ]
    tooltips = [link.tooltip for link in result]
    if supports_tooltips(client):
        assert tooltips == [f"Open {main}", f"{new} (does not exist yet)"]
    else:
        assert tooltips == [None, None]


@pytest.mark.per_profile
async def test_definition_of_a_path(client: RecordingClient, module_root: Path) -> None:
    uri = client.open(INBOX, suffix=".inbox", language_id="agent-inbox")
    line, col = at(INBOX, "src/main.py")
    result = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(uri), position=pos(client, INBOX, line, col + 3))
    )
    target = (module_root / "src" / "main.py").resolve().as_uri()
    assert isinstance(result, list) and len(result) == 1
    start = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    if links_supported(client):
        assert result[0] == types.LocationLink(
            target_uri=target,
            target_range=start,
            target_selection_range=start,
            origin_selection_range=rng(client, INBOX, line, col, line, col + 11),
        )
    else:
        assert result[0] == types.Location(uri=target, range=start)
    # a file that does not exist yet, and a refused path: no definition
    for needle in ("docs/nouveau", "../outside"):
        line, col = at(INBOX, needle)
        assert (
            await client.text_document_definition_async(
                types.DefinitionParams(text_document=doc(uri), position=pos(client, INBOX, line, col + 1))
            )
            is None
        )


def target_range(result: object) -> types.Range:
    assert isinstance(result, list) and len(result) == 1
    item = result[0]
    if isinstance(item, types.LocationLink):
        return item.target_selection_range
    assert isinstance(item, types.Location)
    return item.range


async def test_definition_between_heredoc_ends(client: RecordingClient) -> None:
    text = "é😀 run <<EOF\nbody é😀\n  EOF\n"
    uri = client.open(text)
    to_opener = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(uri), position=pos(client, text, 2, 3))
    )
    assert target_range(to_opener) == rng(client, text, 0, 9, 0, 12)
    to_terminator = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(uri), position=pos(client, text, 0, 10))
    )
    assert target_range(to_terminator) == rng(client, text, 2, 2, 2, 5)


async def test_definition_between_inbox_tags(client: RecordingClient) -> None:
    uri = client.open(INBOX, suffix=".inbox", language_id="agent-inbox")
    to_opener = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(uri), position=pos(client, INBOX, 3, 4))
    )
    assert target_range(to_opener) == rng(client, INBOX, 1, 0, 1, len(INBOX.split("\n")[1]))
    to_closer = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(uri), position=pos(client, INBOX, 1, 3))
    )
    assert target_range(to_closer) == rng(client, INBOX, 3, 0, 3, 12)
