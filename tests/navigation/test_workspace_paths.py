"""heredoc_lsp.navigation.workspace_paths: inbox paths against a workspace (in tmp dirs; symlinks that leave it)."""

from __future__ import annotations

from pathlib import Path

from heredoc_lsp.navigation.workspace_paths import Entry, list_entries, resolve


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "é😀.py").write_text("x\n", encoding="utf-8")
    (root / ".git").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("fake secret\n", encoding="utf-8")
    (root / "out").symlink_to(outside)
    (root / "pw").symlink_to(outside / "secret.txt")
    return root


def test_resolve(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    ok = resolve(root, "src/é😀.py")
    assert ok.problem is None and ok.location == root / "src" / "é😀.py" and ok.exists and not ok.is_dir
    assert resolve(root, "src").is_dir
    new = resolve(root, "src/new.py")
    assert new.problem is None and not new.exists
    for text in ("out/secret.txt", "pw"):
        refused = resolve(root, text)
        assert refused.location is None and refused.problem is not None and "symbolic link" in refused.problem
    assert resolve(root, "../x").problem == "Path '../x' is outside workspace: '..' climbs above the workspace root"
    assert resolve(None, "a").problem == "no workspace folder is open, so the path cannot be resolved"


def test_list_entries_of_the_typed_directory(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    assert list_entries(root, "src/x") == [Entry("src/é😀.py", False)]
    assert list_entries(root, "src\\") == [Entry("src/é😀.py", False)]
    assert list_entries(root, "out/") == []  # a directory that leaves the workspace is not listed
    assert list_entries(root, "../") == []
    assert list_entries(None, "") == []


def test_completion_offers_only_paths_that_resolve_inside(tmp_path: Path) -> None:
    # `.git` is skipped; a symbolic link that leads out of the workspace would be refused by resolve(), so
    # completion must not offer it either.
    root = workspace(tmp_path)
    offered = list_entries(root, "")
    assert [e.path for e in offered if resolve(root, e.path.rstrip("/")).problem is not None] == []
    assert [e.path for e in offered] == ["src/"]
