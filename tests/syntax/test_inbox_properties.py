"""Property tests for the inbox parser: total, spans inside the document, round trip, deterministic."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lsp.syntax.diagnostics import Severity, Span
from heredoc_lsp.syntax.inbox import (
    BLOCK_COMMANDS,
    COMMANDS,
    InboxReply,
    closer_for,
    escape_attr_value,
    match_opener,
    parse_inbox,
)
from heredoc_lsp.syntax.paths import check_path_text
from heredoc_lsp.syntax.text import BLANK_CHARS, split_lines, trim
from heredoc_lsp.syntax.visible import hidden_diagnostics

FRAGMENTS = [
    *(f"[{name}" for name in COMMANDS),
    *(f"[/{name}]" for name in COMMANDS),
    ' path="',
    ' start_line="',
    ' end_line="',
    '"',
    "'",
    "\\",
    "]",
    "/]",
    " ",
    "\t",
    "=",
    "..",
    "/",
    "é",
    "😀",
    "x",
    "\n",
    "\r\n",
    "\r",
    "\x00",
    "\u00a0",
    "\u2028",
]

documents = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=5)), max_size=40).map("".join)


def assert_inside(span: Span, lines: list[str]) -> None:
    assert 0 <= span.start_line <= span.end_line < max(len(lines), 1)
    if not lines:
        assert span == Span(0, 0, 0, 0)
        return
    assert 0 <= span.start_col <= len(lines[span.start_line])
    assert 0 <= span.end_col <= len(lines[span.end_line])
    assert (span.start_line, span.start_col) <= (span.end_line, span.end_col)


def all_spans(reply: InboxReply) -> list[Span]:
    spans: list[Span] = []
    for d in reply.diagnostics:
        spans.append(d.span)
        spans.extend(r.span for r in d.related)
    for c in reply.commands:
        spans += [c.tag_span, c.name_span]
        if c.close_span is not None:
            spans.append(c.close_span)
        for a in c.attr_list:
            spans += [a.span, a.name_span, a.value_span, a.quoted_span]
    return spans


@settings(max_examples=200)
@given(documents)
def test_never_raises_and_spans_are_inside(text: str) -> None:
    lines = split_lines(text)
    reply = parse_inbox(lines)
    for span in all_spans(reply):
        assert_inside(span, lines)
    for c in reply.commands:
        assert 0 <= c.line <= c.end_line < len(lines)
        assert set(c.errors) <= set(reply.diagnostics)
        assert all(d.severity == Severity.ERROR for d in c.errors)
        assert (c.body is None) == c.self_closing
    # Every line is prose or part of exactly one command.
    covered = [i for start, end in reply.prose for i in range(start, end)]
    covered += [i for c in reply.commands for i in range(c.line, c.end_line + 1)]
    assert sorted(covered) == list(range(len(lines)))
    assert parse_inbox(lines) == reply  # deterministic


# --- round trip -----------------------------------------------------------------------------------------------------

# Without bidirectional controls and invisible characters (errors of their own: tests/syntax/test_visible.py).
line_text = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=12).filter(
    lambda s: not hidden_diagnostics(0, s, "")
)
value_text = st.text(
    st.one_of(
        st.sampled_from(['"', "\\", "]", " ", "/", "[", "é", "😀"]),
        st.characters(codec="utf-8", exclude_characters="\r\n"),
    ),
    max_size=10,
).filter(lambda s: not hidden_diagnostics(0, s, ""))
path_text = (
    st.lists(st.text(st.sampled_from(list('ab é😀"]\\[')), min_size=1, max_size=4), min_size=1, max_size=3)
    .map("/".join)
    .filter(lambda p: check_path_text(p) is None)
)
attr_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
blanks = st.text(st.sampled_from(list(BLANK_CHARS)), max_size=2)


@dataclass(frozen=True)
class Spec:
    name: str
    attrs: dict[str, str]  # as written: raw names
    body_lines: list[str] | None
    indent: str
    slash: bool


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    name = draw(st.sampled_from(sorted(COMMANDS)))
    attrs: dict[str, str] = {}
    if name in ("CREATE_FILE", "EDIT_FILE", "DELETE_FILE", "READ_FILE"):
        attrs[draw(st.sampled_from(["path", "PATH", "Path"]))] = draw(path_text)
    if name == "EDIT_FILE":
        start = draw(st.integers(1, 10**6))
        attrs["start_line"] = str(start)
        attrs["end_line"] = str(draw(st.integers(start, 10**6 + 5)))
    for extra in draw(st.lists(attr_names, max_size=2)):
        if extra.lower() not in {a.lower() for a in attrs}:
            attrs[extra] = draw(value_text)
    body: list[str] | None = None
    if name in BLOCK_COMMANDS:
        closer = closer_for(name)
        body = draw(st.lists(line_text.filter(lambda s: trim(s) != closer), max_size=4))
        if name == "RUN_COMMAND" and not "\n".join(body).strip(BLANK_CHARS + "\n"):
            body.append("echo ok")
    return Spec(name, attrs, body, draw(blanks), draw(st.booleans()))


def render(spec: Spec, sep: str) -> list[str]:
    attrs = "".join(f'{sep}{k}="{escape_attr_value(v)}"' for k, v in spec.attrs.items())
    opener = f"{spec.indent}[{spec.name}{attrs}{' /' if spec.slash else ''}]"
    if spec.body_lines is None:
        return [opener]
    return [opener, *spec.body_lines, f"{spec.indent}{closer_for(spec.name)}"]


def expected_body(spec: Spec) -> str | None:
    if spec.body_lines is None:
        return None
    text = "\n".join(spec.body_lines)
    return text if spec.name in ("CREATE_FILE", "EDIT_FILE") else text.strip(BLANK_CHARS + "\n")


prose_lines = st.lists(line_text.filter(lambda s: match_opener(s) is None), max_size=2)


@settings(max_examples=100)
@given(
    st.lists(st.tuples(prose_lines, specs()), max_size=5),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.sampled_from([" ", "\t", "  "]),
    st.booleans(),
)
def test_round_trip(items: list[tuple[list[str], Spec]], newline: str, sep: str, final_newline: bool) -> None:
    lines: list[str] = []
    for prose, spec in items:
        lines += prose
        lines += render(spec, sep)
    text = newline.join(lines) + (newline if final_newline and lines else "")
    reply = parse_inbox(split_lines(text))
    assert [d for d in reply.diagnostics if d.severity == Severity.ERROR] == []
    got = [(c.name, dict(c.attrs), c.body) for c in reply.commands]
    want = [(s.name, {k.lower(): v for k, v in s.attrs.items()}, expected_body(s)) for _, s in items]
    assert got == want
