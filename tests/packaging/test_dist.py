"""The sdist and the wheel: valid metadata (twine check --strict), the right files, and a wheel built from the sdist
that installs into a fresh virtual environment and gives a working ``heredoc-lsp check``."""

from __future__ import annotations

import sys
import tarfile
import venv
import zipfile
from email.parser import HeaderParser
from pathlib import Path

from packaging_harness import REPO, Dist, check_installed, run, tool_env

from heredoc_lsp import __version__


def test_twine_check_passes(dist: Dist, tmp_path: Path) -> None:
    result = run(
        [sys.executable, "-m", "twine", "check", "--strict", str(dist.sdist), str(dist.wheel)],
        tmp_path,
        tool_env(tmp_path / "home"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2, result.stdout


def test_wheel_contents(dist: Dist) -> None:
    assert dist.wheel.name == f"heredoc_lsp-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(dist.wheel) as z:
        names = set(z.namelist())
        info = f"heredoc_lsp-{__version__}.dist-info"
        metadata = HeaderParser().parsestr(z.read(f"{info}/METADATA").decode())
        entry_points = z.read(f"{info}/entry_points.txt").decode()
        license_text = z.read(f"{info}/licenses/LICENSE").decode()
    source = {
        f"heredoc_lsp/{p.relative_to(REPO / 'server' / 'heredoc_lsp').as_posix()}"
        for p in (REPO / "server" / "heredoc_lsp").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    packaged = {n for n in names if n.startswith("heredoc_lsp/")}
    assert packaged == source
    assert "heredoc_lsp/py.typed" in packaged
    assert not [n for n in names if not n.startswith(("heredoc_lsp/", info))], names
    assert "heredoc-lsp = heredoc_lsp.cli.main:main" in entry_points
    assert license_text == (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Copyright (c) 2026 heredoc-lsp contributors" in license_text
    assert metadata["Name"] == "heredoc-lsp"
    assert metadata["License"] == "MIT"
    assert metadata["Requires-Python"] == ">=3.10"
    assert any(v.startswith("Repository, https://") for v in metadata.get_all("Project-URL") or [])


def test_sdist_contents(dist: Dist) -> None:
    with tarfile.open(dist.sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for required in ("LICENSE", "README.md", "pyproject.toml", "PKG-INFO", "server/heredoc_lsp/__init__.py"):
        assert required in names, required
    assert "examples/hello.cli" in names
    assert not [n for n in names if n.startswith(("tests/", "client-vscode/", "bench/", "docs/", ".ci/"))], names


def test_wheel_installs_into_a_fresh_venv(dist: Dist, tmp_path: Path) -> None:
    env = tool_env(tmp_path / "home")
    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(target)
    pip = run([str(target / "bin" / "python"), "-m", "pip", "install", "-q", str(dist.wheel)], tmp_path, env, 600)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    exe = str(target / "bin" / "heredoc-lsp")
    work = check_installed(exe, tmp_path, env)
    # The installed copy, not this checkout: nothing of the checkout is on sys.path.
    where = run([str(target / "bin" / "python"), "-c", "import heredoc_lsp; print(heredoc_lsp.__file__)"], work, env)
    assert where.stdout.strip().startswith(str(target)), where.stdout + where.stderr
    examples = run([exe, "check", str(REPO / "examples")], work, env)
    assert examples.returncode == 0, examples.stdout + examples.stderr
