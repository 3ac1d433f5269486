"""Property tests for the outbox parser: total, spans inside the document, round trip, deterministic."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.outbox import SECTION_NAMES, Outbox, marker, parse_outbox
from heredoc_lsp.syntax.text import BLANK_CHARS, is_blank, split_lines, trim, trim_start

FRAGMENTS = [
    *(marker(name) for name in SECTION_NAMES),
    "Session: ",
    "Sequence: ",
    "Task: ",
    "a1b2c3d4",
    "1",
    "0",
    ":",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "é😀",
    "===",
]

documents = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=40).map("".join)


def spans(outbox: Outbox) -> list[Span]:
    out = [d.span for d in outbox.diagnostics]
    out += [r.span for d in outbox.diagnostics for r in d.related]
    out += [s.marker_span for s in outbox.sections.values()]
    if outbox.header is not None:
        out += [f.key_span for f in outbox.header.fields] + [f.value_span for f in outbox.header.fields]
    return out


@settings(max_examples=150)
@given(documents)
def test_never_raises_and_spans_are_inside(text: str) -> None:
    lines = split_lines(text)
    outbox = parse_outbox(lines)
    for span in spans(outbox):
        assert 0 <= span.start_line <= span.end_line < max(len(lines), 1)
        if lines:
            assert 0 <= span.start_col <= len(lines[span.start_line])
            assert 0 <= span.end_col <= len(lines[span.end_line])
        assert (span.start_line, span.start_col) <= (span.end_line, span.end_col)
    found = [s.line for s in outbox.sections.values()]
    assert found == sorted(found)
    assert {d.code for d in outbox.diagnostics} <= {
        "missing_section",
        "ambiguous_section_marker",
        "bad_header",
        "missing_header_field",
    }
    assert parse_outbox(lines) == outbox


content_line = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=15).filter(
    lambda s: trim(s) not in {marker(n) for n in SECTION_NAMES}
)


def section_text(lines: list[str]) -> str:
    while lines and is_blank(lines[-1]):
        lines = lines[:-1]
    return "\n".join(lines)


task_line = content_line.filter(lambda s: not is_blank(s) and ":" not in s)


@settings(max_examples=60)
@given(
    st.from_regex(r"[0-9a-fA-F]{8}", fullmatch=True),
    st.integers(1, 10**9),
    st.lists(task_line, min_size=1, max_size=3),
    st.lists(content_line, max_size=4),
    st.lists(content_line, max_size=4),
    st.lists(content_line, max_size=4),
    st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_round_trip(
    session: str,
    sequence: int,
    task: list[str],
    protocol: list[str],
    context: list[str],
    prompt: list[str],
    newline: str,
) -> None:
    header = [f"Session: {session}", f"Sequence: {sequence}", f"Task: {task[0]}", *task[1:]]
    lines = ["=== HEADER ===", *header]
    for name, body in (("PROTOCOL", protocol), ("CONTEXT", context), ("PROMPT", prompt)):
        lines += [marker(name), *body]
    outbox = parse_outbox(split_lines(newline.join(lines) + newline))
    assert outbox.diagnostics == ()
    assert outbox.header is not None
    assert outbox.header.session == session
    assert outbox.header.sequence == sequence
    assert outbox.header.task == "\n".join([trim_start(task[0]), *task[1:]]).strip(BLANK_CHARS + "\n")
    assert outbox.sections["PROTOCOL"].text == section_text(protocol)
    assert outbox.sections["CONTEXT"].text == section_text(context)
    assert outbox.sections["PROMPT"].text == section_text(prompt)
