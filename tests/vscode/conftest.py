"""Shared fixtures for the VS Code tests: the .vsix, built once per session by client-vscode/build-vsix.sh."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "client-vscode"


@pytest.fixture(scope="session")
def vsix_build() -> subprocess.CompletedProcess[str]:
    """Build the extension package from the working tree (grammars, bundled server, esbuild bundle); stderr holds
    vsce's messages."""
    result = subprocess.run([str(CLIENT / "build-vsix.sh")], capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, f"build-vsix.sh failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="session")
def vsix(vsix_build: subprocess.CompletedProcess[str]) -> Path:
    path = Path(vsix_build.stdout.strip().splitlines()[-1])
    assert path.is_file(), vsix_build.stdout
    return path
