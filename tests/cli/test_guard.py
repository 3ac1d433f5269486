"""``heredoc-lsp guard`` end to end, as the real process an agent's hook runner starts, judged against real bash
(the corpus and oracle in data/), and ``check - --language bash``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.cli.conftest import Runner
from tests.conftest import load_oracle

from heredoc_lsp.cli.check import OUTPUT_FORMATS
from heredoc_lsp.cli.guard import CONFIG_NAMES, GuardError, read_event
from heredoc_lsp.cli.main import build_parser
from heredoc_lsp.cli.names import parser_actions
from heredoc_lsp.config import model
from heredoc_lsp.rules import RULES

DATA = Path(__file__).resolve().parent / "data"


ORACLE = load_oracle(DATA / "guard_oracle.py")
CASES: dict[str, dict[str, str]] = {c["name"]: c for c in ORACLE.read_corpus()}
VERDICTS: dict[str, dict[str, Any]] = {
    e["name"]: e for e in json.loads((DATA / "guard_oracle.json").read_text(encoding="utf-8"))
}


def event(command: str, *, cwd: str = "/", tool: str = "Bash", **extra: Any) -> str:
    return json.dumps(
        {
            "session_id": "s1",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": {"command": command, "description": "run it"},
            **extra,
        }
    )


def gemini_event(command: str) -> str:
    return json.dumps(
        {
            "session_id": "s1",
            "cwd": "/",
            "hook_event_name": "BeforeTool",
            "timestamp": "2026-11-26T07:00:00Z",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command},
        }
    )


def guard(cli: Runner, stdin: str, *args: str, cwd: Path | str | None = None) -> subprocess.CompletedProcess[str]:
    return cli("guard", *args, stdin=stdin, **({"cwd": cwd} if cwd is not None else {}))


def answer(result: subprocess.CompletedProcess[str]) -> dict[str, Any] | None:
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return json.loads(result.stdout) if result.stdout else None


# -- the corpus, with real bash as the oracle -----------------------------------------------------------------


def test_oracle_data_covers_the_corpus() -> None:
    """guard_oracle.json was rebuilt after the last change of guard_corpus.txt."""
    assert list(VERDICTS) == list(CASES)
    assert len(CASES) >= 60
    broken = [name for name, v in VERDICTS.items() if not v["runs_as_intended"]]
    assert len(broken) >= 15
    # Broken exactly where the corpus gives what the author meant.
    assert broken == [name for name, c in CASES.items() if "intended" in c]


@pytest.mark.parametrize("name", ["commit-message-cat-eof", "early-close-notes", "glued-paren-in-substitution"])
def test_oracle_data_is_what_bash_does(name: str) -> None:
    stored = VERDICTS[name]
    again = ORACLE.trace(CASES[name]["command"])
    assert again["runs"] == stored["actual"]["runs"]
    assert bool(again["stderr"]) == bool(stored["actual"]["stderr"])


def test_no_false_deny_and_every_broken_case_caught(cli: Runner) -> None:
    false_denies, missed = [], []
    for name, case in CASES.items():
        result = answer(guard(cli, event(case["command"])))
        denied = result is not None
        if denied and VERDICTS[name]["runs_as_intended"]:
            false_denies.append((name, result))
        if not denied and not VERDICTS[name]["runs_as_intended"]:
            missed.append(name)
    assert false_denies == []
    assert missed == []


def test_rewrites_give_bash_the_intended_runs(cli: Runner) -> None:
    """Every ``updatedInput`` runs in real bash exactly as the command its author meant (same programs, same argv,
    same stdin) and without a warning."""
    rewritten = []
    for name, case in CASES.items():
        if "intended" not in case:
            continue
        result = answer(guard(cli, event(case["command"]), "--rewrite"))
        assert result is not None, name
        out = result["hookSpecificOutput"]
        if "updatedInput" not in out:
            assert out["permissionDecision"] == "deny", name
            continue
        assert out["permissionDecision"] == "ask"
        assert out["updatedInput"]["description"] == "run it"  # the rest of the tool input is kept
        ran = ORACLE.trace(out["updatedInput"]["command"])
        assert ran["stderr"] == "", name
        assert ran["runs"] == VERDICTS[name]["intended"]["runs"], name
        rewritten.append(name)
    assert {
        "early-close-notes",
        "early-close-python",
        "glued-paren-in-substitution",
        "glued-paren-subshell",
        "glued-semicolon",
        "indented-terminator-python",
        "indented-terminator-in-if",
        "dash-operator-spaces",
        "trailing-blank-terminator",
    } <= set(rewritten)


# -- answers -----------------------------------------------------------------------------------------------


def test_claude_code_deny_names_line_and_fix(cli: Runner) -> None:
    result = answer(guard(cli, event(CASES["early-close-notes"]["command"])))
    assert result is not None
    out = result["hookSpecificOutput"]
    assert set(out) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    assert (out["hookEventName"], out["permissionDecision"]) == ("PreToolUse", "deny")
    reason = out["permissionDecisionReason"]
    assert "- line 5 [early_close]: Line 5 is 'EOF' again" in reason
    assert "Use a marker that occurs in no line of the body" in reason
    assert "<<EOF_END" in reason  # the fixed command is quoted for the agent


@pytest.mark.parametrize(
    ("name", "line", "code"),
    [
        ("unclosed-plain", 1, "unclosed_heredoc"),
        ("glued-paren-in-substitution", 3, "terminator_not_alone"),
        ("indented-terminator-python", 4, "inexact_terminator"),
        ("unterminated-quote", 1, "shell_syntax"),
        ("gh-body-then-option", 4, "orphan_option"),
    ],
)
def test_each_problem_kind(cli: Runner, name: str, line: int, code: str) -> None:
    result = answer(guard(cli, event(CASES[name]["command"])))
    assert result is not None
    assert f"- line {line} [{code}]: " in result["hookSpecificOutput"]["permissionDecisionReason"]


def test_guard_only_codes_are_registered(cli: Runner) -> None:
    for code in ("inexact_terminator", "terminator_not_alone"):
        assert RULES[code].formats == "bash"
        assert cli("rule", code).returncode == 0


def test_correct_command_and_other_tools_get_no_answer(cli: Runner) -> None:
    assert answer(guard(cli, event(CASES["commit-message-cat-eof"]["command"]))) is None
    assert answer(guard(cli, event("cat <<EOF\nx\n", tool="Write"))) is None
    read = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/x"}})
    assert answer(guard(cli, read)) is None


def test_help_is_the_parsers_own_with_every_option(cli: Runner, monkeypatch: pytest.MonkeyPatch) -> None:
    """``guard --help`` (and ``-h``) is argparse's help of the guard parser, so it lists every option, ``-h/--help``
    included, and cannot drift from what the parser accepts."""
    monkeypatch.setenv("COLUMNS", "100")
    subparsers = next(a for a in parser_actions(build_parser("guard")) if isinstance(a.choices, dict))
    parser = subparsers.choices["guard"]
    options = [name for action in parser_actions(parser) for name in action.option_strings]
    assert {"-h", "--help", "--format", "--rewrite"} <= set(options)
    for flag in ("--help", "-h"):
        shown = cli("guard", flag, env={"COLUMNS": "100"})
        assert (shown.returncode, shown.stderr) == (0, "")
        assert shown.stdout == parser.format_help()
        assert shown.stdout.startswith("usage: heredoc-lsp guard [-h] ") and "-h, --help" in shown.stdout


def test_a_hook_event_is_answered_without_argparse() -> None:
    """The guard runs before every shell call of an agent: an event never loads the option parser (start-up time,
    bench/bench_guard.py); only ``--help`` and usage errors do."""
    code = (
        "import sys\nfrom heredoc_lsp.cli.main import main\n"
        "code = main(['guard', '--format', 'claude', '--rewrite'])\n"
        "print(code, 'argparse' in sys.modules, file=sys.stderr)\n"
    )
    command = CASES["glued-paren-in-substitution"]["command"]
    done = subprocess.run(
        [sys.executable, "-c", code], input=event(command), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stderr == "0 False\n"
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_codex_is_recognised_by_turn_id_and_never_rewritten_into_an_allow(cli: Runner) -> None:
    command = CASES["glued-paren-in-substitution"]["command"]
    result = answer(guard(cli, event(command, turn_id="t-1"), "--rewrite"))
    assert result is not None
    out = result["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "updatedInput" not in out
    assert 'EOF\n)"' in out["permissionDecisionReason"]


def test_gemini_cli_before_tool(cli: Runner) -> None:
    command = CASES["glued-paren-in-substitution"]["command"]
    denied = answer(guard(cli, gemini_event(command)))
    assert denied is not None and set(denied) == {"decision", "reason"}
    assert denied["decision"] == "deny" and "[terminator_not_alone]" in denied["reason"]
    rewritten = answer(guard(cli, gemini_event(command), "--rewrite"))
    assert rewritten is not None
    assert rewritten["hookSpecificOutput"] == {"tool_input": {"command": "echo \"$(cat <<'EOF'\nhello\nEOF\n)\""}}
    assert "decision" not in rewritten  # the agent's own policy still decides
    assert answer(guard(cli, gemini_event("echo ok"))) is None
    # --format overrides recognition: a Codex-shaped event answered as Claude Code, a PreToolUse one refused
    # by --format gemini.
    forced = answer(guard(cli, event(command, turn_id="t-1"), "--format", "claude", "--rewrite"))
    assert forced is not None and forced["hookSpecificOutput"]["permissionDecision"] == "ask"
    refused = guard(cli, event(command), "--format=gemini")
    assert refused.returncode == 1 and "expected a BeforeTool event" in refused.stderr


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("", "invalid JSON"),
        ("not json", "invalid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"tool_name": "Bash"}', "no hook_event_name"),
        ('{"hook_event_name": "PostToolUse", "tool_name": "Bash"}', "expected a PreToolUse or BeforeTool event"),
        ('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}', "without tool_input.command"),
        ('{"hook_event_name": "PreToolUse"}', "no tool_name"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_not_a_hook_event_is_one_line_on_stderr_and_exit_1(cli: Runner, stdin: str, message: str) -> None:
    result = guard(cli, stdin)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_binary_input(cli: Runner) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "heredoc_lsp", "guard"], input=bytes(range(256)) * 64, capture_output=True, timeout=60
    )
    assert proc.returncode == 1 and proc.stdout == b"" and proc.stderr.count(b"\n") == 1
    # A command holding NULs and invalid surrogates as JSON escapes is read and checked.
    result = guard(cli, event("printf 'a\u0000b' \udcff <<EOF\nx\nEOF"))
    assert answer(result) is None


def test_memory_is_bounded_for_a_50_mb_command_and_deep_nesting(tmp_path: Path) -> None:
    """The event is read up to a limit (8 MiB): a 50 MB command is refused (exit 1) without reading it whole; a
    deeply nested command is checked with a bounded stack (the lexer gives up: no deny). Peak RSS of each process
    stays far below the input's size."""
    script = (
        "import resource, subprocess, sys\n"
        "with open(sys.argv[1], 'rb') as f:\n"
        "    p = subprocess.run([sys.executable, '-m', 'heredoc_lsp', 'guard'], stdin=f, capture_output=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(p.returncode, peak, len(p.stdout), p.stderr.decode().strip())\n"
    )
    runner = tmp_path / "peak.py"
    runner.write_text(script, encoding="utf-8")
    big = tmp_path / "big.json"
    big.write_text(event("echo " + "x" * 50_000_000), encoding="utf-8")
    deep = tmp_path / "deep.json"
    deep.write_text(event("echo " + "$(" * 500_000), encoding="utf-8")
    results = {}
    for name, path in (("big", big), ("deep", deep)):
        done = subprocess.run([sys.executable, str(runner), str(path)], capture_output=True, text=True, timeout=120)
        code, peak_kib, out_len, err = done.stdout.split(" ", 3)
        results[name] = (int(code), int(peak_kib), int(out_len), err.strip())
    code, peak_kib, out_len, err = results["big"]
    assert (code, out_len) == (1, 0) and "larger than" in err
    assert peak_kib < 50_000
    code, peak_kib, out_len, err = results["deep"]
    assert (code, out_len, err) == (0, 0, "")
    assert peak_kib < 50_000


def test_read_event_never_waits_forever() -> None:
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, b'{"hook_event_name": ')
        start = time.perf_counter()
        with pytest.raises(GuardError, match=r"no complete hook event on stdin within 0\.2 s"):
            read_event(read_fd, timeout=0.2)
        assert time.perf_counter() - start < 2
        os.write(write_fd, b"1}")
        os.close(write_fd)
        write_fd = -1
        assert read_event(read_fd, limit=100) == b"1}"
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)


def test_config_names_are_the_config_packages() -> None:
    assert CONFIG_NAMES == (
        model.CONFIG_FILE_NAME,
        model.PYPROJECT_FILE_NAME,
        model.USER_CONFIG_DIR,
        model.USER_CONFIG_FILE_NAME,
    )


# -- structured bodies of configured commands ----------------------------------------------------------------

CONFIG = """
[commands."chatroom handoff"]
single_param = "MESSAGE"
terminator = "CHATROOM_HANDOFF_END"
[commands."chatroom task-started"]
params = ["TITLE", "DESCRIPTION", "TECH_SPECS"]
required = ["TITLE", "DESCRIPTION"]
terminator = "PARAMS_END"
"""


def test_configured_structured_bodies_from_the_events_cwd(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "heredoc-lsp.toml").write_text(CONFIG, encoding="utf-8")
    sub = tmp_path / "src" / "pkg"
    sub.mkdir(parents=True)
    task = "chatroom task-started << 'PARAMS_END'\n---TITLE---\nAdd the guard\n---TITEL---\nx\nPARAMS_END"
    result = answer(guard(cli, event(task, cwd=str(sub))))
    assert result is not None
    reason = result["hookSpecificOutput"]["permissionDecisionReason"]
    assert "- line 4 [unknown]: Unknown parameter 'TITEL'" in reason
    assert "[missing]: Required parameter 'DESCRIPTION' is missing" in reason
    # The same command where no config applies: plain stdin, nothing to say.
    assert answer(guard(cli, event(task, cwd=str(tmp_path.parent)))) is None
    ok = CASES["chatroom-task-ok"]["command"]
    assert answer(guard(cli, event(ok, cwd=str(sub)))) is None


def test_a_broken_config_is_noted_and_ignored(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "heredoc-lsp.toml").write_text("[commands\n", encoding="utf-8")
    result = guard(cli, event("echo ok", cwd=str(tmp_path)))
    assert result.returncode == 0 and result.stdout == ""
    assert "broken config ignored" in result.stderr


# -- check - --language bash ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
def test_check_stdin_as_bash_in_every_format(cli: Runner, fmt: str) -> None:
    broken = cli(
        "check", "-", "--language", "bash", "--output-format", fmt, stdin=CASES["early-close-notes"]["command"]
    )
    assert broken.returncode == 1, broken.stderr
    assert "early_close" in broken.stdout
    fine = cli("check", "-", "--language", "bash", "--output-format", fmt, stdin=CASES["heredoc-pipeline"]["command"])
    assert fine.returncode == 0, fine.stdout + fine.stderr
    assert "early_close" not in fine.stdout


def test_check_text_lines_of_bash(cli: Runner) -> None:
    result = cli("check", "-", "--language", "bash", stdin=CASES["indented-terminator-python"]["command"])
    assert result.stdout.startswith("<stdin>:4:1: error[inexact_terminator] Line 4 is indented")


def test_parse_stdin_as_bash(cli: Runner) -> None:
    result = cli("parse", "-", "--language", "bash", stdin=CASES["commit-message-unquoted-marker"]["command"])
    assert result.returncode == 0, result.stderr
    tree = json.loads(result.stdout)
    assert tree["language"] == "bash" and tree["diagnostics"] == []
    assert tree["heredocs"] == [
        {"line": 1, "command": "cat", "marker": "EOF", "stdin": ["Release $VERSION", "", "- notes"]}
    ]


def test_the_session_in_the_docs_is_what_the_guard_answers(cli: Runner) -> None:
    """docs/guard.md's session: each event (a `json` block after a line naming the command) gets the answer shown
    below it, or none."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "guard.md").read_text(encoding="utf-8")
    session = doc.split("\n## A session\n", 1)[1].split("\n## ", 1)[0]
    steps = session.split("\n**")[1:]
    assert len(steps) >= 5
    for step in steps:
        args = step.split("`heredoc-lsp guard", 1)[1].split("`", 1)[0].split()
        blocks = [b.split("\n```", 1)[0] for b in step.split("```json\n")[1:]]
        result = guard(cli, blocks[0], *args)
        if len(blocks) == 1:
            assert answer(result) is None, step[:60]
        else:
            assert answer(result) == json.loads(blocks[1]), step[:60]
