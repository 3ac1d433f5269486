"""File bytes to document text (docs/formats.md): BOM removed, invalid UTF-8 replaced and reported once."""

from __future__ import annotations

from dataclasses import dataclass

from heredoc_lsp.syntax.diagnostics import Diagnostic, Span, warning
from heredoc_lsp.syntax.text import decode_bytes, split_lines

REPLACEMENT = "\ufffd"


@dataclass(frozen=True, slots=True)
class DecodedDocument:
    text: str
    had_bom: bool
    diagnostics: tuple[Diagnostic, ...]  # () or one invalid_encoding warning


def invalid_encoding(text: str, line: int) -> Diagnostic:
    """The ``invalid_encoding`` warning at the first replaced character of ``line`` (0-based)."""
    lines = split_lines(text)
    line_text = lines[line] if line < len(lines) else ""
    col = line_text.find(REPLACEMENT)
    if col < 0:  # the bad byte was a line terminator's neighbour: show the whole line
        span = Span.of_line(line, line_text)
    else:
        end = col
        while end < len(line_text) and line_text[end] == REPLACEMENT:
            end += 1
        span = Span.at(line, col, end)
    return warning(
        span,
        "invalid_encoding",
        "File is not valid UTF-8: invalid bytes were replaced with U+FFFD (this is the first such line)",
    )


def decode_document(data: bytes) -> DecodedDocument:
    """Decode a file's bytes; never fails."""
    decoded = decode_bytes(data)
    diagnostics: tuple[Diagnostic, ...] = ()
    if decoded.first_invalid_line is not None:
        diagnostics = (invalid_encoding(decoded.text, decoded.first_invalid_line),)
    return DecodedDocument(decoded.text, decoded.had_bom, diagnostics)
