"""Semantic tokens inside a body in its own language (docs/bodies.md), from tree-sitter's parsers.

:func:`body_tokens` parses a body (its lines joined with ``\\n``) with the tree-sitter grammar of its language and
returns ``(line, column, length, kind)`` tuples, 0-based in the body, columns in code points, one line per token,
sorted: keywords, strings, numbers, comments and (in data files) keys. Results are kept by content, so a body is
parsed again only when it changed. Languages without a grammar here give no tokens (the caller colours the body
as a string, as before).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["BODY_TOKEN_LANGUAGES", "COMMENT", "KEYWORD", "NUMBER", "PROPERTY", "STATS", "STRING", "body_tokens"]

COMMENT, KEYWORD, STRING, NUMBER, PROPERTY = "comment", "keyword", "string", "number", "property"
# language -> the PyPI module of its grammar (tree-sitter-python, -json, -yaml, -toml)
_GRAMMARS = {"python": "tree_sitter_python", "json": "tree_sitter_json", "yaml": "tree_sitter_yaml"} | {
    "toml": "tree_sitter_toml"
}
BODY_TOKEN_LANGUAGES = frozenset(_GRAMMARS)

# Named node types by language whose whole extent is one kind (their children are not looked at).
_WHOLE: dict[str, dict[str, str]] = {
    "python": {"string": STRING, "comment": COMMENT, "integer": NUMBER, "float": NUMBER}
    | {
        "true": KEYWORD,
        "false": KEYWORD,
        "none": KEYWORD,
    },
    "json": {"string": STRING, "comment": COMMENT, "number": NUMBER, "true": KEYWORD, "false": KEYWORD}
    | {"null": KEYWORD},
    "yaml": {
        "comment": COMMENT,
        "double_quote_scalar": STRING,
        "single_quote_scalar": STRING,
        "block_scalar": STRING,
        "integer_scalar": NUMBER,
        "float_scalar": NUMBER,
        "boolean_scalar": KEYWORD,
        "null_scalar": KEYWORD,
    },
    "toml": {"comment": COMMENT, "string": STRING, "integer": NUMBER, "float": NUMBER, "boolean": KEYWORD}
    | {
        "bare_key": PROPERTY,
        "quoted_key": PROPERTY,
        "offset_date_time": NUMBER,
        "local_date_time": NUMBER,
        "local_date": NUMBER,
        "local_time": NUMBER,
    },
}
# Parent node types whose ``key`` field is a key (a JSON pair, a YAML mapping pair).
_KEYED = {"json": frozenset({"pair"}), "yaml": frozenset({"block_mapping_pair", "flow_pair"})}

_CACHE_SIZE = 4096
_cache: dict[tuple[str, tuple[str, ...]], tuple[tuple[int, int, int, str], ...]] = {}
_parsers: dict[str, Any] = {}
# Work counters, for tests and the benchmark: ``parsed`` counts bodies actually parsed (cache misses).
STATS: dict[str, int] = {"parsed": 0}


def _parser(language: str) -> Any:
    """The tree-sitter parser of ``language``; None when tree-sitter is not installed (the VS Code bundle holds
    pure-Python libraries only, and VS Code colours bodies with its grammars)."""
    if language in _parsers:
        return _parsers[language]
    try:
        # deferred: check start-up: tree-sitter is loaded only when a body in a language is coloured
        from tree_sitter import Language, Parser

        grammar = importlib.import_module(_GRAMMARS[language])
    except ImportError:
        parser = None
    else:
        parser = Parser(Language(grammar.language()))
    _parsers[language] = parser
    return parser


def _column(line_bytes: bytes, byte_col: int) -> int:
    return len(line_bytes[:byte_col].decode("utf-8", "replace"))


def _leaves(language: str, root: Any, add: Callable[[Any, str], None]) -> None:
    whole = _WHOLE[language]
    keyed = _KEYED.get(language)
    stack = [root]
    while stack:
        node = stack.pop()
        kind = whole.get(node.type)
        if kind is not None:
            add(node, kind)
            continue
        if node.child_count == 0:
            text = node.type
            if not node.is_named and text.isalpha() and language == "python":
                add(node, KEYWORD)  # def, return, import, if, and...
            continue
        children = node.children
        if keyed is not None and node.type in keyed:
            key = node.child_by_field_name("key")
            if key is not None:
                add(key, PROPERTY)
                children = [c for c in children if c.id != key.id]
        stack.extend(reversed(children))


def _tokens(language: str, lines: Sequence[str]) -> tuple[tuple[int, int, int, str], ...]:
    parser = _parser(language)
    if parser is None:
        return ()
    encoded = [line.encode("utf-8", "surrogatepass") for line in lines]
    tree = parser.parse(b"\n".join(encoded))
    out: list[tuple[int, int, int, str]] = []

    def add(node: Any, kind: str) -> None:
        (r0, c0), (r1, c1) = node.start_point, node.end_point
        for row in range(r0, min(r1, len(lines) - 1) + 1):
            raw = encoded[row]
            start = c0 if row == r0 else 0
            end = c1 if row == r1 else len(raw)
            if raw.isascii():
                col, stop = start, min(end, len(raw))
            else:
                col, stop = _column(raw, start), _column(raw, end)
            if stop > col:
                out.append((row, col, stop - col, kind))

    _leaves(language, tree.root_node, add)
    out.sort()
    kept: list[tuple[int, int, int, str]] = []
    for t in out:  # never overlapping: a later token starting inside the previous one is dropped
        if kept and kept[-1][0] == t[0] and t[1] < kept[-1][1] + kept[-1][2]:
            continue
        kept.append(t)
    return tuple(kept)


def body_tokens(language: str, lines: Sequence[str]) -> tuple[tuple[int, int, int, str], ...]:
    """The tokens of ``lines`` read as ``language`` (see the module docstring); ``()`` for other languages."""
    if language not in _GRAMMARS or not lines:
        return ()
    key = (language, tuple(lines))
    found = _cache.get(key)
    if found is None:
        STATS["parsed"] += 1
        found = _tokens(language, key[1])
        if len(_cache) >= _CACHE_SIZE:
            del _cache[next(iter(_cache))]
        _cache[key] = found
    return found
