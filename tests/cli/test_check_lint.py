"""``check`` as a linter: code selection (flags and ``[lint]``), --exit-zero, --exclude, .gitignore, FIFOs,
output formats (SARIF validated against the 2.1.0 schema, GitLab, JUnit, concise) and FORCE_COLOR."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
from tests.cli.conftest import Files, Runner, problems

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
# line 1: possible_heredoc (warning); line 4: unclosed_heredoc (error)
MIXED = "cat<<END\nEND\necho é\ncat <<EOF\n"


def codes(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line.split("[", 1)[1].split("]", 1)[0] for line in problems(result.stdout)]


def test_select_ignore_extend_select_and_exit_zero(cli: Runner, files: Files, tmp_path: Path) -> None:
    files({"a.cli": MIXED})
    assert codes(cli("check", "a.cli", cwd=tmp_path)) == ["possible_heredoc", "unclosed_heredoc"]
    only = cli("check", "--select", "possible_heredoc", "a.cli", cwd=tmp_path)
    assert (only.returncode, codes(only)) == (0, ["possible_heredoc"])
    ignored = cli("check", "--ignore=unclosed_heredoc,possible_heredoc", "a.cli", cwd=tmp_path)
    assert (ignored.returncode, ignored.stdout) == (0, "")
    extended = cli("check", "--select", "invalid_marker", "--extend-select", "unclosed_heredoc", "a.cli", cwd=tmp_path)
    assert (extended.returncode, codes(extended)) == (1, ["unclosed_heredoc"])
    zero = cli("check", "--exit-zero", "a.cli", cwd=tmp_path)
    assert (zero.returncode, codes(zero)) == (0, ["possible_heredoc", "unclosed_heredoc"])
    bad = cli("check", "--select", "possible_heredocs", "a.cli", cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr == (
        "heredoc-lsp check: error: unknown code 'possible_heredocs' (did you mean 'possible_heredoc'?) in --select "
        "(see 'heredoc-lsp rule --all')\n"
    )
    hyphen = cli("check", "--ignore", "no-effect", "a.cli", cwd=tmp_path)
    assert hyphen.returncode == 2
    assert "unknown code 'no-effect' (did you mean 'no_effect'?) in --ignore" in hyphen.stderr


def test_lint_table_in_the_config_and_per_file_ignores(cli: Runner, files: Files, tmp_path: Path) -> None:
    lint = '[lint]\nignore = ["possible_heredoc"]\nper-file-ignores = {"legacy/**" = ["unclosed_heredoc"]}\n'
    files({"heredoc-lsp.toml": lint})
    files({"a.cli": MIXED})
    files({"legacy/old/b.cli": MIXED})
    result = cli("check", ".", cwd=tmp_path)
    assert problems(result.stdout) == [
        "a.cli:4:7: error[unclosed_heredoc] Unclosed heredoc starting at line 4: expected 'EOF' but reached end of file"
    ]
    verbose = cli("check", "-v", ".", cwd=tmp_path)
    assert (
        f"heredoc-lsp check: per-file-ignores of {tmp_path / 'heredoc-lsp.toml'} removed 1 from legacy/old/b.cli "
        "(unclosed_heredoc)"
    ) in verbose.stderr.splitlines()
    unsafe_alone = cli("check", "--unsafe-fixes", "a.cli", cwd=tmp_path)
    assert "warning: --unsafe-fixes does nothing without --fix or --diff" in unsafe_alone.stderr
    files({"heredoc-lsp.toml": '[lint]\nselect = ["possible_heredoc"]\n'})
    assert codes(cli("check", "a.cli", cwd=tmp_path)) == ["possible_heredoc"]
    assert codes(cli("check", "--select", "ALL", "a.cli", cwd=tmp_path)) == ["possible_heredoc", "unclosed_heredoc"]
    files({"heredoc-lsp.toml": '[lint]\nignore = ["no_such_code"]\n'})
    broken = cli("check", "a.cli", cwd=tmp_path)
    assert broken.stdout.splitlines()[0] == (
        'heredoc-lsp.toml:2:1: error[config_error] lint.ignore: unknown code "no_such_code" '
        "(see 'heredoc-lsp rule --all')"
    )


def test_exclude_and_gitignore(cli: Runner, files: Files, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files({".gitignore": "build/\n*.gen.cli\n!keep.gen.cli\n"})
    for name in ("a.cli", "build/b.cli", "sub/c.gen.cli", "sub/keep.gen.cli", "sub/d.cli", "tmp/e.cli"):
        files({name: "cat <<EOF\n"})
    files({"sub/.gitignore": "d.cli\n"})

    def checked(*args: str, cwd: Path = tmp_path) -> list[str]:
        return sorted(line.split(":")[0] for line in problems(cli("check", *args, cwd=cwd).stdout))

    assert checked() == ["a.cli", "sub/keep.gen.cli", "tmp/e.cli"]
    assert checked("--exclude", "tmp/", "--exclude=a.cli") == ["sub/keep.gen.cli"]
    assert checked("--no-respect-gitignore") == sorted(
        ["a.cli", "build/b.cli", "sub/c.gen.cli", "sub/keep.gen.cli", "sub/d.cli", "tmp/e.cli"]
    )
    assert checked(".", cwd=tmp_path / "sub") == ["keep.gen.cli"]  # the parent's .gitignore applies too
    assert checked("build/b.cli") == ["build/b.cli"]  # a file named explicitly is checked


def test_gitignore_anchors_double_stars_and_classes(cli: Runner, files: Files, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files({".gitignore": "**/gen\n/top.cli\nx[0-9].cli\n"})
    for name in ("gen/a.cli", "sub/gen/b.cli", "top.cli", "sub/top.cli", "x1.cli", "y.cli"):
        files({name: "cat <<EOF\n"})
    result = cli("check", cwd=tmp_path)
    assert sorted(line.split(":")[0] for line in problems(result.stdout)) == ["sub/top.cli", "y.cli"]


def test_fifo_among_the_paths_never_blocks(cli: Runner, files: Files, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.cli")
    files({"a.cli": "cat <<EOF\n"})
    walked = cli("check", ".", cwd=tmp_path)
    assert walked.returncode == 1
    assert "heredoc-lsp check: skipping pipe.cli (not a regular file)\n" in walked.stderr
    named = cli("check", "pipe.cli", cwd=tmp_path)
    assert (named.returncode, named.stderr) == (
        2,
        "heredoc-lsp check: warning: pipe.cli was not checked (not a regular file)\nChecked 0 files: no problems\n",
    )
    device = cli("check", "--language", "cli", "/dev/zero", cwd=tmp_path)
    assert "warning: /dev/zero was not checked (not a regular file)" in device.stderr and device.returncode == 2


def test_sarif_is_valid_sarif_2_1_0(cli: Runner, files: Files, tmp_path: Path) -> None:
    files({"a.cli": MIXED})
    files({"inbox/r.txt": '[READ_FILE path="/etc/passwd"]\n'})
    result = cli("check", "--output-format", "sarif", ".", cwd=tmp_path)
    assert result.returncode == 1
    log = json.loads(result.stdout)
    jsonschema.validate(log, json.loads(SCHEMA.read_text(encoding="utf-8")))
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [
        "path_outside_workspace",
        "possible_heredoc",
        "unclosed_heredoc",
    ]
    first = run["results"][0]
    assert first["ruleId"] == "possible_heredoc" and first["level"] == "warning"
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "a.cli", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 1, "startColumn": 4, "endLine": 1, "endColumn": 9},
    }
    empty = cli("check", "--output-format", "sarif", "--select", "invalid_marker", ".", cwd=tmp_path)
    jsonschema.validate(json.loads(empty.stdout), json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_gitlab_code_quality(cli: Runner, files: Files, tmp_path: Path) -> None:
    files({"a.cli": MIXED})
    result = cli("check", "--output-format", "gitlab", "a.cli", cwd=tmp_path)
    report = json.loads(result.stdout)
    assert [(r["check_name"], r["severity"], r["location"]) for r in report] == [
        ("possible_heredoc", "minor", {"path": "a.cli", "lines": {"begin": 1, "end": 1}}),
        ("unclosed_heredoc", "major", {"path": "a.cli", "lines": {"begin": 4, "end": 4}}),
    ]
    assert len({r["fingerprint"] for r in report}) == 2
    assert json.loads(cli("check", "--output-format", "gitlab", "a.cli", cwd=tmp_path).stdout) == report


def test_junit(cli: Runner, files: Files, tmp_path: Path) -> None:
    files({"a.cli": MIXED})
    files({"ok.cli": "echo hi\n"})
    result = cli("check", "--output-format", "junit", ".", cwd=tmp_path)
    root = ET.fromstring(result.stdout)
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "3", "2")
    suites = {s.get("name"): s for s in root}
    assert sorted(suites) == ["a.cli", "ok.cli"]
    failures = [c.find("failure") for c in suites["a.cli"]]
    assert [f.get("type") for f in failures if f is not None] == ["possible_heredoc", "unclosed_heredoc"]
    assert [c.find("failure") for c in suites["ok.cli"]] == [None]


def test_concise_and_the_format_alias(cli: Runner, files: Files, tmp_path: Path) -> None:
    files({"a.cli": "cat <<EOF\n"})
    concise = cli("check", "--output-format=concise", "a.cli", cwd=tmp_path)
    assert concise.stdout == (
        "a.cli:1:7: unclosed_heredoc Unclosed heredoc starting at line 1: expected 'EOF' but reached end of file\n"
    )
    assert cli("check", "--format", "concise", "a.cli", cwd=tmp_path).stdout == concise.stdout


def test_force_color_colours_a_pipe_and_no_color_wins(cli: Runner, files: Files, tmp_path: Path) -> None:
    files({"a.cli": "cat <<EOF\n"})
    forced = cli("check", "a.cli", cwd=tmp_path, env={"FORCE_COLOR": "1"})
    assert "\x1b[1;31merror\x1b[0m" in forced.stdout
    both = cli("check", "a.cli", cwd=tmp_path, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b[" not in both.stdout
    assert "\x1b[" not in cli("check", "--no-color", "a.cli", cwd=tmp_path, env={"FORCE_COLOR": "1"}).stdout


def test_stdin_filename_gives_a_piped_buffer_its_format_config_and_per_file_ignores(
    cli: Runner, files: Files, tmp_path: Path
) -> None:
    files(
        {
            "heredoc-lsp.toml": '[lint]\nper-file-ignores = {"legacy/**" = ["no_effect"]}\n'
            '[commands."gh issue create"]\nparams = ["TITLE", "BODY"]\nrequired = ["TITLE", "BODY"]\n'
        }
    )
    buffer = "cd docs\ngh issue create <<EOF\n---TITLE---\nx\nEOF\n"
    legacy = cli("check", "--stdin-filename", "legacy/a.cli", cwd=tmp_path, stdin=buffer)
    assert legacy.returncode == 1
    assert problems(legacy.stdout) == ["legacy/a.cli:3:1: error[missing] Required parameter 'BODY' is missing"]
    other = cli("check", "--stdin-filename", "src/a.cli", "-", cwd=tmp_path, stdin=buffer)
    assert [line.split(" ")[1] for line in problems(other.stdout)] == ["warning[no_effect]", "error[missing]"]
    unnamed = cli("check", "-", cwd=tmp_path, stdin=buffer)
    assert unnamed.returncode == 2 and "or a --stdin-filename whose name tells" in unnamed.stderr


def test_statistics_and_quiet(cli: Runner, files: Files, tmp_path: Path) -> None:
    files({"a.cli": "cd a\ncd b\ncat <<ÉOF\nx\nÉOF\n", "b.cli": "cd c\n"})
    stats = cli("check", "--statistics", ".", cwd=tmp_path)
    assert stats.returncode == 1
    assert stats.stdout.splitlines() == ["3  no_effect       warning", "1  invalid_marker  error    [*]"]
    assert stats.stderr == "Checked 2 files: 1 error, 3 warnings\n"
    quiet = cli("check", "-q", "b.cli", cwd=tmp_path)
    assert (quiet.returncode, quiet.stderr) == (0, "")
    assert quiet.stdout.startswith("b.cli:1:1: warning[no_effect]")
