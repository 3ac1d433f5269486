"""lsp/wire.py writes the JSON that lsprotocol's converter writes for the same diagnostic (the reference below
builds the lsprotocol value field by field), and diagnostics.to_lsp reads it back as that value."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.workspace import PositionCodec

from heredoc_lsp.lsp.diagnostics import to_lsp
from heredoc_lsp.lsp.positions import span_to_range
from heredoc_lsp.lsp.wire import diagnostic_text
from heredoc_lsp.rules import doc_url
from heredoc_lsp.syntax.diagnostics import Diagnostic, Related, Severity, Span

LINES = ("echo é😀 done", "plain ascii line", "", "x😀😀y", "tab\there")
ENCODINGS = [
    types.PositionEncodingKind.Utf16,
    types.PositionEncodingKind.Utf8,
    types.PositionEncodingKind.Utf32,
]
CONVERTER = get_converter()


def _plain(value: object) -> object:
    """``data`` as JSON keeps: string keys, lists for tuples, text for anything else."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _reference_value(codec: PositionCodec, d: Diagnostic, related: bool, data: bool) -> types.Diagnostic:
    uri = "file:///w%20x.cli"
    info = [
        types.DiagnosticRelatedInformation(types.Location(uri, span_to_range(codec, LINES, r.span)), r.message)
        for r in d.related
    ]
    href = doc_url(d.code)
    return types.Diagnostic(
        range=span_to_range(codec, LINES, d.span),
        message=d.message,
        severity=types.DiagnosticSeverity(int(d.severity)),
        code=d.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source="heredoc-lsp",
        related_information=info if related and info else None,
        data=_plain(dict(d.data)) if data and d.data else None,
    )


def _reference(codec: PositionCodec, d: Diagnostic, related: bool, data: bool) -> object:
    return CONVERTER.unstructure(_reference_value(codec, d, related, data), types.Diagnostic)


SPANS = st.builds(Span, st.integers(-1, 6), st.integers(-2, 20), st.integers(-1, 6), st.integers(-2, 20))
DATA = st.one_of(
    st.none(),
    st.dictionaries(
        st.text(max_size=4),
        st.one_of(st.text(max_size=5), st.integers(), st.booleans(), st.lists(st.integers(), max_size=2)),
        max_size=3,
    ),
)
DIAGNOSTICS = st.builds(
    Diagnostic,
    SPANS,
    st.sampled_from(list(Severity)),
    st.sampled_from(["no_effect", "unclosed_heredoc", "not_a_code", "run_failed"]),
    st.text(max_size=20),
    st.lists(st.builds(Related, SPANS, st.text(max_size=8)), max_size=2).map(tuple),
    DATA,
)


def test_a_recurring_data_value_keeps_its_type() -> None:
    """``data`` texts are remembered by value; ``1`` and ``True`` are equal keys in Python but not in JSON."""
    codec = PositionCodec(types.PositionEncodingKind.Utf16)
    span = Span(0, 0, 0, 4)
    texts = [
        json.loads(diagnostic_text("file:///w", LINES, codec, Diagnostic(span, Severity.ERROR, "x", "m", (), value)))
        for value in ({"n": "1"}, {"n": 1}, {"n": True}, {"n": "1"})
    ]
    assert [t["data"]["n"] for t in texts] == ["1", 1, True, "1"]


def _reference_text(codec: PositionCodec, d: Diagnostic, related: bool, data: bool) -> str:
    """The converter's value as compact JSON text (keys in lsprotocol's field order, non-ASCII escaped)."""
    return json.dumps(_reference(codec, d, related, data), separators=(",", ":"))


@pytest.mark.parametrize("encoding", ENCODINGS)
@given(d=DIAGNOSTICS, related=st.booleans(), data=st.booleans())
def test_the_text_is_byte_for_byte_the_converters(
    encoding: types.PositionEncodingKind, d: Diagnostic, related: bool, data: bool
) -> None:
    codec = PositionCodec(encoding)
    text = diagnostic_text("file:///w%20x.cli", LINES, codec, d, related=related, data=data)
    assert text == _reference_text(codec, d, related, data)
    assert json.loads(text) == _reference(codec, d, related, data)
    value = to_lsp("file:///w%20x.cli", LINES, codec, d, related=related, data=data)
    assert CONVERTER.unstructure(value, types.Diagnostic) == _reference(codec, d, related, data)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_many_diagnostics_with_recurring_and_distinct_texts(encoding: types.PositionEncodingKind) -> None:
    """Thousands of diagnostics, as a big document has: texts that recur (remembered) and more distinct ones than
    are remembered, on ASCII and non-ASCII lines, with related information and data; each one byte for byte."""
    codec = PositionCodec(encoding)
    severities = list(Severity)
    codes = ["no_effect", "unclosed_heredoc", "not_a_code"]
    found = []
    for i in range(6000):
        line = i % (len(LINES) + 1) - (i % 7 == 0)  # every line, one past the end, and -1
        span = Span(line, i % 13 - 1, line + (i % 11 == 0), i % 17)
        message = f'message {i} é😀 "q"' if i % 3 == 0 else f"recurring {i % 5}"
        related = (Related(Span(i % len(LINES), 1, i % len(LINES), 3), f"see {i % 4} 😀"),) if i % 4 == 0 else ()
        data = {"command": f"c{i % 6}"} if i % 2 else ({"n": i, "ok": True} if i % 5 == 0 else None)
        found.append(Diagnostic(span, severities[i % 4], codes[i % 3], message, related, data))
    for related_on, data_on in ((True, True), (False, False)):
        texts = [diagnostic_text("file:///w%20x.cli", LINES, codec, d, related=related_on, data=data_on) for d in found]
        assert texts == [_reference_text(codec, d, related_on, data_on) for d in found]
