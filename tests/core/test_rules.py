"""The rules registry: every code the code base can emit has an entry, and docs/rules.md is generated from it."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

from heredoc_lsp.rules import RULES, doc_url, rules_markdown
from heredoc_lsp.syntax.paths import PathCode

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "server" / "heredoc_lsp"
# Codes being added by work that lands separately; their entries are in the registry already.
PENDING = {"no_effect", "line_continuation", "protected_path", "ignored_setting", "file_too_large"}
# Diagnostic constructors: the argument position of the code (syntax.diagnostics helpers, Diagnostic itself).
CONSTRUCTORS = {"error": 1, "warning": 1, "information": 1, "hint": 1, "Diagnostic": 2}


def _constants(tree: ast.Module) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.update({t.id: node.value.value for t in node.targets if isinstance(t, ast.Name)})
    return out


def emitted_codes() -> set[str]:
    """String codes passed to a diagnostic constructor (literally, through a module constant, or as LSP's
    ``code=``), plus the path codes of syntax.paths."""
    found: set[str] = set(typing.get_args(PathCode))
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        consts = _constants(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            args: list[ast.expr] = []
            if name in CONSTRUCTORS and len(node.args) > CONSTRUCTORS[name]:
                args.append(node.args[CONSTRUCTORS[name]])
            if name == "Diagnostic":
                args += [k.value for k in node.keywords if k.arg == "code"]
            for arg in args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add(arg.value)
                elif isinstance(arg, ast.Name) and arg.id in consts:
                    found.add(consts[arg.id])
    return found


def test_every_emitted_code_has_a_rule() -> None:
    emitted = emitted_codes()
    assert {"unclosed_heredoc", "duplicate", "bad_attr", "missing_section", "config_error", "run_failed"} <= emitted
    assert emitted - set(RULES) == set()


def test_every_rule_is_emitted_or_pending() -> None:
    assert set(RULES) - emitted_codes() - PENDING == set()


def test_rules_are_complete() -> None:
    for rule in RULES.values():
        assert rule.severity in ("error", "warning", "info"), rule.code
        assert rule.summary and rule.explanation and rule.example, rule.code
        assert rule.fix_safety in (("safe", "unsafe") if rule.fix else ("",)), rule.code


def test_docs_rules_md_is_generated_from_the_registry() -> None:
    # Regenerate with: heredoc-lsp rule --all --output-format markdown > docs/rules.md
    assert (REPO / "docs" / "rules.md").read_text(encoding="utf-8") == rules_markdown()


def test_every_code_links_to_its_heading_in_the_rules_page() -> None:
    headings = {line[3:] for line in rules_markdown().split("\n") if line.startswith("## ")}
    assert headings == set(RULES)
    assert doc_url("unclosed_heredoc") == (
        "https://github.com/heredoc-lsp/heredoc-lsp/blob/main/docs/rules.md#unclosed_heredoc"
    )
    assert doc_url("no_such_code") is None
