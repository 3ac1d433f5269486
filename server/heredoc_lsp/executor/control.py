"""The caller's handle on a running run: cancel it, answer its questions (from any thread)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from heredoc_lsp.executor.events import FailureCode, QuestionKind, RunEmitter, new_id


class RunCancelled(Exception):
    """Raised inside a run when it was cancelled; ``reason`` goes into ``run.cancelled``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class QuestionUnanswered(Exception):
    """A question could not be answered: it timed out, or the input it was waiting for was closed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RunControl:
    """Thread-safe control of one run.

    ``cancel`` and ``answer`` may be called from any thread (a stdin reader, an LSP request handler); the run's
    coroutines wait on :meth:`ask` in their own event loop.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reason: str | None = None
        self._failure: tuple[FailureCode, str] | None = None
        self._input_closed: str | None = None
        self._cancel_callbacks: dict[int, tuple[asyncio.AbstractEventLoop, Callable[[str], None]]] = {}
        self._next_callback = 0
        self._questions: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = {}

    @property
    def cancelled(self) -> bool:
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        return self._reason

    @property
    def failure(self) -> tuple[FailureCode, str] | None:
        """Set by :meth:`abort`: the run ends with ``run.failed`` (this code and message) instead of cancelled."""
        return self._failure

    def cancel(self, reason: str = "cancelled") -> None:
        """Ask the run to stop; the first reason is kept. Running commands are killed (whole process tree)."""
        with self._lock:
            if self._reason is not None:
                return
            self._reason = reason or "cancelled"
            callbacks, self._cancel_callbacks = list(self._cancel_callbacks.values()), {}
            questions = list(self._questions.values())
        for loop, callback in callbacks:
            _call_in(loop, callback, self._reason)
        for loop, qfut in questions:
            _resolve(loop, qfut, None, RunCancelled(self._reason))

    def abort(self, code: FailureCode, message: str) -> None:
        """Stop the run like :meth:`cancel`, but report it as ``run.failed`` (e.g. an unsupported protocol version)."""
        with self._lock:
            if self._reason is None:
                self._failure = (code, message)
        self.cancel(message)

    def answer(self, question_id: str, value: Any) -> bool:
        """Answer a pending question; False when no question with that id is waiting."""
        with self._lock:
            entry = self._questions.pop(question_id, None)
        if entry is None:
            return False
        _resolve(entry[0], entry[1], value, None)
        return True

    def close_input(self, reason: str) -> None:
        """No answers can come any more (e.g. EOF on stdin): pending and future questions fail at once."""
        with self._lock:
            self._input_closed = reason
            questions, self._questions = list(self._questions.values()), {}
        for loop, fut in questions:
            _resolve(loop, fut, None, QuestionUnanswered(reason))

    def check(self) -> None:
        """Raise :class:`RunCancelled` when the run was cancelled."""
        if self._reason is not None:
            raise RunCancelled(self._reason)

    def on_cancel(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call ``callback(reason)`` in the current event loop when the run is cancelled (at once if it already is).

        Returns a function that unregisters it.
        """
        loop = asyncio.get_running_loop()
        with self._lock:
            reason = self._reason
            if reason is None:
                key = self._next_callback
                self._next_callback += 1
                self._cancel_callbacks[key] = (loop, callback)
        if reason is not None:
            loop.call_soon(callback, reason)
            return _nothing

        def remove() -> None:
            with self._lock:
                self._cancel_callbacks.pop(key, None)

        return remove

    async def ask(
        self,
        emitter: RunEmitter,
        kind: QuestionKind,
        text: str,
        *,
        options: list[Any] | None = None,
        default: Any = None,
        timeout_s: float | None = None,
    ) -> Any:
        """Emit ``run.question`` and wait for :meth:`answer`.

        Raises :class:`RunCancelled` when the run is cancelled meanwhile and :class:`QuestionUnanswered` on timeout
        or closed input.
        """
        self.check()
        loop = asyncio.get_running_loop()
        question_id = new_id("q", 4)
        fut: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            closed = self._input_closed
            if closed is None:
                self._questions[question_id] = (loop, fut)
        if closed is not None:
            raise QuestionUnanswered(closed)
        try:
            emitter.question(question_id, kind, text, options=options, default=default)
            try:
                return await asyncio.wait_for(fut, timeout_s)
            except asyncio.TimeoutError:
                raise QuestionUnanswered(f"no answer to question {question_id} within {timeout_s:g}s") from None
        finally:
            with self._lock:
                self._questions.pop(question_id, None)


def _nothing() -> None:
    return None


def _call_in(loop: asyncio.AbstractEventLoop, callback: Callable[[str], None], reason: str) -> None:
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        loop.call_soon(callback, reason)
    elif not loop.is_closed():
        loop.call_soon_threadsafe(callback, reason)


def _resolve(loop: asyncio.AbstractEventLoop, fut: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
    def settle() -> None:
        if fut.done():
            return
        if exc is not None:
            fut.set_exception(exc)
        else:
            fut.set_result(value)

    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        settle()
    elif not loop.is_closed():
        loop.call_soon_threadsafe(settle)
