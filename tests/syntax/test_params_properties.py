"""Properties of the structured-body parser: total, spans inside the body, generated bodies round trip."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heredoc_lsp.syntax.params import delimiter_text, is_delimiter_line, parse_params
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import is_blank, split_lines, trim

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SCHEMAS = [
    None,
    CommandSchema("t", "multi", params=("A", "B_C", "D"), required=("A", "D"), terminator="END"),
    CommandSchema("n", "multi", params=None, required=("A",)),
    CommandSchema("s", "single", single_param="MESSAGE", terminator="END"),
    CommandSchema("x", "text", terminator="END"),
]

NASTY = "-()UUID:abcdef0123456789ABC_ \t\f\v\r\n\x85\u2028éMESAGEND"
body_text = st.text(alphabet=st.sampled_from(list(NASTY)), max_size=300) | st.text(max_size=200)


@SETTINGS
@given(body_text, st.sampled_from(SCHEMAS), st.integers(0, 5), st.booleans())
def test_never_raises_and_spans_inside(text: str, schema: CommandSchema | None, offset: int, tabs: bool) -> None:
    lines = split_lines(text)
    col_offsets = [1] * len(lines) if tabs else None
    body = parse_params(lines, schema, line_offset=offset, col_offsets=col_offsets)
    shift = 1 if tabs else 0
    spans = [d.span for d in body.diagnostics] + [r.span for d in body.diagnostics for r in d.related]
    spans += [s for p in body.params for s in (p.delimiter_span, p.name_span) if s is not None]
    for span in spans:
        assert offset <= span.start_line <= span.end_line < offset + max(len(lines), 1)
        assert (span.start_line, span.start_col) <= (span.end_line, span.end_col)
        for line, col in ((span.start_line, span.start_col), (span.end_line, span.end_col)):
            text_line = lines[line - offset] if lines else ""
            assert 0 <= col <= len(text_line) + shift
    assert (body.values is None) == any(d.severity == 1 for d in body.diagnostics)
    assert body == parse_params(list(lines), schema, line_offset=offset, col_offsets=col_offsets)


line_chars = st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"])
value_line = st.text(alphabet=line_chars, max_size=15).filter(lambda s: not is_delimiter_line(trim(s)))
names = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ_", min_size=1, max_size=8)


@SETTINGS
@given(
    st.dictionaries(names, st.lists(value_line, max_size=5), min_size=1, max_size=5),
    st.sampled_from([None, "a1b2c3d4", "123e4567-e89b-12d3-a456-426614174000"]),
    st.lists(st.sampled_from(["", "  ", "\t"]), max_size=2),
)
def test_generated_bodies_round_trip(params: dict[str, list[str]], uuid: str | None, lead: list[str]) -> None:
    lines = list(lead)
    expected: dict[str, str] = {}
    for name, value in params.items():
        lines.append(delimiter_text(name, uuid))
        lines.extend(value)
        start, end = 0, len(value)
        while start < end and is_blank(value[start]):
            start += 1
        while end > start and is_blank(value[end - 1]):
            end -= 1
        expected[name] = "\n".join(value[start:end])
    body = parse_params(lines)
    assert [p.name for p in body.params] == list(params)
    assert [p.value for p in body.params] == list(expected.values())
    empty = [name for name, v in expected.items() if v == ""]
    assert [d.code for d in body.diagnostics] == ["empty"] * len(empty)
    assert body.values == (None if empty else expected)
    assert body.style == ("plain" if uuid is None else "uuid")
    assert body.delimiter_lines == tuple(p.line for p in body.params)
