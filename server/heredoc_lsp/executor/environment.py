"""The environment a command gets (an allowlist) and the redaction of secret values from its output (SPEC §6)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

ALLOWED_NAMES: tuple[str, ...] = ("PATH", "HOME", "LANG", "TZ", "TMPDIR", "USER")
ALLOWED_PREFIXES: tuple[str, ...] = ("LC_",)
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 4  # shorter values ("1", "yes") would redact ordinary text

_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|CREDENTIAL|_KEY$", re.IGNORECASE)


def looks_secret(name: str) -> bool:
    """``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``, ``*_KEY``, ``*CREDENTIAL*`` (any case)."""
    return _SECRET_NAME.search(name) is not None


def _allowed(name: str) -> bool:
    return name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)


def build_environment(
    parent: Mapping[str, str] | None = None,
    extra_names: Iterable[str] = (),
    overrides: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The allowlisted part of ``parent`` plus the names the config lists in ``env``.

    A secret-looking variable is passed only when it is named in ``extra_names``. ``overrides`` (set by the
    executor itself, e.g. the run tag) win over everything.
    """
    source = os.environ if parent is None else parent
    explicit = set(extra_names)
    env = {k: v for k, v in source.items() if (k in explicit) or (_allowed(k) and not looks_secret(k))}
    env.setdefault("PATH", DEFAULT_PATH)
    if overrides:
        env.update(overrides)
    return env


def secret_values(parent: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of every secret-looking variable of ``parent`` (passed to the command or not), longest first."""
    source = os.environ if parent is None else parent
    found = {v for k, v in source.items() if looks_secret(k) and len(v) >= MIN_SECRET_LENGTH}
    return tuple(sorted(found, key=lambda v: (-len(v), v)))


class Redactor:
    """Replaces secret values with ``[REDACTED]``."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = tuple(sorted({s for s in secrets if s}, key=lambda v: (-len(v), v)))
        self._pattern = re.compile("|".join(re.escape(s) for s in self.secrets)) if self.secrets else None
        self.longest = len(self.secrets[0]) if self.secrets else 0

    def __bool__(self) -> bool:
        return self._pattern is not None

    def redact(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)

    def partial_suffix(self, text: str) -> int:
        """Length of the longest end of ``text`` that is the beginning of a secret (0 when none)."""
        for k in range(min(self.longest - 1, len(text)), 0, -1):
            end = text[-k:]
            if any(s.startswith(end) for s in self.secrets):
                return k
        return 0

    def partial_prefix(self, text: str) -> int:
        """Length of the longest start of ``text`` that is the end of a secret (0 when none)."""
        for k in range(min(self.longest - 1, len(text)), 0, -1):
            start = text[:k]
            if any(s.endswith(start) for s in self.secrets):
                return k
        return 0

    def redact_cut(self, head: str, tail: str) -> tuple[str, str]:
        """Redact two pieces of one stream whose middle was dropped: a secret cut in two is hidden on both sides."""
        if self._pattern is None:
            return head, tail
        head, tail = self.redact(head), self.redact(tail)
        k = self.partial_suffix(head)
        if k >= MIN_SECRET_LENGTH:
            head = head[:-k] + REDACTED
        k = self.partial_prefix(tail)
        if k >= MIN_SECRET_LENGTH:
            tail = REDACTED + tail[k:]
        return head, tail


class StreamRedactor:
    """Redaction of text that arrives in pieces: a possible beginning of a secret is held back until it is decided."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._pending = ""

    def feed(self, text: str) -> str:
        if not self._redactor:
            return text
        text = self._pending + text
        text = self._redactor.redact(text)
        k = self._redactor.partial_suffix(text)
        self._pending = text[len(text) - k :] if k else ""
        return text[: len(text) - k]

    def finish(self) -> str:
        pending, self._pending = self._pending, ""
        return pending
