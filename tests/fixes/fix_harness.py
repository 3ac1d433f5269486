"""Helpers for the quick-fix tests: analyse a text, list the fixes of a diagnostic, apply one and analyse again."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from heredoc_lsp.analysis.core import Analysis, analyze
from heredoc_lsp.cli.fix import apply_edits
from heredoc_lsp.config import Config, parse_config_text
from heredoc_lsp.fixes import Fix, FixContext, Source, fixes_for
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.diagnostics import Diagnostic

CONFIG = parse_config_text(
    '[commands."tool task"]\nparams = ["TITLE", "DESCRIPTION", "TECH_SPECS"]\nrequired = ["TITLE", "DESCRIPTION"]\n',
    Path("heredoc-lsp.toml"),
)
FIXED_ID = "abcd1234"


@dataclass(frozen=True)
class Case:
    """A text, its analysis and the fix context the editor would build for it."""

    text: str
    language: Language
    workspace: Path | None
    analysis: Analysis

    @property
    def ctx(self) -> FixContext:
        a = self.analysis
        return FixContext(
            Source(a.lines, a.newline, self.text.endswith(("\n", "\r"))), self.workspace, lambda: FIXED_ID
        )

    def diagnostic(self, code: str) -> Diagnostic:
        found = [d for d in self.analysis.diagnostics if d.code == code]
        assert found, (code, [d.code for d in self.analysis.diagnostics])
        return found[0]

    def fixes(self, code: str, *, suppressions: bool = False) -> list[Fix]:
        return fixes_for(self.analysis, self.diagnostic(code), self.ctx, suppressions=suppressions)

    def apply(self, fix: Fix) -> Case:
        return case(apply_edits(self.text, fix.edits), self.language, self.workspace)

    def codes(self) -> list[str]:
        return [d.code for d in self.analysis.diagnostics]


def case(text: str, language: Language = Language.CLI, workspace: Path | None = None, config: Config = CONFIG) -> Case:
    return Case(text, language, workspace, analyze(text, language, config, workspace=workspace))


def fix_once(text: str, code: str, language: Language = Language.CLI, workspace: Path | None = None) -> Case:
    """The text after the preferred (first) specific fix for the first ``code`` diagnostic."""
    before = case(text, language, workspace)
    fixes = before.fixes(code)
    assert fixes, f"no fix for {code}"
    return before.apply(fixes[0])
