"""``heredoc-lsp parse`` through real subprocesses: the exact JSON shapes of docs/formats.md and the exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import Runner, write


def parsed(cli: Runner, *args: str, cwd: Path, code: int = 0, stdin: str | None = None) -> Any:
    result = cli("parse", *args, cwd=cwd, stdin=stdin)
    assert result.returncode == code, result.stderr
    return json.loads(result.stdout)


def test_cli_script(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "s.cli", 'echo hi\n# note\ncat <<-"EOF"\n\tindented\n  two\n\tEOF\nwc -l <<END\nEND\n')
    assert parsed(cli, "s.cli", cwd=tmp_path) == {
        "language": "cli",
        "commands": [
            {"line": 1, "command": "echo hi", "stdin": None, "marker": None},
            {"line": 3, "command": "cat", "stdin": ["indented", "  two"], "marker": "EOF"},
            {"line": 7, "command": "wc -l", "stdin": [], "marker": "END"},
        ],
        "diagnostics": [],
    }


def test_cli_command_is_the_run_text_of_an_opener_with_a_tail(cli: Runner, tmp_path: Path) -> None:
    # docs/formats.md: the text before `<<`, one space and the tail (a redirection or a pipe).
    write(tmp_path / "s.cli", "cat <<EOF > out.txt\nhi\nEOF\npython3 - <<'PY'  |  tee é.log\nprint(1)\nPY\n")
    assert parsed(cli, "s.cli", cwd=tmp_path)["commands"] == [
        {"line": 1, "command": "cat > out.txt", "stdin": ["hi"], "marker": "EOF"},
        {"line": 4, "command": "python3 - |  tee é.log", "stdin": ["print(1)"], "marker": "PY"},
    ]


def test_cli_script_with_errors(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "e.cli", "echo é😀\n<<A\nA\ncat é <<EOF\nbody\n")
    assert parsed(cli, "e.cli", cwd=tmp_path, code=1) == {
        "language": "cli",
        "commands": [{"line": 1, "command": "echo é😀", "stdin": None, "marker": None}],
        "diagnostics": [
            {
                "line": 2,
                "column": 1,
                "end_line": 2,
                "end_column": 4,
                "severity": "error",
                "code": "heredoc_without_command",
                "message": "Heredoc '<<A' has no command: write the command before '<<' on this line",
            },
            {
                "line": 4,
                "column": 9,
                "end_line": 4,
                "end_column": 12,
                "severity": "error",
                "code": "unclosed_heredoc",
                "message": "Unclosed heredoc starting at line 4: expected 'EOF' but reached end of file",
            },
        ],
    }


def test_params_with_a_configured_command(cli: Runner, tmp_path: Path) -> None:
    write(
        tmp_path / "heredoc-lsp.toml",
        '[commands."chatroom task-started"]\nparams = ["TITLE", "DESCRIPTION"]\nrequired = ["TITLE"]\n',
    )
    write(tmp_path / "body.txt", "\n---TITLE---\n  Login\n---DESCRIPTION---\nline 1\n\nline 3\n\n")
    args = ("body.txt", "--language", "params", "--command", "chatroom task-started")
    assert parsed(cli, *args, cwd=tmp_path) == {
        "language": "params",
        "params": {"TITLE": "  Login", "DESCRIPTION": "line 1\n\nline 3"},
        "diagnostics": [],
    }
    write(tmp_path / "bad.txt", "---DESCRIPTION---\nx\n---TITEL---\ny\n")
    result = parsed(cli, "bad.txt", "--language", "params", "--command", "chatroom task-started", cwd=tmp_path, code=1)
    assert result["params"] is None
    assert result["diagnostics"] == [
        {
            "line": 1,
            "column": 1,
            "end_line": 4,
            "end_column": 2,
            "severity": "error",
            "code": "missing",
            "message": "Required parameter 'TITLE' is missing",
        },
        {
            "line": 3,
            "column": 4,
            "end_line": 3,
            "end_column": 9,
            "severity": "error",
            "code": "unknown",
            "message": "Unknown parameter 'TITEL'. Expected one of: TITLE, DESCRIPTION",
        },
    ]


def test_inbox_reply(cli: Runner, tmp_path: Path) -> None:
    write(
        tmp_path / "r.inbox",
        'Prose\n[CREATE_FILE Path="a.txt" mode="x"]\nline1\n\nline3\n[/CREATE_FILE]\n'
        '[READ_FILE path="a.txt"/]\n[RUN_COMMAND]\n  ls  \n[/RUN_COMMAND]\n',
    )
    assert parsed(cli, "r.inbox", cwd=tmp_path) == {
        "language": "inbox",
        "commands": [
            {"line": 2, "name": "CREATE_FILE", "attrs": {"path": "a.txt", "mode": "x"}, "body": "line1\n\nline3"},
            {"line": 7, "name": "READ_FILE", "attrs": {"path": "a.txt"}, "body": None},
            {"line": 8, "name": "RUN_COMMAND", "attrs": {}, "body": "ls"},
        ],
        "diagnostics": [],
    }


def test_inbox_reply_gets_workspace_checks(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "inbox" / "r.txt", '[READ_FILE path="missing.md"]\n')
    result = parsed(cli, "inbox/r.txt", cwd=tmp_path)
    assert result["diagnostics"] == [
        {
            "line": 1,
            "column": 17,
            "end_line": 1,
            "end_column": 29,
            "severity": "warning",
            "code": "file_not_found",
            "message": "File 'missing.md' not found: it does not exist and is not created earlier in this reply",
        }
    ]


def test_outbox(cli: Runner, tmp_path: Path) -> None:
    write(
        tmp_path / "outbox" / "abcd1234_seq0002.txt",
        "=== HEADER ===\nSession: abcd1234\nSequence: 2\nTask: Do it\n\n=== PROTOCOL ===\nrules\n"
        "=== CONTEXT ===\nctx\n\n=== PROMPT ===\nGo\n\n",
    )
    assert parsed(cli, "outbox/abcd1234_seq0002.txt", cwd=tmp_path) == {
        "language": "outbox",
        "sections": {
            "HEADER": {"line": 1, "text": "Session: abcd1234\nSequence: 2\nTask: Do it"},
            "PROTOCOL": {"line": 6, "text": "rules"},
            "CONTEXT": {"line": 8, "text": "ctx"},
            "PROMPT": {"line": 11, "text": "Go"},
        },
        "header": {"session": "abcd1234", "sequence": 2, "task": "Do it"},
        "diagnostics": [],
    }


def test_outbox_without_header(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "x.outbox", "hello\n")
    result = parsed(cli, "x.outbox", cwd=tmp_path, code=1)
    assert result["sections"] == {}
    assert result["header"] == {"session": None, "sequence": None, "task": None}
    assert "missing_section" in {d["code"] for d in result["diagnostics"]}


def test_standard_input(cli: Runner, tmp_path: Path) -> None:
    result = parsed(cli, "-", "--language", "cli", cwd=tmp_path, stdin="echo a\n")
    assert result["commands"] == [{"line": 1, "command": "echo a", "stdin": None, "marker": None}]


def test_usage_errors(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "notes.txt", "x\n")
    (tmp_path / "d").mkdir()
    cases = {
        ("missing.cli",): "heredoc-lsp parse: error: file not found: missing.cli\n",
        (
            "d",
        ): "heredoc-lsp parse: error: d is a directory; parse takes one file (use 'heredoc-lsp check' for trees)\n",
        ("-",): "heredoc-lsp parse: error: reading standard input ('-') needs --language cli|params|inbox|outbox\n",
        ("notes.txt", "--config", "none.toml"): "heredoc-lsp parse: error: config file not found: none.toml\n",
    }
    for args, message in cases.items():
        result = cli("parse", *args, cwd=tmp_path, stdin="")
        assert (result.returncode, result.stdout, result.stderr) == (2, "", message)
    unknown = cli("parse", "notes.txt", cwd=tmp_path)
    assert unknown.returncode == 2
    assert "cannot tell the format of notes.txt" in unknown.stderr
    assert cli("parse", "notes.txt", "--language", "inbox", cwd=tmp_path).returncode == 0


def test_broken_config_is_a_usage_error(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "heredoc-lsp.toml", "compat = 3\n")
    write(tmp_path / "a.cli", "echo\n")
    result = cli("parse", "a.cli", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        'heredoc-lsp.toml:1: error: compat: expected one of "arca-cli", "none", got 3\n'
        "heredoc-lsp parse: error: cannot parse a.cli: its config file is broken\n"
    )


def test_invalid_utf8_is_parsed_with_a_warning(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "x.cli").write_bytes(b"echo \xff\n")
    result = parsed(cli, "x.cli", cwd=tmp_path)
    assert result["commands"] == [{"line": 1, "command": "echo \ufffd", "stdin": None, "marker": None}]
    assert [(d["code"], d["line"], d["column"], d["end_column"]) for d in result["diagnostics"]] == [
        ("invalid_encoding", 1, 6, 7)
    ]
