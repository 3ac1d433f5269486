"""Fixtures for the navigation feature tests (outline, folding, hover, completion, tokens, links, rename, highlight).

The client fixture is tests/lsp/conftest.py's (the harness is tests/lsp/lsp_harness.py, imported as
``lsp.lsp_harness``: tests/ is on the path through tests/conftest.py); the helpers specific to these tests are in
nav_harness.py, the workspace is :func:`module_root`.

A test runs against every recorded client profile only when its behaviour depends on the profile (position
encoding, capabilities): it is marked ``per_profile``. Every other test runs once, with :data:`ONE_PROFILE`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from nav_harness import make_workspace

ONE_PROFILE = "vscode"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "per_profile: run against every client profile (behaviour differs)")


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests not marked ``per_profile`` get one profile: a parametrize mark, to which the fixture's own params
    yield; ``tryfirst`` because pytest's fixture and parametrize hooks read that mark."""
    if "client" in metafunc.fixturenames and metafunc.definition.get_closest_marker("per_profile") is None:
        metafunc.definition.add_marker(pytest.mark.parametrize("client", [ONE_PROFILE], indirect=True))


@pytest.fixture(scope="module")
def module_root(tmp_path_factory: pytest.TempPathFactory, commands_toml: str) -> Path:
    return make_workspace(tmp_path_factory.mktemp("navws"), commands_toml)
