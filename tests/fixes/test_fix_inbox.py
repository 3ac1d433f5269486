"""heredoc_lsp.fixes.inbox: close an unclosed block, bring a path back inside the workspace."""

from __future__ import annotations

from pathlib import Path

from fix_harness import case

from heredoc_lsp.fixes.inbox import relative_to_workspace
from heredoc_lsp.languages import Language


def test_close_block_inserts_the_closer_where_the_body_ends() -> None:
    before = case('[CREATE_FILE path="é.txt"]\nx 😀\n', Language.INBOX)
    (fix,) = before.fixes("unclosed")
    assert fix.preferred and fix.title == "Close the block with [/CREATE_FILE]"
    after = before.apply(fix)
    assert after.text == '[CREATE_FILE path="é.txt"]\nx 😀\n[/CREATE_FILE]\n' and after.codes() == []


def test_close_block_without_a_final_newline_and_with_crlf() -> None:
    before = case("prose\r\n[MESSAGE]\r\nhi", Language.INBOX)
    after = before.apply(before.fixes("unclosed")[0])
    assert after.text == "prose\r\n[MESSAGE]\r\nhi\r\n[/MESSAGE]" and after.codes() == []


def test_absolute_path_inside_the_workspace_becomes_relative(tmp_path: Path) -> None:
    text = f'[CREATE_FILE path="{tmp_path}/src/é.py"]\nx\n[/CREATE_FILE]\n'
    before = case(text, Language.INBOX, tmp_path)
    (fix,) = before.fixes("path_outside_workspace")
    assert fix.title == "Use the path 'src/é.py' (relative to the workspace root)"
    after = before.apply(fix)
    assert after.text == '[CREATE_FILE path="src/é.py"]\nx\n[/CREATE_FILE]\n'
    assert after.codes() == []


def test_path_outside_gets_the_parsers_textual_repair() -> None:
    before = case('[READ_FILE path="../../etc/passwd" /]\n', Language.INBOX)
    (fix,) = before.fixes("path_outside_workspace")
    assert fix.title == "Use the path 'etc/passwd' (inside the workspace)"
    assert before.apply(fix).codes() == []


def test_relative_to_workspace(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert relative_to_workspace(f"{real}/a/b.txt", link) == "a/b.txt"  # the root's real location counts too
    assert relative_to_workspace(f"{link}/a/../b.txt", link) == "b.txt"
    assert relative_to_workspace(f"{tmp_path}/elsewhere", link) is None
    assert relative_to_workspace(f"{link}", link) is None  # the root itself is no file path
    assert relative_to_workspace("a/b", link) is None
    assert relative_to_workspace(f"{link}/a", None) is None
