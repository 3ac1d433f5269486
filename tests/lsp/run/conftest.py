"""Fixtures for the run-from-the-editor tests: an empty workspace per module (the client fixture is
tests/lsp/conftest.py's)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def module_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ws")
