"""Real Neovim 0.12 (headless), configured exactly as docs/editors.md says: it highlights a .cli script from the
server's semantic tokens (no TextMate grammar there), keeps them right after an edit, and gets the outline tree.

The editor harness (tests/editors/editors_harness.py) provides the documented snippet, the private environment, the
Neovim binaries and the driver (nvim_driver.lua, scenario "nav").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from editors_harness import NVIM_012, run_nvim, snippet, workspace_file

TEXT = """\
# é😀 deploy
é😀 run <<EOF
body é😀
EOF
chatroom task-started <<PARAMS_END
---TITLE---
Titre é😀
PARAMS_END
"""
CONFIG = """\
[commands."chatroom task-started"]
params = ["TITLE", "DESCRIPTION"]
required = ["TITLE"]
terminator = "PARAMS_END"
"""
# Neovim columns are bytes: "é😀 run " is 2 + 4 + 5 = 11 bytes, then "<<" and the marker "EOF". Probes sit inside
# tokens (Neovim's get_at_pos also returns a token that ends at the probe).
PROBES = [
    (1, 14),  # the marker EOF on the opener
    (0, 3),  # the comment
    (1, 2),  # the command word "é😀"
    (1, 12),  # "<<"
    (2, 8),  # a body line
    (3, 1),  # the terminator
    (4, 5),  # the configured command name
    (5, 4),  # the parameter name TITLE
    (5, 1),  # the delimiter dashes
]


def run_nav_nvim(
    workspace: Path, file: Path, home: Path, probes: list[tuple[int, int]] | None = None
) -> dict[str, Any]:
    config = snippet("nvim-0.11")
    return run_nvim(
        NVIM_012, config, workspace, home, "nav", file=str(file), probes=probes or PROBES, insert="# é inserted"
    )


def token(kind: str, line: int, start: int, end: int, modifiers: list[str] | None = None) -> list[dict[str, Any]]:
    return [{"type": kind, "modifiers": modifiers or [], "line": line, "start_col": start, "end_col": end}]


def test_neovim_highlights_from_semantic_tokens_and_shows_the_outline(tmp_path: Path) -> None:
    file = workspace_file(tmp_path, "deploy.cli", TEXT, CONFIG)
    result = run_nav_nvim(file.parent, file, tmp_path / "home")
    assert result.get("error") is None, result
    assert result["filetype"] == "cli-script"
    assert result["offset_encoding"] == "utf-8"
    assert result["legend"]["tokenTypes"][:5] == ["comment", "function", "operator", "keyword", "string"]
    assert result["probes"] == [
        token("keyword", 1, 13, 16, ["declaration"]),
        token("comment", 0, 0, 15),
        token("function", 1, 0, 6),
        token("operator", 1, 11, 13),
        token("string", 2, 0, 11),
        token("keyword", 3, 0, 3),
        token("function", 4, 0, 21),
        token("parameter", 5, 3, 8, ["declaration"]),
        token("operator", 5, 0, 3),
    ], result["log"]
    # Neovim turned them into highlights of its standard @lsp groups
    for group in ("@lsp.type.comment", "@lsp.type.keyword", "@lsp.type.string", "@lsp.type.parameter"):
        assert any(g.startswith(group) for g in result["highlight_groups"]), result["highlight_groups"]
    # after inserting a line at the top, the tokens come back one line lower
    assert result["moved"] is True
    assert result["after_edit"] == [token("comment", 0, 0, 13), token("keyword", 2, 13, 16, ["declaration"])]

    def shape(symbols: list[dict[str, Any]]) -> list[Any]:
        return [(s["name"], s["kind"], s.get("detail"), shape(s.get("children") or [])) for s in symbols]

    symbols = result["symbols"]
    assert shape(symbols) == [
        ("é😀 run", 12, None, [("heredoc", 15, "EOF", [])]),
        ("chatroom task-started", 12, None, [("heredoc", 15, "PARAMS_END", [("TITLE", 8, "required, 1 line", [])])]),
    ]
    heredoc = symbols[0]["children"][0]
    assert heredoc["selectionRange"] == {"start": {"line": 1, "character": 13}, "end": {"line": 1, "character": 16}}
    assert heredoc["range"] == {"start": {"line": 1, "character": 11}, "end": {"line": 3, "character": 3}}


PYTHON_BODY = """\
é😀 python3 - <<'PY'
import os
def f(): return 'é😀' + 1
PY
"""


def test_neovim_colours_a_python_body_as_python(tmp_path: Path) -> None:
    """Bodies in their own language (docs/bodies.md): the body's keywords, strings and numbers, in byte columns."""
    file = workspace_file(tmp_path, "body.cli", PYTHON_BODY, config=None)
    # "def f(): return 'é😀' + 1": return at bytes 9-15, the string 16-24 (é is 2 bytes, 😀 4), 1 at 27
    result = run_nav_nvim(file.parent, file, tmp_path / "home", [(1, 2), (2, 1), (2, 10), (2, 18), (2, 27)])
    assert result.get("error") is None, result
    assert result["probes"] == [
        token("keyword", 1, 0, 6),
        token("keyword", 2, 0, 3),
        token("keyword", 2, 9, 15),
        token("string", 2, 16, 24),
        token("number", 2, 27, 28),
    ], result["log"]
    assert any(g.startswith("@lsp.type.keyword") for g in result["highlight_groups"]), result["highlight_groups"]
