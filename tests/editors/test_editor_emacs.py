"""Real Emacs 28 with eglot 1.9, in batch mode, configured as docs/editors.md says: it shows the diagnostic of an
unclosed heredoc after non-ASCII text, at the right place (eglot speaks UTF-16; Emacs columns are characters)."""

from __future__ import annotations

from pathlib import Path

from editors_harness import run_emacs, workspace_file


def test_eglot_shows_unclosed_heredoc(tmp_path: Path) -> None:
    file = workspace_file(tmp_path, "script.cli", "echo start\né😀 cat <<EOF\nbody é😀\n", config=None)
    result = run_emacs(file.parent, file, tmp_path / "home")
    assert result.get("error") is None, result
    assert result["mode"] == "cli-script-mode"
    diagnostics = [(d["beg"], d["end"], d["type"], d["text"]) for d in result["diagnostics"]]
    # "é😀 cat <<" is 9 characters: the marker EOF spans columns 9-12 of line 1 (0-based).
    assert diagnostics == [
        (
            [1, 9],
            [1, 12],
            "eglot-error",
            "heredoc-lsp [unclosed_heredoc]: "
            "Unclosed heredoc starting at line 2: expected 'EOF' but reached end of file",
        )
    ], result
