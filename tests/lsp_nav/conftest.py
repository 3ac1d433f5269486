"""Fixtures for the navigation feature tests (outline, folding, hover, completion, tokens, links, rename, highlight).

The client, its recorded profiles and ``initialize`` come from helper E's harness (tests/lsp/lsp_harness.py),
imported as is; the helpers specific to these tests are in nav_harness.py.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lsp"))

from lsp_harness import CONFIG, PROFILES, RecordingClient, initialize
from nav_harness import make_workspace


@pytest_lsp.fixture(config=CONFIG, scope="module", params=list(PROFILES))
async def client(lsp_client: RecordingClient, request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """One server per profile and test module; tests open documents with unique names."""
    root = request.getfixturevalue("module_root")
    await initialize(lsp_client, request.param, root)
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def module_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_workspace(tmp_path_factory.mktemp("navws"))
