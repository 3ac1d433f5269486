"""docs/security.md "Protected paths": the pure decision of what a reply may never write."""

from __future__ import annotations

import pytest

from heredoc_lsp.syntax.protected import (
    check_edit,
    check_protected,
    protected_reason,
    replace_lines,
    table_lines,
)

PYPROJECT = '[project]\nname = "x"\n\n[tool.heredoc-lsp]\ncompat = "arca-cli"\n\n[tool.ruff]\nline-length = 100\n'


# Names that are a protected one on some file system: HFS+ drops these code points (macOS), NTFS reads a stream
# suffix and an 8.3 short name as the folder itself (Windows).
LOOK_ALIKES = [
    *(f".g{c}it/hooks/pre-commit" for c in ("\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u206f", "\ufeff")),
    ".git\u200c/hooks/pre-commit",
    "\ufeff.git/config",
    "sub/.e\u200dnvrc",
    "in\u200cbox/x.txt",
    "GIT~1/hooks/pre-commit",
    "git~2/config",
    ".git::$INDEX_ALLOCATION/hooks/pre-commit",
    ".git:$DATA",
    "VSCODE~1/tasks.json",
    "ENVRC~1",
    "HEREDO~1.TOM",
    "SESSIO~1/a.json",
    ".git./hooks/x",
    ".git /hooks/x",
]


@pytest.mark.parametrize(
    "path",
    [
        "heredoc-lsp.toml",
        "sub/dir/heredoc-lsp.toml",
        "inbox/zz.txt",
        "outbox/abc_seq0002.txt",
        "sessions/abc.json",
        ".heredoc-lsp/state",
        ".git/hooks/pre-commit",
        ".git/config",
        "vendor/lib/.git/hooks/post-checkout",
        ".git",
        ".envrc",
        "sub/.envrc",
        ".vscode/tasks.json",
        ".idea/workspace.xml",
        # Case-insensitive file systems (macOS, Windows) and Windows' trailing dots and spaces.
        ".GIT/hooks/pre-commit",
        ".Git./config",
        "INBOX/x.txt",
        "Heredoc-LSP.toml",
        ".VSCode/settings.json",
        *LOOK_ALIKES,
    ],
)
def test_protected_names_and_look_alikes(path: str) -> None:
    found = check_protected(path, None, "x")
    assert found is not None and found.path == path
    assert found.message.startswith(f"Path '{path}' is protected: ")
    assert protected_reason(path) is not None


@pytest.mark.parametrize(
    "path",
    [
        "src/inbox/handler.py",  # only the workspace root's agent folders are the agent's
        "docs/outbox.md",
        "my.git/x",
        ".gitignore",
        ".github/workflows/ci.yml",
        "envrc",
        "notes/.envrc.example",
        "heredoc-lsp.toml.bak",
        "pyproject.toml",
        "src/app.py",
        "GITHUB~1/workflows/ci.yml",  # the short name of .github, not of .git
        "my~1/x",
        "notes:2024.txt",
        "s\u200crc/app.py",
    ],
)
def test_ordinary_paths(path: str) -> None:
    assert protected_reason(path) is None
    assert check_protected(path, None, "anything\n") is None


def test_pyproject_table_add_change_remove() -> None:
    without = '[project]\nname = "x"\n'
    assert check_protected("pyproject.toml", None, without) is None
    assert check_protected("pyproject.toml", without, without + "\n[tool.black]\n") is None
    added = check_protected("pyproject.toml", without, without + '[tool.heredoc-lsp.executor]\nsandbox = "none"\n')
    assert added is not None and "[tool.heredoc-lsp]" in added.message
    assert check_protected("sub/PyProject.toml", None, PYPROJECT) is not None  # created with the table
    assert check_protected("pyproject.toml", PYPROJECT, PYPROJECT.replace("arca-cli", "none")) is not None
    assert check_protected("pyproject.toml", PYPROJECT, without) is not None  # removed
    assert check_protected("pyproject.toml", PYPROJECT, None) is not None  # DELETE_FILE
    assert check_protected("pyproject.toml", without, None) is None
    # The same table in another layout is not a change; the rest of the file may change freely.
    dotted = '[project]\nname = "y"\n[tool]\nheredoc-lsp = { compat = "arca-cli" }\nruff = { line-length = 1 }\n'
    assert check_protected("pyproject.toml", PYPROJECT, dotted) is None
    # A file that stops parsing while it had the table removes the table (the loader falls back to defaults).
    assert check_protected("pyproject.toml", PYPROJECT, PYPROJECT + "[[[") is not None
    # An escaped key is the same key.
    escaped = without + '[tool."heredoc\\u002dlsp"]\nconfirm = "never"\n'
    assert check_protected("pyproject.toml", without, escaped) is not None


def test_pyproject_edit_touching_or_adding_the_table() -> None:
    assert table_lines(PYPROJECT.split("\n")) == [3, 4, 5]
    # Lines 1-2 ([project]) and 7-8 ([tool.ruff]) are free.
    assert check_edit("pyproject.toml", PYPROJECT, 2, 2, 'name = "renamed"') is None
    assert check_edit("pyproject.toml", PYPROJECT, 8, 8, "line-length = 120") is None
    # Anything from the header to the next header is the table's, even a blank line or a comment.
    for line in (4, 5, 6):
        assert check_edit("pyproject.toml", PYPROJECT, line, line, "") is not None
    assert check_edit("pyproject.toml", PYPROJECT, 1, 8, "") is not None
    # A body that adds the table (or a dotted key for it) outside the table's lines.
    assert check_edit("pyproject.toml", PYPROJECT, 8, 8, "line-length = 1\n[tool.heredoc-lsp.x]\na = 1") is not None
    assert check_edit("pyproject.toml", "[tool]\nx = 1\n", 2, 2, 'heredoc-lsp.confirm = "never"') is not None
    assert check_edit(".git/config", "[core]\n", 1, 1, "[core]") is not None


def test_replace_lines_keeps_the_rest() -> None:
    assert replace_lines("a\r\nb\r\nc\r\n", 2, 2, "x\ny") == "a\r\nx\ny\nc\r\n"
    assert replace_lines("a\nb\n", 1, 2, "") == ""
