"""Command output: incremental UTF-8 decoding, escape/control removal, bounded capture, head+tail truncation
(docs/security.md).

- :class:`StreamSanitizer` turns a byte stream into clean text chunk by chunk: strict UTF-8 with one U+FFFD per
  maximal invalid subpart (a character split across chunks is never broken), terminal escape sequences (CSI, OSC,
  DCS/SOS/PM/APC strings, two-character escapes, C1 forms) removed even when split across chunks, and every control
  character except ``\\n`` and ``\\t`` removed.
- :class:`StreamCapture` keeps at most ``head_bytes + tail_bytes`` of a stream in memory whatever the command
  prints; the middle is counted, not kept.
- :func:`truncate_parts` / :meth:`CapturedOutput.display` cut text to a character budget, keeping head and tail
  around a marker that says how much was cut, never splitting a character (nor a combining sequence or an emoji
  sequence at the cut).
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_CAPTURE_BYTES = 1 << 20  # kept per stream: half head, half tail
DEFAULT_DISPLAY_CHARS = 4000
MAX_ESCAPE_HOLD = 4096  # an escape sequence longer than this is junk, not held back any more

_ESCAPES = re.compile(
    r"""
    (?P<partial>                                   # an unfinished sequence at the very end: hold it back
        (?:\x1b\[|\x9b)[0-?]*[ -/]*
      | (?:\x1b\]|\x9d)[^\x07\x1b\x9c]*\x1b?
      | (?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*\x1b?
      | \x1b[ -/]*
    )\Z
  | (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]               # CSI (colours, cursor movement)
  | (?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)   # OSC (titles, hyperlinks), ended by BEL or ST
  | (?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)   # DCS, SOS, PM, APC strings
  | \x1b[ -/]*[0-~]                                # other escapes (charset selection, keypad modes...)
    """,
    re.VERBOSE,
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ESCAPE_START = re.compile(r"[\x1b\x90\x98\x9b\x9d\x9e\x9f]")


class EscapeStripper:
    """Removes escape sequences and control characters from text that arrives in pieces."""

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, text: str) -> str:
        if self._pending:
            text = self._pending + text
            self._pending = ""
        if _ESCAPE_START.search(text):
            held: list[int] = []

            def drop(m: re.Match[str]) -> str:
                if m.lastgroup == "partial":
                    held.append(m.start())
                return ""

            cleaned = _ESCAPES.sub(drop, text)
            if held:
                tail = text[held[0] :]
                if len(tail) <= MAX_ESCAPE_HOLD:
                    self._pending = tail
                else:
                    # Never terminated: treat it as text (its introducer goes with the controls below).
                    cleaned += tail
            text = cleaned
        return _CONTROLS.sub("", text)

    def finish(self) -> str:
        """End of stream: an unfinished escape sequence is dropped."""
        self._pending = ""
        return ""

    def take_pending(self) -> str:
        """The held-back start of an unfinished escape sequence (and forget it)."""
        pending, self._pending = self._pending, ""
        return pending


class StreamSanitizer:
    """Bytes in, clean text out, incrementally (see the module docstring)."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._escapes = EscapeStripper()

    def feed(self, data: bytes) -> str:
        return self._escapes.feed(self._decoder.decode(data))

    def finish(self) -> str:
        """End of stream: an incomplete character at the very end becomes U+FFFD."""
        text = self._escapes.feed(self._decoder.decode(b"", final=True))
        return text + self._escapes.finish()

    def take_pending(self) -> bytes:
        """Stop here without flushing: the bytes not turned into text yet (a cut character, an escape prefix)."""
        undecoded, _ = self._decoder.getstate()
        self._decoder.reset()
        return self._escapes.take_pending().encode("utf-8") + undecoded


def sanitize_bytes(data: bytes) -> str:
    """One-shot :class:`StreamSanitizer`."""
    s = StreamSanitizer()
    return s.feed(data) + s.finish()


# ---------------------------------------------------------------------------------------------------------------
# Bounded capture


@dataclass(frozen=True, slots=True)
class CapturedOutput:
    """What was kept of one stream: all of it (``tail == ""`` and ``omitted_bytes == 0``) or head and tail."""

    head: str
    tail: str = ""
    omitted_bytes: int = 0
    total_bytes: int = 0

    @property
    def truncated(self) -> bool:
        return self.omitted_bytes > 0

    @property
    def text(self) -> str:
        """Everything kept, with a marker where the middle was dropped."""
        if not self.omitted_bytes:
            return self.head + self.tail
        return self.head + omission_marker(0, self.omitted_bytes) + self.tail

    def display(self, budget: int = DEFAULT_DISPLAY_CHARS) -> str:
        """The kept text cut to ``budget`` characters (see :func:`truncate_parts`)."""
        return truncate_parts(self.head, self.tail, self.omitted_bytes, budget)


class StreamCapture:
    """Keeps the first ``head_bytes`` (as clean text) and the last ``tail_bytes`` (raw) of a stream.

    ``on_text`` receives the clean text of the head as it arrives (for live display and redaction: everything
    :attr:`CapturedOutput.head` will hold up to the switch, in order); after the head is full
    the rest is only counted and the last part kept, so memory stays bounded whatever the command prints.
    """

    def __init__(
        self,
        head_bytes: int = DEFAULT_CAPTURE_BYTES // 2,
        tail_bytes: int = DEFAULT_CAPTURE_BYTES // 2,
        on_text: Callable[[str], None] | None = None,
    ) -> None:
        self.total_bytes = 0
        self._head_left = head_bytes
        self._tail_limit = tail_bytes
        self._sanitizer = StreamSanitizer()
        self._head: list[str] = []
        self._tail = bytearray()
        self._dropped = 0
        self._overflowed = False
        self._on_text = on_text

    @property
    def overflowed(self) -> bool:
        """True once the head is full (the stream is now only counted, and its end kept)."""
        return self._overflowed

    def feed(self, data: bytes) -> None:
        self.total_bytes += len(data)
        if self._head_left > 0:
            part = data[: self._head_left] if len(data) > self._head_left else data
            self._head_left -= len(part)
            text = self._sanitizer.feed(part)
            if text:
                self._head.append(text)
                if self._on_text is not None:
                    self._on_text(text)
            if len(part) == len(data):
                return
            data = data[len(part) :]
        if not self._overflowed:
            self._overflowed = True
            # What the head decoder still holds continues in the tail, so nothing is lost at the switch.
            self._tail += self._sanitizer.take_pending()
        self._tail += data
        if len(self._tail) >= 2 * self._tail_limit:
            cut = len(self._tail) - self._tail_limit
            self._dropped += cut
            del self._tail[:cut]

    def finish(self) -> CapturedOutput:
        if not self._overflowed:
            text = self._sanitizer.finish()
            if text:
                self._head.append(text)
                if self._on_text is not None:
                    self._on_text(text)
            return CapturedOutput("".join(self._head), "", 0, self.total_bytes)
        tail = bytes(self._tail)
        if len(tail) > self._tail_limit:
            self._dropped += len(tail) - self._tail_limit
            tail = tail[-self._tail_limit :] if self._tail_limit else b""
        skip = _resync(tail) if self._dropped else 0
        self._dropped += skip
        tail_text = sanitize_bytes(tail[skip:])
        if not self._dropped:
            return CapturedOutput("".join(self._head) + tail_text, "", 0, self.total_bytes)
        return CapturedOutput("".join(self._head), tail_text, self._dropped, self.total_bytes)


def _resync(tail: bytes) -> int:
    """Where clean text starts in bytes cut out of a stream: after a nearby line break, else after a cut character."""
    newline = tail.find(b"\n", 0, 256)
    if newline >= 0:
        return newline + 1
    skip = 0
    while skip < 3 and skip < len(tail) and 0x80 <= tail[skip] <= 0xBF:
        skip += 1
    return skip


# ---------------------------------------------------------------------------------------------------------------
# Truncation on character boundaries


def omission_marker(chars: int, nbytes: int) -> str:
    """The line that replaces a cut: ``[... 1234 characters omitted ...]``."""
    if chars and nbytes:
        what = f"{chars} characters and {nbytes} bytes"
    elif nbytes:
        what = f"{nbytes} bytes"
    else:
        what = f"{chars} characters"
    return f"\n[... {what} omitted ...]\n"


def _extends_previous(ch: str) -> bool:
    """Characters that belong to the character before them (combining marks, joiners, emoji modifiers)."""
    cp = ord(ch)
    return (
        cp == 0x200D
        or 0xFE00 <= cp <= 0xFE0F
        or 0x1F3FB <= cp <= 0x1F3FF
        or 0xE0020 <= cp <= 0xE007F
        or 0xE0100 <= cp <= 0xE01EF
        or (cp >= 0x300 and unicodedata.category(ch) in ("Mn", "Me", "Mc"))
    )


def _is_regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def cluster_boundary(text: str, i: int) -> bool:
    """True when cutting ``text`` at ``i`` keeps every user-visible character whole (approximately UAX #29)."""
    if i <= 0 or i >= len(text):
        return True
    if _extends_previous(text[i]) or text[i - 1] == "\u200d":
        return False
    if _is_regional(text[i]) and _is_regional(text[i - 1]):
        run = 0
        j = i - 1
        while j >= 0 and _is_regional(text[j]):
            run += 1
            j -= 1
        return run % 2 == 0  # between two flags, not inside one
    return not (text[i - 1] == "\r" and text[i] == "\n")


def _cut_back(text: str, i: int) -> int:
    """The nearest boundary at or before ``i`` (searching a few characters at most)."""
    j = i
    while j > 0 and i - j < 32 and not cluster_boundary(text, j):
        j -= 1
    return j if cluster_boundary(text, j) else i


def _cut_forward(text: str, i: int) -> int:
    j = i
    while j < len(text) and j - i < 32 and not cluster_boundary(text, j):
        j += 1
    return j if cluster_boundary(text, j) else i


def truncate_parts(head: str, tail: str, omitted_bytes: int, budget: int = DEFAULT_DISPLAY_CHARS) -> str:
    """Cut captured output (``head``, ``omitted_bytes`` dropped, ``tail``) to about ``budget`` characters.

    The result keeps the beginning and the end around one marker counting what was cut; with a budget of at least
    80 the whole result, marker included, is at most ``budget`` characters.
    """
    budget = max(budget, 0)
    if not omitted_bytes and len(head) + len(tail) <= budget:
        return head + tail
    if not omitted_bytes:
        head, tail = head + tail, ""
    total = len(head) + len(tail)
    if omitted_bytes and total + len(omission_marker(0, omitted_bytes)) <= budget:
        return head + omission_marker(0, omitted_bytes) + tail
    # Reserve room for the longest marker this cut can need, then split what is left between the two ends.
    room = max(budget - len(omission_marker(total, omitted_bytes)), 0)
    if tail:
        keep_tail = min(len(tail), room - min(len(head), room // 2))
        keep_head = min(len(head), room - keep_tail)
        h = _cut_back(head, keep_head)
        t = _cut_forward(tail, len(tail) - keep_tail)
        cut = (len(head) - h) + t
        return head[:h] + omission_marker(cut, omitted_bytes) + tail[t:]
    keep_head = room - room // 2
    keep_tail = room // 2
    h = _cut_back(head, keep_head)
    t = _cut_forward(head, len(head) - keep_tail)
    t = max(t, h)
    return head[:h] + omission_marker(t - h, omitted_bytes) + head[t:]
