"""For every test: a private, empty $XDG_CONFIG_HOME, so the real user's heredoc-lsp config (which may loosen the
safety settings, docs/configuration.md) never takes part; servers and command lines started by tests inherit it."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture(scope="session", autouse=True)
def session_config_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The config home of servers shared by a module or session (started before any test's own)."""
    before = os.environ.get("XDG_CONFIG_HOME")
    home = tmp_path_factory.mktemp("xdg-session")
    os.environ["XDG_CONFIG_HOME"] = str(home)
    yield home
    if before is None:
        os.environ.pop("XDG_CONFIG_HOME", None)
    else:
        os.environ["XDG_CONFIG_HOME"] = before


@pytest.fixture(autouse=True)
def private_config_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own config home: a user config a test writes there stays with that test."""
    home = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace directory (the cwd of command-line runs), for the executor and security tests."""
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture(scope="session")
def commands_toml() -> str:
    """``[commands]`` tables of heredoc-lsp.toml, one structured command of each mode (multi with a fixed list of
    parameters, single, multi with any names), as the config tests read them and the navigation tests' workspace
    uses them."""
    return """\
[commands."chatroom task-started"]
params = ["TITLE", "DESCRIPTION", "TECH_SPECS"]
required = ["TITLE", "DESCRIPTION"]
terminator = "PARAMS_END"
[commands."chatroom handoff"]
single_param = "MESSAGE"
terminator = "CHATROOM_HANDOFF_END"
[commands."tracker note"]
mode = "multi"
required = ["BODY"]
"""


@pytest.fixture(scope="session")
def cli_lints() -> str:
    """A .cli script with one of each .cli lint of docs/checking.md (``early_close`` first), as ``check`` and the
    editors report them."""
    return (
        "cat > notes.md <<EOF\nSome text\nEOF\nmore text meant for the file\nEOF\n"
        "echo \"$(cat <<'MSG'\nhello\nMSG\n)\"\n"
        'gh issue create --body-file - <<BODY\nbody\nBODY\n  --title "x"\n'
        "cat <<LOG &> all.log\nx\nLOG\n"
        "cat <<OUT > out.txt &\ny\nOUT\n"
    )


def load_oracle(path: Path) -> ModuleType:
    """A test folder's ``data/*_oracle.py`` (the script that asks bash for the expected answers), as a module."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(path.stem, module)
    spec.loader.exec_module(module)
    return module
