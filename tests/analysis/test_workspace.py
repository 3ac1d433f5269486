"""Workspace checks of inbox replies against real directories and real symbolic links (docs/formats.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.analysis.workspace import MAX_EDIT_BYTES, count_lines_fd, count_lines_text
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.diagnostics import Severity, Span


def found(text: str, workspace: Path | None) -> list[tuple[str, Severity, Span, str]]:
    analysis = analyze(text, Language.INBOX, workspace=workspace)
    return [(d.code, d.severity, d.span, d.message) for d in analysis.diagnostics]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("a = 1\nb = 2\nc = 3\n")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret.txt").write_text("s\n")
    return out


def test_a_clean_reply_has_no_workspace_diagnostics(ws: Path) -> None:
    text = (
        '[READ_FILE path="src/app.py"]\n'
        '[EDIT_FILE path="src/app.py" start_line="1" end_line="3"]\nx = 1\n[/EDIT_FILE]\n'
        '[CREATE_FILE path="new/dir/file.txt"]\nhello\n[/CREATE_FILE]\n'
        '[DELETE_FILE path="new/dir/file.txt"]\n'
    )
    assert found(text, ws) == []


def test_symlink_to_a_directory_outside(ws: Path, outside: Path) -> None:
    os.symlink(outside, ws / "link")
    text = 'Some prose.\n[CREATE_FILE path="link/x.txt"]\nx\n[/CREATE_FILE]\n[READ_FILE path="link/secret.txt"]\n'
    real = os.path.realpath(outside)
    assert found(text, ws) == [
        (
            "path_outside_workspace",
            Severity.ERROR,
            Span(1, 18, 1, 30),
            f"Path 'link/x.txt' is outside workspace: it resolves to '{real}/x.txt' through a symbolic link",
        ),
        (
            "path_outside_workspace",
            Severity.ERROR,
            Span(4, 16, 4, 33),
            f"Path 'link/secret.txt' is outside workspace: it resolves to '{real}/secret.txt' through a symbolic link",
        ),
    ]


def test_dangling_symlink_pointing_outside(ws: Path, tmp_path: Path) -> None:
    target = tmp_path / "not-yet" / "file.txt"
    os.symlink(target, ws / "evil")
    diagnostics = found('[CREATE_FILE path="evil"]\nx\n[/CREATE_FILE]\n', ws)
    assert [(code, span) for code, _, span, _ in diagnostics] == [("path_outside_workspace", Span(0, 18, 0, 24))]
    assert f"resolves to '{os.path.realpath(target)}'" in diagnostics[0][3]


def test_symlinks_that_stay_inside_are_fine(ws: Path) -> None:
    os.symlink(ws / "src" / "app.py", ws / "alias.py")
    os.symlink(ws / "src", ws / "code")
    text = (
        '[READ_FILE path="alias.py"]\n[EDIT_FILE path="code/app.py" start_line="3" end_line="3"]\nc = 4\n[/EDIT_FILE]\n'
    )
    assert found(text, ws) == []


def test_workspace_given_through_a_symlink(ws: Path, tmp_path: Path) -> None:
    os.symlink(ws, tmp_path / "ws-link")
    assert found('[READ_FILE path="src/app.py"]\n', tmp_path / "ws-link") == []


def test_missing_files(ws: Path) -> None:
    text = (
        '[EDIT_FILE path="src/nope.py" start_line="1" end_line="1"]\nx\n[/EDIT_FILE]\n'
        '[DELETE_FILE path="gone.txt"]\n'
        '[READ_FILE path="src"]\n'
    )
    assert found(text, ws) == [
        (
            "file_not_found",
            Severity.WARNING,
            Span(0, 16, 0, 29),
            "File 'src/nope.py' not found: it does not exist and is not created earlier in this reply",
        ),
        (
            "file_not_found",
            Severity.WARNING,
            Span(3, 18, 3, 28),
            "File 'gone.txt' not found: it does not exist and is not created earlier in this reply",
        ),
        (
            "file_not_found",
            Severity.WARNING,
            Span(4, 16, 4, 21),
            "File 'src' not found: it is a directory, not a file",
        ),
    ]


def test_created_earlier_counts_and_deleted_earlier_does_not(ws: Path) -> None:
    text = (
        '[READ_FILE path="notes.md"]\n'  # before its creation: not found
        '[CREATE_FILE path="notes.md"]\none\ntwo\n[/CREATE_FILE]\n'
        '[READ_FILE path="./notes.md"]\n'  # the same file written another way
        '[DELETE_FILE path="src/app.py"]\n'
        '[READ_FILE path="src/app.py"]\n'
    )
    assert [(code, span.start_line) for code, _, span, _ in found(text, ws)] == [
        ("file_not_found", 0),
        ("file_not_found", 7),
    ]


def test_edit_range_beyond_the_end_of_the_file(ws: Path) -> None:
    text = '[EDIT_FILE path="src/app.py" start_line="2" end_line="4"]\nx\n[/EDIT_FILE]\n'
    assert found(text, ws) == [
        (
            "bad_range",
            Severity.ERROR,
            Span(0, 53, 0, 56),
            "EDIT_FILE range 2-4 is beyond the end of 'src/app.py', which has 3 lines",
        )
    ]


def test_edit_ranges_follow_earlier_commands_of_the_reply(ws: Path) -> None:
    text = (
        '[CREATE_FILE path="two.txt"]\na\nb\n[/CREATE_FILE]\n'
        '[EDIT_FILE path="two.txt" start_line="1" end_line="3"]\nx\n[/EDIT_FILE]\n'  # 2 lines: bad
        # 3 lines, line 1 replaced by three lines: 5 lines
        '[EDIT_FILE path="src/app.py" start_line="1" end_line="1"]\n1\n2\n3\n[/EDIT_FILE]\n'
        '[EDIT_FILE path="src/app.py" start_line="5" end_line="5"]\nlast\n[/EDIT_FILE]\n'
        '[EDIT_FILE path="src/app.py" start_line="6" end_line="6"]\nbeyond\n[/EDIT_FILE]\n'
    )
    assert [(code, span.start_line, message) for code, _, span, message in found(text, ws)] == [
        ("bad_range", 4, "EDIT_FILE range 1-3 is beyond the end of 'two.txt', which has 2 lines"),
        ("bad_range", 15, "EDIT_FILE range 6-6 is beyond the end of 'src/app.py', which has 5 lines"),
    ]


def test_commands_with_errors_and_after_done_are_not_checked(ws: Path) -> None:
    text = (
        '[READ_FILE path="/etc/passwd"]\n'
        '[EDIT_FILE path="missing.py" start_line="x" end_line="1"]\nx\n[/EDIT_FILE]\n'
        "[DONE]\nfinished\n[/DONE]\n"
        '[READ_FILE path="missing-too.txt"]\n'
    )
    codes = [code for code, _, _, _ in found(text, ws)]
    assert codes.count("path_outside_workspace") == 1  # the textual check only, not repeated
    assert "file_not_found" not in codes
    assert "bad_range" not in codes


def test_no_workspace_no_file_system_checks(ws: Path) -> None:
    assert found('[READ_FILE path="missing.txt"]\n', None) == []


@pytest.mark.parametrize(
    ("data", "lines"),
    [(b"", 0), (b"a", 1), (b"a\n", 1), (b"a\r\nb", 2), (b"a\rb\r", 2), (b"\n\n", 2), (b"a\n\nb\n", 3)],
)
def test_line_counts_follow_the_lsp_line_model(data: bytes, lines: int) -> None:
    assert count_lines_text(data.decode()) == lines


def test_crlf_file_without_final_newline(ws: Path) -> None:
    (ws / "w.txt").write_bytes(b"one\r\ntwo\r\nthree")
    ok = '[EDIT_FILE path="w.txt" start_line="3" end_line="3"]\nx\n[/EDIT_FILE]\n'
    bad = '[EDIT_FILE path="w.txt" start_line="3" end_line="4"]\nx\n[/EDIT_FILE]\n'
    assert found(ok, ws) == []
    assert [code for code, _, _, _ in found(bad, ws)] == ["bad_range"]


@given(st.lists(st.sampled_from([b"a", b"\r", b"\n", b"\r\n", b"xy"]), max_size=40), st.integers(1, 5))
def test_counting_a_file_in_chunks_matches_counting_it_whole(parts: list[bytes], chunk: int) -> None:
    data = b"".join(parts)
    r, w = os.pipe()
    try:
        os.write(w, data)
        os.close(w)
        w = -1
        assert count_lines_fd(r, chunk) == count_lines_text(data.decode())  # a CRLF split between chunks counts once
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


def test_edit_file_of_a_file_above_the_cap_is_file_too_large_instead_of_range_checked(ws: Path) -> None:
    with open(ws / "huge.log", "wb") as f:
        f.truncate(MAX_EDIT_BYTES + 1)  # sparse: no disk, and counting its lines would take a read of it all
    text = (
        '[READ_FILE path="huge.log"]\n'
        '[EDIT_FILE path="huge.log" start_line="1" end_line="99"]\nx\n[/EDIT_FILE]\n'
        '[EDIT_FILE path="src/app.py" start_line="1" end_line="9"]\nx\n[/EDIT_FILE]\n'
    )
    got = found(text, ws)
    assert [(code, severity, span.start_line) for code, severity, span, _ in got] == [
        ("file_too_large", Severity.WARNING, 1),
        ("bad_range", Severity.ERROR, 4),
    ]
    assert got[0][3] == (
        f"File 'huge.log' is too large to edit ({MAX_EDIT_BYTES + 1} bytes; EDIT_FILE handles files up to "
        f"{MAX_EDIT_BYTES} bytes): use a RUN_COMMAND (e.g. sed) or split the file"
    )


def test_protected_paths_are_errors_on_the_path_attribute(ws: Path) -> None:
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / "gitlink").symlink_to(".git")
    text = (
        '[CREATE_FILE path=".git/hooks/pre-commit"]\ntouch pwned\n[/CREATE_FILE]\n'
        '[CREATE_FILE path="gitlink/hooks/post-commit"]\ntouch pwned\n[/CREATE_FILE]\n'
        '[DELETE_FILE path="inbox/reply.txt"]\n'
        '[READ_FILE path=".git/config"]\n'
        '[CREATE_FILE path="src/ok.py"]\nx = 1\n[/CREATE_FILE]\n'
    )
    got = [(code, sev, span, msg) for code, sev, span, msg in found(text, ws) if code != "file_not_found"]
    assert [(code, sev, span.start_line, span.start_col) for code, sev, span, _ in got] == [
        ("protected_path", Severity.ERROR, 0, 18),
        ("protected_path", Severity.ERROR, 3, 18),
        ("protected_path", Severity.ERROR, 6, 18),
    ]
    assert got[0][3].startswith("Path '.git/hooks/pre-commit' is protected: '.git' is off limits to replies")
    assert got[1][3].startswith(
        "Path 'gitlink/hooks/post-commit' leads to '.git/hooks/post-commit', which is protected"
    )


def test_look_alike_protected_names_are_errors_too(ws: Path) -> None:
    text = "".join(
        f'[CREATE_FILE path="{path}"]\ntouch pwned\n[/CREATE_FILE]\n'
        for path in (".g\u200cit/hooks/pre-commit", ".git\u200d/config", "GIT~1/hooks/x", ".git::$INDEX_ALLOCATION/x")
    )
    got = [(code, span.start_line) for code, sev, span, _ in found(text, ws) if sev == Severity.ERROR]
    # An invisible character in a tag is an error of its own (the block is not a command); the Windows aliases
    # are protected paths.
    assert got == [
        ("invisible_character", 0),
        ("invisible_character", 3),
        ("protected_path", 6),
        ("protected_path", 9),
    ]


def test_pyproject_table_is_protected_through_the_reply(ws: Path) -> None:
    (ws / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.heredoc-lsp]\nconfirm = "always"\n')
    text = (
        '[EDIT_FILE path="pyproject.toml" start_line="2" end_line="2"]\nname = "y"\n[/EDIT_FILE]\n'
        '[EDIT_FILE path="pyproject.toml" start_line="5" end_line="5"]\nconfirm = "never"\n[/EDIT_FILE]\n'
        '[CREATE_FILE path="sub/pyproject.toml"]\n[tool.heredoc-lsp]\ncompat = "arca-cli"\n[/CREATE_FILE]\n'
        '[CREATE_FILE path="sub/pyproject.toml"]\n[tool.heredoc-lsp]\ncompat = "arca-cli"\n[/CREATE_FILE]\n'
        '[DELETE_FILE path="pyproject.toml"]\n'
    )
    got = [(code, span.start_line) for code, _, span, _ in found(text, ws)]
    # Line 2 is outside the table; the refused first CREATE_FILE does not happen, so the second one adds it too.
    assert got == [("protected_path", 3), ("protected_path", 6), ("protected_path", 10), ("protected_path", 14)]
