"""An unknown code in a ``# heredoc-lsp: disable=`` directive is itself a warning (``unknown_code``)."""

from __future__ import annotations

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.diagnostics import Span


def test_misspelt_code_is_reported_at_its_column_even_in_a_clean_file() -> None:
    text = "echo hi\n# heredoc-lsp: disable=possible_heredoc, posible_heredoc\necho é\n"
    found = analyze(text, Language.CLI).diagnostics
    assert [(d.code, d.span) for d in found] == [("unknown_code", Span(1, 41, 1, 56))]
    assert "posible_heredoc" in found[0].message


def test_known_codes_and_unknown_code_itself_can_be_disabled() -> None:
    assert analyze("# heredoc-lsp: disable=duplicate,no_effect\necho\n", Language.CLI).diagnostics == ()
    text = "# heredoc-lsp: disable=unknown_code\n# heredoc-lsp: disable=nope\necho\n"
    result = analyze(text, Language.CLI)
    assert result.diagnostics == ()
    assert [d.code for d in result.suppressed] == ["unknown_code"]


def test_inbox_prose_directive() -> None:
    text = "# heredoc-lsp: disable=stray_closer\n[/DONE]\n"
    assert [d.code for d in analyze(text, Language.INBOX).diagnostics] == ["unknown_code", "stray_close"]
