"""Code-point positions <-> the client's position encoding (UTF-16, UTF-8 or UTF-32), through pygls' codec.

Everything inside the server (parsers, spans, fixes) counts columns in code points (Python ``str`` indexes). Every
position that crosses the wire goes through these functions, which use the negotiated
:class:`pygls.workspace.PositionCodec` with two guards pygls lacks: a column past the end of a line means the end
of that line (pygls moves it one unit *before* the end and mutates the incoming object), and a line past the end
of the document means the end of the document. ASCII lines skip the codec: their units equal code points in all
three encodings.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import PositionCodec

from heredoc_lsp.syntax.diagnostics import Span

Point = tuple[int, int]  # (line, code-point column)


def column_to_client(codec: PositionCodec, line_text: str, col: int) -> int:
    """Code-point column ``col`` of ``line_text`` in client units (clamped to the line)."""
    col = max(0, min(col, len(line_text)))
    if line_text.isascii():
        return col
    return int(codec.client_num_units(line_text[:col]))


def column_from_client(codec: PositionCodec, line_text: str, units: int) -> int:
    """Client-unit column ``units`` of ``line_text`` as a code-point column (past the end: the end).

    A column that falls inside a character (half of a surrogate pair, the middle of a UTF-8 sequence) moves to
    the end of that character, as pygls does.
    """
    if units <= 0:
        return 0
    if line_text.isascii():
        return min(units, len(line_text))
    if units >= codec.client_num_units(line_text):
        return len(line_text)
    pos = codec.position_from_client_units([line_text], types.Position(line=0, character=units))
    return int(pos.character)


def to_client(codec: PositionCodec, lines: Sequence[str], line: int, col: int) -> types.Position:
    """A code-point position as an LSP position; a line past the end is the end of the document."""
    if line < 0:
        return types.Position(line=0, character=0)
    if line >= len(lines):
        return types.Position(line=len(lines), character=0)
    return types.Position(line=line, character=column_to_client(codec, lines[line], col))


def from_client(codec: PositionCodec, lines: Sequence[str], position: types.Position) -> Point:
    """An LSP position as a code-point position, clamped into the document (``lines`` without terminators)."""
    if position.line >= len(lines):
        return (len(lines), 0)
    return (position.line, column_from_client(codec, lines[position.line], position.character))


def span_to_range(codec: PositionCodec, lines: Sequence[str], span: Span) -> types.Range:
    return types.Range(
        start=to_client(codec, lines, span.start_line, span.start_col),
        end=to_client(codec, lines, span.end_line, span.end_col),
    )


def range_to_span(codec: PositionCodec, lines: Sequence[str], rng: types.Range) -> Span:
    (sl, sc), (el, ec) = from_client(codec, lines, rng.start), from_client(codec, lines, rng.end)
    if (el, ec) < (sl, sc):
        (sl, sc), (el, ec) = (el, ec), (sl, sc)
    return Span(sl, sc, el, ec)
