"""Fixtures for the navigation feature tests (outline, folding, hover, completion, tokens, links, rename, highlight).

The client, its recorded profiles and ``initialize`` come from the language-server tests' harness
(tests/lsp/lsp_harness.py, imported as ``lsp.lsp_harness``: tests/ is on the path through tests/conftest.py); the
helpers specific to these tests are in nav_harness.py.

A test runs against every recorded client profile only when its behaviour depends on the profile (position
encoding, capabilities): it is marked ``per_profile``. Every other test runs once, with :data:`ONE_PROFILE`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from nav_harness import make_workspace

from lsp.lsp_harness import CONFIG, PROFILES, RecordingClient, initialize

ONE_PROFILE = "vscode"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "per_profile: run against every client profile (behaviour differs)")


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests not marked ``per_profile`` get one profile: a parametrize mark, to which the fixture's own params
    yield; ``tryfirst`` because pytest's fixture and parametrize hooks read that mark."""
    if "client" in metafunc.fixturenames and metafunc.definition.get_closest_marker("per_profile") is None:
        metafunc.definition.add_marker(pytest.mark.parametrize("client", [ONE_PROFILE], indirect=True))


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
