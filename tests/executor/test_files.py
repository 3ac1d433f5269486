"""File operations: the two-phase path check, atomic writes that keep modes, EDIT_FILE line endings, READ_FILE."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from heredoc_lsp.analysis.workspace import MAX_EDIT_BYTES
from heredoc_lsp.executor.environment import Redactor
from heredoc_lsp.executor.files import FileOpError, Workspace

from .conftest import tree


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the workspace, holding a secret file."""
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text("secret\n")
    return path


@pytest.fixture
def ws(tmp_path: Path, outside: Path) -> Workspace:
    """A workspace next to ``outside`` (tests snapshot their common parent)."""
    (tmp_path / "ws").mkdir()
    return Workspace(tmp_path / "ws")


def _writes_and_read(ws: Workspace, path: str, text: str) -> tuple[Callable[[], object], ...]:
    """CREATE_FILE, EDIT_FILE and DELETE_FILE of ``path`` (writing ``text``), then READ_FILE of it."""
    return (
        partial(ws.create_file, path, text),
        partial(ws.edit_file, path, 1, 1, text),
        partial(ws.delete_file, path),
        partial(ws.read_file, path),
    )


TEXTUAL_REJECTS = {
    "../x.txt": "REJECTED: Path '../x.txt' is outside workspace: '..' climbs above the workspace root",
    "a/../../x.txt": "REJECTED: Path 'a/../../x.txt' is outside workspace: '..' climbs above the workspace root",
    "/etc/passwd": "REJECTED: Path '/etc/passwd' is outside workspace: absolute paths are not allowed, "
    "use a path relative to the root",
    "C:\\x.txt": "REJECTED: Path 'C:\\x.txt' is outside workspace: drive letters are not allowed, "
    "use a path relative to the root",
    "C:x.txt": "REJECTED: Path 'C:x.txt' is outside workspace: drive letters are not allowed, "
    "use a path relative to the root",
    "~/x.txt": "REJECTED: Path '~/x.txt' is outside workspace: '~' (home directory) is not allowed",
    "..\\..\\x.txt": "REJECTED: Path '..\\..\\x.txt' is outside workspace: '..' climbs above the workspace root",
    "\\x.txt": "REJECTED: Path '\\x.txt' is outside workspace: absolute paths are not allowed, "
    "use a path relative to the root",
    "": "REJECTED: Path is empty",
    ".": "REJECTED: Path '.' names the workspace root; name a file inside it",
}


@pytest.mark.parametrize("path", sorted(TEXTUAL_REJECTS))
def test_textual_rejects_for_every_operation(ws: Workspace, path: str) -> None:
    before = tree(ws.root.parent)
    for op in _writes_and_read(ws, path, "x"):
        with pytest.raises(FileOpError) as info:
            op()
        assert info.value.summary == TEXTUAL_REJECTS[path]
        assert info.value.rejected
    assert tree(ws.root.parent) == before


def test_backslashes_inside_the_workspace_are_separators(ws: Workspace) -> None:
    assert ws.create_file("src\\pkg\\a.py", "print(1)\n") == "Created 'src\\pkg\\a.py'"
    assert (ws.root / "src" / "pkg" / "a.py").read_text() == "print(1)\n"


def test_symlinked_directory_to_outside_existing_and_new_file(ws: Workspace, outside: Path) -> None:
    (ws.root / "link").symlink_to(outside)
    before = tree(outside)
    for path in ("link/secret.txt", "link/new.txt", "link/deeper/new.txt"):
        for op in _writes_and_read(ws, path, "pwned"):
            with pytest.raises(FileOpError) as info:
                op()
            assert info.value.rejected
            assert info.value.summary.startswith(f"REJECTED: Path '{path}' is outside workspace: it resolves to ")
    assert tree(outside) == before


def test_symlinked_file_to_outside_existing_and_dangling(ws: Workspace, outside: Path) -> None:
    (ws.root / "s.txt").symlink_to(outside / "secret.txt")
    (ws.root / "dangling.txt").symlink_to(outside / "new.txt")
    for path in ("s.txt", "dangling.txt"):
        with pytest.raises(FileOpError) as info:
            ws.create_file(path, "pwned")
        assert info.value.rejected
        with pytest.raises(FileOpError):
            ws.read_file(path)
    assert (outside / "secret.txt").read_text() == "secret\n"
    assert not (outside / "new.txt").exists()


def test_symlink_inside_the_workspace_is_followed(ws: Workspace) -> None:
    (ws.root / "real").mkdir()
    (ws.root / "alias").symlink_to("real")
    (ws.root / "real" / "f.txt").write_text("one\ntwo\n")
    assert ws.edit_file("alias/f.txt", 2, 2, "TWO").startswith("Edited 'alias/f.txt'")
    assert (ws.root / "real" / "f.txt").read_text() == "one\nTWO\n"
    assert (ws.root / "alias").is_symlink()


def test_symlink_swapped_between_check_and_write_is_refused(
    ws: Workspace, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Provoke the race deterministically: swap a checked directory for a link right after phase 2."""
    (ws.root / "d").mkdir()
    original = Workspace.resolve

    def resolve_then_swap(self: Workspace, path: str) -> list[str]:
        parts = original(self, path)
        os.rename(ws.root / "d", ws.root / "d.old")
        (ws.root / "d").symlink_to(outside)
        return parts

    monkeypatch.setattr(Workspace, "resolve", resolve_then_swap)
    with pytest.raises(FileOpError) as info:
        ws.create_file("d/secret.txt", "pwned")
    assert info.value.summary == "REJECTED: Path 'd/secret.txt' changed during the operation ('d' became a link)"
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_file_swapped_for_a_link_is_replaced_not_followed(
    ws: Workspace, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws.root / "f.txt").write_text("old\n")
    original = Workspace.resolve

    def resolve_then_swap(self: Workspace, path: str) -> list[str]:
        parts = original(self, path)
        (ws.root / "f.txt").unlink()
        (ws.root / "f.txt").symlink_to(outside / "secret.txt")
        return parts

    monkeypatch.setattr(Workspace, "resolve", resolve_then_swap)
    with pytest.raises(FileOpError) as info:
        ws.create_file("f.txt", "pwned")
    assert info.value.rejected
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_racing_symlink_swapper_never_gets_a_write_outside(ws: Workspace, outside: Path) -> None:
    """A thread keeps swapping ``d`` between a directory and a link to outside while files are written into it."""
    (ws.root / "d").mkdir()
    stop = threading.Event()

    def swapper() -> None:
        while not stop.is_set():
            try:
                os.rename(ws.root / "d", ws.root / "d.tmp")
                (ws.root / "d").symlink_to(outside)
                (ws.root / "d").unlink()
                os.rename(ws.root / "d.tmp", ws.root / "d")
            except OSError:
                pass

    t = threading.Thread(target=swapper)
    t.start()
    outcomes: set[str] = set()
    try:
        for i in range(300):
            try:
                ws.create_file(f"d/f{i}.txt", "x")
                outcomes.add("ok")
            except FileOpError as exc:
                outcomes.add("rejected" if exc.rejected else "failed")
    finally:
        stop.set()
        t.join()
    assert sorted(os.listdir(outside)) == ["secret.txt"]
    assert "ok" in outcomes


def test_protected_directories(tmp_path: Path) -> None:
    (tmp_path / "sessions").mkdir()
    ws = Workspace(tmp_path, protected=("sessions", "inbox"))
    with pytest.raises(FileOpError) as info:
        ws.create_file("sessions/abc.json", "{}")
    assert info.value.summary == (
        "Path 'sessions/abc.json' is protected: 'sessions/' holds heredoc-lsp's own agent state "
        "(a reply written there could forge the next one)"
    )
    assert not info.value.rejected
    ws.create_file("sessionsX/a.txt", "fine")


def test_protected_paths_are_refused_before_any_change(ws: Workspace) -> None:
    (ws.root / "real_git").mkdir()
    (ws.root / ".git").symlink_to("real_git")  # the protected name is a link: refused as written
    (ws.root / "alias").symlink_to("real_git")
    (ws.root / "gitdir").mkdir()
    (ws.root / "gitdir" / ".git").mkdir()
    (ws.root / "x").symlink_to("gitdir/.git")  # a link to a protected folder: refused where it leads
    before = tree(ws.root)
    for path in (".git/hooks/pre-commit", "x/hooks/pre-commit", ".Envrc", ".vscode/tasks.json", "outbox/a.txt"):
        for op in _writes_and_read(ws, path, "x")[:3]:  # the writes
            with pytest.raises(FileOpError) as info:
                op()
            assert "is protected" in info.value.summary and not info.value.rejected
    assert tree(ws.root) == before  # no parent folder was created either
    with pytest.raises(FileOpError) as info:
        ws.create_file("x/hooks/pre-commit", "x")
    assert info.value.summary.startswith("Path 'x/hooks/pre-commit' leads to 'gitdir/.git/hooks/pre-commit'")
    assert ws.create_file("alias/notes.txt", "fine") == "Created 'alias/notes.txt'"


def test_look_alike_protected_names_are_refused_before_any_change(ws: Workspace) -> None:
    # On Linux these are ordinary names; on macOS (HFS+ drops U+200C, U+FEFF) and Windows (8.3 names, NTFS streams)
    # they are .git itself, and a workspace may be shared with those systems.
    before = tree(ws.root)
    for path in (
        ".g\u200cit/hooks/pre-commit",
        "\ufeff.git/config",
        "GIT~1/hooks/pre-commit",
        ".git::$INDEX_ALLOCATION/x",
    ):
        with pytest.raises(FileOpError) as info:
            ws.create_file(path, "x")
        assert "is protected" in info.value.summary and not info.value.rejected
    assert tree(ws.root) == before


def test_pyproject_table_is_protected_the_rest_is_not(ws: Workspace) -> None:
    original = '[project]\nname = "x"\n\n[tool.heredoc-lsp.executor]\nconfirm = "always"\n'
    pyproject = ws.root / "pyproject.toml"
    pyproject.write_text(original)
    refused: tuple[Callable[[], object], ...] = (
        lambda: ws.edit_file("pyproject.toml", 5, 5, 'confirm = "never"'),
        lambda: ws.edit_file("pyproject.toml", 2, 2, '[tool.heredoc-lsp]\ncompat = "arca-cli"'),
        lambda: ws.create_file("pyproject.toml", '[project]\nname = "x"\n'),
        lambda: ws.delete_file("pyproject.toml"),
    )
    for op in refused:
        with pytest.raises(FileOpError) as info:
            op()
        assert info.value.summary.startswith("Path 'pyproject.toml' is protected")
    assert pyproject.read_text() == original
    ws.edit_file("pyproject.toml", 2, 2, 'name = "y"')
    ws.create_file("pyproject.toml", pyproject.read_text() + "\n[tool.ruff]\nline-length = 100\n")
    assert pyproject.read_text().startswith('[project]\nname = "y"\n')
    ws.create_file("sub/pyproject.toml", "[tool.black]\n")
    with pytest.raises(FileOpError):
        ws.create_file("sub/pyproject.toml", "[tool.heredoc-lsp]\n")
    (ws.root / "plain.toml").symlink_to("pyproject.toml")
    with pytest.raises(FileOpError):
        ws.delete_file("plain.toml")  # the link's target is the pyproject


# -- atomic writes, modes, CREATE/DELETE ------------------------------------------------------------------------


def test_create_overwrite_keeps_mode_and_leaves_no_temporaries(ws: Workspace) -> None:
    target = ws.root / "run.sh"
    target.write_text("old\n")
    target.chmod(0o751)
    assert ws.create_file("run.sh", "new\n") == "Created 'run.sh' (replaced the existing file)"
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert sorted(os.listdir(ws.root)) == ["run.sh"]


def test_create_new_file_honours_umask(ws: Workspace) -> None:
    old = os.umask(0o027)
    try:
        ws.create_file("a/b/c.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((ws.root / "a" / "b" / "c.txt").stat().st_mode) == 0o640


def test_create_over_a_directory_fails(ws: Workspace) -> None:
    (ws.root / "dir").mkdir()
    with pytest.raises(FileOpError, match=r"^'dir' is a directory$"):
        ws.create_file("dir", "x")
    (ws.root / "file").write_text("x")
    with pytest.raises(FileOpError, match=r"^Cannot use 'file/x.txt': 'file' is not a directory$"):
        ws.create_file("file/x.txt", "x")


def test_delete(ws: Workspace) -> None:
    (ws.root / "gone.txt").write_text("x")
    assert ws.delete_file("gone.txt") == "Deleted 'gone.txt'"
    with pytest.raises(FileOpError, match=r"^File 'gone\.txt' not found$") as info:
        ws.delete_file("gone.txt")
    assert info.value.not_found
    with pytest.raises(FileOpError, match=r"^File 'no/such.txt' not found$"):
        ws.delete_file("no/such.txt")


# -- EDIT_FILE -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "start", "end", "body", "after"),
    [
        (b"a\nb\nc\n", 2, 2, "B", b"a\nB\nc\n"),
        (b"a\r\nb\r\nc\r\n", 2, 3, "X\nY\nZ", b"a\r\nX\r\nY\r\nZ\r\n"),
        (b"a\nb\nc", 3, 3, "C", b"a\nb\nC"),  # no final newline: still none
        (b"a\nb\nc", 2, 3, "", b"a"),  # delete up to the end: still no final newline
        (b"a\nb\nc\n", 1, 1, "", b"b\nc\n"),
        (b"a\nb\nc\n", 3, 3, "", b"a\nb\n"),
        (b"a\rb\rc\r", 1, 1, "x\ny", b"x\ry\rb\rc\r"),
        (b"a\r\nb\nc\n", 2, 2, "B", b"a\r\nB\r\nc\n"),  # untouched lines keep their own endings
        (b"caf\xe9\nb\n", 2, 2, "B", b"caf\xe9\nB\n"),  # invalid UTF-8 elsewhere is kept byte for byte
    ],
)
def test_edit_file_keeps_line_endings(
    ws: Workspace, before: bytes, start: int, end: int, body: str, after: bytes
) -> None:
    (ws.root / "f.txt").write_bytes(before)
    ws.edit_file("f.txt", start, end, body)
    assert (ws.root / "f.txt").read_bytes() == after


def test_edit_summary_and_range_errors(ws: Workspace) -> None:
    (ws.root / "f.txt").write_text("1\n2\n3\n")
    assert ws.edit_file("f.txt", 2, 3, "x\ny\nz") == "Edited 'f.txt': lines 2-3 replaced with 3 lines (now 4 lines)"
    with pytest.raises(FileOpError, match=r"^Line range 5-9 is beyond the end of 'f.txt' \(4 lines\)$"):
        ws.edit_file("f.txt", 5, 9, "x")
    with pytest.raises(FileOpError, match=r"^File 'x' not found$"):
        ws.edit_file("x", 1, 1, "x")
    (ws.root / "bin").write_bytes(b"\x00\x01")
    with pytest.raises(FileOpError, match=r"^File 'bin' is binary; EDIT_FILE changes text files only$"):
        ws.edit_file("bin", 1, 1, "x")


# -- READ_FILE -------------------------------------------------------------------------------------------------


def test_read_file_text_binary_and_cap(ws: Workspace) -> None:
    (ws.root / "t.txt").write_text("héllo\n")
    got = ws.read_file("t.txt")
    assert (got.path, got.text, got.size, got.binary, got.truncated) == ("t.txt", "héllo\n", 7, False, False)
    (ws.root / "img.jpg").write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 100)
    got = ws.read_file("img.jpg")
    assert (got.text, got.binary) == ("(binary file, 111 bytes)", True)
    (ws.root / "big.txt").write_text("é" * 300)
    got = ws.read_file("big.txt", max_chars=100)
    assert got.truncated
    assert got.text == "é" * 100 + "\n[... truncated: showing the first 100 characters of 600 bytes ...]"
    os.mkfifo(ws.root / "fifo")
    with pytest.raises(FileOpError, match=r"^'fifo' is not a regular file$"):
        ws.read_file("fifo")


SECRET = "tok-0123456789abcdef"


def test_read_file_hides_secrets_and_a_secret_cut_by_the_cap(ws: Workspace) -> None:
    redactor = Redactor([SECRET])
    (ws.root / "env.txt").write_text(f"token={SECRET}\n")
    assert ws.read_file("env.txt", redactor=redactor).text == "token=[REDACTED]\n"
    assert ws.read_file("env.txt").text == f"token={SECRET}\n"  # no redactor: nothing to hide
    (ws.root / "cut.txt").write_text("x" * 90 + SECRET)
    got = ws.read_file("cut.txt", max_chars=100, redactor=redactor)
    assert got.text == "x" * 90 + "[REDACTED]\n[... truncated: showing the first 100 characters of 110 bytes ...]"


def _sparse(path: Path, size: int) -> None:
    with open(path, "wb") as f:
        f.truncate(size)


def test_edit_file_above_the_cap_fails_before_reading(ws: Workspace) -> None:
    _sparse(ws.root / "huge.log", MAX_EDIT_BYTES + 1)
    with pytest.raises(FileOpError, match=r"^File 'huge.log' is too large to edit \(10485761 bytes; EDIT_FILE"):
        ws.edit_file("huge.log", 1, 1, "x")
    assert (ws.root / "huge.log").stat().st_size == MAX_EDIT_BYTES + 1
    (ws.root / "small.txt").write_text("a\nb\nc\n")
    with pytest.raises(FileOpError, match=r"too large to edit \(6 bytes; EDIT_FILE handles files up to 5 bytes\)"):
        ws.edit_file("small.txt", 1, 1, "x", max_edit_bytes=5)
    assert (
        ws.edit_file("small.txt", 1, 1, "x", max_edit_bytes=6)
        == "Edited 'small.txt': line 1 replaced with 1 line (now 3 lines)"
    )


def test_line_count_reads_in_chunks_and_stops_at_the_cap(ws: Workspace) -> None:
    (ws.root / "crlf.txt").write_bytes(b"a\r\nb\rc\n\nd")
    assert ws.line_count("crlf.txt") == 5
    _sparse(ws.root / "huge.log", MAX_EDIT_BYTES + 1)
    assert ws.line_count("huge.log") is None
    assert ws.line_count("missing.txt") is None


def test_list_files_skips_links_vcs_and_protected(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x" * 10)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("x")
    (tmp_path / "outbox").mkdir()
    (tmp_path / "outbox" / "s_seq0001.txt").write_text("x")
    (tmp_path / "link.py").symlink_to(tmp_path / "src" / "a.py")
    (tmp_path / "b.txt").write_text("")
    files, more = Workspace(tmp_path, protected=("outbox",)).list_files()
    assert [(f.path, f.size) for f in files] == [("b.txt", 0), ("src/a.py", 10)]
    assert more == 0
