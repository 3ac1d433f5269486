"""Fixtures for the language-server tests (the harness is in lsp_harness.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_harness import client_fixture

__all__ = ["client_fixture", "module_root"]


WORKSPACE_CONFIG = """\
[commands."tool task"]
params = ["TITLE", "DESCRIPTION", "TECH_SPECS"]
required = ["TITLE", "DESCRIPTION"]
terminator = "PARAMS_END"
"""


@pytest.fixture(scope="module")
def module_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workspace of a module's servers: a heredoc-lsp.toml configuring one structured command."""
    root = tmp_path_factory.mktemp("ws")
    (root / "heredoc-lsp.toml").write_text(WORKSPACE_CONFIG, encoding="utf-8")
    return root
