"""Shared fixtures for the packaging tests: the sdist, and a wheel built from that sdist alone."""

from __future__ import annotations

import sys
import tarfile

import pytest
from packaging_harness import REPO, Dist, run, tool_env


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    """``python -m build --sdist`` of the checkout, then ``--wheel`` from the unpacked sdist alone."""
    root = tmp_path_factory.mktemp("dist")
    env = tool_env(root / "home")
    out = root / "out"
    built = run([sys.executable, "-m", "build", "--sdist", "--outdir", str(out), str(REPO)], REPO, env)
    assert built.returncode == 0, built.stdout + built.stderr
    (sdist,) = out.glob("heredoc_lsp-*.tar.gz")
    with tarfile.open(sdist) as tar:
        tar.extractall(root / "unpacked", filter="data")
    (unpacked,) = (root / "unpacked").iterdir()
    built = run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(unpacked)], root, env)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = out.glob("heredoc_lsp-*.whl")
    return Dist(sdist=sdist, wheel=wheel)
