"""A comment meant as a ``# heredoc-lsp: disable=`` directive that silences nothing is a ``bad_directive`` warning
saying what to write (heredoc_lsp.analysis.suppress.bad_directive_diagnostics)."""

from __future__ import annotations

import pytest

from heredoc_lsp.analysis.core import analyze
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.diagnostics import Span


@pytest.mark.parametrize(
    ("directive", "says"),
    [
        ("# heredoc-lsp: disable=no-effect", "did you mean '# heredoc-lsp: disable=no_effect'?"),
        ("# heredoc-lsp: disable", "a bare 'disable' silences nothing"),
        ("#heredoc-lsp:disable-next-line=no_effect", "'disable-next-line' is not supported"),
        ("# heredoc-lsp: disable-next-line=no-effect", "write '# heredoc-lsp: disable=no_effect'"),
        ("  # heredoc-lsp: enable=no_effect", "the form is '# heredoc-lsp: disable=CODE[,CODE]'"),
        ("# heredoc-lsp: disable=no_effect because", "the form is"),
    ],
)
def test_a_directive_that_does_not_parse_is_a_warning_and_the_problem_stays(directive: str, says: str) -> None:
    found = analyze(f"echo start\n{directive}\ncd docs\n", Language.CLI).diagnostics
    assert [d.code for d in found] == ["bad_directive", "no_effect"]
    start = directive.index("#")
    assert found[0].span == Span(1, start, 1, len(directive))
    assert says in found[0].message


def test_a_directive_at_the_end_of_a_command_line() -> None:
    found = analyze("echo start\ncd docs  # heredoc-lsp: disable=no_effect\n", Language.CLI).diagnostics
    bad = [d for d in found if d.code == "bad_directive"]
    assert [d.span for d in bad] == [Span(1, 9, 1, 41)]
    assert "put it on a line of its own above the command: '# heredoc-lsp: disable=no_effect'" in bad[0].message
    assert "no_effect" in {d.code for d in found}


def test_good_directives_bodies_and_plain_comments_are_not_reported() -> None:
    text = (
        "# heredoc-lsp: disable=no_effect\n"
        "# a comment about heredoc-lsp: nothing to see\n"
        "cat > x.cli <<EOF\n# heredoc-lsp: disable-next-line=x\ncd a # heredoc-lsp: disable=no_effect\nEOF\n"
        "echo '#heredoc-lsp:'\n"
    )
    assert analyze(text, Language.CLI).diagnostics == ()


def test_inbox_prose_and_its_suppression() -> None:
    text = "# heredoc-lsp: disable=stray-close\n[/DONE]\n"
    assert [d.code for d in analyze(text, Language.INBOX).diagnostics] == ["bad_directive", "stray_close"]
    quiet = "# heredoc-lsp: disable=bad_directive\n# heredoc-lsp: disable\necho\n"
    assert [d.code for d in analyze(quiet, Language.CLI).suppressed] == ["bad_directive"]
