"""The environment a command gets (an allowlist) and the redaction of secret values from its output
(docs/security.md)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

ALLOWED_NAMES: tuple[str, ...] = ("PATH", "HOME", "LANG", "TZ", "TMPDIR", "USER")
ALLOWED_PREFIXES: tuple[str, ...] = ("LC_",)
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 4  # shorter values ("1", "yes") would redact ordinary text

_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASS|CREDENTIAL|_KEY$", re.IGNORECASE)
_URL_NAME = re.compile(r"_URL$", re.IGNORECASE)
_URL_PASSWORD = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#@:]*:(?P<password>[^/?#@]+)@")


def url_password(value: str) -> str | None:
    """The password of a URL such as ``postgres://user:pw@host/db`` (None when it has none)."""
    m = _URL_PASSWORD.match(value)
    return m.group("password") if m else None


def looks_secret(name: str, value: str = "") -> bool:
    """``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``, ``*PASS*``, ``*_KEY``, ``*CREDENTIAL*`` (any case), and ``*_URL``
    holding a password."""
    if _SECRET_NAME.search(name) is not None:
        return True
    return _URL_NAME.search(name) is not None and url_password(value) is not None


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
    env = {k: v for k, v in source.items() if (k in explicit) or (_allowed(k) and not looks_secret(k, v))}
    env.setdefault("PATH", DEFAULT_PATH)
    if overrides:
        env.update(overrides)
    return env


def secret_values(parent: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of every secret-looking variable of ``parent`` (passed to the command or not), longest first.

    For a URL holding a password, the password alone is a secret value too.
    """
    source = os.environ if parent is None else parent
    found: set[str] = set()
    for k, v in source.items():
        if looks_secret(k, v):
            found.add(v)
            password = url_password(v)
            if password is not None:
                found.add(password)
    found = {v for v in found if len(v) >= MIN_SECRET_LENGTH}
    return tuple(sorted(found, key=lambda v: (-len(v), v)))


class Redactor:
    """Replaces secret values with ``[REDACTED]``: the one redaction every sink uses (output, logs, outboxes)."""

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

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where secrets occur in ``text`` (leftmost, longest first), as ``(start, end)`` pairs."""
        if self._pattern is None:
            return []
        return [m.span() for m in self._pattern.finditer(text)]

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

    def mask_end(self, text: str) -> str:
        """``text`` redacted, when it ends at a cut: a beginning of a secret at its end is hidden too."""
        text = self.redact(text)
        k = self.partial_suffix(text)
        return text[:-k] + REDACTED if k >= MIN_SECRET_LENGTH else text

    def mask_start(self, text: str) -> str:
        """``text`` redacted, when it starts at a cut: an end of a secret at its start is hidden too."""
        text = self.redact(text)
        k = self.partial_prefix(text)
        return REDACTED + text[k:] if k >= MIN_SECRET_LENGTH else text

    def redact_joined(self, first: str, second: str) -> tuple[str, str]:
        """Redact two texts shown one after the other (stdout, then stderr): a secret split between them is hidden.

        Each part is redacted on its own and the join is then checked: the secret's characters are removed from
        both parts and one ``[REDACTED]`` stands at the end of ``first``.
        """
        if self._pattern is None:
            return first, second
        first, second = self.redact(first), self.redact(second)
        window = self.longest - 1
        a, b = first[len(first) - window :] if window else "", second[:window]
        joined = a + b
        for start, end in self.spans(joined):
            if start < len(a) < end:
                return first[: len(first) - len(a) + start] + REDACTED, second[end - len(a) :]
        return first, second


Labelled = tuple[str, str]  # (label, text): a piece of output and the stream it belongs to


class StreamRedactor:
    """Redaction of text that arrives in pieces, possibly from several streams (stdout and stderr interleaved).

    The pieces are redacted as one text in the order they arrived, so a secret split across chunks or across
    streams is caught; the ``[REDACTED]`` goes to the stream where the secret started. At most
    ``longest secret - 1`` characters (a possible beginning of a secret) are held back until the next piece
    decides them; :meth:`finish` releases them, :meth:`cut` hides them (the stream stops being shown there).
    """

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._pending: list[Labelled] = []

    def feed(self, label: str, text: str) -> list[Labelled]:
        if not self._redactor:
            return [(label, text)] if text else []
        if text:
            self._pending.append((label, text))
        return self._release(hold=True)

    def finish(self) -> list[Labelled]:
        """End of output: what is held back is not a secret (it never completed one); release it."""
        return self._release(hold=False)

    def cut(self) -> list[Labelled]:
        """The shown output stops here (a stream's kept head is full): a held-back beginning of a secret is hidden."""
        held = "".join(t for _, t in self._pending)
        if len(held) >= MIN_SECRET_LENGTH and not self._redactor.spans(held):
            label = self._pending[0][0]
            self._pending = []
            return [(label, REDACTED)]
        return self._release(hold=False)

    def _release(self, *, hold: bool) -> list[Labelled]:
        segments, self._pending = self._pending, []
        if not segments:
            return []
        joined = "".join(t for _, t in segments)
        spans = self._redactor.spans(joined)
        after = spans[-1][1] if spans else 0
        upto = len(joined) - (self._redactor.partial_suffix(joined[after:]) if hold else 0)
        out: list[Labelled] = []
        offset = 0
        si = 0
        for label, text in segments:
            s, e = offset, offset + len(text)
            offset = e
            if e > upto:
                self._pending.append((label, joined[max(s, upto) : e]))
                e = upto
            if s >= e:
                continue
            pieces: list[str] = []
            i = s
            while si < len(spans) and spans[si][0] < e:
                ms, me = spans[si]
                if ms >= i:
                    pieces += [joined[i:ms], REDACTED]
                i = max(i, min(me, e))
                if me > e:
                    break  # the secret goes on in the next piece
                si += 1
            pieces.append(joined[i:e])
            shown = "".join(pieces)
            if shown:
                if out and out[-1][0] == label:
                    out[-1] = (label, out[-1][1] + shown)
                else:
                    out.append((label, shown))
        return out
