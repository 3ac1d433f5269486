"""docs/ci.md's examples are valid YAML and agree with the repository: the hooks they name exist, the SARIF file the
check writes is the one uploaded, and the artifact paths are where the builds put their files."""

from __future__ import annotations

import re
from typing import Any

import yaml
from packaging_harness import REPO

DOC = REPO / "docs" / "ci.md"


def example(tag: str) -> Any:
    m = re.search(rf"<!-- ci-example: {re.escape(tag)} -->\s*```yaml\n(.*?)```", DOC.read_text("utf-8"), re.DOTALL)
    assert m is not None, f"no example tagged {tag} in {DOC}"
    return yaml.safe_load(m.group(1))


def runs(job: dict[str, Any]) -> list[str]:
    return [step["run"] for step in job["steps"] if "run" in step]


def test_github_actions_example() -> None:
    jobs = example("github-actions")["jobs"]
    assert "heredoc-lsp check --output-format github ." in runs(jobs["check"])
    scan = jobs["code-scanning"]
    assert scan["permissions"]["security-events"] == "write"
    (check,) = [r for r in runs(scan) if r.startswith("heredoc-lsp check")]
    assert "--output-format sarif" in check
    sarif_file = check.rsplit(">", 1)[1].strip()
    (upload,) = [s for s in scan["steps"] if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    assert upload["with"]["sarif_file"] == sarif_file
    assert upload["if"] == "always()"


def test_pre_commit_example_names_declared_hooks() -> None:
    declared = {h["id"] for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    (repo,) = example("pre-commit-config")["repos"]
    assert {h["id"] for h in repo["hooks"]} <= declared


def test_package_example_uploads_what_the_builds_write() -> None:
    job = example("package")["jobs"]["package"]
    script = "\n".join(runs(job))
    assert "python -m build" in script and "twine check --strict dist/*" in script
    assert "client-vscode/build-vsix.sh" in script
    assert 'OUT="dist/heredoc-lsp-$VERSION.vsix"' in (REPO / "client-vscode" / "build-vsix.sh").read_text("utf-8")
    (upload,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["with"]["path"].split() == ["dist/*", "client-vscode/dist/*.vsix"]
