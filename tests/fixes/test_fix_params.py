"""heredoc_lsp.fixes.params: UUID delimiters for a duplicate or collision, missing parameters, unknown names."""

from __future__ import annotations

from fix_harness import FIXED_ID, case

from heredoc_lsp.fixes import FixContext, Source
from heredoc_lsp.fixes.params import closest_name, fresh_id, placeholder

TASK = "tool task <<EOF\n"


def test_duplicate_switches_the_real_delimiters_to_uuid_form() -> None:
    before = case(TASK + "---TITLE---\nt é😀\n---TITLE---\nx\n---DESCRIPTION---\nd\nEOF\n")
    (fix,) = before.fixes("duplicate")
    assert fix.preferred and fix.title == f"Switch to UUID-prefixed delimiters (---(UUID:{FIXED_ID})NAME---)"
    after = before.apply(fix)
    # the colliding line stays as it was: from now on it is content
    assert after.text == (
        TASK + f"---(UUID:{FIXED_ID})TITLE---\nt é😀\n---TITLE---\nx\n---(UUID:{FIXED_ID})DESCRIPTION---\nd\nEOF\n"
    )
    assert after.codes() == []


def test_fresh_id_avoids_ids_in_the_body_case_insensitively() -> None:
    ids = iter(["ABCD1234", "abcd1234", "0000ffff"])
    ctx = FixContext(Source([]), None, lambda: next(ids))
    assert fresh_id(["x abcd1234 y"], ctx) == "0000ffff"


def test_missing_adds_delimiter_and_placeholder_or_all_at_once() -> None:
    before = case(TASK + "---TECH_SPECS---\nt\nEOF\n")
    one, both = before.fixes("missing")
    assert (one.title, one.preferred) == ("Add parameter 'TITLE'", True)
    assert (both.title, both.preferred) == ("Add all missing parameters (TITLE, DESCRIPTION)", False)
    assert len(both.diagnostics) == 2
    assert before.apply(one).codes() == ["missing"]  # DESCRIPTION still missing
    after = before.apply(both)
    assert after.text == (
        TASK + "---TECH_SPECS---\nt\n---TITLE---\nTODO: <title>\n---DESCRIPTION---\nTODO: <description>\nEOF\n"
    )
    assert after.codes() == []


def test_missing_in_a_uuid_body_keeps_the_id() -> None:
    before = case(TASK + "---(UUID:1234abcd)TITLE---\nt\nEOF\n")
    (fix,) = before.fixes("missing")
    after = before.apply(fix)
    assert "---(UUID:1234abcd)DESCRIPTION---\nTODO: <description>\n" in after.text and after.codes() == []


def test_unknown_name_is_replaced_by_the_closest_unused_allowed_one() -> None:
    before = case(TASK + "---TITLE---\nt\n---DESCRIPTON---\nd\nEOF\n")
    (fix,) = before.fixes("unknown")
    assert fix.title == "Replace 'DESCRIPTON' with 'DESCRIPTION'"
    assert before.apply(fix).codes() == []


def test_closest_name() -> None:
    assert closest_name("TITEL", ["TITLE", "TECH_SPECS"]) == "TITLE"
    assert closest_name("TITEL", ["TITLE", "TECH_SPECS"], used=["TITLE"]) == "TECH_SPECS"
    assert closest_name("X", ["TITLE"], used=["TITLE"]) == "TITLE"  # every name used: still the closest
    assert closest_name("X", []) is None


def test_placeholder_is_never_empty() -> None:
    assert placeholder("TECH_SPECS") == "TODO: <tech specs>"
