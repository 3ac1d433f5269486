"""Every kind of diagnostic, with non-ASCII text (é😀) before it, reaches each client at the right place.

The expected ranges are the analysis core's (code points) converted here with an independent encoder, so these
tests check the server's conversion for every code of every format, in UTF-16, UTF-8 and UTF-32.
"""

from __future__ import annotations

import pytest
from lsp_harness import RecordingClient, units
from lsprotocol import types

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.config import load_config
from heredoc_lsp.languages import Language
from heredoc_lsp.rules import doc_url
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.text import split_lines

pytestmark = pytest.mark.asyncio(loop_scope="module")

E = "é😀"
CLI_CASES = {
    "unclosed_heredoc": f"{E} cat <<EOF\nbody {E}\n",
    "heredoc_without_command": f"{E}\n  <<EOF\nx\nEOF\n",
    "invalid_marker": f"{E} cat <<ÉOF\nbody\n",
    "multiple_heredocs": f"{E} cat <<A <<B\nx\nB\n",
    "possible_heredoc": f"{E} cat<<EOF\nx\nEOF\n",
    "unknown": f"tool task <<EOF\n---TITLE---\n{E}\n---DESCRIPTION---\n{E}\n---TITEL---\nx\nEOF\n",
    "duplicate": f"tool task <<EOF\n---TITLE---\n{E}\n---DESCRIPTION---\nd\n---TITLE---\n{E}\nEOF\n",
    "missing": f"tool task {E} <<EOF\n---TITLE---\n{E} title\nEOF\n",
    "empty": f"tool task {E} <<EOF\n---TITLE---\n\n---DESCRIPTION---\nd\nEOF\n",
    "collision": f"tool task <<EOF\n---TITLE---\n{E}\n  ---TITLE---\n---DESCRIPTION---\nd\nEOF\n",
    "mixed_delimiters": f"tool task <<EOF\n---TITLE---\n{E}\n---(UUID:1234abcd)DESCRIPTION---\nd\nEOF\n",
    "content_before_delimiter": f"tool task <<EOF\n{E} text\n---TITLE---\nt\n---DESCRIPTION---\nd\nEOF\n",
    "terminator_collision": f"tool task <<EOF\n---TITLE---\n{E}\n  PARAMS_END  \n---DESCRIPTION---\nd\nEOF\n",
    "bidi_control": f"{E} ls \u202e; rm -rf ./victim #\u202c\n",
    "invisible_character": f"cat <<EOF\n{E} a\u200bb\nEOF\n",
    "early_close": f"{E} cat <<EOF\n{E}\n  EOF\n{E} more\n  EOF\n",
    "shell_syntax": f"{E} echo \"$(cat <<'EOF'\nx\nEOF\n)\"\n",
    "orphan_option": f"{E} cmd <<EOF\nx\nEOF\n  --{E}\n",
    "bashism": f"{E} cat <<EOF &> {E}.log\nx\nEOF\n",
    "background_stdin": f"{E} cat <<EOF > {E}.txt &\nx\nEOF\n",
    "body_syntax": (
        f'{E} python3 - <<-PY\n\t\ts = \'{E}\' + (1,\n\tPY\r\ncat > {E}.json <<EOF\n{{"{E}": 1 "b": 2}}\nEOF\n'
    ),
}
INBOX_CASES = {
    "bad_attr": f"{E}\n[CREATE_FILE {E} path='x.txt']\nx\n[/CREATE_FILE]\n",
    "duplicate_attr": f'[CREATE_FILE path="{E}.txt" path="b.txt"]\nx\n[/CREATE_FILE]\n',
    "inline_content": f"[RUN_COMMAND] {E} echo\n",
    "unclosed": f'{E}\n[CREATE_FILE path="{E}.txt"]\nx\n',
    "missing_attr": f'{E}\n[EDIT_FILE path="{E}.txt"]\nx\n[/EDIT_FILE]\n',
    "bad_int": f'[EDIT_FILE path="{E}.txt" start_line="x" end_line="2"]\nx\n[/EDIT_FILE]\n',
    "bad_range": f'[EDIT_FILE path="{E}.txt" start_line="3" end_line="2"]\nx\n[/EDIT_FILE]\n',
    "empty_command": f"{E}\n  [RUN_COMMAND]\n\n[/RUN_COMMAND]\n",
    "invalid_path": f'[CREATE_FILE path="{E}/"]\nx\n[/CREATE_FILE]\n',
    "path_outside_workspace": f'[CREATE_FILE path="../{E}.txt"]\nx\n[/CREATE_FILE]\n',
    "file_not_found": f'{E} [READ_FILE path="{E}-nothing.txt"]\n[READ_FILE path="{E}-nothing.txt"]\n',
    "stray_close": f"{E} prose\n  [/CREATE_FILE]\n",
    "nested_tag": f'[CREATE_FILE path="{E}.txt"]\n{E}\n[RUN_COMMAND]\n[/CREATE_FILE]\n',
    "command_after_done": f"[DONE]\n{E}\n[/DONE]\n[RUN_COMMAND]\necho\n[/RUN_COMMAND]\n",
    "bidi_control": f"[RUN_COMMAND]\n{E} ls \u202e; rm -rf ./victim #\u202c\n[/RUN_COMMAND]\n",
    "invisible_character": f'[CREATE_FILE path="{E}\u200b.txt"]\nx\n[/CREATE_FILE]\n',
    "body_syntax": f'{E}\n[CREATE_FILE path="{E}.json"]\n{{"{E}": 1 "b": 2}}\n[/CREATE_FILE]\n',
}
OUTBOX_CASES = {
    "missing_section": f"=== HEADER ===\nSession: 1234abcd\nSequence: 1\nTask: {E}\n=== PROTOCOL ===\np\n",
    "ambiguous_section_marker": (
        f"=== HEADER ===\nSession: 1234abcd\nSequence: 1\nTask: {E}\n=== PROTOCOL ===\np\n=== CONTEXT ===\n"
        f"{E}\n  === PROMPT ===\n=== PROMPT ===\ndo {E}\n"
    ),
    "bad_header": (
        f"=== HEADER ===\nSession: {E}\nSequence: 1\nTask: t\n=== PROTOCOL ===\n=== CONTEXT ===\n=== PROMPT ===\nx\n"
    ),
}
CASES = (
    [pytest.param(Language.CLI, text, code, id=code) for code, text in CLI_CASES.items()]
    + [pytest.param(Language.INBOX, text, code, id=f"inbox-{code}") for code, text in INBOX_CASES.items()]
    + [pytest.param(Language.OUTBOX, text, code, id=f"outbox-{code}") for code, text in OUTBOX_CASES.items()]
)
OPEN_AS = {
    Language.CLI: (".cli", "cli-script"),
    Language.INBOX: (".inbox", "agent-inbox"),
    Language.OUTBOX: (".outbox", "agent-outbox"),
}


def lsp_range(lines: list[str], span: Span, encoding: str) -> types.Range:
    def pos(line: int, col: int) -> types.Position:
        if line >= len(lines):
            return types.Position(line=len(lines), character=0)
        return types.Position(line=line, character=units(lines[line][:col], encoding))

    return types.Range(start=pos(span.start_line, span.start_col), end=pos(span.end_line, span.end_col))


@pytest.mark.parametrize(("language", "text", "code"), CASES)
async def test_every_kind_at_the_right_place(client: RecordingClient, language: Language, text: str, code: str) -> None:
    suffix, language_id = OPEN_AS[language]
    uri = client.open(text, suffix=suffix, language_id=language_id)
    got = await client.diagnostics_of(uri)
    config = load_config(client.root / "heredoc-lsp.toml")
    core = analyze(text, language, config, workspace=client.root if language is Language.INBOX else None)
    assert code in {d.code for d in core.diagnostics}, "the case does not produce the code it is named after"
    lines = split_lines(text)
    expected = [
        (d.code, d.message, int(d.severity), lsp_range(lines, d.span, client.encoding)) for d in core.diagnostics
    ]
    assert [(d.code, d.message, int(d.severity or 0), d.range) for d in got] == expected
    assert all(d.source == "heredoc-lsp" for d in got)
    # Each code links to its explanation (the same registry as `heredoc-lsp rule CODE`).
    assert [d.code_description.href if d.code_description else None for d in got] == [doc_url(str(d.code)) for d in got]
    assert all(d.code_description is not None for d in got)
    # Related information only for clients that support it, converted like the ranges.
    related_ok = client.capabilities is not None and bool(
        client.capabilities.text_document
        and client.capabilities.text_document.publish_diagnostics
        and client.capabilities.text_document.publish_diagnostics.related_information
    )
    for d, core_d in zip(got, core.diagnostics, strict=True):
        if core_d.related and (related_ok or client.pulls):
            assert d.related_information is not None
            assert [(r.location.uri, r.location.range, r.message) for r in d.related_information] == [
                (uri, lsp_range(lines, r.span, client.encoding), r.message) for r in core_d.related
            ]
        elif not client.pulls and not related_ok:
            assert d.related_information is None


async def test_unclosed_heredoc_points_at_the_end_of_file(client: RecordingClient) -> None:
    text = f"{E} cat <<EOF\nbody {E}"
    uri = client.open(text)
    (d,) = await client.diagnostics_of(uri)
    assert d.range.start == types.Position(line=0, character=units(f"{E} cat <<", client.encoding))
    if d.related_information:
        (related,) = d.related_information
        end = units(f"body {E}", client.encoding)
        assert related.location.range.start == types.Position(line=1, character=end)


async def test_duplicate_points_at_the_first_occurrence(client: RecordingClient) -> None:
    text = CLI_CASES["duplicate"]
    uri = client.open(text)
    (d,) = [x for x in await client.diagnostics_of(uri) if x.code == "duplicate"]
    if d.related_information:
        (related,) = d.related_information
        assert related.location.range.start.line == 1 and related.message == "'TITLE' first defined here"


async def test_pushes_carry_the_version_and_pulls_have_result_ids(client: RecordingClient) -> None:
    uri = client.open(f"{E} <<EOF\n")
    if not client.pulls:
        assert len(await client.wait_publish(uri, 1)) == 1
        client.replace(uri, (1, 0), (1, 0), "EOF\n")
        assert await client.wait_publish(uri, 2) == []
        assert [p.version for p in client.publishes if p.uri == uri] == [1, 2]
        return
    params = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    first = await client.text_document_diagnostic_async(params)
    assert isinstance(first, types.RelatedFullDocumentDiagnosticReport) and first.result_id
    assert len(first.items) == 1
    params.previous_result_id = first.result_id
    again = await client.text_document_diagnostic_async(params)
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    client.replace(uri, (1, 0), (1, 0), "EOF\n")
    third = await client.text_document_diagnostic_async(params)
    assert isinstance(third, types.RelatedFullDocumentDiagnosticReport) and list(third.items) == []
    # No pushes to a pulling client: it would show every problem twice.
    assert [p for p in client.publishes if p.uri == uri] == []


async def test_closing_clears_pushed_diagnostics(client: RecordingClient) -> None:
    uri = client.open(f"{E} <<EOF\n")
    assert len(await client.diagnostics_of(uri)) == 1
    before = len(client.publishes)
    client.close(uri)
    if client.pulls:
        # The client drops a closed document's pulled diagnostics itself; nothing is pushed.
        await client.diagnostics_of(client.open("x\n"))
        assert [p for p in client.publishes[before:] if p.uri == uri] == []
    else:
        assert await client.wait_publish(uri, None, after=before) == []


@pytest.mark.parametrize("folder", ["inbox", "inbox/processed"])
async def test_a_reply_in_the_agent_layout_is_checked_against_its_agent_root(
    client: RecordingClient, folder: str
) -> None:
    """The editor's folder holds an agent root: a reply in its inbox/ (or inbox/processed/) names paths relative to
    the agent root, where a run applies it, not to the editor's folder (one rule for both: docs/architecture.md)."""
    agent = client.root / f"agent-{folder.replace('/', '-')}"
    agent.mkdir(exist_ok=True)
    (agent / "é😀 notes.txt").write_text("here\n", encoding="utf-8")
    text = '[READ_FILE path="é😀 notes.txt"]\n[READ_FILE path="missing.txt"]\n'
    uri = client.open(text, language_id="agent-inbox", name=f"{agent.name}/{folder}/r.txt")
    got = await client.diagnostics_of(uri)
    assert [(d.code, d.range.start.line) for d in got] == [("file_not_found", 1)]
