"""The extension's own tests and its package.

- ``npm test`` in client-vscode: type-check plus the unit tests of the extension's logic (interpreter discovery with
  real processes, settings mapping, trust gate, status, the agent commands' glue) under node:test with a mocked
  ``vscode`` module.
- The .vsix: what ships in it, and that the bundled server runs from the bundle alone on a bare Python
  (``python -S``: no site-packages) and answers an LSP ``initialize`` over stdio.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[2] / "client-vscode"
PYTHON3 = shutil.which("python3") or "python3"


def test_extension_unit_tests() -> None:
    result = subprocess.run(["npm", "test"], cwd=CLIENT, capture_output=True, text=True, timeout=300, check=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    passed = re.search(r"^# pass (\d+)$", output, re.MULTILINE)
    failed = re.search(r"^# fail (\d+)$", output, re.MULTILINE)
    assert passed is not None and failed is not None, output
    assert int(failed.group(1)) == 0
    assert int(passed.group(1)) >= 25, output


def test_vsix_contents(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
    for required in (
        "extension/dist/extension.js",
        "extension/syntaxes/cli-script.tmLanguage.json",
        "extension/syntaxes/agent-inbox.tmLanguage.json",
        "extension/syntaxes/agent-outbox.tmLanguage.json",
        "extension/language-configuration/cli-script.json",
        "extension/bundled/libs/heredoc_lsp/__main__.py",
        "extension/bundled/libs/heredoc_lsp/lsp/server.py",
        "extension/bundled/libs/pygls/__init__.py",
        "extension/bundled/libs/lsprotocol/types.py",
        "extension/bundled/libs/cattrs/__init__.py",
        "extension/bundled/libs/attrs/__init__.py",
        "extension/bundled/libs/typing_extensions.py",
        "extension/bundled/libs/tomli/__init__.py",
        "extension/bundled/libs/exceptiongroup/__init__.py",
    ):
        assert required in names, required
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert not [n for n in names if n.startswith(("extension/src/", "extension/node_modules/", "extension/test/"))]
    # Only pure-Python files: no compiled extension modules tied to one Python version.
    assert not [n for n in names if n.endswith((".so", ".pyd"))]
    assert manifest["main"] == "./dist/extension.js"
    assert manifest["capabilities"]["untrustedWorkspaces"]["supported"] == "limited"
    # Grammars in the package are the generated ones from syntaxes/.
    root = CLIENT.parent
    with zipfile.ZipFile(vsix) as z:
        for name in ("cli-script", "agent-inbox", "agent-outbox"):
            packed = z.read(f"extension/syntaxes/{name}.tmLanguage.json").decode()
            assert packed == (root / "syntaxes" / f"{name}.tmLanguage.json").read_text(encoding="utf-8")


def _frame(payload: dict[str, object]) -> bytes:
    body = json.dumps(payload).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def test_bundled_server_runs_on_a_bare_python(vsix: Path, tmp_path: Path) -> None:
    """Unzip the .vsix and start its server the way the extension does, on python3 without site-packages."""
    with zipfile.ZipFile(vsix) as z:
        z.extractall(tmp_path)
    libs = tmp_path / "extension" / "bundled" / "libs"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(libs),
        "PYTHONNOUSERSITE": "1",
        "PYTHONSAFEPATH": "1",
    }
    messages = _frame(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        }
    )
    messages += _frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    messages += _frame({"jsonrpc": "2.0", "method": "exit"})
    result = subprocess.run(
        [PYTHON3, "-S", "-m", "heredoc_lsp", "lsp"],
        input=messages,
        capture_output=True,
        cwd=libs,
        env=env,
        timeout=60,
        check=False,
    )
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()
    first = json.loads(out.split("\r\n\r\n", 1)[1].split("Content-Length")[0])
    assert first["id"] == 1
    assert first["result"]["serverInfo"]["name"] == "heredoc-lsp"
    commands = first["result"]["capabilities"]["executeCommandProvider"]["commands"]
    assert "heredoc-lsp.runCommand" in commands
