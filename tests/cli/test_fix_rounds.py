"""``check --fix`` in rounds (heredoc_lsp.cli.fix): fixes that touch one structured body wait for the next round,
a round never leaves a problem its input did not have, and the counts of ``--diff`` agree with ``--fix``."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.cli.conftest import Runner

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.cli.fix import fix_document, suppress_all
from heredoc_lsp.config import parse_config_text
from heredoc_lsp.languages import Language

SEED = {"HEREDOC_LSP_FIX_SEED": "7"}
SCHEMA = '[commands."gh issue create"]\nparams = ["TITLE", "BODY", "LABELS"]\nrequired = ["TITLE", "BODY"]\n'
CONFIG = parse_config_text(SCHEMA, Path("heredoc-lsp.toml"))
# The reported case: a duplicate TITLE, a missing required BODY and an unknown COLOR.
ISSUE = "gh issue create <<EOF\n---TITLE---\nfirst\n---TITLE---\nsecond\n---COLOR---\nred\nEOF\n"


def _ids() -> Callable[[], str]:
    counter = itertools.count()
    return lambda: f"{next(counter):08x}"


def test_the_rename_and_the_added_parameter_never_go_in_one_round() -> None:
    result = fix_document(ISSUE, Language.CLI, CONFIG, selected=lambda c: True, unsafe=True, new_id=_ids())
    # COLOR becomes the missing BODY (which resolves both); the duplicate TITLE's delimiters get an ID.
    assert re.sub(r"UUID:[0-9a-f]{8}", "UUID:00000000", result.text) == (
        "gh issue create <<EOF\n---(UUID:00000000)TITLE---\nfirst\n---TITLE---\nsecond\n"
        "---(UUID:00000000)BODY---\nred\nEOF\n"
    )
    assert result.analysis.diagnostics == () and result.rolled_back == ()
    safe = fix_document(ISSUE, Language.CLI, CONFIG, selected=lambda c: True, unsafe=False, new_id=_ids())
    assert safe.text == ISSUE and safe.unsafe_available == len(result.fixed)


def test_fix_unsafe_fixes_on_the_issue_example_ends_clean_and_diff_counts_agree(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "heredoc-lsp.toml").write_text(SCHEMA)
    path = tmp_path / "s.cli"
    path.write_text(ISSUE)
    diff = cli("check", "--diff", "s.cli", cwd=tmp_path, env=SEED)
    diff_unsafe = cli("check", "--diff", "--unsafe-fixes", "s.cli", cwd=tmp_path, env=SEED)
    assert diff.stderr == "Checked 1 file: nothing to fix (2 more with --unsafe-fixes)\n"
    assert diff_unsafe.stderr == "Would fix 2 problems in 1 file\n"
    fixed = cli("check", "--fix", "--unsafe-fixes", "s.cli", cwd=tmp_path, env=SEED)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert fixed.stderr.splitlines()[-1] == "Checked 1 file: fixed 2, no problems left"
    text = path.read_text()
    assert text.count("BODY---") == 1 and "TODO" not in text and "COLOR" not in text
    again = cli("check", "--fix", "--unsafe-fixes", "s.cli", cwd=tmp_path, env=SEED)
    assert again.returncode == 0 and path.read_text() == text


NAMES = ["TITLE", "BODY", "LABELS", "COLOR", "TITEL", "BDY"]
_delimiter = st.builds(
    lambda indent, name, uuid: f"{indent}---{'(UUID:deadbeef)' if uuid else ''}{name}---",
    st.sampled_from(["", "", "  "]),
    st.sampled_from(NAMES),
    st.booleans(),
)
_body_line = st.one_of(_delimiter, st.sampled_from(["value", "", "EOF ", "---", "TODO: <body>"]))
_body = st.lists(_body_line, max_size=8)
_other = st.sampled_from(
    ["echo hi", "cat <<ÉOF\nx\nÉOF", "cat<<EOF\nx\nEOF", "cat <<EOF > out.txt &\nhello\nEOF", "cd docs"]
)


@st.composite
def scripts(draw: st.DrawFn) -> str:
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            body = draw(_body)
            closed = draw(st.booleans()) or len(parts) > 0
            parts.append("\n".join(["gh issue create <<EOF", *body, *(["EOF"] if closed else [])]))
        else:
            parts.append(draw(_other))
    if draw(st.booleans()):
        parts.append("cat <<END\ntail")  # unclosed: its fix is unsafe
    return "\n".join(parts) + "\n"


@settings(max_examples=250, deadline=None)
@given(scripts())
def test_fixing_never_adds_a_code_and_a_second_fix_changes_nothing(text: str) -> None:
    before = fix_document(text, Language.CLI, CONFIG, selected=lambda c: True, unsafe=False, new_id=_ids())
    result = fix_document(text, Language.CLI, CONFIG, selected=lambda c: True, unsafe=True, new_id=_ids())
    codes_before = Counter(d.code for d in before.analysis.diagnostics)
    original = Counter(
        d.code
        for d in fix_document(text, Language.CLI, CONFIG, selected=lambda c: False, unsafe=True).analysis.diagnostics
    )
    assert set(Counter(d.code for d in result.analysis.diagnostics)) <= set(original), result.text
    assert set(codes_before) <= set(original), before.text
    again = fix_document(result.text, Language.CLI, CONFIG, selected=lambda c: True, unsafe=False, new_id=_ids())
    assert again.text == result.text
    assert before.unsafe_available == len(result.fixed) - len(before.fixed) or before.unsafe_available == 0


def test_a_fix_that_would_add_a_problem_is_rolled_back_and_reported(cli: Runner, tmp_path: Path) -> None:
    # Every allowed name is used: renaming COLOR to the closest one would make a duplicate.
    (tmp_path / "heredoc-lsp.toml").write_text(SCHEMA)
    text = "gh issue create <<EOF\n---TITLE---\nt\n---BODY---\nb\n---LABELS---\nl\n---COLOR---\nred\nEOF\n"
    (tmp_path / "r.cli").write_text(text)
    result = cli("check", "--fix", "--unsafe-fixes", "r.cli", cwd=tmp_path)
    assert result.returncode == 1
    assert (tmp_path / "r.cli").read_text() == text
    assert result.stderr.splitlines() == [
        "heredoc-lsp check: not fixing r.cli:8:4 unknown: the fix would add duplicate",
        "Checked 1 file: 1 error",
    ]


@settings(max_examples=150, deadline=None)
@given(scripts())
def test_add_noqa_silences_everything_adds_only_directives_and_a_second_run_adds_nothing(text: str) -> None:
    original = analyze(text, Language.CLI, CONFIG)
    done = suppress_all(text, Language.CLI, CONFIG, selected=lambda c: True)
    assert done.analysis.diagnostics == (), done.text
    assert len(done.analysis.suppressed) == len(original.diagnostics)
    assert done.added <= len(original.diagnostics)

    def without_directives(t: str) -> list[str]:
        return [line for line in t.split("\n") if "# heredoc-lsp: disable=" not in line]

    assert without_directives(done.text) == without_directives(text)
    again = suppress_all(done.text, Language.CLI, CONFIG, selected=lambda c: True)
    assert (again.text, again.added) == (done.text, 0)
