"""LSP values written straight as JSON text, for the answers that carry thousands of them.

Building an ``lsprotocol`` object and unstructuring it with cattrs costs about 14 µs per diagnostic; a 100k-line
script can have thousands, and every push after an edit that moves lines converts them again. These functions
write the same JSON (the same keys and values as ``lsprotocol``'s converter; ``tests/lsp/test_lsp_wire.py``
compares them) from the core's values, with positions converted as :mod:`heredoc_lsp.lsp.positions` does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring_ascii as _jstr
from typing import Any

from pygls.workspace import PositionCodec

from heredoc_lsp.lsp.positions import column_to_client
from heredoc_lsp.rules import RULES, doc_url
from heredoc_lsp.syntax.diagnostics import Diagnostic, Span

SOURCE = "heredoc-lsp"
# The editor's link on a diagnostic's code: its entry in docs/rules.md (`heredoc-lsp rule CODE` prints the same).
# JSON without spaces (the C encoder: a 250k-integer list in about 20 ms).
compact_json = json.JSONEncoder(separators=(",", ":")).encode
_CODE_JSON = {code: f',"codeDescription":{{"href":{_jstr(url)}}}' for code in RULES if (url := doc_url(code))}


def _position(codec: PositionCodec, lines: Sequence[str], line: int, col: int) -> str:
    if line < 0:
        return '{"line":0,"character":0}'
    if line >= len(lines):
        return f'{{"line":{len(lines)},"character":0}}'
    return f'{{"line":{line},"character":{column_to_client(codec, lines[line], col)}}}'


def range_text(codec: PositionCodec, lines: Sequence[str], span: Span) -> str:
    """An LSP ``Range`` as JSON text, in the client's position encoding (a column past the end is the end)."""
    line = span.start_line
    if line == span.end_line and 0 <= line < len(lines):
        text = lines[line]
        if text.isascii():  # the common case: one ASCII line, where code points are the client's units
            n = len(text)
            start = min(max(span.start_col, 0), n)
            end = min(max(span.end_col, 0), n)
            return f'{{"start":{{"line":{line},"character":{start}}},"end":{{"line":{line},"character":{end}}}}}'
    start_text = _position(codec, lines, span.start_line, span.start_col)
    end_text = _position(codec, lines, span.end_line, span.end_col)
    return f'{{"start":{start_text},"end":{end_text}}}'


def json_safe(value: Any) -> Any:
    """``data`` must survive JSON: keep plain values, lists and string-keyed objects; drop the rest."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    return str(value)


_DATA_TEXTS: dict[tuple[tuple[Any, Any], ...], str] = {}


def data_text(data: Mapping[str, Any]) -> str:
    """A diagnostic's ``data`` as JSON text (the same few text values recur thousands of times: remembered)."""
    key = tuple(data.items())
    try:
        return _DATA_TEXTS[key]
    except KeyError:
        pass
    except TypeError:  # a list or dict value: not a key
        return compact_json(json_safe(data))
    text = compact_json(json_safe(data))
    if not all(type(v) is str for v in data.values()):  # 1 == True: only text values make a safe key
        return text
    if len(_DATA_TEXTS) >= 4096:
        _DATA_TEXTS.clear()
    _DATA_TEXTS[key] = text
    return text


_HEADS: dict[tuple[str, int, str], str] = {}


def _head(message: str, severity: int, code: str) -> str:
    """The JSON text after a diagnostic's range: message, severity, code, its link and source (the same few
    recur thousands of times in one document: remembered)."""
    key = (message, severity, code)
    text = _HEADS.get(key)
    if text is None:
        text = (
            f',"message":{_jstr(message)},"severity":{int(severity)},"code":{_jstr(code)}'
            f'{_CODE_JSON.get(code, "")},"source":"{SOURCE}"'
        )
        if len(_HEADS) >= 4096:
            _HEADS.clear()
        _HEADS[key] = text
    return text


def diagnostic_text(
    uri: str,
    lines: Sequence[str],
    codec: PositionCodec,
    d: Diagnostic,
    *,
    related: bool = True,
    data: bool = True,
) -> str:
    """One core diagnostic as the JSON text of an LSP ``Diagnostic``."""
    span = d.span
    line = span.start_line
    rng = None
    if line == span.end_line and 0 <= line < len(lines):
        text = lines[line]
        if text.isascii():  # range_text's common case, inline: it runs for thousands of diagnostics
            n = len(text)
            start = span.start_col
            end = span.end_col
            start = 0 if start < 0 else n if start > n else start
            end = 0 if end < 0 else n if end > n else end
            rng = f'{{"start":{{"line":{line},"character":{start}}},"end":{{"line":{line},"character":{end}}}}}'
    if rng is None:
        rng = range_text(codec, lines, span)
    tail = f',"data":{data_text(d.data)}}}' if data and d.data else "}"
    if not (related and d.related):
        return f'{{"range":{rng}{_head(d.message, d.severity, d.code)}{tail}'
    location = f'{{"uri":{_jstr(uri)},"range":'
    items = ",".join(
        f'{{"location":{location}{range_text(codec, lines, r.span)}}},"message":{_jstr(r.message)}}}' for r in d.related
    )
    return f'{{"range":{rng}{_head(d.message, d.severity, d.code)},"relatedInformation":[{items}]{tail}'
