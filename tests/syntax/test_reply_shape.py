"""syntax/reply_shape.py: a reply's content identity, a prompt pasted back, a reply cut off (pure functions)."""

from __future__ import annotations

from pathlib import Path

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.executor.agent import OutboxSettings, Session, render_outbox
from heredoc_lsp.executor.environment import Redactor
from heredoc_lsp.executor.files import Workspace
from heredoc_lsp.executor.protocol_text import PROTOCOL_VERSION, example_fingerprints, protocol_text
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.inbox import parse_inbox
from heredoc_lsp.syntax.reply_shape import (
    normalized_reply,
    prompt_problem,
    reply_key,
    same_text,
    truncated_block,
)
from heredoc_lsp.syntax.text import split_lines

EDIT = '[EDIT_FILE path="b.txt" start_line="2" end_line="2"]\nTWO\nextra\n[/EDIT_FILE]\n'


def problem(text: str) -> str | None:
    lines = split_lines(text)
    found = prompt_problem(lines, parse_inbox(lines), example_fingerprints())
    return None if found is None else found.message


def test_the_same_reply_whatever_its_line_endings_and_trailing_blanks() -> None:
    variants = [
        EDIT,
        EDIT.replace("\n", "\r\n"),
        EDIT.replace("\n", "\r"),
        EDIT.replace("TWO\n", "TWO \t\n") + "\n\n  \n",
        "\ufeff" + EDIT.rstrip("\n"),
    ]
    assert {reply_key(v) for v in variants} == {reply_key(EDIT)}
    assert normalized_reply(variants[3]) == EDIT.rstrip("\n")
    assert same_text(EDIT, variants[1])


def test_a_different_reply_has_another_key() -> None:
    assert reply_key(EDIT) != reply_key(EDIT.replace("extra", "Extra"))
    assert reply_key(EDIT) != reply_key("  " + EDIT)  # leading blanks are content


def test_an_outbox_is_a_prompt(tmp_path: Path) -> None:
    session = Session("0123abcd", "edit b.txt")
    outbox = render_outbox(session, Workspace(tmp_path), OutboxSettings(redactor=Redactor()))
    message = problem(outbox)
    assert message is not None and "'=== HEADER ===': this is the message heredoc-lsp wrote" in message
    # Without its header, from the PROTOCOL marker on, or the PROTOCOL text alone.
    assert problem(outbox[outbox.index("=== PROTOCOL ===") :]) is not None
    assert "starts heredoc-lsp's PROTOCOL text" in (problem(protocol_text()) or "")
    assert "starts heredoc-lsp's PROTOCOL text" in (problem(protocol_text().replace(PROTOCOL_VERSION, "0.9")) or "")


def test_the_protocol_examples_pasted_alone_are_a_prompt() -> None:
    text = protocol_text()
    commands_only = text[text.index("COMMANDS") :]
    message = problem(commands_only)
    assert message is not None and "are the examples of heredoc-lsp's PROTOCOL text" in message


def test_one_command_like_an_example_is_a_reply() -> None:
    assert problem("Running the tests.\n[RUN_COMMAND]\npython3 -m pytest -q\n[/RUN_COMMAND]\n") is None
    assert problem(EDIT) is None
    # A marker inside a file's body is content, not the reply's own text.
    assert problem('[CREATE_FILE path="t/outbox.txt"]\n=== HEADER ===\nSession: x\n[/CREATE_FILE]\n') is None


def test_truncated_block() -> None:
    def cut(text: str) -> str | None:
        found = truncated_block(parse_inbox(split_lines(text)))
        return None if found is None else found.name

    assert cut(EDIT) is None
    assert cut(EDIT + '[CREATE_FILE path="c.txt"]\nhalf a file\n') == "CREATE_FILE"
    assert cut(EDIT + "[RUN_COMMAND]\nmake te") == "RUN_COMMAND"
    assert cut("[DONE]\nall done\n[/DONE]\n[CREATE_FILE path='c']\n") is None  # after [DONE]: nothing runs anyway
    assert cut("[DONE]\nall done, no closer\n") is None  # an open [DONE] fails as its own block
    assert cut('[READ_FILE path="a"]\n') is None
    assert cut("") is None


def test_a_prompt_in_the_editor_is_one_diagnostic_and_no_commands(tmp_path: Path) -> None:
    session = Session("0123abcd", "edit b.txt")
    outbox = render_outbox(session, Workspace(tmp_path), OutboxSettings(redactor=Redactor()))
    analysis = analyze(outbox, Language.INBOX, workspace=tmp_path)
    (only,) = analysis.diagnostics
    assert (only.code, only.span.start_line) == ("pasted_prompt", 0)
    assert only.message.startswith("This is heredoc-lsp's prompt for the LLM, not a reply")
    assert analysis.tree.commands == ()  # type: ignore[union-attr]
    reply = analyze("[RUN_COMMAND]\nls\n[/RUN_COMMAND]\n", Language.INBOX, workspace=tmp_path)
    assert reply.diagnostics == ()
