"""Document symbols: the outline tree of each format, with exact names, kinds, details and ranges."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from nav_harness import contains, doc, flatten, line_end, rng

from lsp.lsp_harness import RecordingClient, capabilities_for, session

pytestmark = pytest.mark.asyncio(loop_scope="module")

K = types.SymbolKind

CLI = """\
# é😀 setup
é😀 run <<EOF
body é😀
EOF
chatroom task-started <<-'PARAMS_END'
---TITLE---
\tTitre é😀

---DESCRIPTION---
Desc
PARAMS_END
plain é😀 cmd
"""


async def symbols(client: RecordingClient, uri: str) -> list[types.DocumentSymbol]:
    result = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(uri)))
    assert result is not None
    assert all(isinstance(s, types.DocumentSymbol) for s in result)
    return [s for s in result if isinstance(s, types.DocumentSymbol)]


def shape(symbols: list[types.DocumentSymbol]) -> list[tuple[str, types.SymbolKind, str | None, list[object]]]:
    return [(s.name, s.kind, s.detail, shape(list(s.children or []))) for s in symbols]


@pytest.mark.per_profile
async def test_cli_outline_tree(client: RecordingClient) -> None:
    uri = client.open(CLI)
    found = await symbols(client, uri)
    assert shape(found) == [
        ("é😀 run", K.Function, None, [("heredoc", K.String, "EOF", [])]),
        (
            "chatroom task-started",
            K.Function,
            None,
            [
                (
                    "heredoc",
                    K.String,
                    "PARAMS_END",
                    [("TITLE", K.Field, "required, 1 line", []), ("DESCRIPTION", K.Field, "required, 1 line", [])],
                )
            ],
        ),
        ("plain é😀 cmd", K.Function, None, []),
    ]
    run, task, plain = found
    assert run.range == rng(client, CLI, 1, 0, 3, 3)
    assert run.selection_range == rng(client, CLI, 1, 0, 1, 6)
    heredoc = (run.children or [])[0]
    assert heredoc.range == rng(client, CLI, 1, 7, 3, 3)
    assert heredoc.selection_range == rng(client, CLI, 1, 9, 1, 12)
    title, description = (task.children or [])[0].children or []
    assert title.range == rng(client, CLI, 5, 0, 6, line_end(CLI, 6))
    assert title.selection_range == rng(client, CLI, 5, 3, 5, 8)
    assert description.range == rng(client, CLI, 8, 0, 9, 4)
    assert plain.range == plain.selection_range == rng(client, CLI, 11, 0, 11, 13)


async def test_cli_children_nest_inside_parents(client: RecordingClient) -> None:
    uri = client.open(CLI)
    for s in flatten(await symbols(client, uri)):
        assert contains(s.range, s.selection_range), s.name
        for child in s.children or []:
            assert contains(s.range, child.range), (s.name, child.name)


async def test_cli_error_lines_are_outlined_with_their_error(client: RecordingClient) -> None:
    text = "é <<ZZ\nx\n<<EOF\ny\nEOF\n"
    uri = client.open(text)
    found = await symbols(client, uri)
    assert shape(found) == [("é", K.Function, "unclosed heredoc", [("heredoc", K.String, "ZZ", [])])]
    assert found[0].range == rng(client, text, 0, 0, 4, 3)


INBOX = """\
Voilà 😀 the plan.
[CREATE_FILE path="src/é😀.py"]
print("hi")
[/CREATE_FILE]
[EDIT_FILE path="notes.md" start_line="1" end_line="1"]
# notes 2
[/EDIT_FILE]
[DELETE_FILE path="old.txt"]
[RUN_COMMAND]
  pytest -q
[/RUN_COMMAND]
[DONE]
All done
[/DONE]
"""


async def test_inbox_blocks(client: RecordingClient) -> None:
    uri = client.open(INBOX, suffix=".inbox", language_id="agent-inbox")
    found = await symbols(client, uri)
    assert shape(found) == [
        ("CREATE_FILE", K.File, "src/é😀.py", []),
        ("EDIT_FILE", K.File, "notes.md lines 1-1", []),
        ("DELETE_FILE", K.File, "old.txt", []),
        ("RUN_COMMAND", K.Function, "pytest -q", []),
        ("DONE", K.Event, "All done", []),
    ]
    assert found[0].range == rng(client, INBOX, 1, 0, 3, 14)
    assert found[0].selection_range == rng(client, INBOX, 1, 0, 1, line_end(INBOX, 1))
    assert found[2].range == rng(client, INBOX, 7, 0, 7, line_end(INBOX, 7))


OUTBOX = """\
=== HEADER ===
Session: 1234abcd
Sequence: 2
Task: écrire 😀
  more task
=== PROTOCOL ===
rules
=== CONTEXT ===
files

=== PROMPT ===
Continue.
"""


async def test_outbox_sections(client: RecordingClient) -> None:
    uri = client.open(OUTBOX, suffix=".outbox", language_id="agent-outbox")
    found = await symbols(client, uri)
    assert shape(found) == [
        (
            "HEADER",
            K.Module,
            "4 lines",
            [
                ("Session", K.Property, "1234abcd", []),
                ("Sequence", K.Property, "2", []),
                ("Task", K.Property, "écrire 😀", []),
            ],
        ),
        ("PROTOCOL", K.Module, "1 line", []),
        ("CONTEXT", K.Module, "1 line", []),
        ("PROMPT", K.Module, "1 line", []),
    ]
    header = found[0]
    assert header.range == rng(client, OUTBOX, 0, 0, 4, 11)
    assert (header.children or [])[2].range == rng(client, OUTBOX, 3, 0, 4, 11)
    assert found[2].range == rng(client, OUTBOX, 7, 0, 9, 0)


async def test_flat_symbols_without_hierarchy_support(module_root: Path) -> None:
    caps = capabilities_for("vscode")
    assert caps.text_document is not None and caps.text_document.document_symbol is not None
    caps.text_document.document_symbol.hierarchical_document_symbol_support = False
    async with session("vscode", module_root, capabilities=caps) as c:
        uri = c.open(CLI)
        result = await c.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(uri)))
        assert result is not None
        flat = [(s.name, s.container_name) for s in result if isinstance(s, types.SymbolInformation)]
        assert flat == [
            ("é😀 run", None),
            ("heredoc", "é😀 run"),
            ("chatroom task-started", None),
            ("heredoc", "chatroom task-started"),
            ("TITLE", "heredoc"),
            ("DESCRIPTION", "heredoc"),
            ("plain é😀 cmd", None),
        ]
