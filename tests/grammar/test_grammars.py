"""The TextMate grammars (syntaxes/) through vscode-tmgrammar-test: unit assertions and snapshots.

Unit cases live in ``cases/`` (assertion comments under each source line), snapshots in ``snapshots/``
(``*.snap`` next to each sample; refresh with ``npm run snap:update`` here after a deliberate grammar change).
Embedded shell bodies are checked against ``fixtures/shell-stub.tmLanguage.json``, a tiny stand-in for VS Code's
shell grammar that has a multi-line string rule, so the tests see that a quote the shell grammar leaves open does
not swallow the heredoc terminator or the ``[/RUN_COMMAND]`` closer.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SYNTAXES = ROOT / "syntaxes"
BIN = HERE / "node_modules" / ".bin"
SHELL_STUB = HERE / "fixtures" / "shell-stub.tmLanguage.json"
# Stand-ins for the grammars of bodies in their own language (docs/bodies.md): a body is handed to its grammar
# only when one is registered (VS Code has Python, JSON, YAML, SQL and JavaScript built in).
BODY_STUBS = [
    HERE / "fixtures" / f"{name}-stub.tmLanguage.json" for name in ("python", "json", "yaml", "toml", "sql", "js")
]
EMBEDDED_SCOPES = {"source.shell", "source.python", "source.json", "source.yaml", "source.toml", "source.sql"} | {
    "source.js"
}

# language -> (scope name, grammar file, case/snapshot file suffix, embeds the shell grammar)
LANGUAGES: dict[str, tuple[str, str, str, bool]] = {
    "cli-script": ("source.cli-script", "cli-script.tmLanguage.json", ".cli", True),
    "agent-inbox": ("text.agent-inbox", "agent-inbox.tmLanguage.json", ".inbox", True),
    "agent-outbox": ("text.agent-outbox", "agent-outbox.tmLanguage.json", ".outbox", False),
}


def grammar_args(language: str) -> list[str]:
    _, file_name, _, embeds_shell = LANGUAGES[language]
    args = ["-g", str(SYNTAXES / file_name)]
    if embeds_shell:
        args += ["-g", str(SHELL_STUB)]
        for stub in BODY_STUBS:
            args += ["-g", str(stub)]
    return args


def run_tool(tool: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    # -c (compact) prints one line per failure; a generous timeout because a catastrophic regex would hang.
    return subprocess.run([str(BIN / tool), *args], cwd=HERE, capture_output=True, text=True, timeout=120, check=False)


def test_generated_grammars_are_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(SYNTAXES / "generate.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_grammar_is_well_formed(language: str) -> None:
    scope, file_name, _, _ = LANGUAGES[language]
    grammar = json.loads((SYNTAXES / file_name).read_text(encoding="utf-8"))
    assert grammar["scopeName"] == scope
    text = json.dumps(grammar)
    local_includes = set(re.findall(r'"include": "#([\w-]+)"', text))
    assert local_includes <= set(grammar["repository"]), local_includes - set(grammar["repository"])
    external = set(re.findall(r'"include": "([a-z][\w.-]*)"', text))
    assert external <= EMBEDDED_SCOPES


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_unit_assertions(language: str) -> None:
    suffix = LANGUAGES[language][2]
    cases = sorted(p.relative_to(HERE).as_posix() for p in (HERE / "cases").glob(f"*{suffix}"))
    assert cases, f"no unit cases for {language}"
    result = run_tool("vscode-tmgrammar-test", ["-c", *grammar_args(language), *cases])
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("run successfuly") == len(cases), result.stdout


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_snapshots(language: str) -> None:
    scope, _, suffix, _ = LANGUAGES[language]
    samples = sorted(p.relative_to(HERE).as_posix() for p in (HERE / "snapshots").glob(f"*{suffix}"))
    assert samples, f"no snapshot samples for {language}"
    for sample in samples:
        assert (HERE / f"{sample}.snap").is_file(), f"{sample}.snap missing: run npm run snap:update"
    result = run_tool("vscode-tmgrammar-snap", ["-s", scope, *grammar_args(language), *samples])
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_wrong_assertion_fails(tmp_path: Path) -> None:
    """The harness can fail: a case asserting the wrong scope for the marker is reported with both scopes."""
    case = tmp_path / "wrong.cli"
    case.write_text(
        '# SYNTAX TEST "source.cli-script"\ncat <<EOF\n#     ^^^ string.unquoted.heredoc.cli-script\nEOF\n',
        encoding="utf-8",
    )
    result = run_tool("vscode-tmgrammar-test", ["-c", *grammar_args("cli-script"), str(case)])
    assert result.returncode != 0
    assert "Missing required scopes: [ string.unquoted.heredoc.cli-script ]" in result.stdout
    assert "keyword.control.heredoc-token.cli-script" in result.stdout
