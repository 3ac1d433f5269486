"""``heredoc-lsp check`` through real subprocesses: output formats, exit codes, discovery, encodings, config."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import REPO, Runner, problems, write

UNCLOSED = "Unclosed heredoc starting at line 1: expected 'EOF' but reached end of file"


def test_bundled_examples_pass_with_two_warnings(cli: Runner) -> None:
    result = cli("check", "examples/")
    assert result.returncode == 0, result.stderr
    assert problems(result.stdout) == [
        "examples/chatroom.cli:10:3: warning[collision] Indented '---TITLE---' is content, not a delimiter; it "
        "collides with parameter 'TITLE' (switch to UUID-prefixed delimiters or rephrase)",
        "examples/inbox/5f3a9c1e_seq0001.txt:22:17: warning[file_not_found] File 'CHANGELOG.md' not found: it does "
        "not exist and is not created earlier in this reply",
    ]
    assert result.stderr == "Checked 4 files: 2 warnings\n"
    strict = cli("check", "--strict", "examples")
    assert strict.returncode == 1


def test_errors_exit_1_and_default_path_is_the_current_directory(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "bad.cli", "cat <<EOF\nx\n")
    write(tmp_path / "good.cli", "echo hi\n")
    result = cli("check", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == (
        f"bad.cli:1:7: error[unclosed_heredoc] {UNCLOSED}\n"
        "  |\n"
        "1 | cat <<EOF\n"
        "  |       ^^^\n"
        "  = fix (unsafe): Close the heredoc with a line 'EOF'\n"
        "\n"
    )
    assert result.stderr == "Checked 2 files: 1 error\n"


def test_columns_are_code_points(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "u.cli", "é😀 <<EOF\nx\n")
    result = cli("check", "u.cli", cwd=tmp_path)
    # column 6 in code points; in the frame, the emoji takes two cells and the carets stay under 'EOF'
    assert result.stdout.split("\n")[:4] == [
        f"u.cli:1:6: error[unclosed_heredoc] {UNCLOSED}",
        "  |",
        "1 | é😀 <<EOF",
        "  |       ^^^",
    ]


def test_json_format(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "a.cli", "echo ok\ncat <<EOF\nx\n")
    write(tmp_path / "w.cli", "cat<<END\nEND\n")
    result = cli("check", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert json.loads(result.stdout) == {
        "files_checked": 2,
        "diagnostics": [
            {
                "path": "a.cli",
                "line": 2,
                "column": 7,
                "end_line": 2,
                "end_column": 10,
                "severity": "error",
                "code": "unclosed_heredoc",
                "message": "Unclosed heredoc starting at line 2: expected 'EOF' but reached end of file",
                "url": "https://github.com/heredoc-lsp/heredoc-lsp/blob/main/docs/rules.md#unclosed_heredoc",
                "fix": {
                    "applicability": "unsafe",
                    "message": "Close the heredoc with a line 'EOF'",
                    "edits": [{"line": 3, "column": 2, "end_line": 3, "end_column": 2, "content": "\nEOF"}],
                },
            },
            {
                "path": "w.cli",
                "line": 1,
                "column": 4,
                "end_line": 1,
                "end_column": 9,
                "severity": "warning",
                "code": "possible_heredoc",
                "message": "'<<END' is not a heredoc opener (it needs a space before '<<'), so line 2 ('END') would "
                "run as a command: the script does not run while this warning stands",
                "url": "https://github.com/heredoc-lsp/heredoc-lsp/blob/main/docs/rules.md#possible_heredoc",
                "fix": {
                    "applicability": "unsafe",
                    "message": "Add a space before '<<' to start a heredoc ending at 'END'",
                    "edits": [{"line": 1, "column": 4, "end_line": 1, "end_column": 4, "content": " "}],
                },
            },
        ],
        "summary": {
            "errors": 1,
            "warnings": 1,
            "information": 0,
            "hints": 0,
            "suppressed": 0,
            "ignored": 0,
            "fixed": 0,
        },
    }


def test_github_format(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "dir, with: chars" / "a.cli", "cat <<EOF\n50% done\n")
    result = cli("check", "--format", "github", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == (
        "::error file=dir%2C with%3A chars/a.cli,line=1,col=7,endLine=1,endColumn=10,"
        f"title=heredoc-lsp unclosed_heredoc::{UNCLOSED}\n"
    )


def test_missing_path_is_a_usage_error(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "bad.cli", "cat <<EOF\n")
    result = cli("check", "bad.cli", "nope", "gone/x.cli", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == "heredoc-lsp check: error: path not found: nope; path not found: gone/x.cli\n"


def test_unknown_extension_needs_language(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "script.txt", "cat <<EOF\n")
    result = cli("check", "script.txt", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("heredoc-lsp check: error: cannot tell the format of script.txt from its name")
    assert result.stderr.rstrip().endswith("use --language cli|params|inbox|outbox")
    forced = cli("check", "--language", "cli", "script.txt", cwd=tmp_path)
    assert forced.returncode == 1
    assert problems(forced.stdout) == [f"script.txt:1:7: error[unclosed_heredoc] {UNCLOSED}"]


def test_bad_option_is_a_usage_error(cli: Runner) -> None:
    result = cli("check", "--format", "xml")
    assert result.returncode == 2
    assert "invalid choice: 'xml'" in result.stderr


def test_standard_input(cli: Runner, tmp_path: Path) -> None:
    result = cli("check", "--language", "cli", "-", stdin="<<A\nA\n", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith("<stdin>:1:1: error[heredoc_without_command] ")
    no_language = cli("check", "-", stdin="", cwd=tmp_path)
    assert no_language.returncode == 2


def test_tree_with_skipped_directories_and_a_binary_file(cli: Runner, tmp_path: Path) -> None:
    broken = "cat <<EOF\n"
    for skipped in (".git", "node_modules", ".venv", "venv", "__pycache__", "env-py"):
        write(tmp_path / "proj" / skipped / "hidden.cli", broken)
    write(tmp_path / "proj" / "env-py" / "pyvenv.cfg", "home = /usr/bin\n")
    write(tmp_path / "proj" / "data.cli", b"\x00\x01binary" + broken.encode())
    write(tmp_path / "proj" / "notes.txt", broken)  # not a supported file name
    write(tmp_path / "proj" / "src" / "real.cli", broken)
    write(tmp_path / "proj" / "agent" / "inbox" / "r.txt", "[/DONE]\n")
    write(tmp_path / "proj" / "agent" / "outbox" / "abcd1234_seq0001.txt", "no header\n")
    write(tmp_path / "proj" / "agent" / "outbox" / "readme.txt", broken)
    os.symlink(tmp_path / "nowhere.cli", tmp_path / "proj" / "dangling.cli")
    os.symlink(tmp_path / "proj" / "src", tmp_path / "proj" / "src-link")
    result = cli("check", "-v", "proj", cwd=tmp_path)
    assert result.returncode == 1
    lines = problems(result.stdout)
    assert list(dict.fromkeys(line.split(":")[0] for line in lines)) == [
        "proj/agent/inbox/r.txt",
        "proj/agent/outbox/abcd1234_seq0001.txt",
        "proj/src/real.cli",
    ]
    assert f"proj/src/real.cli:1:7: error[unclosed_heredoc] {UNCLOSED}" in lines
    stderr = result.stderr.splitlines()
    for note in (
        "heredoc-lsp check: skipping proj/.git/ (version control)",
        "heredoc-lsp check: skipping proj/.venv/ (virtual environment)",
        "heredoc-lsp check: skipping proj/__pycache__/ (Python cache)",
        "heredoc-lsp check: skipping proj/env-py/ (virtual environment)",
        "heredoc-lsp check: skipping proj/node_modules/ (npm packages)",
        "heredoc-lsp check: skipping proj/venv/ (virtual environment)",
        "heredoc-lsp check: skipping proj/data.cli (binary file)",
        "heredoc-lsp check: skipping proj/dangling.cli (broken symbolic link)",
        "heredoc-lsp check: skipping proj/src-link (symbolic link to a directory)",
        "heredoc-lsp check: checking proj/src/real.cli (cli)",
    ):
        assert note in stderr
    assert stderr[-1].startswith("Checked 3 files: ")
    quiet = cli("check", "proj", cwd=tmp_path)
    assert "skipping" not in quiet.stderr


def test_binary_file_named_explicitly_is_a_warning_and_exit_2(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "data.cli", b"echo \x00\n")
    result = cli("check", "data.cli", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        "heredoc-lsp check: warning: data.cli was not checked (binary file)\nChecked 0 files: no problems\n"
    )


def test_every_named_path_is_accounted_for(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    write(tmp_path / "a.cli", b"echo hi\n")
    write(tmp_path / "notes.txt", b"hi\n")
    (tmp_path / "docs").mkdir()
    write(tmp_path / "docs" / "notes.txt", b"hi\n")
    for args, why in (
        (["empty"], "no supported file in it"),
        (["docs"], "no supported file in it"),
        (["--exclude", "a.cli", "a.cli"], "--exclude"),
        (["--exclude", "empty/", "empty"], "--exclude"),
    ):
        result = cli("check", *args, cwd=tmp_path)
        assert (result.returncode, result.stderr.splitlines()) == (
            2,
            [f"heredoc-lsp check: warning: {args[-1]} was not checked ({why})", "Checked 0 files: no problems"],
        ), args
    # Something else was checked: the warning stays, the exit code is the check's.
    mixed = cli("check", "a.cli", "empty", cwd=tmp_path)
    assert mixed.returncode == 0
    assert "heredoc-lsp check: warning: empty was not checked (no supported file in it)" in mixed.stderr
    # --force-exclude: the exclusion is meant (an editor passing every buffer), so nothing to say.
    forced = cli("check", "--force-exclude", "--exclude", "a.cli", "a.cli", cwd=tmp_path)
    assert (forced.returncode, forced.stderr) == (0, "Checked 0 files: no problems\n")
    # No path named: an empty folder is nothing to warn about.
    assert cli("check", cwd=tmp_path / "empty").returncode == 0


def test_invalid_utf8_warns_at_the_first_bad_line(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "latin1.cli", b"echo ok\r\n# caf\xe9\r\necho \xff\xfe\r\n")
    result = cli("check", "latin1.cli", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == (
        "latin1.cli:2:6: warning[invalid_encoding] File is not valid UTF-8: invalid bytes were replaced with U+FFFD "
        "(this is the first such line)\n"
        "  |\n"
        "2 | # caf\ufffd\n"
        "  |      ^\n"
        "\n"
    )
    assert cli("check", "--strict", "latin1.cli", cwd=tmp_path).returncode == 1


def test_bom_is_not_a_column(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "bom.cli", "\ufeff<<A\nA\n".encode())
    result = cli("check", "bom.cli", cwd=tmp_path)
    assert result.stdout.startswith("bom.cli:1:1: error[heredoc_without_command] ")


def test_broken_config_falls_back_to_the_defaults_and_says_so(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "broken" / "heredoc-lsp.toml", "[executor]\ntimout_s = 3\nsandbox = 'vm'\n")
    write(tmp_path / "broken" / "a.cli", "cat <<EOF\n")
    write(tmp_path / "broken" / "sub" / "b.cli", "echo hi\n")
    write(tmp_path / "fine" / "c.cli", "cat <<EOF\n")
    result = cli("check", cwd=tmp_path)
    assert result.returncode == 1
    assert problems(result.stdout) == [
        "broken/heredoc-lsp.toml:2:1: error[config_error] executor.timout_s: unknown key (did you mean 'timeout_s'?)",
        'broken/heredoc-lsp.toml:3:1: error[config_error] executor.sandbox: expected one of "auto", "bwrap", '
        '"none", got "vm"',
        f"broken/a.cli:1:7: error[unclosed_heredoc] {UNCLOSED}",
        f"fine/c.cli:1:7: error[unclosed_heredoc] {UNCLOSED}",
    ]
    assert result.stdout.split("\n")[1:4] == ["  |", "2 | timout_s = 3", "  | ^^^^^^^^^^^^"]  # the config's frame
    assert result.stderr.splitlines() == [
        "heredoc-lsp check: broken/heredoc-lsp.toml: the config file is broken; checking with the defaults",
        "Checked 3 files: 4 errors; 1 broken config file (defaults used)",
    ]
    as_json = cli("check", "--format", "json", cwd=tmp_path)
    assert as_json.returncode == 1
    codes = [(d["path"], d["line"], d["code"]) for d in json.loads(as_json.stdout)["diagnostics"]]
    assert codes == [
        ("broken/heredoc-lsp.toml", 2, "config_error"),
        ("broken/heredoc-lsp.toml", 3, "config_error"),
        ("broken/a.cli", 1, "unclosed_heredoc"),
        ("fine/c.cli", 1, "unclosed_heredoc"),
    ]


def test_explicit_config_and_pyproject(cli: Runner, tmp_path: Path) -> None:
    body = "chatroom task-started r <<EOF\n---TITLE---\nt\nEOF\n"
    write(tmp_path / "s.cli", body)
    write(
        tmp_path / "pyproject.toml",
        '[tool.heredoc-lsp.commands."chatroom task-started"]\nparams = ["TITLE", "BODY"]\nrequired = ["BODY"]\n',
    )
    result = cli("check", "s.cli", cwd=tmp_path)
    assert result.returncode == 1
    assert problems(result.stdout) == ["s.cli:2:1: error[missing] Required parameter 'BODY' is missing"]
    write(tmp_path / "other.toml", "")
    assert cli("check", "--config", "other.toml", "s.cli", cwd=tmp_path).returncode == 0
    missing = cli("check", "--config", "nope.toml", "s.cli", cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr == "heredoc-lsp check: error: config file not found: nope.toml\n"


def test_inbox_workspace(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "proj" / "inbox" / "r.txt", '[READ_FILE path="a.txt"]\n')
    result = cli("check", "proj", cwd=tmp_path)
    assert "file_not_found" in result.stdout
    write(tmp_path / "proj" / "a.txt", "here\n")  # the workspace is proj/, the parent of inbox/
    assert cli("check", "proj", cwd=tmp_path).stdout == ""
    write(tmp_path / "elsewhere" / "a.txt", "")
    explicit = cli("check", "--workspace", "elsewhere", "proj", cwd=tmp_path)
    assert explicit.stdout == ""


def test_suppressed_count_in_summary(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "s.cli", "# heredoc-lsp: disable=unclosed_heredoc\ncat <<EOF\n")
    result = cli("check", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stderr == "Checked 1 file: no problems (1 suppressed)\n"


def _run_on_a_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run with stdout on a pseudo-terminal; return what was written to it."""
    leader, follower = pty.openpty()
    full_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    full_env.update(env)
    proc = subprocess.Popen(
        [sys.executable, "-m", "heredoc_lsp", *args], cwd=cwd, stdout=follower, stderr=subprocess.DEVNULL, env=full_env
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode()


def test_colour_only_on_a_terminal_and_never_with_no_color(cli: Runner, tmp_path: Path) -> None:
    write(tmp_path / "a.cli", "cat <<EOF\n")
    coloured = _run_on_a_terminal(["check", "a.cli"], tmp_path, {"TERM": "xterm"})
    assert "\x1b[1;31merror\x1b[0m" in coloured
    assert "\x1b[" not in _run_on_a_terminal(["check", "a.cli"], tmp_path, {"TERM": "xterm", "NO_COLOR": "1"})
    assert "\x1b[" not in _run_on_a_terminal(["check", "--no-color", "a.cli"], tmp_path, {"TERM": "xterm"})
    assert "\x1b[" not in cli("check", "a.cli", cwd=tmp_path).stdout  # a pipe


def test_check_does_not_import_heavy_modules(tmp_path: Path) -> None:
    write(tmp_path / "a.cli", "echo hi\n")
    write(tmp_path / "inbox" / "r.txt", "[MESSAGE]\nhi\n[/MESSAGE]\n")
    code = (
        "import sys\n"
        "from heredoc_lsp.cli.main import main\n"
        "rc = main(['check', '.'])\n"
        "heavy = {'pygls', 'lsprotocol', 'rich', 'cattrs', 'asyncio'}\n"
        "print(rc, sorted({m.split('.')[0] for m in sys.modules} & heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout == "0 []\n"


def test_python_dash_m_and_console_script_agree(tmp_path: Path) -> None:
    write(tmp_path / "a.cli", "cat <<EOF\n")
    exe = Path(sys.executable).parent / "heredoc-lsp"
    via_script = subprocess.run([str(exe), "check", "a.cli"], cwd=tmp_path, capture_output=True, text=True)
    assert via_script.returncode == 1
    assert problems(via_script.stdout) == [f"a.cli:1:7: error[unclosed_heredoc] {UNCLOSED}"]
    assert REPO.joinpath("examples").is_dir()


def test_file_names_and_markers_with_escape_sequences_are_shown_not_obeyed(cli: Runner, tmp_path: Path) -> None:
    # A cloned repository's file name and heredoc marker: OSC 52 (set the clipboard) and cursor up + erase line.
    name = "x\x1b]52;c;aGk=\x07\x1b[1A\x1b[2K.cli"
    write(tmp_path / name, "cat <<E\x1b[2KOF\nbody\n")
    for fmt in ("text", "concise", "github"):
        result = cli("check", "--output-format", fmt, cwd=tmp_path)
        assert result.returncode == 1, (fmt, result.stdout, result.stderr)
        assert "\x1b" not in result.stdout + result.stderr and "\x07" not in result.stdout, fmt
        assert "x\\x1b]52;c;aGk=\\x07\\x1b[1A\\x1b[2K.cli" in result.stdout, (fmt, result.stdout)
