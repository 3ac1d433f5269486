"""The text front end of a run: an event sink that shows progress (rich on a terminal, plain lines otherwise).

On a terminal: a live line with a spinner, the running command and its elapsed time, the last lines of its
output streaming underneath; after each command its result and (cut) output; at the end a summary table.
Without a terminal: plain lines only (no colours, no cursor movement), one per command and result.

Every text shown comes from a reply, a script or a file name, all written by someone else: it goes through
:func:`heredoc_lsp.syntax.visible.visible` (escape sequences and hidden characters shown, never obeyed) and is never
read as rich markup (``Text``, not markup strings; the confirmation question too).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.prompt import Confirm
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.events import (
    ARTIFACT,
    CANCELLED,
    COMPLETED,
    FAILED,
    PROGRESS,
    QUESTION,
    STARTED,
    RunEvent,
)
from heredoc_lsp.executor.model import CANCEL_LABELS, command_result_text, short_command
from heredoc_lsp.syntax.text import split_lines, split_lines_keepends
from heredoc_lsp.syntax.visible import visible

LIVE_LINES = 12
_STYLE = {"ok": "green", "skipped": "yellow", "cancelled": "yellow"}


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in split_lines(text))


def ask_on(console: Console) -> Callable[[str], bool]:
    """A yes/no question on ``console`` whose text is shown as it is: escapes made visible, never rich markup (a
    file named ``deploy[link=https://x.invalid]now.cli`` is that name, not a hyperlink)."""

    def ask(text: str) -> bool:
        return Confirm.ask(Text(visible(text, one_line=True)), default=False, console=console)

    return ask


class _LiveView:
    """What the live region shows: the running command, its elapsed time, the end of its output."""

    def __init__(self) -> None:
        self.title = ""
        self.started = time.monotonic()
        self.lines: deque[str] = deque(maxlen=LIVE_LINES)
        self.partial = ""
        self.spinner = Spinner("dots")

    def start(self, title: str) -> None:
        self.title = visible(title, one_line=True)
        self.started = time.monotonic()
        self.lines.clear()
        self.partial = ""

    def feed(self, text: str) -> None:
        for piece in split_lines_keepends(self.partial + text):
            if piece.endswith(("\n", "\r")):
                self.lines.append(piece.rstrip("\r\n"))
                self.partial = ""
            else:
                self.partial = piece

    def __rich__(self) -> RenderableType:
        elapsed = time.monotonic() - self.started
        head = Text.assemble((self.title, "bold"), (f"  {elapsed:5.1f}s", "cyan"))
        self.spinner.text = head
        shown = [*self.lines, self.partial] if self.partial else list(self.lines)
        body = Text("\n".join(visible(line[:200], one_line=True) for line in shown), style="dim") if shown else Text("")
        return Group(self.spinner, body)


class TextDisplay:
    """An event sink printing a run for people. ``ask`` answers confirmations (None: not interactive)."""

    def __init__(
        self,
        console: Console,
        control: RunControl,
        *,
        live: bool,
        ask: Callable[[str], bool] | None = None,
        err_console: Console | None = None,
    ) -> None:
        self.console = console
        self.err = err_console or Console(stderr=True, highlight=False)
        self.control = control
        self.live_enabled = live
        self.ask = ask
        self._view = _LiveView()
        self._live: Live | None = None
        self._results: list[dict[str, Any]] = []
        self._lock = threading.RLock()
        self.source: str | None = None

    # -- the sink -----------------------------------------------------------------------------------------------

    def __call__(self, event: RunEvent) -> None:
        with self._lock:
            handler = {
                STARTED: self._started,
                PROGRESS: self._progress,
                QUESTION: self._question,
                ARTIFACT: self._artifact,
                COMPLETED: self._completed,
                FAILED: self._failed,
                CANCELLED: self._cancelled,
            }.get(event.type)
            if handler is not None:
                handler(dict(event.payload))

    def _print(self, text: str | Text, *, style: str | None = None) -> None:
        if isinstance(text, str):
            self.console.print(Text(visible(text), style=style or ""), soft_wrap=True)
        else:
            self.console.print(text, soft_wrap=True)

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _started(self, p: dict[str, Any]) -> None:
        self.source = str(p.get("path", ""))
        what = "Applying" if p.get("kind") == "reply" else "Running"
        self._print(f"{what} {self.source}", style="bold")

    def _progress(self, p: dict[str, Any]) -> None:
        kind = p.get("kind")
        if kind == "command":
            total = p.get("total") or 0
            index = int(p.get("index", 0)) + 1
            where = f"line {p['line']}: " if p.get("line") else ""
            title = f"[{index}/{total}] {where}{p.get('command', '')}"
            if self.live_enabled:
                self._view.start(title)
                if self._live is None:
                    self._live = Live(self._view, console=self.console, transient=True, refresh_per_second=8)
                    self._live.start()
            else:
                self._print(title)
        elif kind in ("stdout", "stderr"):
            if self._live is not None:
                self._view.feed(str(p.get("text", "")))
        elif kind == "status":
            result = p.get("result")
            if isinstance(result, dict):
                self._stop_live()
                self._result(result)
            elif p.get("text"):
                self._stop_live()
                self._print(f"  {p['text']}", style="dim" if self.live_enabled else None)

    def _result(self, r: dict[str, Any]) -> None:
        self._results.append(r)
        status = str(r.get("status", ""))
        style = _STYLE.get(status, "red") if self.live_enabled else None
        reason = self.control.reason
        if r.get("kind") == "command":  # a .cli line, in the script's own words (with its time)
            self._print(command_result_text(r, cancel_reason=reason), style=style)
        elif status == "cancelled" and reason in CANCEL_LABELS:  # Ctrl-C or SIGTERM, not a failure of the step
            shown = short_command(str(r.get("command") or r.get("path") or ""))
            self._print(f"[{CANCEL_LABELS[reason]}] {r.get('kind', '')}: {shown}", style=style)
        else:
            took = f" ({r['duration_s']:.1f}s)" if self.live_enabled and r.get("duration_s", 0) >= 0.05 else ""
            self._print(f"{r.get('text', '')}{took}", style=style)
        output = str(r.get("output", ""))
        if output:
            if r.get("kind") in ("MESSAGE", "DONE"):
                self._print(_indent(output, "  | "), style="bold" if self.live_enabled else None)
            else:
                self._print(_indent(output.rstrip("\n")), style="dim" if self.live_enabled else None)

    def _question(self, p: dict[str, Any]) -> None:
        self._stop_live()
        qid = str(p.get("question_id"))
        text = str(p.get("text", ""))
        if self.ask is None:
            self._print(f"? {visible(text, one_line=True)} (no terminal to answer on)")
            return
        ask = self.ask

        def prompt() -> None:
            try:
                answer = ask(text)
            except (EOFError, KeyboardInterrupt):
                answer = False
            self.control.answer(qid, "yes" if answer else "no")

        threading.Thread(target=prompt, name="heredoc-lsp-question", daemon=True).start()

    def _artifact(self, p: dict[str, Any]) -> None:
        if p.get("kind") == "outbox":
            self._stop_live()
            self._print(
                f"Next outbox: {p.get('path', p.get('name'))}", style="bold cyan" if self.live_enabled else None
            )

    def _summary_table(self) -> None:
        if not self.live_enabled or not self._results:
            return
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for col in ("#", "line", "step", "status", "time", "summary"):
            table.add_column(col, justify="right" if col in ("#", "line", "time") else "left", overflow="fold")
        for r in self._results:
            status = str(r.get("status", ""))
            table.add_row(
                str(int(r.get("index", 0)) + 1),
                str(r.get("line", "")),
                str(r.get("kind", "")),
                Text(status, style=_STYLE.get(status, "red")),
                f"{r.get('duration_s', 0):.1f}s",
                escape(visible(self._summary_of(r), one_line=True)),
            )
        self.console.print(table)

    def _summary_of(self, r: dict[str, Any]) -> str:
        if r.get("kind") == "command":
            return command_result_text(r, cancel_reason=self.control.reason, timed=False).partition("] ")[2]
        return str(r.get("summary", ""))

    def _completed(self, p: dict[str, Any]) -> None:
        self._stop_live()
        self._summary_table()
        self._print(f"Completed: {p.get('summary', '')}", style="bold green" if self.live_enabled else None)

    def _failed(self, p: dict[str, Any]) -> None:
        self._stop_live()
        self._summary_table()
        for d in p.get("diagnostics", []) or []:
            if d.get("severity") == "error":
                self.err.print(
                    Text(visible(f"{self.source}:{d['line']}:{d['column']}: error[{d['code']}] {d['message']}")),
                    soft_wrap=True,
                )
        message = f"Failed ({p.get('code')}): {p.get('message', '')}"
        if p.get("refused"):
            message = f"Refused: {p.get('message', '')}"
        self._print(message, style="bold red" if self.live_enabled else None)

    def _cancelled(self, p: dict[str, Any]) -> None:
        self._stop_live()
        self._summary_table()
        reason = str(p.get("reason", ""))
        text = f"{reason.capitalize()}." if reason in CANCEL_LABELS else f"Cancelled: {reason}"
        self._print(text, style="bold yellow" if self.live_enabled else None)

    def close(self) -> None:
        with self._lock:
            self._stop_live()
