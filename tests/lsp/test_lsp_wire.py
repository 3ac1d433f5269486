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


@pytest.mark.parametrize("encoding", ENCODINGS)
@given(d=DIAGNOSTICS, related=st.booleans(), data=st.booleans())
def test_the_text_is_the_converters_json(
    encoding: types.PositionEncodingKind, d: Diagnostic, related: bool, data: bool
) -> None:
    codec = PositionCodec(encoding)
    text = diagnostic_text("file:///w%20x.cli", LINES, codec, d, related=related, data=data)
    assert json.loads(text) == _reference(codec, d, related, data)
    value = to_lsp("file:///w%20x.cli", LINES, codec, d, related=related, data=data)
    assert CONVERTER.unstructure(value, types.Diagnostic) == _reference(codec, d, related, data)


def test_a_recurring_data_value_keeps_its_type() -> None:
    """``data`` texts are remembered by value; ``1`` and ``True`` are equal keys in Python but not in JSON."""
    codec = PositionCodec(types.PositionEncodingKind.Utf16)
    span = Span(0, 0, 0, 4)
    texts = [
        json.loads(diagnostic_text("file:///w", LINES, codec, Diagnostic(span, Severity.ERROR, "x", "m", (), value)))
        for value in ({"n": "1"}, {"n": 1}, {"n": True}, {"n": "1"})
    ]
    assert [t["data"]["n"] for t in texts] == ["1", 1, True, "1"]
