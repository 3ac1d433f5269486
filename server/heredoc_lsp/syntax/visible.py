"""Characters that hide or move text, found and made visible: the one Unicode check of every format and the one
escaping function for text shown on a terminal.

- Bidirectional controls (U+202A-U+202E, U+2066-U+2069, and the marks U+200E, U+200F, U+061C) reorder what an
  editor, a terminal or a code review shows, so that ``ls <U+202E>; rm -rf ./victim #<U+202C>`` reads as ``ls``
  and a comment (Trojan Source, CVE-2021-42574). Code ``bidi_control``.
- Invisible characters (zero-width spaces and joiners, the word joiner, invisible operators, soft hyphen, Unicode
  tag characters, a byte order mark inside the text, Hangul fillers) make two
  different texts look the same. Code ``invisible_character``.

:func:`hidden_diagnostics` reports them on one line; the parsers call it on every line that runs or names a path.
:func:`visible` writes any text with those characters, and control characters (ESC, CR, BEL, C1 controls...), as
visible escapes (``<U+202E>``, ``\\x1b``): what a terminal then shows is inert text, never an escape sequence (OSC 52
clipboard writes, OSC 8 hyperlinks, cursor moves) or reordered text.
"""

from __future__ import annotations

from heredoc_lsp.syntax.diagnostics import Diagnostic, Severity, Span
from heredoc_lsp.syntax.lazy_re import lazy_compile

BIDI_CODE = "bidi_control"
INVISIBLE_CODE = "invisible_character"

BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_INVISIBLE_CLASS = (
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u206a-\u206f"
    "\u3164\ufeff\uffa0\U000e0000-\U000e007f"
)
_BIDI_CLASS = "".join(sorted(BIDI_CONTROLS))
_HIDDEN = lazy_compile(f"[{_BIDI_CLASS}{_INVISIBLE_CLASS}]+")
# What a terminal must never receive raw: C0 controls but tab and line feed, DEL, C1 controls, hidden characters.
_UNSAFE = lazy_compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_BIDI_CLASS}{_INVISIBLE_CLASS}]")
_UNSAFE_ONE_LINE = lazy_compile(f"[\\x00-\\x1f\\x7f-\\x9f{_BIDI_CLASS}{_INVISIBLE_CLASS}]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\x1b"}
_SHOWN_LIMIT = 120


def shown(ch: str) -> str:
    """One character as a visible escape: ``\\n``, ``\\x1b``, ``\\x9b`` for controls, ``<U+202E>`` otherwise."""
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def visible(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character (tab and line feed kept unless ``one_line``) and every hidden
    character written as a visible escape (:func:`shown`): inert on any terminal, impossible to misread."""
    pattern = _UNSAFE_ONE_LINE if one_line else _UNSAFE
    if text.isascii() and text.isprintable():
        return text
    return pattern.sub(lambda m: shown(m.group()), text)


def hidden_diagnostics(line_no: int, line: str, where: str, severity: Severity = Severity.ERROR) -> list[Diagnostic]:
    """One diagnostic per kind (bidi control, invisible character) found on ``line``, spanning its first to its last
    occurrence; ``where`` names what the line is (``a command line``, ``a heredoc body``, ``a path``...). The message
    shows the line with the characters made visible. Empty for a line without any (the common, ASCII, case)."""
    if line.isascii():
        return []
    found: dict[str, list[tuple[int, int]]] = {}
    chars: dict[str, list[str]] = {}
    for m in _HIDDEN.finditer(line):
        for offset, ch in enumerate(m.group()):
            code = BIDI_CODE if ch in BIDI_CONTROLS else INVISIBLE_CODE
            at = m.start() + offset
            found.setdefault(code, []).append((at, at + 1))
            names = chars.setdefault(code, [])
            if shown(ch) not in names:
                names.append(shown(ch))
    if not found:
        return []
    text = visible(line, one_line=True)
    if len(text) > _SHOWN_LIMIT:
        text = text[: _SHOWN_LIMIT - 3] + "..."
    out: list[Diagnostic] = []
    for code, spans in found.items():
        listed = " ".join(chars[code])
        span = Span.at(line_no, spans[0][0], spans[-1][1])
        data = {"chars": [c[3:-1] for c in chars[code]]}
        if code == BIDI_CODE:
            message = (
                f"Bidirectional control {listed} in {where}: the text shown (editor, terminal, review) is not the "
                f"order in which it runs; the line is '{text}'"
            )
            out.append(Diagnostic(span, severity, BIDI_CODE, message, data=data))
        else:
            message = (
                f"Invisible character {listed} in {where}: two different texts look the same; the line is '{text}'"
            )
            out.append(Diagnostic(span, severity, INVISIBLE_CODE, message, data=data))
    return out
