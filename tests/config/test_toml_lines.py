"""The key locator behind config error line numbers."""

from __future__ import annotations

import importlib
import sys

from hypothesis import given
from hypothesis import strategies as st

from heredoc_lsp.config.toml_lines import KeyPosition, locate_keys, position_of


def test_headers_quoted_names_and_dotted_keys() -> None:
    text = '# top\ncompat = "none"\n[commands."a b"]\nparams = ["X"]\n\n[executor]\n  sandbox.x = 1\n'
    found = locate_keys(text)
    assert found[("compat",)] == KeyPosition(1, 0, 6)
    assert found[("commands",)].line == 2
    assert found[("commands", "a b")] == KeyPosition(2, 10, 15)
    assert found[("commands", "a b", "params")] == KeyPosition(3, 0, 6)
    assert found[("executor", "sandbox")].line == 6
    assert found[("executor", "sandbox", "x")] == KeyPosition(6, 10, 11)


def test_position_falls_back_to_the_nearest_ancestor() -> None:
    found = locate_keys('commands = { a = { params = ["x"] } }\n')
    assert position_of(found, ("commands", "a", "params")) == KeyPosition(0, 0, 8)
    assert position_of(found, ("nothing",)) is None


_NAME = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
_VALUE = st.one_of(
    st.integers(-5, 5).map(str),
    st.text("ab c=#[]\"'", max_size=6).map(lambda s: '"' + s.replace("\\", "").replace('"', "") + '"'),
    st.lists(st.integers(0, 9), max_size=3).map(lambda xs: "[\n" + "".join(f"  {x},\n" for x in xs) + "]"),
    st.text("ab=[]\n", max_size=8).map(lambda s: '"""\n' + s.replace('"', "") + '"""'),
)


@given(st.dictionaries(_NAME, st.dictionaries(_NAME, _VALUE, min_size=1, max_size=4), min_size=1, max_size=4))
def test_every_key_of_a_generated_document_is_found_on_its_line(tables: dict[str, dict[str, str]]) -> None:
    lines: list[str] = []
    expected: dict[tuple[str, ...], int] = {}
    for table, keys in tables.items():
        expected[(table,)] = len(lines)
        lines.append(f"[{table}]")
        for key, value in keys.items():
            expected[(table, key)] = len(lines)
            lines.extend(f"{key} = {value}".split("\n"))
    text = "\n".join(lines) + "\n"
    toml = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")
    toml.loads(text)  # the generator writes valid TOML
    found = locate_keys(text)
    assert {path: found[path].line for path in expected} == expected
