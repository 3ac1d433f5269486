"""The one TOML loader: nesting bounded, every failure a ValueError with a position."""

from __future__ import annotations

import pytest

from heredoc_lsp.syntax.toml_load import MAX_DEPTH, TomlTooDeep, loads


@pytest.mark.parametrize(
    "text",
    [
        "x = " + "[" * 3000 + "]" * 3000,
        "x = " + "{a = " * 3000 + "1" + "}" * 3000,
        "x = [" * 3000,  # unterminated as well
        ".".join(["a"] * 3000) + " = 1",  # tables from a dotted key
        "[" + ".".join(["t"] * 500) + "]\nx = 1",  # tables from a header
    ],
)
def test_deep_nesting_is_a_value_error_never_a_recursion_error(text: str) -> None:
    with pytest.raises(TomlTooDeep):
        loads(text)


def test_the_position_of_the_first_bracket_too_deep_is_given() -> None:
    with pytest.raises(TomlTooDeep, match=r"\(at line 2, column 105\)"):
        loads("a = 1\nx = " + "[" * 3000 + "]" * 3000)


def test_brackets_in_strings_and_comments_do_not_count() -> None:
    many = "[" * (MAX_DEPTH * 3)
    text = f'a = "{many}"\nb = \'{many}\'\nc = """\n{many}\n"""\n# {many}\nd = [[1, 2], {{e = [3]}}]\n'
    assert loads(text)["d"] == [[1, 2], {"e": [3]}]


def test_nesting_up_to_the_bound_loads() -> None:
    depth = MAX_DEPTH - 2
    assert loads("x = " + "[" * depth + "]" * depth)["x"]
