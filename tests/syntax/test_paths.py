"""docs/formats.md: the textual path check shared by the parser, the server and the executor."""

from __future__ import annotations

from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heredoc_lsp.syntax.paths import PathProblem, check_path_text, display_path, normalize_relative

OUT: Final = "path_outside_workspace"
INVALID: Final = "invalid_path"


@pytest.mark.parametrize(
    ("path", "normalized"),
    [
        ("notes.md", "notes.md"),
        ("src/a.py", "src/a.py"),
        ("./src/a.py", "src/a.py"),
        ("src\\a.py", "src/a.py"),
        ("a//b", "a/b"),
        ("a/./b", "a/b"),
        ("a/../b", "b"),
        ("a\\..\\b", "b"),
        ("a/b/../../c", "c"),
        ("...", "..."),
        ("..a/b", "..a/b"),
        ("a..", "a.."),
        ("é😀/ü.txt", "é😀/ü.txt"),
        ("with space.txt", "with space.txt"),
        (" lead", " lead"),
        ("a~", "a~"),
        ("a/~b", "a/~b"),
        ("ab:/x", "ab:/x"),  # not a drive: a drive is one letter
        ("a/C:", "a/C:"),
        ("\u00a0x", "\u00a0x"),  # NBSP is not a control character
    ],
)
def test_valid_paths(path: str, normalized: str) -> None:
    assert check_path_text(path) is None
    assert normalize_relative(path) == normalized


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("", PathProblem(INVALID, "Path is empty")),
        ("a\x00b", PathProblem(INVALID, "Path 'a\\x00b' contains a control character", "ab")),
        ("a\tb", PathProblem(INVALID, "Path 'a\\tb' contains a control character", "ab")),
        ("a\nb", PathProblem(INVALID, "Path 'a\\nb' contains a control character", "ab")),
        ("a\x7f", PathProblem(INVALID, "Path 'a\\x7f' contains a control character", "a")),
        ("a\x85", PathProblem(INVALID, "Path 'a\\x85' contains a control character", "a")),
        ("\x01", PathProblem(INVALID, "Path '\\x01' contains a control character")),
        ("src/", PathProblem(INVALID, "Path 'src/' ends with a separator; name a file, not a directory", "src")),
        ("src\\", PathProblem(INVALID, "Path 'src\\' ends with a separator; name a file, not a directory", "src")),
        (".", PathProblem(INVALID, "Path '.' names the workspace root; name a file inside it")),
        ("./", PathProblem(INVALID, "Path './' ends with a separator; name a file, not a directory")),
        ("a/..", PathProblem(INVALID, "Path 'a/..' names the workspace root; name a file inside it")),
        ("a\\b\\..\\..", PathProblem(INVALID, "Path 'a\\b\\..\\..' names the workspace root; name a file inside it")),
        ("././.", PathProblem(INVALID, "Path '././.' names the workspace root; name a file inside it")),
    ],
)
def test_invalid_paths(path: str, problem: PathProblem) -> None:
    assert check_path_text(path) == problem


ABSOLUTE = "absolute paths are not allowed, use a path relative to the root"
DRIVE = "drive letters are not allowed, use a path relative to the root"
HOME = "'~' (home directory) is not allowed"
CLIMB = "'..' climbs above the workspace root"


@pytest.mark.parametrize(
    ("path", "reason", "suggestion"),
    [
        ("/etc/passwd", ABSOLUTE, "etc/passwd"),
        ("\\Windows\\x", ABSOLUTE, "Windows/x"),
        ("\\\\server\\share", ABSOLUTE, "server/share"),
        ("/", ABSOLUTE, None),
        ("C:\\x", DRIVE, "x"),
        ("c:/x", DRIVE, "x"),
        ("C:x", DRIVE, "x"),
        ("C:", DRIVE, None),
        ("a:b", DRIVE, "b"),
        ("./C:/x", DRIVE, "x"),  # cleaning would make it lead
        ("./~/x", HOME, "x"),
        ("a/../~", HOME, None),
        ("~/x", HOME, "x"),
        ("~", HOME, None),
        ("~root/.ssh/id", HOME, "root/.ssh/id"),
        ("..", CLIMB, None),
        ("../x", CLIMB, "x"),
        ("..\\x", CLIMB, "x"),
        ("a/../../b", CLIMB, "b"),
        ("a\\..\\..\\b", CLIMB, "b"),
        ("./../x", CLIMB, "x"),
        ("../../../etc/passwd", CLIMB, "etc/passwd"),
        ("a/b/../../../", CLIMB, None),  # climbing wins over the trailing separator
        ("../é😀", CLIMB, "é😀"),
    ],
)
def test_outside_workspace(path: str, reason: str, suggestion: str | None) -> None:
    problem = check_path_text(path)
    assert problem == PathProblem(OUT, f"Path '{path}' is outside workspace: {reason}", suggestion)


def test_normalize_refuses_invalid_path() -> None:
    with pytest.raises(ValueError, match=r"^Path '\.\./x' is outside workspace"):
        normalize_relative("../x")
    with pytest.raises(ValueError, match=r"^Path is empty$"):
        normalize_relative("")


def test_display_path_escapes_only_control_characters() -> None:
    assert display_path("a\r\x1b[31mé") == "a\\r\\x1b[31mé"
    assert display_path("\x9b") == "\\x9b"


_path_text = st.text(alphabet=st.sampled_from(list("ab./\\~:C \x00é")), max_size=12)


@given(_path_text)
def test_check_is_total_and_consistent(path: str) -> None:
    problem = check_path_text(path)
    if problem is None:
        cleaned = normalize_relative(path)
        # A valid path stays valid once cleaned, and cleaning is idempotent.
        assert check_path_text(cleaned) is None
        assert normalize_relative(cleaned) == cleaned
        parts = cleaned.split("/")
        assert "" not in parts and "." not in parts and ".." not in parts and "\\" not in cleaned
    else:
        assert problem.code in (INVALID, OUT)
        if problem.code == OUT:
            assert display_path(path) in problem.message
        if problem.suggestion is not None:
            assert check_path_text(problem.suggestion) is None
            assert problem.suggestion == normalize_relative(problem.suggestion)
