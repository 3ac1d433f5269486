"""The package layout the server relies on: no import cycles, a run package without LSP, syntax privates kept in
the syntax package, and every feature module registered from the one declared list."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import heredoc_lsp
from heredoc_lsp.lsp import server

PACKAGE = Path(heredoc_lsp.__file__).parent
SYNTAX_PRIVATES = ("_rows", "_lookahead", "_cache", "_starts", "_build_items", "_Row")

EACH_ALONE = """
import importlib, sys
failed = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "heredoc_lsp" or m.startswith("heredoc_lsp.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed.append(f"{name}: {type(exc).__name__}: {exc}")
print("\\n".join(failed))
"""


def modules() -> list[str]:
    return sorted(
        m.name for m in pkgutil.walk_packages([str(PACKAGE)], "heredoc_lsp.") if m.name != "heredoc_lsp.__main__"
    )


def test_every_module_imports_alone() -> None:
    """Each module imported first, with nothing of the package loaded before it (an import cycle fails here)."""
    names = modules()
    assert len(names) > 80
    out = subprocess.run([sys.executable, "-c", EACH_ALONE, *names], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_runs_package_uses_no_lsp() -> None:
    code = (
        "import sys\n"
        "import heredoc_lsp.runs.targets, heredoc_lsp.runs.state, heredoc_lsp.runs.view\n"
        "print(sorted(m for m in sys.modules if m.startswith(('heredoc_lsp.lsp', 'pygls', 'lsprotocol'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout.strip()) == (0, "[]"), out.stderr


def test_syntax_privates_stay_in_the_syntax_package() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "syntax":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in SYNTAX_PRIVATES:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .{node.attr}")
    assert offenders == []


def test_every_feature_module_is_declared() -> None:
    """A module of heredoc_lsp.lsp with a module-level register(server) is in FEATURES, or registered by the
    feature that owns it (the run views, by run_commands)."""
    declared = {module.__name__.rsplit(".", 1)[1] for module in server.FEATURES}  # type: ignore[attr-defined]
    owned = {"run_actions", "run_hover", "run_diagnostics"}
    found = set()
    for path in (PACKAGE / "lsp").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(n, ast.FunctionDef) and n.name == "register" for n in tree.body):
            found.add(path.stem)
    assert found - owned == declared
