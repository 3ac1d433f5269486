"""Properties of the .cli parser: total on any text, spans inside the document, round trips, determinism and
incremental re-parsing equal to a full parse."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from heredoc_lsp.syntax import cli
from heredoc_lsp.syntax.cli import CliScript, Command, parse_cli, reparse_cli
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.params import is_structured_start
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import split_lines, trim

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SCHEMAS = {
    "task": CommandSchema("task", "multi", params=("A", "B_C"), required=("A",), terminator="END"),
    "say": CommandSchema("say", "single", single_param="MESSAGE", terminator="Z"),
    "raw": CommandSchema("raw", "text", terminator="EOF"),
}

# Characters that matter to the scanner, plus the ones str.splitlines() would wrongly split on.
NASTY = "<<-'\"#  \t\f\v\r\n\x85\u2028\u2029\x1c\x00\x1béÉ😀EOFAB_-1:()UUIDabc"
nasty_text = st.text(alphabet=st.sampled_from(list(NASTY)), max_size=300) | st.text(max_size=200)
long_line = st.builds(lambda s, n: s * n, st.text(alphabet="<- E'aO\t", min_size=1, max_size=5), st.integers(0, 4000))


def check_span(span: Span, lines: tuple[str, ...] | list[str]) -> None:
    count = max(len(lines), 1)
    assert 0 <= span.start_line < count and 0 <= span.end_line < count
    assert (span.start_line, span.start_col) <= (span.end_line, span.end_col)
    for line, col in ((span.start_line, span.start_col), (span.end_line, span.end_col)):
        text = lines[line] if lines else ""
        assert 0 <= col <= len(text)


def check_script(script: CliScript, lines: list[str], configured: bool = True) -> None:
    for d in script.diagnostics:
        check_span(d.span, lines)
        for r in d.related:
            check_span(r.span, lines)
    for item in script.items:
        check_span(item.span, lines)
        assert item.line <= item.end_line < max(len(lines), 1)
        if isinstance(item, Command) and item.heredoc is not None:
            h = item.heredoc
            check_span(h.operator_span, lines)
            check_span(h.marker_span, lines)
            if h.terminator_span is not None:
                check_span(h.terminator_span, lines)
            item.stdin_text()
            if not configured and item.error is None:
                # Unconfigured: structured exactly when the first non-blank stdin line is a delimiter.
                assert (item.params is not None) == is_structured_start(h.body)
            if item.params is not None:
                for p in item.params.params:
                    for s in (p.delimiter_span, p.name_span):
                        if s is not None:
                            check_span(s, lines)
    assert all(c.error is None for c in script.commands)
    spans = [d.span for d in script.diagnostics]
    assert [(s.start_line, s.start_col) for s in spans] == sorted((s.start_line, s.start_col) for s in spans)


@SETTINGS
@given(nasty_text, st.sampled_from([None, "arca-cli"]), st.booleans())
def test_never_raises_and_spans_inside(text: str, compat: str | None, configured: bool) -> None:
    lines = split_lines(text)
    script = parse_cli(lines, SCHEMAS if configured else None, compat)
    check_script(script, lines, configured)


@SETTINGS
@given(st.lists(long_line | nasty_text, max_size=5))
def test_long_lines(parts: list[str]) -> None:
    lines = split_lines("\n".join(parts))
    check_script(parse_cli(lines, SCHEMAS), lines)


@SETTINGS
@given(nasty_text)
def test_deterministic(text: str) -> None:
    lines = split_lines(text)
    a, b = parse_cli(lines, SCHEMAS), parse_cli(list(lines), SCHEMAS)
    assert a.diagnostics == b.diagnostics
    assert a.items == b.items


# --------------------------------------------------------------------------------------------------------------
# Generated scripts parse back to the same commands and stdin


@dataclass(frozen=True)
class Entry:
    kind: str  # "command", "heredoc", "comment", "blank"
    text: str
    marker: str = ""
    quote: str = ""
    dash: bool = False
    space: str = ""
    body: tuple[str, ...] = ()
    tail: str = ""  # a redirection or pipe after the marker (docs/formats.md)


line_chars = st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"])
blank = st.text(alphabet=" \t", max_size=3)
command_text = st.text(alphabet=line_chars, min_size=1, max_size=30).filter(
    lambda s: trim(s) == s and s != "" and not s.startswith("#") and "<<" not in s
)
marker_word = st.text(alphabet="ABCEFOXZ_019abz", min_size=1, max_size=6)


@st.composite
def entries(draw: st.DrawFn) -> Entry:
    kind = draw(st.sampled_from(["command", "heredoc", "heredoc", "comment", "blank"]))
    if kind == "command":
        return Entry("command", draw(command_text))
    if kind == "comment":
        return Entry("comment", "#" + draw(st.text(alphabet=line_chars, max_size=20)))
    if kind == "blank":
        return Entry("blank", draw(blank))
    marker = draw(marker_word)
    body = draw(st.lists(st.text(alphabet=line_chars, max_size=20), max_size=6))
    body = [b for b in body if trim(b) != marker]
    return Entry(
        "heredoc",
        draw(command_text),
        marker,
        draw(st.sampled_from(["", "'", '"'])),
        draw(st.booleans()),
        draw(st.sampled_from(["", " ", "  "])),
        tuple(body),
        draw(st.sampled_from(["", "", "> out.txt", "2>&1 | tee é.log", "|| exit 1", "&& echo ok", "; x", ">>o"])),
    )


def render(script: list[Entry], indent: str, newline: str, final: bool) -> str:
    out: list[str] = []
    for e in script:
        if e.kind != "heredoc":
            out.append(indent + e.text)
            continue
        op = "<<-" if e.dash else "<<"
        tail = f" {e.tail}" if e.tail else ""
        out.append(f"{indent}{e.text} {op}{e.space}{e.quote}{e.marker}{e.quote}{tail}")
        out.extend(e.body)
        out.append(indent + e.marker)
    return newline.join(out) + (newline if final and out else "")


def expected_commands(script: list[Entry]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for e in script:
        if e.kind == "command":
            out.append((e.text, ""))
        elif e.kind == "heredoc":
            body = [b.lstrip("\t") for b in e.body] if e.dash else list(e.body)
            run_text = f"{e.text} {e.tail}" if e.tail else e.text
            out.append((run_text, "".join(b + "\n" for b in body)))
    return out


@SETTINGS
@given(
    st.lists(entries(), max_size=8),
    st.sampled_from(["", "  ", "\t"]),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
)
def test_generated_scripts_round_trip(script: list[Entry], indent: str, newline: str, final: bool) -> None:
    text = render(script, indent, newline, final)
    lines = split_lines(text)
    parsed = parse_cli(lines)
    assert [(c.run_text, c.stdin_text()) for c in parsed.commands] == expected_commands(script)
    assert not any(d.code.endswith("heredoc") or d.code == "invalid_marker" for d in parsed.diagnostics)
    assert sum(1 for e in script if e.kind == "comment") == sum(1 for i in parsed.items if not isinstance(i, Command))


# --------------------------------------------------------------------------------------------------------------
# Incremental re-parsing gives the full parse

script_line = st.sampled_from(
    ["echo a", "cat <<EOF", "EOF", "cat <<EOF > o", "x <<E extra", "a <<A | b <<B", "cd d", "ls \\", "c <<EOF>o",
     "  EOF ", "x <<-'E'", "E", "<<EOF", "a <<A <<B", "A", "B", "# c", "", "cmd<<EOF",
     "y <<ÉOF", "ÉOF", "---A---", "\t---A---", "task <<END", "END", "say <<Z", "Z", "raw <<EOF", "q << \"Q\"", "Q"]
)  # fmt: skip


@SETTINGS
@example(["cmd<<EOF", "echo"], 1, 0, ["EOF"], False, False)  # a later line makes an earlier warning appear
@example(["y <<ÉOF", "a", "ÉOF"], 2, 1, [], False, True)  # the invalid marker no longer consumes anything
@example(["cat <<EOF", "a"], 2, 0, ["EOF", "EOF"], True, True)
@given(
    st.lists(script_line, max_size=25),
    st.integers(0, 30),
    st.integers(0, 4),
    st.lists(script_line, max_size=4),
    st.booleans(),
    st.booleans(),
)
def test_reparse_equals_full_parse(
    old: list[str], at: int, removed: int, inserted: list[str], configured: bool, materialise: bool
) -> None:
    at = min(at, len(old))
    new = old[:at] + inserted + old[at + removed :]
    schemas = SCHEMAS if configured else None
    previous = parse_cli(old, schemas)
    if materialise:  # building the items first must not change anything
        assert len(previous.items) <= len(old)
    updated = reparse_cli(previous, new, at, schemas)
    full = parse_cli(new, schemas)
    assert updated.diagnostics == full.diagnostics
    assert updated.items == full.items
    for line in range(len(new)):
        assert full.item_at(line) == updated.item_at(line)


body_line = st.sampled_from(
    ["x <<-E", "cat <<EOF", "E", "\tE", "EOF", "", "  ", "\t", "\t\t", "---A---", "\t---A---", " ---A---",
     "---(UUID:a1b2c3d4)A---", "text", "---A---  ", "\t \t---A---", "\f---A---"]
)  # fmt: skip


@SETTINGS
@given(st.lists(body_line, max_size=20), st.sampled_from([None, "arca-cli"]))
def test_structured_detection_and_spans_on_line_soup(lines: list[str], compat: str | None) -> None:
    check_script(parse_cli(lines, None, compat), lines, configured=False)
    check_script(parse_cli(lines, SCHEMAS, compat), lines)


@SETTINGS
@given(st.lists(script_line, max_size=25), st.integers(0, 30), st.integers(0, 30), st.booleans())
def test_outline_and_item_at_agree_with_items(lines: list[str], first: int, span: int, item_at_first: bool) -> None:
    script = parse_cli(lines, SCHEMAS)
    early = [script.item_at(line) for line in range(len(lines) + 1)] if item_at_first else []
    outline = list(script.outline(first, first + span))
    items = script.items
    expected = [
        (
            "comment" if not isinstance(i, Command) else "heredoc" if i.heredoc is not None else "command",
            i.line,
            i if isinstance(i, Command) and i.heredoc is not None else None,
        )
        for i in items
        if i.end_line >= first and i.line <= first + span
    ]
    assert outline == expected
    for line in range(len(lines) + 1):
        covering = [i for i in items if i.line <= line <= i.end_line]
        assert script.item_at(line) is (covering[0] if covering else None)
    for line, item in enumerate(early):  # items handed out before `items` was built are the same objects
        assert item is script.item_at(line)


# --------------------------------------------------------------------------------------------------------------
# The scanner's marks (the bytes its tests of a line look for), found for a chunk of lines at a time


def _with_chunk(size: int, lines: tuple[str, ...]) -> CliScript:
    saved = cli._MARKS_CHUNK
    cli._MARKS_CHUNK = size
    try:
        return parse_cli(lines, SCHEMAS)
    finally:
        cli._MARKS_CHUNK = saved


@SETTINGS
@given(st.lists(nasty_text | st.text(max_size=30), max_size=12), st.integers(1, 5))
def test_marks_are_the_marked_bytes_of_each_line(lines: list[str], size: int) -> None:
    # (lines straight from the strategy may hold "\n": the chunk holding one is marked one line at a time)
    kept = cli._MARKED | {ord("\n")}
    expected = [bytes(b for b in line.encode("utf-8", "surrogatepass") if b in kept) for line in lines]
    saved = cli._MARKS_CHUNK
    cli._MARKS_CHUNK = size
    try:
        assert [m for chunk in cli._marks(tuple(lines)) for m in chunk] == expected
    finally:
        cli._MARKS_CHUNK = saved


@SETTINGS
@given(st.lists(nasty_text, max_size=6), st.integers(1, 4))
def test_the_parse_does_not_depend_on_the_chunks_of_the_marks(parts: list[str], size: int) -> None:
    lines = tuple(split_lines("\n".join(parts)))
    whole, chunked = parse_cli(lines, SCHEMAS), _with_chunk(size, lines)
    assert [(d, d.data) for d in chunked.diagnostics] == [(d, d.data) for d in whole.diagnostics]
    assert chunked.items == whole.items


def test_a_heredoc_across_chunks_of_marks() -> None:
    # Bodies and commands on both sides of the boundaries of the real chunks: what each line is, and its hidden
    # characters, come from the marks of its own chunk.
    size = cli._MARKS_CHUNK
    lines = ["echo ok"] * (size - 3) + ["cat <<EOF", "a \u202e b", "EOF", "x\u200by", "retries=1"]
    lines += ["echo ok"] * (size - 5) + ["! fi x", "EOF", "sh <<'X'", "\u202e", "fi"]
    script = parse_cli(lines)
    found = [(d.code, d.span.start_line) for d in script.diagnostics]
    assert found == [
        ("bidi_control", size - 2),
        ("invisible_character", size),
        ("no_effect", size + 1),
        ("shell_syntax", 2 * size - 3),
        ("early_close", 2 * size - 2),
        ("unclosed_heredoc", 2 * size - 1),
        ("bidi_control", 2 * size),
    ]
