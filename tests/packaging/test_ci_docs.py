"""docs/ci.md's examples are valid YAML and agree with the repository: the hooks they name exist, the SARIF file the
check writes is the one uploaded, and the artifact paths are where the builds put their files."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import yaml
from packaging_harness import REPO, run

DOC = REPO / "docs" / "ci.md"


def example(tag: str) -> Any:
    m = re.search(rf"<!-- ci-example: {re.escape(tag)} -->\s*```yaml\n(.*?)```", DOC.read_text("utf-8"), re.DOTALL)
    assert m is not None, f"no example tagged {tag} in {DOC}"
    return yaml.safe_load(m.group(1))


def runs(job: dict[str, Any]) -> list[str]:
    return [step["run"] for step in job["steps"] if "run" in step]


def run_step(line: str, cwd: Path) -> tuple[int, str]:
    """A documented ``heredoc-lsp ...`` step (``> FILE`` redirection included) with this checkout's code; the exit
    code and the standard output."""
    command, _, redirect = line.partition(">")
    argv = shlex.split(command)
    assert argv[0] == "heredoc-lsp", line
    result = run([sys.executable, "-m", "heredoc_lsp", *argv[1:]], cwd, dict(os.environ))
    if redirect:
        (cwd / redirect.strip()).write_text(result.stdout, encoding="utf-8")
    return result.returncode, result.stdout


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


def test_github_actions_steps_run(tmp_path: Path) -> None:
    """The example's commands on a workspace with one error: exit 1 (the job fails), an annotation for the error,
    and a SARIF 2.1.0 log holding it (uploaded even so: ``if: always()``)."""
    jobs = example("github-actions")["jobs"]
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.cli").write_text("echo start\ncat <<EOF\nbody\n", encoding="utf-8")
    (tmp_path / "good.cli").write_text("echo ok\n", encoding="utf-8")

    (annotate,) = [r for r in runs(jobs["check"]) if r.startswith("heredoc-lsp check")]
    code, out = run_step(annotate, tmp_path)
    assert code == 1
    assert out.startswith("::error file=sub/bad.cli,line=2,col=7,"), out
    assert "good.cli" not in out

    (scan,) = [r for r in runs(jobs["code-scanning"]) if r.startswith("heredoc-lsp check")]
    code, _ = run_step(scan, tmp_path)
    assert code == 1
    sarif = json.loads((tmp_path / "heredoc-lsp.sarif").read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0"
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "unclosed_heredoc"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "sub/bad.cli"


def test_pre_commit_example_is_the_declared_hook() -> None:
    declared = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    (repo,) = example("pre-commit-config")["repos"]
    assert repo["repo"] == "local"  # no release tag exists for a rev: to name
    for hook in repo["hooks"]:
        same = declared[hook["id"]]
        assert (hook["entry"], hook["files"], hook["types"]) == (same["entry"], same["files"], same["types"])


def test_pre_commit_example_runs(tmp_path: Path) -> None:
    """The documented local hook with the real pre-commit, ``heredoc-lsp`` on PATH as the README installs it."""
    project = tmp_path / "project"
    project.mkdir()
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(example("pre-commit-config")), encoding="utf-8")
    (project / "good.cli").write_text("echo ok\n", encoding="utf-8")
    (project / "notes.txt").write_text("cat <<EOF\n", encoding="utf-8")  # not a format the hook takes
    env = dict(os.environ) | {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    pre_commit = [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"]
    assert run(["git", "init", "-q"], project, env).returncode == 0
    assert run(["git", "add", "-A"], project, env).returncode == 0
    good = run(pre_commit, project, env)
    assert good.returncode == 0 and "Passed" in good.stdout, good.stdout + good.stderr
    (project / "bad.cli").write_text("echo start\ncat <<EOF\nbody\n", encoding="utf-8")
    assert run(["git", "add", "-A"], project, env).returncode == 0
    bad = run(pre_commit, project, env)
    assert bad.returncode == 1 and "bad.cli:2:7: error[unclosed_heredoc]" in bad.stdout, bad.stdout + bad.stderr


def test_package_example_uploads_what_the_builds_write() -> None:
    job = example("package")["jobs"]["package"]
    script = "\n".join(runs(job))
    assert "python -m build" in script and "twine check --strict dist/*" in script
    assert "client-vscode/build-vsix.sh" in script
    assert 'OUT="dist/heredoc-lsp-$VERSION.vsix"' in (REPO / "client-vscode" / "build-vsix.sh").read_text("utf-8")
    (upload,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["with"]["path"].split() == ["dist/*", "client-vscode/dist/*.vsix"]
