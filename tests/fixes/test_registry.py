"""heredoc_lsp.fixes.registry: which fix answers which code, the order of fixes, and safe vs unsafe (the rules'
``fix_safety``, as ``check --fix`` applies them)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fix_harness import CONFIG, FIXED_ID, case

from heredoc_lsp.cli.fix import fix_document
from heredoc_lsp.fixes import fixes_for
from heredoc_lsp.languages import Language
from heredoc_lsp.rules import RULES
from heredoc_lsp.syntax.diagnostics import Span, error

# One small text per code that has a specific fix; the same texts prove every fixable rule is reachable.
EXAMPLES: dict[str, tuple[Language, str]] = {
    "unclosed_heredoc": (Language.CLI, "cat <<EOF\nbody é😀\n"),
    "invalid_marker": (Language.CLI, "cat <<'ÉOF'\nx\nÉOF\n"),
    "possible_heredoc": (Language.CLI, "cat<<EOF\nx\nEOF\n"),
    "early_close": (Language.CLI, "cat > notes.md <<EOF\nSome text\nEOF\nmore text\nEOF\n"),
    "background_stdin": (Language.CLI, "cat <<EOF > out.txt &\nhello\nEOF\n"),
    "unclosed": (Language.INBOX, '[CREATE_FILE path="a"]\nx\n'),
    "path_outside_workspace": (Language.INBOX, '[READ_FILE path="/etc/passwd" /]\n'),
    "duplicate": (Language.CLI, "tool task <<EOF\n---TITLE---\nt\n---TITLE---\nx\n---DESCRIPTION---\nd\nEOF\n"),
    "collision": (Language.CLI, "tool task <<EOF\n---TITLE---\nt\n  ---DESCRIPTION---\n---DESCRIPTION---\nd\nEOF\n"),
    "missing": (Language.CLI, "tool task <<EOF\n---TITLE---\nt\nEOF\n"),
    "unknown": (Language.CLI, "tool task <<EOF\n---TITLE---\nt\n---DESCRIPTON---\nd\nEOF\n"),
}


def test_every_rule_with_a_fix_safety_has_an_example() -> None:
    assert {code for code, rule in RULES.items() if rule.fix_safety} == set(EXAMPLES)


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_each_code_gets_its_fix_and_the_fix_clears_it(code: str) -> None:
    language, text = EXAMPLES[code]
    before = case(text, language)
    fixes = before.fixes(code)
    assert fixes, code
    assert fixes[0].preferred or code == "possible_heredoc"
    assert before.diagnostic(code) in fixes[0].diagnostics
    after = before.apply(fixes[0])
    assert code not in after.codes(), after.text
    # idempotent: the fixed text has nothing left for this code, so a second pass changes nothing
    again = fix_document(
        after.text, language, CONFIG, selected=lambda c: c == code, unsafe=True, new_id=lambda: FIXED_ID
    )
    assert again.text == after.text and again.fixed == ()


def test_specific_fixes_come_first_then_the_suppressions() -> None:
    before = case("cat <<EOF\nx\n")
    titles = [f.title for f in before.fixes("unclosed_heredoc", suppressions=True)]
    assert titles == [
        "Close the heredoc with a line 'EOF'",
        "Disable unclosed_heredoc here (# heredoc-lsp: disable=unclosed_heredoc)",
    ]
    assert [f.title for f in before.fixes("unclosed_heredoc", suppressions=False)] == titles[:1]


def test_codes_without_a_specific_fix_still_get_suppressions() -> None:
    before = case("echo a\ncd /tmp\n")
    assert before.fixes("no_effect") == []
    assert len(before.fixes("no_effect", suppressions=True)) == 2


def test_unclosed_outside_an_inbox_is_not_an_inbox_block() -> None:
    # only the inbox parser says `unclosed`; the dispatcher must not route the same code name of another
    # language (here a hand-made one on an outbox) to the inbox fix
    before = case("=== HEADER ===\n[MESSAGE]\n", Language.OUTBOX)
    d = error(Span(1, 0, 1, 9), "unclosed", "not closed", data={"closer": "[/MESSAGE]"})
    assert fixes_for(before.analysis, d, before.ctx) == []
    inbox = case("[MESSAGE]\n", Language.INBOX)
    assert [f.title for f in fixes_for(inbox.analysis, d, inbox.ctx, suppressions=False)] == [
        "Close the block with [/MESSAGE]"
    ]


def test_fix_document_applies_only_safe_fixes_unless_asked(tmp_path: Path) -> None:
    text = "cat <<'ÉOF'\nx\nÉOF\ncat <<EOF\nbody\n"
    assert RULES["invalid_marker"].fix_safety == "safe" and RULES["unclosed_heredoc"].fix_safety == "unsafe"
    safe = fix_document(text, Language.CLI, CONFIG, selected=lambda c: True, unsafe=False)
    assert safe.text == "cat <<'EOF'\nx\nEOF\ncat <<EOF\nbody\n"
    assert [d.code for d in safe.fixed] == ["invalid_marker"] and safe.unsafe_available == 1
    both = fix_document(text, Language.CLI, CONFIG, selected=lambda c: True, unsafe=True)
    assert both.text == "cat <<'EOF'\nx\nEOF\ncat <<EOF\nbody\nEOF\n" and both.unsafe_available == 0
    assert [d.code for d in both.analysis.diagnostics] == []
