"""``syntax.body_language``: which language a heredoc body or a file block is in (docs/bodies.md)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heredoc_lsp.syntax.body_language import (
    NO_LANGUAGE,
    command_language,
    file_language,
    lang_directive,
    language_name,
    marker_language,
    path_language,
    plain_program,
    shebang_language,
    target_language,
)


@pytest.mark.parametrize(
    ("text", "tail", "expected"),
    [
        ("python3 -", "", "python"),
        ("python -", "", "python"),
        ("python3", "", "python"),
        ("/usr/bin/python3.12 -u -", "", "python"),
        ("PYTHONPATH=src python3 - arg", "", "python"),
        ("sudo python3 -", "", "python"),
        ("env -i FOO=1 python3 -", "", "python"),
        ("python3 -X dev -", "", "python"),
        ("python3 script.py", "", None),  # stdin is the script's data
        ("python3 -c 'import sys'", "", None),
        ("python3 -m json.tool", "", "json"),
        ("python3 -m pip install -r /dev/stdin", "", None),
        ("bash", "", "bash"),
        ("bash -s", "", "bash"),
        ("bash -s -- a b", "", "bash"),
        ("bash -euo pipefail", "", "bash"),
        ("sh", "", "sh"),
        ("dash -e", "", "sh"),
        ("bash -c 'cat'", "", None),
        ("bash run.sh", "", None),
        ("node -", "", "javascript"),
        ("node", "", "javascript"),
        ("node app.js", "", None),
        ("jq .", "", "json"),
        ("jq -r .name", "", "json"),
        ("jq -n '$x'", "", None),
        ("jq . a.json", "", None),
        ("yq .a", "", "yaml"),
        ("kubectl apply -f -", "", "yaml"),
        ("kubectl get pods", "", None),
        ("psql -d app", "", "sql"),
        ("sqlite3 app.db", "", "sql"),
        ("cat", "| python3 -", "python"),
        ("cat", "| bash -s && echo done", "bash"),
        ("cat", "|| python3 -", None),
        ("cat", "> out.txt", None),
        ("grep x", "", None),
        ("", "", None),
    ],
)
def test_consumer_command(text: str, tail: str, expected: str | None) -> None:
    assert command_language(text, tail) == expected


@pytest.mark.parametrize(
    ("marker", "expected"),
    [
        *[("PY", "python"), ("PYTHON", "python"), ("py", "python"), ("JSON", "json"), ("YAML", "yaml")],
        *[("YML", "yaml"), ("TOML", "toml"), ("SH", "sh"), ("BASH", "bash"), ("SQL", "sql"), ("EOF", None)],
        ("END_PY", None),
    ],
)
def test_marker(marker: str, expected: str | None) -> None:
    assert marker_language(marker) == expected


@pytest.mark.parametrize(
    ("text", "tail", "expected"),
    [
        ("cat > f.json", "", "json"),
        ("cat >f.toml", "", "toml"),
        ("cat >> 'conf/app.yaml'", "", "yaml"),
        ("cat", "> out/x.py", "python"),
        ("cat", ">>x.yml", "yaml"),
        ("cat", "| tee f.toml > /dev/null", "toml"),
        ("tee f.toml", "", "toml"),
        ("sudo tee -a /etc/app/config.yaml", "", "yaml"),
        ("cat", "2>&1", None),
        ("cat > notes.txt", "", None),
        ("cat > .vscode/settings.json", "", "jsonc"),
        ("python3 - > out.json", "", None),  # the program's output is written, not the body
        ("tee", "", None),
    ],
)
def test_written_file(text: str, tail: str, expected: str | None) -> None:
    assert target_language(text, tail) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("#!/usr/bin/env python3", "python"),
        ("#!/usr/bin/python3.11 -u", "python"),
        ("#!/bin/sh", "sh"),
        ("#!/usr/bin/env -S bash -e", "bash"),
        ("#!/usr/bin/env node", "javascript"),
        ("# not a shebang", None),
        ("#!", None),
        ("#!/usr/bin/awk -f", None),
    ],
)
def test_shebang(line: str, expected: str | None) -> None:
    assert shebang_language(line) == expected


def test_paths_and_file_blocks() -> None:
    assert path_language("src/app.py") == "python"
    assert path_language("a/B.JSON") == "json"
    assert path_language("win\\dir\\x.yml") == "yaml"
    assert path_language("pyproject.toml") == "toml"
    assert path_language("tsconfig.json") == "jsonc"  # read with comments: never checked as strict JSON
    assert path_language("Makefile") is None
    assert path_language(".env") is None
    assert path_language("notes.md") is None
    assert file_language("bin/tool", "#!/usr/bin/env python3") == "python"
    assert file_language("x.sh", "#!/usr/bin/env python3") == "python"  # the shebang says what runs it
    assert file_language("x.json", "{") == "json"
    assert file_language("x.json", None) == "json"


def test_directive_and_names() -> None:
    assert lang_directive("# heredoc-lsp: lang=python") == "python"
    assert lang_directive("  #heredoc-lsp:lang = yaml  ") == "yaml"
    assert lang_directive("# heredoc-lsp: disable=body_syntax") is None
    assert lang_directive("echo # heredoc-lsp: lang=python") is None
    assert lang_directive("# heredoc-lsp: lang=python extra") is None
    assert language_name("PY") == "python"
    assert language_name("yml") == "yaml"
    assert language_name("none") == NO_LANGUAGE
    assert language_name("data") == NO_LANGUAGE
    assert language_name("cobol") is None


_WORDS = st.sampled_from(
    [
        "python3",
        "/usr/bin/python3.12",
        "pypy",
        "bash",
        "sh",
        "dash",
        "ksh",
        "node",
        "ruby",
        "perl",
        "jq",
        "yq",
        "kubectl",
        "oc",
        "psql",
        "sqlite3",
        "cat",
        "tee",
        "sudo",
        "env",
        "time",
        "nice",
        "-",
        "-s",
        "-f",
        "apply",
        "> a.json",
        "out.toml",
        "A=1",
        'B="x y"',
        "block-run",
        "sql-exec",
        "--id",
        "7",
        "mytool",
        "\tpython3",
        "x\vbash",
    ]
)


@given(st.lists(_WORDS, max_size=5), st.sampled_from(["", "| python3 -", "> a.json", "| jq .", "| tee b.yaml"]))
def test_a_plain_program_names_no_language(words: list[str], tail: str) -> None:
    text = " ".join(words)
    if plain_program(text):
        assert command_language(text, tail) is None and target_language(text, tail) is None


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("block-run --id 7", True),
        ("sql-exec --db main2", True),
        ("python3 -", False),
        ("/usr/bin/cat", False),
        ("A=1 mytool", False),
        ("tee", False),
        ("", False),
        ("mytool\tx", False),
    ],
)
def test_plain_program(text: str, plain: bool) -> None:
    assert plain_program(text) is plain
