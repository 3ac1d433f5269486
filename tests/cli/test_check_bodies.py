"""``heredoc-lsp check`` reports ``body_syntax`` like every code: text lines, --select/--ignore, exit codes."""

from __future__ import annotations

import json

from tests.cli.conftest import Files, Runner, problems

SCRIPT = "echo start\npython3 - <<'PY'\nx = 'é😀' + (1,\nPY\ncat > cfg.json <<EOF\n{\"a\": 1 \"b\": 2}\nEOF\n"


def test_check_reports_bodies_at_host_lines_with_the_languages_message(cli: Runner, files: Files) -> None:
    root = files({"s.cli": SCRIPT})
    result = cli("check", "s.cli", cwd=root)
    assert result.returncode == 1
    assert problems(result.stdout) == [
        "s.cli:3:12: error[body_syntax] python: '(' was never closed",
        "s.cli:6:9: error[body_syntax] json: Expecting ',' delimiter",
    ]


def test_select_ignore_and_json(cli: Runner, files: Files) -> None:
    root = files({"s.cli": SCRIPT})
    assert cli("check", "--ignore", "body_syntax", "s.cli", cwd=root).returncode == 0
    selected = cli("check", "--select", "body_syntax", "--format", "json", "s.cli", cwd=root)
    assert selected.returncode == 1
    found = json.loads(selected.stdout)
    text = json.dumps(found)
    assert text.count('"body_syntax"') == 2


def test_reply_file_blocks(cli: Runner, files: Files) -> None:
    root = files({"r.inbox": '[CREATE_FILE path="a.yaml"]\nkey: [1, 2\n[/CREATE_FILE]\n'})
    result = cli("check", "r.inbox", cwd=root)
    assert result.returncode == 1
    [line] = problems(result.stdout)
    assert line.startswith("r.inbox:") and "error[body_syntax] yaml: " in line


def test_clean_bodies_check_clean(cli: Runner, files: Files) -> None:
    root = files(
        {
            "ok.cli": "python3 - <<'PY'\nprint('hi')\nPY\ncat <<EOF > a.toml\n[x]\ny = 1\nEOF\n",
            "r.inbox": '[CREATE_FILE path="a.json"]\n{"a": 1}\n[/CREATE_FILE]\n',
        }
    )
    result = cli("check", ".", cwd=root)
    assert (result.returncode, result.stdout) == (0, "")
