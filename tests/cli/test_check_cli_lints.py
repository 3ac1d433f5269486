"""``check`` and ``run`` with the ``.cli`` lints of docs/checking.md: the report of each lint, the runner's dialect
from the user's own config, ``--fix --unsafe-fixes`` for ``early_close``, and ``run`` refusing a script with an
``early_close`` (nothing runs) unless it is suppressed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.conftest import Files, Runner


def located(result: subprocess.CompletedProcess[str]) -> list[str]:
    """``path:line:col: severity[code]`` of each reported line."""
    return [line.split("] ", 1)[0] + "]" for line in result.stdout.splitlines() if "[" in line]


def test_check_reports_each_lint(cli: Runner, files: Files, tmp_path: Path, cli_lints: str) -> None:
    files({"lints.cli": cli_lints})
    result = cli("check", "lints.cli", cwd=tmp_path)
    assert located(result) == [
        "lints.cli:5:1: warning[early_close]",
        "lints.cli:6:1: warning[shell_syntax]",
        "lints.cli:9:1: warning[shell_syntax]",
        "lints.cli:13:3: warning[orphan_option]",
        "lints.cli:14:11: warning[bashism]",
        "lints.cli:17:21: warning[background_stdin]",
    ], result.stdout
    assert result.returncode == 0  # warnings only
    assert result.stderr.strip() == "Checked 1 file: 6 warnings"
    assert cli("check", "--strict", "lints.cli", cwd=tmp_path).returncode == 1
    suppressed = cli("check", "--ignore", "shell_syntax,bashism", "lints.cli", cwd=tmp_path)
    assert [x.rsplit("[", 1)[1] for x in located(suppressed)] == ["early_close]", "orphan_option]", "background_stdin]"]


def test_check_json_reports_the_early_close(cli: Runner, files: Files, tmp_path: Path) -> None:
    files({"a.cli": "cat <<EOF\na\nEOF\nb\nEOF\n"})
    result = cli("check", "--output-format", "json", "a.cli", cwd=tmp_path)
    (found,) = json.loads(result.stdout)["diagnostics"]
    assert (found["code"], found["line"], found["column"], found["end_column"]) == ("early_close", 5, 1, 4)


def test_the_users_bash_runner_turns_bashisms_off_and_judges_for_bash(
    cli: Runner, files: Files, tmp_path: Path
) -> None:
    files({"a.cli": "cat <<< hi\narr=(a b)\nif true\n"})
    assert [x.rsplit("[", 1)[1] for x in located(cli("check", "a.cli", cwd=tmp_path))] == [
        "bashism]",
        "shell_syntax]",
        "shell_syntax]",
    ]
    config = tmp_path / "xdg"
    files({"xdg/heredoc-lsp/config.toml": '[script]\nrunner = ["bash", "-c", "{command}"]\n'})
    bash = cli("check", "a.cli", cwd=tmp_path, env={"XDG_CONFIG_HOME": str(config)})
    assert located(bash) == ["a.cli:3:1: warning[shell_syntax]"], bash.stdout
    assert "for bash: 'if' without 'fi'" in bash.stdout


def test_fix_gives_the_heredoc_a_fresh_marker(cli: Runner, files: Files, tmp_path: Path) -> None:
    files({"a.cli": "cat > notes.md <<EOF\nSome EOF_1 text\nEOF\nmore\nEOF\n"})
    safe = cli("check", "--fix", "a.cli", cwd=tmp_path)
    assert (tmp_path / "a.cli").read_text() == "cat > notes.md <<EOF\nSome EOF_1 text\nEOF\nmore\nEOF\n", safe.stderr
    fixed = cli("check", "--fix", "--unsafe-fixes", "a.cli", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (tmp_path / "a.cli").read_text() == "cat > notes.md <<EOF_2\nSome EOF_1 text\nEOF\nmore\nEOF_2\n"


def test_run_refuses_a_script_with_an_early_close(cli: Runner, files: Files, tmp_path: Path) -> None:
    files({"s.cli": "touch first\ncat > notes.md <<EOF\nSome text\nEOF\ntouch pwned\nEOF\n"})
    result = cli("run", "--yes", "--sandbox", "none", "s.cli", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert not (tmp_path / "first").exists(), "a command ran although the script has an early_close"
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "notes.md").exists()
    assert "s.cli has 1 early_close warning; nothing was run (line 6: 'EOF' closes no heredoc" in result.stdout
    assert "Traceback" not in result.stderr


def test_run_goes_on_when_the_early_close_is_suppressed(cli: Runner, files: Files, tmp_path: Path) -> None:
    files({"s.cli": "touch first\ncat > notes.md <<EOF\nSome text\nEOF\n# heredoc-lsp: disable=early_close\nEOF\n"})
    result = cli("run", "--yes", "--sandbox", "none", "s.cli", cwd=tmp_path)
    assert (tmp_path / "first").exists(), result.stdout + result.stderr
    assert (tmp_path / "notes.md").read_text() == "Some text\n"
