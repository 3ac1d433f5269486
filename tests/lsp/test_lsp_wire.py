"""lsp/wire.py writes the JSON that lsprotocol's converter writes for the same diagnostic."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.workspace import PositionCodec

from heredoc_lsp.lsp.diagnostics import to_lsp
from heredoc_lsp.lsp.wire import diagnostic_text
from heredoc_lsp.syntax.diagnostics import Diagnostic, Related, Severity, Span

LINES = ("echo é😀 done", "plain ascii line", "", "x😀😀y", "tab\there")
ENCODINGS = [
    types.PositionEncodingKind.Utf16,
    types.PositionEncodingKind.Utf8,
    types.PositionEncodingKind.Utf32,
]
CONVERTER = get_converter()


def _reference(codec: PositionCodec, d: Diagnostic, related: bool, data: bool) -> object:
    value = to_lsp("file:///w%20x.cli", LINES, codec, d, related=related, data=data)
    return CONVERTER.unstructure(value, types.Diagnostic)


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


def test_a_recurring_data_value_keeps_its_type() -> None:
    """``data`` texts are remembered by value; ``1`` and ``True`` are equal keys in Python but not in JSON."""
    codec = PositionCodec(types.PositionEncodingKind.Utf16)
    span = Span(0, 0, 0, 4)
    texts = [
        json.loads(diagnostic_text("file:///w", LINES, codec, Diagnostic(span, Severity.ERROR, "x", "m", (), value)))
        for value in ({"n": "1"}, {"n": 1}, {"n": True}, {"n": "1"})
    ]
    assert [t["data"]["n"] for t in texts] == ["1", 1, True, "1"]
