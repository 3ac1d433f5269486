"""The single entry point: every language, extra diagnostics, decoding, config files, workspace roots."""

from __future__ import annotations

from pathlib import Path

from heredoc_lsp.analysis.config_file import config_diagnostics
from heredoc_lsp.analysis.core import analyze, analyze_bytes, default_workspace, document_workspace
from heredoc_lsp.analysis.decode import decode_document
from heredoc_lsp.config import Config, parse_config_text
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.cli import CliScript
from heredoc_lsp.syntax.diagnostics import Severity, Span
from heredoc_lsp.syntax.inbox import InboxReply
from heredoc_lsp.syntax.outbox import Outbox
from heredoc_lsp.syntax.params import ParamsBody

CONFIG = parse_config_text(
    '[commands."chatroom task-started"]\nparams = ["TITLE", "DESCRIPTION"]\nrequired = ["TITLE", "DESCRIPTION"]\n',
    Path("heredoc-lsp.toml"),
)


def test_each_language_gives_its_tree() -> None:
    assert isinstance(analyze("echo hi\n", Language.CLI).tree, CliScript)
    assert isinstance(analyze("---A---\nx\n", Language.PARAMS).tree, ParamsBody)
    assert isinstance(analyze("prose\n", Language.INBOX).tree, InboxReply)
    assert isinstance(analyze("=== HEADER ===\n", Language.OUTBOX).tree, Outbox)


def test_diagnostics_are_sorted_and_complete() -> None:
    text = "cat<<EOF\nx\nEOF\n<<A\nA\ncat <<END\n"
    analysis = analyze(text, Language.CLI)
    assert [(d.code, d.span.start_line) for d in analysis.diagnostics] == [
        ("possible_heredoc", 0),
        ("heredoc_without_command", 3),
        ("unclosed_heredoc", 5),
    ]
    assert analysis.has_errors


def test_config_schemas_apply_to_cli_bodies() -> None:
    text = "chatroom task-started room --role=x <<EOF\n---TITLE---\nt\nEOF\n"
    unconfigured = analyze(text, Language.CLI, Config())
    configured = analyze(text, Language.CLI, CONFIG)
    assert unconfigured.diagnostics == ()
    assert [(d.code, d.message) for d in configured.diagnostics] == [
        ("missing", "Required parameter 'DESCRIPTION' is missing")
    ]


def test_stand_alone_body_with_a_command() -> None:
    body = "---TITLE---\nt\n"
    assert analyze(body, Language.PARAMS, CONFIG).diagnostics == ()
    analysis = analyze(body, Language.PARAMS, CONFIG, command="chatroom task-started room")
    assert [d.code for d in analysis.diagnostics] == ["missing"]
    assert analyze(body, Language.PARAMS, CONFIG, command="other").diagnostics == ()


def test_extra_diagnostics_join_and_are_sorted() -> None:
    decoded = decode_document(b"echo ok\n<<A\nA\necho \xff\n")
    analysis = analyze(decoded.text, Language.CLI, extra_diagnostics=decoded.diagnostics)
    assert [(d.code, d.span.start_line) for d in analysis.diagnostics] == [
        ("heredoc_without_command", 1),
        ("invalid_encoding", 3),
    ]


def test_invalid_utf8_gives_one_warning_at_the_first_bad_line() -> None:
    analysis = analyze_bytes(b"echo ok\ncat <<EOF\nbad \xff\xfe here\nEOF\necho \xc3\n", Language.CLI)
    (diagnostic,) = analysis.diagnostics
    assert diagnostic.code == "invalid_encoding"
    assert diagnostic.severity == Severity.WARNING
    assert diagnostic.span == Span(2, 4, 2, 6)  # the two replacement characters
    assert diagnostic.message == (
        "File is not valid UTF-8: invalid bytes were replaced with U+FFFD (this is the first such line)"
    )


def test_bom_is_not_content() -> None:
    analysis = analyze_bytes("\ufeffé😀 <<EOF\nx\n".encode(), Language.CLI)
    assert analysis.had_bom
    assert analysis.lines[0] == "é😀 <<EOF"
    (diagnostic,) = analysis.diagnostics
    assert (diagnostic.code, diagnostic.span) == ("unclosed_heredoc", Span(0, 5, 0, 8))


def test_suppressed_invalid_encoding() -> None:
    data = b"# heredoc-lsp: disable=invalid_encoding\necho \xff\n"
    analysis = analyze_bytes(data, Language.CLI)
    assert analysis.diagnostics == ()
    assert [d.code for d in analysis.suppressed] == ["invalid_encoding"]


def test_config_file_diagnostics() -> None:
    text = '[executor]\n  timeout_s = "x"   \nsandbox = "vm"\n'
    found = config_diagnostics(text, Path("heredoc-lsp.toml"))
    assert [(d.code, d.severity, d.span, d.message) for d in found] == [
        (
            "config_error",
            Severity.ERROR,
            Span(1, 2, 1, 17),
            'executor.timeout_s: expected a positive number of seconds, got "x"',
        ),
        (
            "config_error",
            Severity.ERROR,
            Span(2, 0, 2, 14),
            'executor.sandbox: expected one of "auto", "bwrap", "none", got "vm"',
        ),
    ]
    assert config_diagnostics('compat = "arca-cli"\n', Path("heredoc-lsp.toml")) == []
    (syntax,) = config_diagnostics("[executor\n", Path("heredoc-lsp.toml"))
    assert syntax.span.start_line == 0
    assert syntax.message.startswith("invalid TOML: ")


def test_default_workspace(tmp_path: Path) -> None:
    assert default_workspace(tmp_path / "proj" / "inbox" / "r.txt") == tmp_path / "proj"
    assert default_workspace(tmp_path / "proj" / "inbox" / "processed" / "r.txt") == tmp_path / "proj"
    config = Config(source=tmp_path / "heredoc-lsp.toml")
    assert default_workspace(tmp_path / "a" / "b" / "reply.inbox", config) == tmp_path
    assert default_workspace(tmp_path / "a" / "reply.inbox") == tmp_path / "a"


def test_document_workspace_is_one_rule_for_checks_and_runs(tmp_path: Path) -> None:
    """The agent layout wins over the editor's folder for a reply; a script's workspace is its folder, else its
    own directory; an untitled document outside every folder has none."""
    reply = tmp_path / "proj" / "inbox" / "processed" / "r.txt"
    assert document_workspace(reply, Language.INBOX, folder=tmp_path) == tmp_path / "proj"
    script = tmp_path / "proj" / "inbox" / "s.cli"
    assert document_workspace(script, Language.CLI, folder=tmp_path) == tmp_path
    assert document_workspace(script, Language.CLI) == tmp_path / "proj" / "inbox"
    config = Config(source=tmp_path / "heredoc-lsp.toml")
    assert document_workspace(tmp_path / "a" / "r.inbox", Language.INBOX, config=config) == tmp_path
    assert document_workspace(None, Language.CLI) is None
    assert document_workspace(None, Language.CLI, folder=tmp_path) == tmp_path
