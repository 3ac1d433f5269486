"""``body_syntax`` in the analysis core: host positions, detection order, suppressions, config, the cache and the
incremental re-analysis (docs/bodies.md)."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lsp.analysis.bodies import STATS, cli_body_diagnostics, update_cli_body_diagnostics
from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.config.load import parse_config_text
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.cli import parse_cli, reparse
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.text import LineEdit, split_lines


def bodies(text: str, language: Language = Language.CLI, config_text: str | None = None) -> list[tuple[Span, str]]:
    config = parse_config_text(config_text) if config_text is not None else None
    analysis = analyze(text, language, config) if config is not None else analyze(text, language)
    return [(d.span, d.message) for d in analysis.diagnostics if d.code == "body_syntax"]


NEVER_CLOSED = "python: '(' was never closed"


def test_python_body_at_the_host_line_and_column() -> None:
    text = "echo hi\npython3 - <<'PY'\nimport sys\nprint(\nPY\necho after\n"
    assert bodies(text) == [(Span(3, 5, 3, 6), NEVER_CLOSED)]


def test_tab_stripped_body_maps_back_to_the_tabs() -> None:
    text = "cat <<-YAML | kubectl apply -f -\n\tkind: Pod\n\t\tmetadata: x: y\n\tYAML\n"
    [(span, message)] = bodies(text)
    assert message.startswith("yaml: mapping values are not allowed")
    assert span.start_line == 2 and span.start_col == 2 + len("metadata: x")


def test_crlf_and_non_ascii_lines() -> None:
    text = "é😀 python3 - <<EOF\r\nx = 'é😀' + (1,\r\nEOF\r\n"
    assert bodies(text) == []  # 'é😀 python3' is not python
    text = "python3 - <<PY\r\nx = 'é😀' + (1,\r\nPY\r\n"
    assert bodies(text) == [(Span(1, 11, 1, 12), NEVER_CLOSED)]


def test_every_way_to_name_a_language() -> None:
    bad_json = '{"a": 1,}'
    assert bodies(f"jq . <<EOF\n{bad_json}\nEOF\n")  # consumer
    assert bodies(f"mytool <<JSON\n{bad_json}\nJSON\n")  # marker
    assert bodies(f"cat > out.json <<EOF\n{bad_json}\nEOF\n")  # written file
    assert bodies(f"cat <<EOF > out.json\n{bad_json}\nEOF\n")
    assert bodies(f"tee out.json <<EOF\n{bad_json}\nEOF\n")
    assert bodies("ssh host <<EOF\n#!/usr/bin/env python3\nprint(\nEOF\n")  # shebang
    assert bodies(f"# heredoc-lsp: lang=json\nmytool <<EOF\n{bad_json}\nEOF\n")  # directive
    assert bodies(f"mytool <<EOF\n{bad_json}\nEOF\n") == []  # data


def test_directive_wins_and_none_turns_it_off() -> None:
    assert bodies("# heredoc-lsp: lang=none\npython3 - <<PY\nprint(\nPY\n") == []
    assert bodies("# heredoc-lsp: lang=text\ncat > a.json <<EOF\n{\nEOF\n") == []
    assert bodies("# heredoc-lsp: lang=yaml\npython3 - <<PY\nprint(\nPY\n") == []  # valid YAML
    # a directive two lines up is not the opener's (a command between)
    assert bodies("# heredoc-lsp: lang=none\necho x\npython3 - <<PY\nprint(\nPY\n")


def test_config_lang_per_command() -> None:
    text = "mytool import <<EOF\n{\nEOF\n"
    assert bodies(text) == []
    [(span, message)] = bodies(text, config_text='[commands."mytool import"]\nlang = "json"\n')
    assert span.start_line == 1 and message.startswith("json: ")
    off = '[commands."python3"]\nlang = "none"\n'
    assert bodies("python3 - <<PY\nprint(\nPY\n", config_text=off) == []


def test_suppressions_work_on_body_syntax() -> None:
    body = "python3 - <<PY\nprint(\nPY\n"
    assert bodies("# heredoc-lsp: disable=body_syntax\n" + body) == []  # file-wide
    assert bodies("echo first\n# heredoc-lsp: disable=body_syntax\n" + body) == []  # the command below
    both = "echo first\n# heredoc-lsp: disable=body_syntax\n# heredoc-lsp: lang=python\nmytool <<EOF\nprint(\nEOF\n"
    assert bodies(both) == []
    assert bodies(both.replace("disable=body_syntax", "disable=no_effect")) == [(Span(4, 5, 4, 6), NEVER_CLOSED)]


def test_bodies_that_are_not_checked() -> None:
    assert bodies("python3 - <<PY\nprint(\n") == []  # unclosed: that is the error
    assert bodies("psql <<SQL\nSELEC 1;\nSQL\n") == []  # known, not checked
    assert bodies("python3 - <<PY\n---TITLE---\nx\nPY\n") == []  # a structured body is parameters
    assert bodies("python3 - <<PY\nPY\n") == []  # an empty program is valid


def test_empty_json_body_is_reported_at_the_marker() -> None:
    assert bodies("cat > a.json <<EOF\nEOF\n") == [(Span(0, 15, 0, 18), "json: Expecting value")]


def test_clean_bodies_of_every_kind() -> None:
    text = (
        "python3 - <<'PY'\nimport json\nprint(json.dumps({'a': 1}))\nPY\n"
        'cat > a.json <<EOF\n{"a": [1, 2]}\nEOF\n'
        "cat <<-YAML > a.yaml\n\tkey: value\n\tlist:\n\t  - 1\n\tYAML\n"
        'tee pyproject.toml <<TOML\n[project]\nname = "x"\nTOML\n'
        "bash -s <<'SH'\necho hi\nSH\n"
        "kubectl apply -f - <<EOF\napiVersion: v1\nkind: Namespace\nEOF\n"
    )
    analysis = analyze(text, Language.CLI)
    assert analysis.diagnostics == ()


def test_inbox_file_blocks() -> None:
    text = (
        "Here you go.\n"
        '[CREATE_FILE path="cfg.json"]\n{"a":1,}\n[/CREATE_FILE]\n'
        '[CREATE_FILE path="a.py"]\nprint(\n[/CREATE_FILE]\n'
        '[CREATE_FILE path="tool"]\n#!/usr/bin/env python3\ndef f(:\n[/CREATE_FILE]\n'
        '[CREATE_FILE path="notes.md"]\n{\n[/CREATE_FILE]\n'
        '[EDIT_FILE path="b.py" start_line="3" end_line="3"]\n    return (\n[/EDIT_FILE]\n'
        "# heredoc-lsp: lang=none\n"
        '[CREATE_FILE path="raw.json"]\n{\n[/CREATE_FILE]\n'
    )
    found = bodies(text, Language.INBOX)
    assert [(s.start_line, m.split(":")[0]) for s, m in found] == [(2, "json"), (5, "python"), (9, "python")]


def test_a_body_is_checked_again_only_when_it_changed() -> None:
    body = [f"x{i} = {i}" for i in range(50)]
    text = "python3 - <<PY\n" + "\n".join(body) + "\nprint(\nPY\n"
    STATS["checked"] = 0
    first = bodies(text)
    assert STATS["checked"] == 1
    assert bodies("echo moved\n" + text) == [(s.shifted(1), m) for s, m in first]
    assert STATS["checked"] == 1  # the same body elsewhere: not parsed again
    bodies(text.replace("print(", "print()"))
    assert STATS["checked"] == 2


VOCABULARY = [
    "",
    "# heredoc-lsp: disable=no_effect",
    "echo hi é😀",
    "# heredoc-lsp: lang=python",
    "# heredoc-lsp: lang=none",
    "python3 - <<PY",
    "cat > a.json <<EOF",
    "cat <<-YAML",
    "PY",
    "EOF",
    "YAML",
    "\tYAML",
    "print(",
    "x = 1",
    "{",
    "}",
    "a: b: c",
    "\tkey: 1",
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(VOCABULARY), max_size=40),
    st.integers(min_value=0, max_value=40),
    st.integers(min_value=0, max_value=4),
    st.lists(st.sampled_from(VOCABULARY), max_size=4),
)
def test_incremental_update_equals_a_full_check(old_lines: list[str], at: int, removed: int, new: list[str]) -> None:
    start = min(at, len(old_lines))
    removed = min(removed, len(old_lines) - start)
    lines = old_lines[:start] + new + old_lines[start + removed :]
    old = parse_cli(old_lines)
    result = reparse(old, lines, LineEdit(start, removed, len(new)))
    edit = LineEdit(start, removed, len(new))
    updated = update_cli_body_diagnostics(
        tuple(cli_body_diagnostics(old)), old, result.script, edit, result.resume, result.stop
    )
    assert list(updated) == cli_body_diagnostics(parse_cli(lines))


def test_incremental_update_checks_only_the_rescanned_window() -> None:
    # More distinct bodies than the content cache holds: the window's are no longer in it.
    lines = [line for i in range(2500) for line in ["python3 - <<PY", f"print({i}", "PY", "echo x"]]
    old = parse_cli(lines)
    previous = tuple(cli_body_diagnostics(old))
    assert len(previous) == 2500
    new_lines = [*lines[:11], "echo typed", *lines[11:]]
    STATS["checked"] = 0
    result = reparse(old, new_lines, LineEdit(11, 0, 1))
    updated = update_cli_body_diagnostics(previous, old, result.script, LineEdit(11, 0, 1), result.resume, result.stop)
    assert STATS["checked"] == 0  # no body changed
    assert len(updated) == 2500 and list(updated) == cli_body_diagnostics(parse_cli(new_lines))
    assert result.stop - result.resume < 100


def test_split_lines_agree_with_the_host_text() -> None:
    text = "python3 - <<PY\r\nprint(\rPY\n"
    assert split_lines(text) == ["python3 - <<PY", "print(", "PY"]
    assert bodies(text) == [(Span(1, 5, 1, 6), NEVER_CLOSED)]


def test_plain_heredoc_commands_are_not_read_word_by_word() -> None:
    # A script's ordinary heredoc commands (a first word that names no program) take their marker's language
    # without the word-by-word reading, even when every command is different (no cache can help).
    lines = []
    for n in range(1000):
        lines += [f"block-run --id {n} <<JSON", '{"a": 1,}' if n % 2 else '{"a": 1}', "JSON"]
    STATS["read"] = 0
    found = cli_body_diagnostics(parse_cli(lines))
    assert STATS["read"] == 0
    assert len(found) == 500 and all(d.data == {"language": "json"} for d in found)
    assert cli_body_diagnostics(parse_cli(["python3 - <<EOF", "print(", "EOF"]))[0].data == {"language": "python"}
    assert STATS["read"] == 1


def test_common_lines_compile_no_lazy_pattern() -> None:
    """After a first parse (the server's warm-up), checking an assignment, ``cat <<EOF`` and a JSON body with extra
    data (common lines) compiles none of the patterns kept for rarer lines (a fresh process: they stay compiled)."""
    code = (
        "from heredoc_lsp.analysis.core import analyze\nfrom heredoc_lsp.languages import Language\n"
        "from heredoc_lsp.syntax import body_check, body_language, cli, schema\n"
        "def compiled():\n"
        "    found = [(n, p) for m in (body_check, body_language, cli, schema) for n, p in vars(m).items()]\n"
        "    return {n for n, p in found if repr(p)[:13] == 'lazy_compile(' and len(vars(p)) > 1}\n"
        "cli.parse_cli(('x <<EOF', 'a', 'EOF'))\nbefore = compiled()\n"
        "found = analyze('X=1\\ncat <<EOF\\n#!x\\nEOF\\nload <<JSON\\n {} 1\\nJSON\\n', Language.CLI).diagnostics\n"
        "print([d.code for d in found], sorted(compiled() - before))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "['no_effect', 'body_syntax'] []\n"
