"""What the server remembers about runs: the active runs and the last result of every run target.

Everything is keyed by document (percent-decoded URI) and then by :attr:`RunTarget.key`, the target's content
fingerprint (see :mod:`heredoc_lsp.runs.targets`), so results follow their command when lines move and vanish
when the command is edited. Results for keys that no longer occur in a document are pruned when its targets are
recomputed. All access happens on the server's event loop thread.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import unquote

from heredoc_lsp.runs.targets import RunTarget, TargetKey

if TYPE_CHECKING:  # the executor is imported when the first run starts, not when the server starts
    from heredoc_lsp.executor.control import RunControl

OutcomeStatus = Literal["ok", "failed", "timeout", "cancelled", "rejected", "skipped", "running"]


def document_key(uri: str) -> str:
    """The key of a document: its URI percent-decoded (editors differ in what they encode)."""
    return unquote(uri)


@dataclass(frozen=True, slots=True)
class TargetResult:
    """The last result shown on one target.

    ``output`` is the display text (already truncated by the executor); ``stderr_tail`` the last lines of the
    command's stderr as it streamed (for the failure diagnostic); ``summary`` the executor's one-line summary
    (``Ran 'make' (exit code 2)``, ``Created 'a.py'``); ``log_path`` the full log of the run.
    """

    status: OutcomeStatus
    run_id: str
    summary: str = ""
    exit_code: int | None = None
    duration_s: float | None = None
    output: str = ""
    output_truncated: bool = False
    stderr_tail: str = ""
    log_path: Path | None = None
    path: str | None = None  # a file the step created, edited or read (inbox blocks), as written in the reply
    file: Path | None = None  # that file's absolute location (clicking the result opens it)
    finished_at: float = field(default_factory=time.time)
    outbox: Path | None = None  # the outbox a reply run wrote
    counts: tuple[int, int] = (0, 0)  # (ok, not ok) for whole-document results

    @property
    def ok(self) -> bool:
        return self.status in ("ok", "skipped")


@dataclass(slots=True)
class ActiveRun:
    """A run in progress: its control (cancel), the targets it covers and the document it came from."""

    run_id: str
    uri: str
    kind: str
    title: str
    control: RunControl
    keys: frozenset[TargetKey]
    started: float = field(default_factory=time.monotonic)
    current: str = ""  # the command running now (progress text)
    current_line: int | None = None  # its 1-based line, as the executor reports it
    log_path: Path | None = None


class RunState:
    """Active runs and last results, per document."""

    def __init__(self) -> None:
        self._results: dict[str, dict[TargetKey, TargetResult]] = {}
        self.active: dict[str, ActiveRun] = {}
        self.last_log: dict[str, Path] = {}  # document -> log of its latest run
        self.revision = 0  # bumped on every change (views cache on it)

    # -- results -----------------------------------------------------------------------------------------------
    def result(self, uri: str, key: TargetKey) -> TargetResult | None:
        return self._results.get(document_key(uri), {}).get(key)

    def set_result(self, uri: str, key: TargetKey, result: TargetResult) -> None:
        self._results.setdefault(document_key(uri), {})[key] = result
        self.revision += 1

    def has_results(self, uri: str) -> bool:
        """Whether any result is stored for ``uri`` (views skip building run targets when there is none)."""
        return bool(self._results.get(document_key(uri)))

    def results_of(self, uri: str) -> dict[TargetKey, TargetResult]:
        return dict(self._results.get(document_key(uri), {}))

    def prune(self, uri: str, targets: Iterable[RunTarget]) -> bool:
        """Forget results whose target no longer exists in the document; True when something was dropped."""
        stored = self._results.get(document_key(uri))
        if not stored:
            return False
        alive = {t.key for t in targets}
        gone = [k for k in stored if k not in alive and self.running(uri, k) is None]
        for k in gone:
            del stored[k]
        if gone:
            self.revision += 1
        return bool(gone)

    def forget(self, uri: str) -> None:
        self._results.pop(document_key(uri), None)
        self.revision += 1

    # -- active runs -------------------------------------------------------------------------------------------
    def start(self, run: ActiveRun) -> None:
        self.active[run.run_id] = run
        self.revision += 1

    def finish(self, run_id: str) -> ActiveRun | None:
        self.revision += 1
        return self.active.pop(run_id, None)

    def running(self, uri: str, key: TargetKey) -> ActiveRun | None:
        """The active run that covers target ``key`` of ``uri``, if any."""
        doc = document_key(uri)
        for run in self.active.values():
            if document_key(run.uri) == doc and key in run.keys:
                return run
        return None

    def runs_of(self, uri: str) -> list[ActiveRun]:
        doc = document_key(uri)
        return [r for r in self.active.values() if document_key(r.uri) == doc]
