""".pre-commit-hooks.yaml with the real pre-commit: ``pre-commit try-repo`` installs heredoc-lsp from a temporary git
repository holding this checkout's files, and runs the hook on a temporary project's good and bad files."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
import yaml
from packaging_harness import REPO, run, tool_env

from heredoc_lsp.languages import language_from_path

HOOKS = REPO / ".pre-commit-hooks.yaml"
CHECK = "heredoc-lsp-check"
FIX = "heredoc-lsp-fix"
# What `pip install .` needs, and the hook definitions.
HOOK_REPO_FILES = ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml", "server/", "syntaxes/")
GIT_ENV = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}
BAD = "echo start\ncat <<EOF\nbody\n"
GOOD = "echo start\ncat <<EOF\nbody\nEOF\n"
# invalid_marker, whose fix (rename the marker) is safe: `check --fix` applies it.
FIXABLE = "echo start\ncat <<\u00c9OF\nbody\n\u00c9OF\n"


def git(cwd: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=60)


def commit_all(path: Path, env: dict[str, str]) -> None:
    git(path, env, "init", "-q", "-b", "main")
    git(path, env, "add", "-A")
    git(path, env, "commit", "-q", "-m", "files")


def hook_repo(tmp: Path, env: dict[str, str]) -> Path:
    """A committed git repository with this checkout's files as they are now (committed or not)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *HOOK_REPO_FILES],
        cwd=REPO,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    repo = tmp / "hook-repo"
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            target = repo / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    commit_all(repo, env)
    return repo


@pytest.fixture(scope="module")
def hook_setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The hook repository and the environment; one pre-commit home, so both hooks share one installed copy."""
    tmp = tmp_path_factory.mktemp("pre-commit")
    env = tool_env(tmp / "home") | GIT_ENV | {"PRE_COMMIT_HOME": str(tmp / "pre-commit-cache")}
    return hook_repo(tmp, env), env


def try_repo(
    repo: Path, project: Path, env: dict[str, str], hook: str, *files: str
) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo REPO HOOK --files FILES`` in ``project``."""
    cmd = [sys.executable, "-m", "pre_commit", "try-repo", str(repo), hook, "--color", "never", "--files", *files]
    return run(cmd, project, env, 600)


def test_check_hook_fails_on_bad_file_and_passes_good_one(
    tmp_path: Path, hook_setup: tuple[Path, dict[str, str]]
) -> None:
    repo, env = hook_setup
    project = tmp_path / "project"
    (project / "inbox").mkdir(parents=True)
    (project / "good.cli").write_text(GOOD, encoding="utf-8")
    (project / "bad.cli").write_text(BAD, encoding="utf-8")
    (project / "inbox" / "reply.txt").write_text('[CREATE_FILE path="a.txt"]\nhi\n', encoding="utf-8")
    (project / "notes.txt").write_text("cat <<EOF\n", encoding="utf-8")
    commit_all(project, env)

    # notes.txt is outside the hook's files: named to `heredoc-lsp check`, it would be a usage error (exit 2).
    good = try_repo(repo, project, env, CHECK, "good.cli", "notes.txt")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "heredoc-lsp check" in good.stdout and "Passed" in good.stdout, good.stdout

    bad = try_repo(repo, project, env, CHECK, "good.cli", "bad.cli", "inbox/reply.txt")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout, bad.stdout
    assert "bad.cli:2:7: error[unclosed_heredoc]" in bad.stdout, bad.stdout
    assert "inbox/reply.txt:1:2: error[unclosed]" in bad.stdout, bad.stdout
    assert "good.cli:" not in bad.stdout, bad.stdout


def test_fix_hook_fixes_the_file(tmp_path: Path, hook_setup: tuple[Path, dict[str, str]]) -> None:
    repo, env = hook_setup
    project = tmp_path / "project"
    project.mkdir()
    fixable = project / "fixable.cli"
    fixable.write_text(FIXABLE, encoding="utf-8")
    (project / "good.cli").write_text(GOOD, encoding="utf-8")
    commit_all(project, env)

    fixed = try_repo(repo, project, env, FIX, "fixable.cli", "good.cli")
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr
    assert "files were modified by this hook" in fixed.stdout, fixed.stdout
    assert "fixed fixable.cli: 1 (invalid_marker)" in fixed.stdout, fixed.stdout
    assert fixable.read_text(encoding="utf-8") == GOOD
    assert (project / "good.cli").read_text(encoding="utf-8") == GOOD
    # The fixed file is GOOD, which the check hook passes (the test above).


def test_hooks_declared() -> None:
    """Both hooks run heredoc-lsp check (the fix hook with --fix) on the same files, as a Python package."""
    hooks = {h["id"]: h for h in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    assert set(hooks) == {"heredoc-lsp-check", "heredoc-lsp-fix"}
    assert hooks["heredoc-lsp-check"]["entry"] == "heredoc-lsp check"
    assert hooks["heredoc-lsp-fix"]["entry"] == "heredoc-lsp check --fix"
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["types"] == ["text"]
        assert hook["files"] == hooks["heredoc-lsp-check"]["files"]


def test_hook_files_pattern_matches_the_server_formats() -> None:
    """The hooks' ``files`` regex selects exactly the files the server gives a format by name."""
    pattern = re.compile(yaml.safe_load(HOOKS.read_text(encoding="utf-8"))[0]["files"])
    paths = [
        "a.cli",
        "dir/b.cli",
        "a.cli.txt",
        "x.clix",
        "r.inbox",
        "inbox/r.txt",
        "deep/inbox/r.txt",
        "inbox/sub/r.txt",
        "myinbox/r.txt",
        "m.outbox",
        "outbox/5f3a9c1e_seq0001.txt",
        "a/outbox/5f3a9c1e_seq0042.txt",
        "outbox/5f3a9c1e_seq001.txt",
        "outbox/notes.txt",
        "notes.txt",
        "README.md",
    ]
    for path in paths:
        expected = language_from_path(PurePosixPath(path)) is not None
        assert (pattern.search(path) is not None) == expected, path
