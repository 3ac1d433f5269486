"""The reply ledger and the settle rule of ``agent watch`` (executor/agent.py), tested directly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from heredoc_lsp.executor.agent import (
    AgentPaths,
    LedgerError,
    ReplyLedger,
    ReplyRecord,
    SettleTracker,
    guard_inbox,
    inbox_snapshot,
)


@pytest.fixture
def paths(tmp_path: Path) -> AgentPaths:
    for folder in ("inbox", "outbox", "sessions"):
        (tmp_path / folder).mkdir()
    return AgentPaths(tmp_path)


def test_a_reply_is_claimed_once(paths: AgentPaths) -> None:
    ledger = ReplyLedger(paths)
    assert ledger.claim(ReplyRecord("d1", "r.txt", "started")) is None
    again = ledger.claim(ReplyRecord("d1", "r.txt", "started"))
    assert again is not None and again.state == "started"
    ledger.mark(ReplyRecord("d1", "r.txt", "applied"))
    applied = ledger.claim(ReplyRecord("d1", "r.txt", "started"))
    assert applied is not None and applied.state == "applied"
    assert [r.state for r in ledger.records()] == ["applied"]  # one record per reply
    assert ledger.claim(ReplyRecord("d2", "r.txt", "started")) is None  # other content: another reply


def test_a_declined_reply_may_be_applied_later_by_a_person(paths: AgentPaths) -> None:
    ledger = ReplyLedger(paths)
    ledger.mark(ReplyRecord("d1", "r.txt", "declined"))
    found = ledger.find("d1", "r.txt")
    assert found is not None and found.state == "declined"
    assert ledger.claim(ReplyRecord("d1", "r.txt", "started")) is None


def test_untrusted_records_are_never_replaced(paths: AgentPaths) -> None:
    ledger = ReplyLedger(paths)
    ledger.mark(ReplyRecord("d1", "zz.txt", "untrusted", note="written by a command"))
    assert ledger.claim(ReplyRecord("d1", "zz.txt", "started")) is None
    ledger.mark(ReplyRecord("d1", "zz.txt", "applied"))
    untrusted = ledger.untrusted("d1")
    assert untrusted is not None and untrusted.note == "written by a command"
    found = ledger.find("d1", "zz.txt")
    assert found is not None and found.state == "applied"


def test_a_broken_ledger_stops_everything(paths: AgentPaths) -> None:
    paths.ledger.parent.mkdir()
    paths.ledger.write_text('{"replies": [{"digest": "d", "name": "r.txt", "state": "maybe"}]}')
    with pytest.raises(LedgerError, match="unknown state"):
        ReplyLedger(paths).find("d", "r.txt")
    paths.ledger.write_text("{not json")
    with pytest.raises(LedgerError, match="not valid"):
        ReplyLedger(paths).claim(ReplyRecord("d", "r.txt", "started"))


def test_settle_waits_for_an_unchanged_file() -> None:
    tracker = SettleTracker(1.0)
    sig = (1, 100, 10)
    assert tracker.update({"r.txt": sig}, 0.0) == ([], 1)
    assert tracker.update({"r.txt": sig}, 0.5) == ([], 1)
    assert tracker.update({"r.txt": (1, 200, 20)}, 0.9) == ([], 1)  # grew: the clock starts again
    assert tracker.update({"r.txt": (1, 200, 20)}, 1.8) == ([], 1)
    assert tracker.update({"r.txt": (1, 200, 20)}, 2.0) == (["r.txt"], 0)
    assert tracker.update({}, 2.1) == ([], 0)


def test_guard_inbox_marks_what_appeared_or_changed(paths: AgentPaths) -> None:
    (paths.inbox / "mine.txt").write_text("[DONE]\n[/DONE]\n")
    (paths.inbox / "edited.txt").write_text("old\n")
    os.utime(paths.inbox / "edited.txt", ns=(1, 1))
    with guard_inbox(paths.root, "script s.cli"):
        (paths.inbox / "zz.txt").write_text("forged\n")
        (paths.inbox / "edited.txt").write_text("new!\n")
    ledger = ReplyLedger(paths)
    assert sorted(r.name for r in ledger.records() if r.state == "untrusted") == ["edited.txt", "zz.txt"]
    assert all("while script s.cli was executing" in r.note for r in ledger.records())
    assert set(inbox_snapshot(paths)) == {"mine.txt", "edited.txt", "zz.txt"}
