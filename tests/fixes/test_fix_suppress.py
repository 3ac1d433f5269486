"""heredoc_lsp.fixes.suppress: disable a code on its line or in the whole file."""

from __future__ import annotations

from fix_harness import case

from heredoc_lsp.fixes.suppress import suppression_fixes
from heredoc_lsp.languages import Language


def test_here_and_whole_file_directives_silence_the_diagnostic() -> None:
    before = case("echo é😀\ncd /tmp\n")
    d = before.diagnostic("no_effect")
    here, whole = suppression_fixes(before.analysis, d)
    assert here.title == "Disable no_effect here (# heredoc-lsp: disable=no_effect)"
    assert whole.title == "Disable no_effect in this file"
    assert not here.preferred and not whole.preferred
    assert before.apply(here).text == "echo é😀\n# heredoc-lsp: disable=no_effect\ncd /tmp\n"
    for fix in (here, whole):
        assert before.apply(fix).codes() == []


def test_an_existing_directive_is_extended() -> None:
    before = case("# heredoc-lsp: disable=line_continuation\ncd /tmp\n")
    here = suppression_fixes(before.analysis, before.diagnostic("no_effect"))[0]
    after = before.apply(here)
    assert after.text.startswith("# heredoc-lsp: disable=line_continuation,no_effect\n") and after.codes() == []


def test_one_fix_when_here_is_the_whole_file() -> None:
    # the first command: a directive before it already covers the whole file
    before = case("cd /tmp\n")
    assert len(suppression_fixes(before.analysis, before.diagnostic("no_effect"))) == 1


def test_outboxes_have_no_directives() -> None:
    before = case("=== HEADER ===\nSession: x\n=== HEADER ===\n", Language.OUTBOX)
    for d in before.analysis.diagnostics:
        assert suppression_fixes(before.analysis, d) == []
