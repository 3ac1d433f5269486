"""The package layout the server relies on: no import cycles, imports at the top of each module, a run package
without LSP, syntax privates kept in the syntax package, and every feature found through the one declared list."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import heredoc_lsp
from heredoc_lsp.lsp import server
from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.settings import SettingsManager

PACKAGE = Path(heredoc_lsp.__file__).parent
SYNTAX_PRIVATES = ("_rows", "_lookahead", "_cache", "_starts", "_build_items", "_Row")
DEFERRED_TAG = "# deferred: check start-up"
NO_DEFERRED = ("lsp", "runs")  # packages with no function-level import at all

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
    """Each module imported first, with nothing of the package loaded before it (an import cycle fails here).
    Every ``.py`` file of the package is one of them (``__main__`` runs the command line when imported)."""
    names = modules()
    files = {
        ".".join(("heredoc_lsp", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
        for path in PACKAGE.rglob("*.py")
    }
    assert files - set(names) == {"heredoc_lsp", "heredoc_lsp.__main__"}
    names = ["heredoc_lsp", *names]
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


def function_level_imports(source: str) -> list[tuple[int, str]]:
    """(line, text) of every import inside a function of ``source``."""
    lines = source.splitlines()
    found = []
    for fn in ast.walk(ast.parse(source)):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found.append((node.lineno, lines[node.lineno - 1].strip()))
    return sorted(set(found))


def test_function_level_imports_are_found() -> None:
    source = (
        "import os\n\ndef f():\n    import sys\n    def g():\n        from a import b  # deferred: check start-up\n"
    )
    assert function_level_imports(source) == [(4, "import sys"), (6, f"from a import b  {DEFERRED_TAG}")]


def untagged(source: str) -> list[tuple[int, str]]:
    """The function-level imports of ``source`` without the tag, on their own line(s) or on the comment lines
    right above their group of imports."""
    lines = source.splitlines()
    found = function_level_imports(source)
    spans = {n.lineno: n.end_lineno or n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.stmt)}
    covered = {k for line, _ in found for k in range(line, spans[line] + 1)}
    out = []
    for line, text in found:
        near = lines[line - 1 : spans[line]]
        k = line - 1
        while k >= 1 and (k in covered or lines[k - 1].strip().startswith("#")):
            near.append(lines[k - 1])
            k -= 1
        if not any(DEFERRED_TAG in seen for seen in near):
            out.append((line, text))
    return out


def test_untagged_imports_are_found() -> None:
    source = (
        "def f():\n"
        f"    {DEFERRED_TAG}\n"
        "    import a\n"
        "    import b\n"
        "    x = 1\n"
        "    import c\n"
        f"    import d  {DEFERRED_TAG}: why\n"
        "    from e import (\n"
        f"        g,  {DEFERRED_TAG}\n"
        "    )\n"
    )
    assert untagged(source) == [(6, "import c")]


def test_function_level_imports_are_tagged() -> None:
    """Anywhere in the package an import inside a function is on the measured ``check`` start-up path and says so."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, text in untagged(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(PACKAGE)}:{line} {text}")
    assert offenders == []


def test_lsp_and_runs_import_at_module_top() -> None:
    """No import inside a function of heredoc_lsp.lsp or heredoc_lsp.runs (cycles are broken by moving shared code
    down, not by deferring imports)."""
    offenders = []
    for package in NO_DEFERRED:
        for path in sorted((PACKAGE / package).rglob("*.py")):
            for line, text in function_level_imports(path.read_text(encoding="utf-8")):
                offenders.append(f"{path.relative_to(PACKAGE)}:{line} {text}")
    assert offenders == []


def test_features_are_declared_once_and_found_by_type() -> None:
    """Every Feature subclass of heredoc_lsp.lsp is in FEATURES (or is the settings, which the server builds first);
    no module registers itself through a module-level register(server)."""
    names = [m for m in modules() if m.startswith("heredoc_lsp.lsp.")]
    loaded = [importlib.import_module(name) for name in names]
    defined = {
        obj
        for module in loaded
        for obj in vars(module).values()
        if isinstance(obj, type)
        and issubclass(obj, Feature)
        and obj is not Feature
        and obj.__module__ == module.__name__
    }
    assert len(set(server.FEATURES)) == len(server.FEATURES)
    assert defined - set(server.FEATURES) == {SettingsManager}
    built = server.build_server()
    assert [type(f) for f in built.features] == [SettingsManager, *server.FEATURES]
    for path in (PACKAGE / "lsp").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not any(isinstance(n, ast.FunctionDef) and n.name == "register" for n in tree.body), path.name


def _attribute_uses(name: str) -> list[str]:
    """``file:line`` of every ``x.NAME`` in the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == name:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_only_the_server_module_knows_the_concrete_server() -> None:
    """Features see the server through ``feature.Server``: no module of lsp/ but server.py imports lsp.server (not
    even to annotate), so the features and the server form no import cycle."""
    offenders = []
    for path in sorted((PACKAGE / "lsp").rglob("*.py")):
        if path == PACKAGE / "lsp" / "server.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "heredoc_lsp.lsp.server":
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert offenders == []


def test_diagnostics_have_one_publisher() -> None:
    """Only lsp/diagnostics.py sends textDocument/publishDiagnostics; every other feature (the settings with a
    configuration file's problems too) contributes to it."""
    uses = _attribute_uses("text_document_publish_diagnostics") + _attribute_uses("TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS")
    assert uses and all(use.startswith("lsp/diagnostics.py:") for use in uses), uses


def test_incremental_views_keep_their_answers_in_the_view_cache() -> None:
    """Only the view cache (lsp/splice.py) asks the analyses what changed since a kept answer."""
    uses = _attribute_uses("changes_since")
    assert uses and all(use.startswith("lsp/splice.py:") for use in uses), uses
