"""heredoc_lsp.navigation.describe: the hover Markdown of each target."""

from __future__ import annotations

from pathlib import Path

from heredoc_lsp.languages import Language
from heredoc_lsp.navigation.describe import describe, schema_lines
from heredoc_lsp.navigation.locate import target_at
from heredoc_lsp.syntax.cli import parse_cli
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.outbox import parse_outbox
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import split_lines

SCHEMAS = {"tool task": CommandSchema("tool task", "multi", ("TITLE", "DESCRIPTION"), ("TITLE",), None, "END")}


def hover(language: Language, text: str, point: tuple[int, int], workspace: Path | None = None) -> str | None:
    lines = split_lines(text)
    tree = {Language.CLI: parse_cli, Language.INBOX: parse_inbox, Language.OUTBOX: parse_outbox}[language]
    parsed = tree(lines, SCHEMAS) if language is Language.CLI else tree(lines)  # type: ignore[operator]
    target = target_at(language, lines, parsed, point)
    assert target is not None
    return describe(target, workspace)


def test_heredoc_opener_says_what_stdin_gets() -> None:
    text = hover(Language.CLI, "é <<'EOF'\nbody é😀\nDONE\n EOF \n", (0, 5))
    assert text == (
        "**heredoc** `<<'EOF'`: stdin of `é`\n\n"
        "- marker `EOF`: the body ends at the first line that is exactly `EOF` (blanks around it allowed), line 4\n"
        "- body: 2 lines (lines 2-3); stdin is 13 characters, each body line followed by a newline\n"
        "- quoted marker: the same as unquoted here (nothing is ever interpolated)\n\n"
        "stdin:\n\n```text\nbody é😀\nDONE\n```"
    )


def test_unclosed_heredoc_and_crlf() -> None:
    # CRLF line ends are no part of stdin: "x é" and one newline, 4 code points
    assert hover(Language.CLI, "cat <<EOF\r\nx é\r\n", (0, 7)) == (
        "**heredoc** `<<EOF`: stdin of `cat`\n\n"
        "- **unclosed**: no line `EOF` follows, so the body runs to the end of the file\n"
        "- body: 1 line (line 2); stdin is 4 characters, each body line followed by a newline\n\n"
        "stdin:\n\n```text\nx é\n```"
    )


def test_configured_command_shows_its_schema() -> None:
    text = hover(Language.CLI, "tool task <<END\n---TITLE---\nt\nEND\n", (0, 2))
    assert text is not None
    for line in schema_lines(SCHEMAS["tool task"]):
        assert line in text


def test_inbox_path_is_checked_against_the_workspace(tmp_path: Path) -> None:
    text = '[CREATE_FILE path="src/é.py"]\nx\n[/CREATE_FILE]\n'
    without = hover(Language.INBOX, text, (0, 22))
    assert without is not None and "**refused**: no workspace folder is open" in without
    inside = hover(Language.INBOX, text, (0, 22), tmp_path)
    assert inside is not None and "**refused**" not in inside
    assert inside.endswith(f"- path `src/é.py` → `{tmp_path}/src/é.py` (does not exist yet)")
    outside = hover(Language.INBOX, '[DELETE_FILE path="../b" /]\n', (0, 20), tmp_path)
    assert outside is not None and "**refused**: Path '../b' is outside workspace" in outside


def test_outbox_section() -> None:
    text = hover(Language.OUTBOX, "=== HEADER ===\nSession: 1\n=== PROMPT ===\ngo é😀\n", (2, 4))
    assert text is not None and text.startswith("**section PROMPT** (1 line)\n\n")
