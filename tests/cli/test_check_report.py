"""``check``'s report options through the real command, as ruff has them: ``-o/--output-file`` (written whole or not
at all), ``--show-fixes``, ``--add-noqa``, ``--fix`` of a piped buffer (the buffer on stdout), the fix and rule URL
in JSON and SARIF, SARIF URIs relative to %SRCROOT%, and an unknown option answered with the subcommand's usage and
a did-you-mean."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
from tests.cli.conftest import Files, Runner, problems

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
SEED = {"HEREDOC_LSP_FIX_SEED": "7"}
# line 1: possible_heredoc (unsafe fix), line 3: no_effect (no fix), line 4: invalid_marker (safe fix),
# line 7: unclosed_heredoc (unsafe fix)
SCRIPT = "cat<<END\nEND\ncd docs\ncat <<ÉOF\nx\nÉOF\ncat <<EOF\nbody\n"


def test_output_file_holds_the_report_and_replaces_the_file_whole(cli: Runner, files: Files) -> None:
    root = files({"a.cli": SCRIPT})
    (root / "report.txt").write_text("old report\n")
    to_stdout = cli("check", "a.cli", cwd=root)
    result = cli("check", "-o", "report.txt", "a.cli", cwd=root)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == to_stdout.stderr  # the summary stays on stderr
    assert (root / "report.txt").read_text(encoding="utf-8") == to_stdout.stdout
    as_json = cli("check", "--output-file=r.json", "--output-format", "json", "a.cli", cwd=root)
    assert as_json.returncode == 1
    assert json.loads((root / "r.json").read_text())["files_checked"] == 1
    assert sorted(p.name for p in root.iterdir()) == ["a.cli", "r.json", "report.txt"]  # no temporary file left
    # never coloured, even when colour is forced (the file is no terminal)
    cli("check", "-o", "report.txt", "a.cli", cwd=root, env={"FORCE_COLOR": "1"})
    assert "\x1b[" not in (root / "report.txt").read_text(encoding="utf-8")
    # a usage error writes nothing: the old report stays as it was
    (root / "report.txt").write_text("old report\n")
    bad = cli("check", "-o", "report.txt", "--select", "no_such_code", "a.cli", cwd=root)
    assert bad.returncode == 2
    assert (root / "report.txt").read_text() == "old report\n"
    # not a regular file: written directly; a folder that does not exist: a usage error
    assert cli("check", "-o", os.devnull, "a.cli", cwd=root).returncode == 1
    missing = cli("check", "-o", "no/such/dir/r.txt", "a.cli", cwd=root)
    assert missing.returncode == 2 and "cannot write no/such/dir/r.txt" in missing.stderr


def test_show_fixes_lists_what_was_fixed_and_what_is_available(cli: Runner, files: Files) -> None:
    root = files({"a.cli": SCRIPT})
    available = cli("check", "--show-fixes", "--output-format", "concise", "a.cli", cwd=root)
    assert available.returncode == 1
    assert available.stderr.splitlines() == [
        "3 fixes available:",
        "- a.cli:",
        "    1 × invalid_marker (safe)",
        "    1 × possible_heredoc (unsafe)",
        "    1 × unclosed_heredoc (unsafe)",
        "Checked 1 file: 2 errors, 2 warnings",
    ]
    fixed = cli("check", "--fix", "--show-fixes", "--output-format", "concise", "a.cli", cwd=root, env=SEED)
    assert fixed.stderr.splitlines() == [
        "heredoc-lsp check: fixed a.cli: 1 (invalid_marker)",
        "Fixed 1 problem:",
        "- a.cli:",
        "    1 × invalid_marker",
        "2 fixes left:",
        "- a.cli:",
        "    1 × possible_heredoc (unsafe)",
        "    1 × unclosed_heredoc (unsafe)",
        "Checked 1 file: fixed 1, 1 error, 2 warnings left; 2 more fixable with --unsafe-fixes",
    ]
    fixed_text = (root / "a.cli").read_text()
    # nothing safe left to fix: the summary says what a plain check says, never "fixed 0" (ruff: "Found 2 errors.")
    again = cli("check", "--fix", "--show-fixes", "--output-format", "concise", "a.cli", cwd=root, env=SEED)
    assert again.returncode == 1 and (root / "a.cli").read_text() == fixed_text
    assert again.stderr.splitlines() == [
        "2 fixes left:",
        "- a.cli:",
        "    1 × possible_heredoc (unsafe)",
        "    1 × unclosed_heredoc (unsafe)",
        "Checked 1 file: 1 error, 2 warnings; 2 more fixable with --unsafe-fixes",
    ]
    clean = files({"b.cli": "echo hi\n"})
    assert cli("check", "--fix", "b.cli", cwd=clean).stderr == "Checked 1 file: no problems\n"
    both = cli("check", "--show-fixes", "--diff", "a.cli", cwd=root)
    assert both.returncode == 2
    assert "--show-fixes cannot be used with --diff" in both.stderr


def test_add_noqa_silences_every_problem_with_the_products_directive(cli: Runner, files: Files) -> None:
    root = files({"a.cli": "echo hi\ncd docs\n  cat <<EOF > x &\nbody\nEOF\ncd b; export X=1\n"})
    before = cli("check", "--output-format", "concise", "a.cli", cwd=root)
    assert [line.split(" ")[1] for line in before.stdout.splitlines()] == ["no_effect", "background_stdin"]
    result = cli("check", "--add-noqa", "a.cli", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (root / "a.cli").read_text() == (
        "echo hi\n"
        "# heredoc-lsp: disable=no_effect\n"
        "cd docs\n"
        "  # heredoc-lsp: disable=background_stdin\n"
        "  cat <<EOF > x &\n"
        "body\n"
        "EOF\n"
        "cd b; export X=1\n"
    )
    assert result.stderr.splitlines() == [
        "heredoc-lsp check: silenced a.cli: 2 (# heredoc-lsp: disable=...)",
        "Checked 1 file: no problems (2 suppressed); silenced 2 problems in 1 file",
    ]
    again = cli("check", "--add-noqa", "a.cli", cwd=root)
    assert (again.returncode, (root / "a.cli").read_text().count("disable=")) == (0, 2)  # nothing more to add
    assert cli("check", "--strict", "a.cli", cwd=root).returncode == 0
    for conflict in (("--fix",), ("--diff",), ("--stdin-filename", "a.cli", "-")):
        refused = cli("check", "--add-noqa", *conflict, "a.cli", cwd=root)
        assert refused.returncode == 2, conflict


def test_add_noqa_writes_two_codes_for_one_line_into_one_directive_and_respects_select(
    cli: Runner, files: Files
) -> None:
    root = files({"a.cli": 'echo hi\ncd "x\ncd y\n'})
    concise = cli("check", "--output-format", "concise", "a.cli", cwd=root)
    assert [line.split(" ")[1] for line in concise.stdout.splitlines()] == ["no_effect", "shell_syntax", "no_effect"]
    only = cli("check", "--add-noqa", "--select", "shell_syntax", "a.cli", cwd=root)
    assert only.returncode == 0
    assert (root / "a.cli").read_text() == 'echo hi\n# heredoc-lsp: disable=shell_syntax\ncd "x\ncd y\n'
    cli("check", "--add-noqa", "a.cli", cwd=root)
    assert (root / "a.cli").read_text() == (
        'echo hi\n# heredoc-lsp: disable=shell_syntax,no_effect\ncd "x\n# heredoc-lsp: disable=no_effect\ncd y\n'
    )


def test_fix_of_a_piped_buffer_writes_the_buffer_to_stdout_and_the_report_to_stderr(cli: Runner, files: Files) -> None:
    root = files({"heredoc-lsp.toml": '[lint]\nper-file-ignores = {"legacy/**" = ["no_effect"]}\n'})
    buffer = "cd docs\ncat <<ÉOF\nx\nÉOF\n"
    fixed = cli("check", "--fix", "--stdin-filename", "src/a.cli", cwd=root, stdin=buffer, env=SEED)
    assert fixed.returncode == 0
    assert fixed.stdout == "cd docs\ncat <<EOF\nx\nEOF\n"
    assert problems(fixed.stderr)[0].startswith("src/a.cli:1:1: warning[no_effect] ")
    assert fixed.stderr.splitlines()[-1] == "Checked 1 file: fixed 1, 1 warning left"
    assert not (root / "src").exists()  # the named file is not written
    # per-file ignores of the name apply; unsafe fixes with --unsafe-fixes
    legacy = cli("check", "--fix", "--stdin-filename", "legacy/a.cli", "-", cwd=root, stdin="cat <<EOF\n", env=SEED)
    assert (legacy.returncode, legacy.stdout) == (1, "cat <<EOF\n")
    closed = cli("check", "--fix", "--unsafe-fixes", "--stdin-filename", "a.cli", cwd=root, stdin="cat <<EOF\n")
    assert (closed.returncode, closed.stdout) == (0, "cat <<EOF\nEOF\n")
    # nothing to fix, or not text: the buffer comes back as it was (an editor replaces its buffer with stdout)
    clean = cli("check", "--fix", "--stdin-filename", "a.cli", cwd=root, stdin="echo hi")
    assert (clean.returncode, clean.stdout) == (0, "echo hi")
    binary = cli("check", "--fix", "--stdin-filename", "a.cli", cwd=root, stdin="a\x00b")
    assert binary.stdout == "a\x00b"
    diff = cli("check", "--diff", "--stdin-filename", "a.cli", cwd=root, stdin="cat <<ÉOF\nx\nÉOF\n")
    assert diff.returncode == 1
    assert "-cat <<ÉOF\n+cat <<EOF\n" in diff.stdout


def test_json_carries_the_fix_and_the_rule_url(cli: Runner, files: Files) -> None:
    root = files({"a.cli": SCRIPT})
    found = json.loads(cli("check", "--output-format", "json", "a.cli", cwd=root, env=SEED).stdout)["diagnostics"]
    by_code = {d["code"]: d for d in found}
    assert by_code["no_effect"]["fix"] is None
    assert by_code["no_effect"]["url"].endswith("/docs/rules.md#no_effect")
    assert by_code["invalid_marker"]["fix"] == {
        "applicability": "safe",
        "message": "Rename the marker 'ÉOF' to 'EOF'",
        "edits": [
            {"line": 4, "column": 7, "end_line": 4, "end_column": 10, "content": "EOF"},
            {"line": 6, "column": 1, "end_line": 6, "end_column": 4, "content": "EOF"},
        ],
    }
    assert by_code["unclosed_heredoc"]["fix"]["applicability"] == "unsafe"


def test_sarif_uris_are_relative_to_srcroot_whatever_the_working_directory(cli: Runner, files: Files) -> None:
    root = files({"repo/sub/a.cli": SCRIPT, "outside/b.cli": "cat <<EOF\n"})
    (root / "repo" / ".git").mkdir()
    from_top = cli("check", "--output-format", "sarif", "sub/a.cli", cwd=root / "repo")
    from_sub = cli("check", "--output-format", "sarif", "a.cli", cwd=root / "repo" / "sub")
    log = json.loads(from_top.stdout)
    assert json.loads(from_sub.stdout) == log
    jsonschema.validate(log, json.loads(SCHEMA.read_text(encoding="utf-8")))
    run = log["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == (root / "repo").as_uri() + "/"
    locations = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert locations == {"sub/a.cli"}
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] for r in run["results"]} == {
        "%SRCROOT%"
    }
    assert all(rule["helpUri"].endswith(f"/docs/rules.md#{rule['id']}") for rule in run["tool"]["driver"]["rules"])
    marker = next(r for r in run["results"] if r["ruleId"] == "invalid_marker")
    assert marker["fixes"][0]["artifactChanges"][0]["replacements"][0] == {
        "deletedRegion": {"startLine": 4, "startColumn": 7, "endLine": 4, "endColumn": 10},
        "insertedContent": {"text": "EOF"},
    }
    # a file outside the repository: an absolute file URI, no base
    outside = json.loads(cli("check", "--output-format", "sarif", "../outside/b.cli", cwd=root / "repo").stdout)
    [location] = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in outside["runs"][0]["results"]]
    assert location == {"uri": (root / "outside" / "b.cli").as_uri()}


def test_an_unknown_option_shows_the_subcommands_usage_and_a_did_you_mean(cli: Runner, files: Files) -> None:
    root = files({"a.cli": "echo hi\n"})
    for typo, meant in (
        ("--statistcs", "--statistics"),
        ("--output-fil", "--output-file"),
        ("--show-fix", "--show-fixes"),
    ):
        result = cli("check", typo, "a.cli", cwd=root)
        assert result.returncode == 2
        assert result.stderr.startswith("usage: heredoc-lsp check "), result.stderr
        assert result.stderr.splitlines()[-1] == (
            f"heredoc-lsp check: error: unrecognized arguments: {typo} (did you mean '{meant}'?)"
        )
    other = cli("run", "--kep-going", "a.cli", cwd=root)
    assert other.returncode == 2 and other.stderr.startswith("usage: heredoc-lsp run ")
    assert "(did you mean '--keep-going'?)" in other.stderr
