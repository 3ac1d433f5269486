"""Real Neovim, headless: Debian's 0.7.2 (pushed diagnostics, UTF-16, no documentChanges) and 0.12-dev (pulled
diagnostics, UTF-8), each configured exactly as docs/editors.md says. They open a .cli file with non-ASCII text
before an unclosed heredoc, show the diagnostic at the right line and column and apply the quick fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from editors_harness import NVIM_012, NVIM_07, run_nvim, snippet, workspace_file

TEXT = "echo start\né😀 cat <<EOF\nbody é😀\n"
# Neovim columns are byte offsets: "é😀 cat <<" is 2 + 4 + 5 + 2 = 13 bytes, the marker "EOF" 3 more.
MARKER_COL, MARKER_END = 13, 16
MESSAGE = "Unclosed heredoc starting at line 2: expected 'EOF' but reached end of file"
FIX = "Close the heredoc with a line 'EOF'"


@pytest.mark.parametrize(
    ("nvim", "config", "encoding", "edit_kind"),
    [
        pytest.param(NVIM_07, "nvim-0.7", "utf-16", "changes", id="nvim-0.7.2"),
        pytest.param(NVIM_012, "nvim-0.11", "utf-8", "changes", id="nvim-0.12-lsp-config"),
        pytest.param(NVIM_012, "nvim-0.10", "utf-8", "changes", id="nvim-0.12-lsp-start"),
    ],
)
def test_unclosed_heredoc_shown_and_fixed(
    tmp_path: Path, nvim: str, config: str, encoding: str, edit_kind: str
) -> None:
    file = workspace_file(tmp_path, "script.cli", TEXT)
    result = run_nvim(nvim, snippet(config), file.parent, tmp_path / "home", "quickfix", file=str(file), fix=FIX)
    assert result.get("error") is None, result
    assert result["filetype"] == "cli-script"
    assert result["offset_encoding"] == encoding
    assert [(d["lnum"], d["col"], d["end_lnum"], d["end_col"], d["code"], d["message"]) for d in result["before"]] == [
        (1, MARKER_COL, 1, MARKER_END, "unclosed_heredoc", MESSAGE)
    ], result
    assert FIX in result["titles"]
    assert result["edit_kind"] == edit_kind
    assert result["after"] == [], result
    assert result["lines"] == ["echo start", "é😀 cat <<EOF", "body é😀", "EOF"]


# The lints of the cli_lints fixture (tests/conftest.py): early_close gets its quick fix, the others stay.
LINT_CODES = [
    (4, "early_close"),
    (5, "shell_syntax"),
    (8, "shell_syntax"),
    (12, "orphan_option"),
    (13, "bashism"),
    (16, "background_stdin"),
]
EARLY_CLOSE_FIX = "Rename the marker 'EOF' to 'EOF_1' so that the heredoc runs to line 5"


@pytest.mark.parametrize(
    ("nvim", "config"),
    [
        pytest.param(NVIM_07, "nvim-0.7", id="nvim-0.7.2"),
        pytest.param(NVIM_012, "nvim-0.11", id="nvim-0.12-lsp-config"),
    ],
)
def test_the_cli_lints_are_shown_and_early_close_is_fixed(
    tmp_path: Path, nvim: str, config: str, cli_lints: str
) -> None:
    file = workspace_file(tmp_path, "lints.cli", cli_lints)
    result = run_nvim(
        nvim,
        snippet(config),
        file.parent,
        tmp_path / "home",
        "quickfix",
        file=str(file),
        fix=EARLY_CLOSE_FIX,
        left=len(LINT_CODES) - 1,
    )
    assert result.get("error") is None, result
    assert sorted((d["lnum"], d["code"]) for d in result["before"]) == LINT_CODES, result
    early = next(d for d in result["before"] if d["code"] == "early_close")
    assert (early["col"], early["end_col"]) == (0, 3)
    assert early["message"].startswith("'EOF' closes no heredoc: the heredoc opened at line 1 already ended at line 3")
    assert sorted((d["lnum"], d["code"]) for d in result["after"]) == LINT_CODES[1:], result
    assert result["lines"][:5] == [
        "cat > notes.md <<EOF_1",
        "Some text",
        "EOF",
        "more text meant for the file",
        "EOF_1",
    ]
