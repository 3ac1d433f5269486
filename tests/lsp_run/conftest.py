"""Fixtures for the run-from-the-editor tests (the harness is in run_harness.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from run_harness import CONFIG, PROFILES, RunClient, initialize


@pytest_lsp.fixture(config=CONFIG, scope="module", params=list(PROFILES))
async def client(lsp_client: RunClient, request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """One server per profile and test module; tests open documents with unique names."""
    root = request.getfixturevalue("module_root")
    await initialize(lsp_client, request.param, root)
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def module_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ws")
