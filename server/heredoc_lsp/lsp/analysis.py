"""The per-document analysis cache: parse once per document version, shared by every feature.

``server.analyses.get(uri)`` returns a :class:`Snapshot` of the document's *current* version: the parse tree and
the final diagnostics (suppressions applied, workspace checks included), computed by the analysis core's
:func:`~heredoc_lsp.analysis.incremental.analyze_edit`. It is computed at most once per version and configuration;
diagnostics, code actions and the navigation features all read the same snapshot. ``.cli`` scripts are re-parsed
incrementally from the nearest safe line before the edit.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from heredoc_lsp.analysis.core import Analysis, document_workspace
from heredoc_lsp.analysis.incremental import Analysed, analyze_edit
from heredoc_lsp.languages import Language
from heredoc_lsp.lsp.documents import Document, DocumentStore, LineEdit
from heredoc_lsp.lsp.work import WORK

if TYPE_CHECKING:
    from heredoc_lsp.config import Config
    from heredoc_lsp.syntax.diagnostics import Diagnostic

log = logging.getLogger(__name__)

_SERIALS = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Changed:
    """How a snapshot differs from the snapshot ``since`` (a serial) of the same document.

    Items starting on lines ``[start, stop)`` are new; the items before ``start`` are the same; the items at or
    after ``stop`` are the old ones at ``line - delta``. ``start`` and ``stop`` are item starts of both parses.
    """

    since: int
    start: int
    stop: int
    delta: int

    def then(self, later: Changed) -> Changed:
        """``self`` followed by ``later`` (whose ``since`` is the snapshot ``self`` leads to)."""
        start = min(self.start, later.start)
        if self.stop <= later.start:
            stop = self.stop
        elif self.stop >= later.stop - later.delta:
            stop = self.stop + later.delta
        else:
            stop = later.stop
        return Changed(self.since, start, max(stop, later.stop), self.delta + later.delta)


def _touches(old: tuple[int, ...], new: tuple[int, ...], edit: LineEdit) -> bool:
    """Whether ``edit`` removed or wrote a line that may hold a suppression directive."""
    lo = bisect_left(old, edit.start)
    if lo < len(old) and old[lo] < edit.start + edit.removed:
        return True
    lo = bisect_left(new, edit.start)
    return lo < len(new) and new[lo] < edit.start + edit.inserted


HISTORY = 64  # changes remembered per document (a feature not asked for longer rebuilds its answer)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One analysed version of an open document.

    ``lines`` are that version's lines (no terminators); convert positions against them. ``analysis`` is the core's
    :class:`~heredoc_lsp.analysis.core.Analysis` (``tree``, final ``diagnostics``, ``suppressed``, ``newline``,
    ``workspace``, ``suppression_edit()``).
    """

    uri: str
    version: int | None
    revision: int
    serial: int  # unique per snapshot in this process (the pull diagnostics resultId)
    generation: int
    language: Language
    path: str | None
    final_newline: bool  # whether the last line has a terminator (where an insertion at the end goes)
    config: Config
    analysis: Analysis
    directives: tuple[int, ...] = ()  # lines that may hold a suppression directive (kept up to date cheaply)
    changed: Changed | None = None  # what changed since the previous snapshot (None: parsed from scratch)

    @property
    def lines(self) -> Sequence[str]:
        return self.analysis.lines

    @property
    def tree(self) -> Any:
        return self.analysis.tree

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.analysis.diagnostics


def _newline_of(doc: Document) -> str:
    return doc.endings[0] if doc.endings and doc.endings[0] else "\n"


class ConfigSource(Protocol):
    """What the analyses read of the settings: the configuration of a document and its workspace folder."""

    @property
    def generation(self) -> int: ...
    def config_for(self, doc: Document) -> Config: ...
    def workspace_root_for(self, path: str | None) -> Path | None: ...


class Analyses:
    """Latest snapshot per open document, brought up to date on demand."""

    def __init__(self, documents: DocumentStore, settings: ConfigSource) -> None:
        self.documents = documents
        self.settings = settings
        self._snapshots: dict[str, Snapshot] = {}
        self._pending: dict[str, LineEdit] = {}
        self._history: dict[str, list[Changed]] = {}  # per document, the changes of its last snapshots, in order

    def note_edit(self, doc: Document, edit: LineEdit) -> None:
        key = DocumentStore.key(doc.uri)
        previous = self._pending.get(key)
        self._pending[key] = edit if previous is None else previous.then(edit)

    def forget(self, uri: str) -> None:
        key = DocumentStore.key(uri)
        self._snapshots.pop(key, None)
        self._pending.pop(key, None)
        self._history.pop(key, None)

    def changes_since(self, snap: Snapshot, serial: int) -> Changed | None:
        """What changed between snapshot ``serial`` and ``snap`` (both of one document); None when unknown."""
        if serial == snap.serial:
            return Changed(serial, 0, 0, 0)
        history = self._history.get(DocumentStore.key(snap.uri), [])
        if not history or snap.changed is None or history[-1] is not snap.changed:
            return None
        for k in range(len(history) - 1, -1, -1):
            if history[k].since == serial:
                combined = history[k]
                for later in history[k + 1 :]:
                    combined = combined.then(later)
                return combined
        return None

    async def latest(self, uri: str) -> Snapshot | None:
        """:meth:`get` for an async handler: when the document was never parsed (just opened), the event loop
        reads what arrived with it first and gets a turn after the parse, so that the whole parse is a stall of
        its own, added neither to the open nor to the handlers' own work."""
        if self.peek(uri) is None:
            await asyncio.sleep(0)
            self.get(uri)
            await asyncio.sleep(0)  # and every handler that waited for the parse continues after another turn
        return self.get(uri)

    def peek(self, uri: str) -> Snapshot | None:
        """The last snapshot computed, current or not (never computes)."""
        return self._snapshots.get(DocumentStore.key(uri))

    def workspace_for(self, doc: Document, config: Config) -> Path | None:
        """The root an inbox reply's paths are checked against (:func:`~heredoc_lsp.analysis.core.document_workspace`);
        for other documents the workspace folder holding them."""
        folder = self.settings.workspace_root_for(doc.path)
        if doc.language is not Language.INBOX:
            return folder
        return document_workspace(Path(doc.path) if doc.path else None, doc.language, folder=folder, config=config)

    def get(self, uri: str) -> Snapshot | None:
        """The snapshot of the document's current version (None when it is not open or not one of ours)."""
        doc = self.documents.get(uri)
        if doc is None or doc.language is None:
            return None
        key = DocumentStore.key(uri)
        generation = self.settings.generation
        snap = self._snapshots.get(key)
        if snap is not None and snap.revision == doc.revision and snap.generation == generation:
            return snap
        config = self.settings.config_for(doc)
        workspace = self.workspace_for(doc, config)
        if (
            snap is not None
            and snap.revision == doc.revision
            and snap.config == config
            and snap.analysis.workspace == workspace
        ):
            # New settings (the client's first answer, typically) that change nothing for this document: the same
            # snapshot, serial included, so no feature rebuilds its answer.
            snap = self._snapshots[key] = replace(snap, generation=generation)
            return snap
        edit = self._pending.pop(key, None)
        previous = None
        if snap is not None and snap.generation == generation and snap.language is doc.language:
            previous = Analysed(snap.analysis, snap.directives)
        analysed = analyze_edit(
            tuple(doc.lines),
            doc.language,
            config,
            newline=_newline_of(doc),
            workspace=workspace,
            previous=previous,
            edit=edit,
            # Fresh from didOpen (or a full replacement), the document knows whether its text mentions directives.
            maybe_directives=doc.maybe_directives if doc.revision == 0 else True,
        )
        analysis, directives, reparse = analysed.analysis, analysed.directives, analysed.reparse
        changed: Changed | None = None
        if reparse is None:
            WORK["full_parses"] += 1
        else:
            WORK["lines_scanned"] += reparse.scanned
            if snap is not None and edit is not None and not _touches(snap.directives, directives, edit):
                # (an edited suppression directive may change diagnostics anywhere: then nothing is known)
                changed = Changed(snap.serial, reparse.resume, reparse.stop, reparse.delta)
        snap = Snapshot(
            uri=doc.uri,
            version=doc.version,
            revision=doc.revision,
            serial=next(_SERIALS),
            generation=generation,
            language=doc.language,
            path=doc.path,
            final_newline=doc.ends_with_newline or not doc.lines,
            config=config,
            analysis=analysis,
            directives=directives,
            changed=changed,
        )
        self._snapshots[key] = snap
        if changed is None:
            self._history.pop(key, None)
        else:
            history = self._history.setdefault(key, [])
            history.append(changed)
            if len(history) > HISTORY:
                del history[0]
        return snap
