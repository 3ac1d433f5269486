"""The values quick fixes are made of."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from heredoc_lsp.analysis.suppress import TextEdit
from heredoc_lsp.syntax.diagnostics import Diagnostic, Span


@dataclass(frozen=True, slots=True)
class Fix:
    """One quick fix: a title for the menu, the edits, and the diagnostics it resolves. ``scope``, when set, is the
    text the fix was computed from beyond its edits (a structured body): another fix editing it invalidates this one,
    so ``check --fix`` never applies the two in one round."""

    title: str
    edits: tuple[TextEdit, ...]
    diagnostics: tuple[Diagnostic, ...]
    preferred: bool = False
    scope: Span | None = None


@dataclass(frozen=True, slots=True)
class Source:
    """The text a fix edits: its lines (no terminators), its line terminator and whether the last line has one."""

    lines: Sequence[str]
    newline: str = "\n"
    final_newline: bool = True

    def insert_line(self, line: int, text: str) -> TextEdit:
        """Insert ``text`` as a whole new line before ``line`` (after the last line when past the end).

        After the last line, the edit goes at the end of that line's text (``"\nTEXT"``), never at the position
        past the final terminator: editors disagree about that position (Neovim adds an empty line there).
        """
        n = len(self.lines)
        if line < n:
            return TextEdit(Span(line, 0, line, 0), text + self.newline)
        if n == 0:
            return TextEdit(Span(0, 0, 0, 0), text + self.newline)
        last = n - 1
        end = len(self.lines[last])
        return TextEdit(Span(last, end, last, end), self.newline + text)

    def replace_line_text(self, line: int, new_text: str) -> TextEdit:
        """Replace the trimmed text of ``line`` (its indentation and trailing blanks stay)."""
        text = self.lines[line]
        start = len(text) - len(text.lstrip(" \t\f\v"))
        end = len(text.rstrip(" \t\f\v"))
        return TextEdit(Span(line, start, line, max(start, end)), new_text)


def random_id() -> str:
    """A fresh 8-hex-digit delimiter ID."""
    return os.urandom(4).hex()  # what secrets.token_hex(4) returns, without importing secrets (hmac, hashlib)


@dataclass(frozen=True, slots=True)
class FixContext:
    """What fixes may need beyond the analysis: the text layout, the workspace root, an ID generator."""

    source: Source
    workspace: Path | None = None
    new_id: Callable[[], str] = field(default=random_id)
