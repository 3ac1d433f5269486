"""``heredoc-lsp rule CODE`` and ``rule --all`` through the real command."""

from __future__ import annotations

import json

from tests.cli.conftest import Runner

from heredoc_lsp.rules import RULES


def test_rule_explains_a_code(cli: Runner) -> None:
    result = cli("rule", "possible_heredoc")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "possible_heredoc (warning; cli)"
    assert any(line.startswith("Why: ") for line in lines)
    assert "    cat<<EOF" in lines
    assert (
        "Fix: Insert a space before `<<`. (quick fix in the editor; `heredoc-lsp check --fix --unsafe-fixes`)" in lines
    )


def test_unknown_code_suggests_the_closest(cli: Runner) -> None:
    result = cli("rule", "posible_heredoc")
    assert result.returncode == 2
    assert "did you mean 'possible_heredoc'?" in result.stderr
    assert cli("rule").returncode == 2


def test_all_lists_every_code(cli: Runner) -> None:
    as_json = json.loads(cli("rule", "--all", "--output-format", "json").stdout)
    assert [r["code"] for r in as_json] == list(RULES)
    text = cli("rule", "--all").stdout
    assert all(f"\n{code} (" in "\n" + text for code in RULES)
