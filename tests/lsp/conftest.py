"""Fixtures for the language-server tests (the harness is in lsp_harness.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsp_harness import CONFIG, PROFILES, RecordingClient, initialize


@pytest_lsp.fixture(config=CONFIG, scope="module", params=list(PROFILES))
async def client(lsp_client: RecordingClient, request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """One server per profile and test module; tests open documents with unique names."""
    root = request.getfixturevalue("module_root")
    await initialize(lsp_client, request.param, root)
    yield
    await lsp_client.shutdown_session()


WORKSPACE_CONFIG = """\
[commands."tool task"]
params = ["TITLE", "DESCRIPTION", "TECH_SPECS"]
required = ["TITLE", "DESCRIPTION"]
terminator = "PARAMS_END"

[commands."tool note"]
single_param = "MESSAGE"
"""


@pytest.fixture(scope="module")
def module_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workspace of a module's servers: a heredoc-lsp.toml configuring one structured command."""
    root = tmp_path_factory.mktemp("ws")
    (root / "heredoc-lsp.toml").write_text(WORKSPACE_CONFIG, encoding="utf-8")
    return root
