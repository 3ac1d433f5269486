"""Generates the TextMate grammars in this folder (cli-script, agent-inbox, agent-outbox).

The grammars share many regular-expression pieces (the heredoc marker, the parameter delimiters, the tag
attributes), so they are written once here and the ``*.tmLanguage.json`` files are generated from them:

    python3 syntaxes/generate.py          # rewrite the JSON files
    python3 syntaxes/generate.py --check  # exit 1 when a JSON file is out of date (the test suite runs this)

Scope names follow the ones themes already colour (``keyword.control``, ``keyword.operator``, ``string.unquoted``,
``entity.name.tag``, ``entity.other.attribute-name``, ``markup.heading`` ...), each suffixed with the language.
What a TextMate grammar cannot know (whether a heredoc is closed at all, whether a body is structured) is left to
the language server's diagnostics and semantic tokens; the grammar colours what the text looks like.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
Rule = dict[str, Any]

# --- shared pieces --------------------------------------------------------------------------------------------------

#: Trimmable blanks of the text model (docs/formats.md) (ASCII space, tab, form feed, vertical tab).
BLANK = r"[ \t\f\v]"
#: A command word. vscode-textmate matches each line with a "\n" appended: negated classes must exclude it.
WORD = r"[^ \t\f\v\n]+"
#: A valid heredoc marker word (docs/formats.md).
MARKER = r"[A-Za-z0-9_]+"
#: Commands whose heredoc body is itself a shell script: sh, bash, dash, zsh, ksh, mksh, ash (optionally with a
#: path or through env) with options other than -c (with -c the script is an argument and stdin is data).
SHELL_COMMAND = (
    r"(?:(?:/usr)?(?:/local)?/bin/)?(?:env[ \t]+)?(?:ba|da|z|k|mk|a)?sh"
    r"(?:[ \t]+(?:-[A-Za-bd-z]+|--[a-z][a-z-]*|\+[A-Za-z]+))*"
)
#: What may follow a heredoc marker (docs/formats.md): blanks, then a redirection (``>``, ``<``, ``2>``, ``&>``, ...), a
#: pipe or a list operator, and the rest of the line, which holds no other ``<<`` (that would be ``multiple_heredocs``,
#: whose body runs to the last marker). Groups (relative): the operator, the rest.
TAIL = rf"(?:{BLANK}+(?![^\n]*<<)([0-9]*[<>]|&>|\|\|?|&&|;)([^\n]*?))?"
#: :data:`TAIL` without groups, for look-aheads whose group numbers must not move.
TAIL_LOOK = rf"(?:{BLANK}+(?![^\n]*<<)(?:[0-9]*[<>]|&>|\|\|?|&&|;)[^\n]*?)?"
#: An 8-hex-digit ID or a canonical 8-4-4-4-12 UUID (docs/formats.md), hex case-insensitive.
UUID_ID = r"[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}|[0-9A-Fa-f]{8}"


def opener(command: str, marker: str) -> str:
    """The opener line: ``[command ws+] <<[-] [ws] [quote] marker [quote] [tail]`` (tail: see :data:`TAIL`).

    Groups: 1 command text, 2 its first word, 3 its arguments, 4 operator, 5 opening quote, 6 marker,
    7 closing quote, 8 the tail's redirection or pipe, 9 the rest of the tail. The command is optional so that
    ``<<EOF`` alone (an error) still consumes its body.
    """
    return rf"^{BLANK}*(?:(({command})(.*?)){BLANK}+)?(<<-?)(?!<){BLANK}*(['\"]?)({marker})(\5){TAIL}{BLANK}*$"


def opener_with_command(command: str, marker: str) -> str:
    """Like :func:`opener` but the command is required (used for shell bodies, where it decides the rule)."""
    return rf"^{BLANK}*(({command})()){BLANK}+(<<-?)(?!<){BLANK}*(['\"]?)({marker})(\5){TAIL}{BLANK}*$"


def opener_captures(marker_scope: str) -> Rule:
    return {
        "1": {"name": "meta.command.cli-script"},
        "2": {"name": "entity.name.function.command.cli-script"},
        # A capture with patterns is scoped from the rule, not from the enclosing capture: name it again.
        "3": {"name": "meta.command.cli-script", "patterns": [{"include": "#arguments"}]},
        "4": {"name": "keyword.operator.heredoc.cli-script"},
        "5": {"name": "punctuation.definition.string.begin.cli-script"},
        "6": {"name": marker_scope},
        "7": {"name": "punctuation.definition.string.end.cli-script"},
        "8": {"name": "keyword.operator.redirection.cli-script"},
        "9": {"name": "meta.command.cli-script", "patterns": [{"include": "#arguments"}]},
    }


def terminator(group: int) -> str:
    """A line whose trimmed text is the marker captured in ``group`` of the begin pattern."""
    return rf"^{BLANK}*(\{group}){BLANK}*$"


TOKEN_SCOPE = "keyword.control.heredoc-token.cli-script"
INVALID_TOKEN_SCOPE = "invalid.illegal.heredoc-token.cli-script"
TERMINATOR_CAPTURES = {"1": {"name": TOKEN_SCOPE}}


def delimiter_rules(indent: str) -> list[Rule]:
    """Structured-body delimiters (docs/formats.md): plain ``---NAME---`` and ``---(UUID:ID)NAME---``.

    ``indent`` is ``""`` for ``<<`` bodies (a delimiter starts at column 1) and ``"\\t*"`` for ``<<-`` bodies,
    whose leading tabs are stripped before the body is parsed.
    """
    return [
        {
            "name": "meta.parameter.delimiter.uuid.cli-script",
            "match": rf"^{indent}(---)(\()(UUID)(:)({UUID_ID})(\))([A-Z_]+)(---)[ \t]*$",
            "captures": {
                "1": {"name": "punctuation.definition.delimiter.begin.cli-script"},
                "2": {"name": "punctuation.section.uuid.begin.cli-script"},
                "3": {"name": "storage.type.uuid.cli-script"},
                "4": {"name": "punctuation.separator.uuid.cli-script"},
                "5": {"name": "constant.numeric.hex.uuid.cli-script"},
                "6": {"name": "punctuation.section.uuid.end.cli-script"},
                "7": {"name": "entity.name.tag.parameter.cli-script"},
                "8": {"name": "punctuation.definition.delimiter.end.cli-script"},
            },
        },
        {
            "name": "meta.parameter.delimiter.cli-script",
            "match": rf"^{indent}(---)([A-Z_]+)(---)[ \t]*$",
            "captures": {
                "1": {"name": "punctuation.definition.delimiter.begin.cli-script"},
                "2": {"name": "entity.name.tag.parameter.cli-script"},
                "3": {"name": "punctuation.definition.delimiter.end.cli-script"},
            },
        },
    ]


# --- cli-script -----------------------------------------------------------------------------------------------------


def shell_heredoc(operator: str, indent_name: str) -> Rule:
    """A heredoc whose body is a shell script, embedded as ``source.shell``.

    The outer rule starts with a zero-width look-ahead that captures the marker (group 2), so its ``end`` can
    match the terminator line; the inner begin/while rule re-matches the opener for scoping and gives the body
    to the shell grammar line by line. The ``while`` check runs at every line start whatever the shell grammar
    has left open (an unclosed quote, say), so the terminator always ends the body.
    """
    look = rf"^(?={BLANK}*{SHELL_COMMAND}{BLANK}+{operator}(?!<){BLANK}*(['\"]?)({MARKER})\1{TAIL_LOOK}{BLANK}*$)"
    inner_begin = opener_with_command(SHELL_COMMAND, MARKER).replace("(<<-?)", f"({operator})")
    return body_rule("shell", look, inner_begin, "shellscript", "source.shell", f"shell body, {indent_name}")


def body_rule(name: str, begin: str, inner_begin: str, content: str, scope: str, comment: str) -> Rule:
    """The outer rule (``begin`` captures the marker as group 2, ``end`` matches the terminator) and the inner
    begin/while rule that re-matches the opener and hands the body to ``scope`` until the terminator line."""
    return {
        "name": f"meta.heredoc.{name}.cli-script",
        "begin": begin,
        "end": terminator(2),
        "endCaptures": TERMINATOR_CAPTURES,
        "patterns": [
            {
                "begin": inner_begin,
                "beginCaptures": opener_captures(TOKEN_SCOPE),
                "while": rf"^(?!{BLANK}*\6{BLANK}*$)",
                "contentName": f"meta.embedded.block.{content}",
                "patterns": [{"include": scope}],
            }
        ],
        "comment": comment,
    }


#: Languages of bodies that a grammar can see on the opener line (docs/bodies.md): name, the scope VS Code's
#: grammar for it has, the consumer commands that read it, its marker names (any case), the extensions of a
#: written file. The server decides the same from more (directives, config, shebangs) for its diagnostics.
EMBEDDED: tuple[tuple[str, str, str | None, str, str], ...] = (
    (
        "python",
        "source.python",
        r"(?:(?:/usr)?(?:/local)?/bin/)?(?:env[ \t]+)?(?:python[0-9.]*|pypy3?)(?:[ \t]+-[A-Za-bd-ln-z]+)*(?:[ \t]+-)?",
        r"(?i:py|py3|python|python3)",
        r"pyw?|pyi",
    ),
    (
        "json",
        "source.json",
        r"(?:jq|gojq)(?:[ \t]+-[A-Za-mo-z])*[ \t]+(?:'[^'\n]*'|\.[^ \t\n]*)|python3?[ \t]+-m[ \t]+json\.tool",
        r"(?i:json)",
        r"json|geojson",
    ),
    (
        "yaml",
        "source.yaml",
        r"(?:kubectl|oc)[ \t]+(?:apply|create|replace)[ \t]+-f[ \t]*-|yq[ \t]+(?:'[^'\n]*'|\.[^ \t\n]*)",
        r"(?i:yaml|yml)",
        r"ya?ml",
    ),
    ("toml", "source.toml", None, r"(?i:toml)", r"toml"),
    (
        "sql",
        "source.sql",
        r"(?:psql|mysql|mariadb|sqlite3|duckdb)(?:[ \t]+[^ \t\n<|;&]+)*",
        r"(?i:sql|psql)",
        r"sql",
    ),
    ("javascript", "source.js", r"(?:node|nodejs)(?:[ \t]+-)?", r"(?i:js|javascript|node)", r"m?js|cjs"),
    ("shellscript", "source.shell", None, r"(?i:sh|shell|bash)", r"sh|bash"),
)
#: A file name with one of ``exts`` (``{}``), unquoted or quoted.
TARGET = r"['\"]?[^ \t\n'\"<>|;&]*\.(?:{})['\"]?"


def embedded_heredoc(operator: str, language: str, scope: str, condition: str, how: str) -> Rule:
    """A heredoc whose body is in another language, handed to that language's grammar (``scope``).

    ``condition`` matches the opener line from its start, with the quote in group 1 and the marker in group 2
    (the ``end`` matches the terminator); the inner begin/while rule re-matches the opener for its scopes and
    ends the body at the terminator line whatever the embedded grammar left open, as :func:`shell_heredoc` does.
    """
    inner_begin = opener(WORD, MARKER).replace("(<<-?)", f"({operator})")
    return body_rule(
        language, rf"^(?={condition})", inner_begin, language, scope, f"{language} body ({how}), {operator}"
    )


def embedded_heredocs(operator: str) -> list[Rule]:
    """Every :data:`EMBEDDED` rule for ``operator``, in the server's order: consumer command, marker name, then
    the file the body is written to (``cat > f.json <<EOF``, ``tee f.json <<EOF``, ``cat <<EOF > f.json``)."""
    marker_part = rf"{operator}(?!<){BLANK}*(['\"]?)({{}})\1"
    end = rf"{TAIL_LOOK}{BLANK}*$"
    rules: list[Rule] = []
    for language, scope, consumer, _markers, _exts in EMBEDDED:
        if consumer is not None:
            condition = rf"{BLANK}*(?:{consumer}){BLANK}+{marker_part.format(MARKER)}{end}"
            rules.append(embedded_heredoc(operator, language, scope, condition, "consumer"))
    for language, scope, _consumer, markers, _exts in EMBEDDED:
        condition = rf"{BLANK}*(?:[^ \t\f\v\n<][^\n]*?{BLANK}+)?{marker_part.format(markers)}{end}"
        rules.append(embedded_heredoc(operator, language, scope, condition, "marker"))
    for language, scope, _consumer, _markers, exts in EMBEDDED:
        target = TARGET.format(exts)
        writer = rf"(?:sudo{BLANK}+)?(?:cat{BLANK}*>>?{BLANK}*{target}|tee(?:{BLANK}+-[a-z]+)*{BLANK}+{target})"
        written = rf"{BLANK}*{writer}{BLANK}+{marker_part.format(MARKER)}{end}"
        tail = rf"{BLANK}*(?:sudo{BLANK}+)?cat{BLANK}+{marker_part.format(MARKER)}{BLANK}+>>?{BLANK}*{target}{BLANK}*$"
        rules.append(embedded_heredoc(operator, language, scope, written, "written file"))
        rules.append(embedded_heredoc(operator, language, scope, tail, "written file, after the marker"))
    return rules


def plain_heredoc(operator: str, delimiter_indent: str) -> Rule:
    begin = opener(WORD, MARKER).replace("(<<-?)", f"({operator})")
    return {
        "name": "meta.heredoc.cli-script",
        "begin": begin,
        "beginCaptures": opener_captures(TOKEN_SCOPE),
        "end": terminator(6),
        "endCaptures": TERMINATOR_CAPTURES,
        "contentName": "string.unquoted.heredoc.cli-script",
        "patterns": delimiter_rules(delimiter_indent),
    }


def cli_grammar() -> Rule:
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "CLI Script",
        "scopeName": "source.cli-script",
        "comment": "Generated by syntaxes/generate.py; edit that file, not this one.",
        "patterns": [
            {"include": "#comment"},
            {"include": "#heredoc"},
            {"include": "#command"},
        ],
        "repository": {
            "comment": {
                "name": "comment.line.number-sign.cli-script",
                "match": rf"^{BLANK}*(#).*$",
                "captures": {"1": {"name": "punctuation.definition.comment.cli-script"}},
            },
            "heredoc": {
                "patterns": [
                    shell_heredoc("<<-", "tab-stripping"),
                    shell_heredoc("<<", "verbatim"),
                    *embedded_heredocs("<<-"),
                    *embedded_heredocs("<<"),
                    plain_heredoc("<<-", r"\t*"),
                    plain_heredoc("<<", ""),
                    # A word after << that is no valid marker (an error). The parser consumes a body only when a
                    # later line is that word, which a grammar cannot look ahead for: colour the line only.
                    {
                        "name": "meta.heredoc.invalid.cli-script",
                        "match": opener(WORD, r"'[^'\n]*'|\"[^\"\n]*\"|[^ \t\f\v\n]*").replace(r"(['\"]?)(", "()("),
                        "captures": opener_captures(INVALID_TOKEN_SCOPE),
                    },
                ]
            },
            "command": {
                "name": "meta.command.cli-script",
                "match": rf"^{BLANK}*({WORD})(.*)$",
                "captures": {
                    "1": {"name": "entity.name.function.command.cli-script"},
                    "2": {"patterns": [{"include": "#arguments"}]},
                },
            },
            "arguments": {
                "patterns": [
                    {
                        "match": r"(?<=^|[ \t])(--?[A-Za-z0-9][A-Za-z0-9_.-]*)(=)?",
                        "captures": {
                            "1": {"name": "variable.parameter.option.cli-script"},
                            "2": {"name": "keyword.operator.assignment.cli-script"},
                        },
                    },
                    {
                        "name": "string.quoted.single.cli-script",
                        "match": r"(')[^'\n]*(')",
                        "captures": {
                            "1": {"name": "punctuation.definition.string.begin.cli-script"},
                            "2": {"name": "punctuation.definition.string.end.cli-script"},
                        },
                    },
                    {
                        "name": "string.quoted.double.cli-script",
                        "match": r'(")(?:[^"\\\n]|\\.)*(")',
                        "captures": {
                            "1": {"name": "punctuation.definition.string.begin.cli-script"},
                            "2": {"name": "punctuation.definition.string.end.cli-script"},
                        },
                    },
                ]
            },
        },
    }


# --- agent-inbox ----------------------------------------------------------------------------------------------------

BLOCK_TAGS = ("CREATE_FILE", "EDIT_FILE", "RUN_COMMAND", "MESSAGE", "DONE")
SELF_CLOSING_TAGS = ("DELETE_FILE", "READ_FILE")
#: After ``[NAME``: a blank, ``/`` or ``]`` (docs/formats.md; ``[DONE`` alone is prose).
TAG_NAME_END = r"(?=[ \t\f\v/\]])"
#: The rest of an opener is well-formed up to ``]`` and followed by text: inline content, which opens no block.
INLINE_CONTENT = r"(?:[^\"\]\n]|\"(?:[^\"\\\n]|\\.)*\")*\][ \t\f\v]*[^ \t\f\v\n]"


def tag_opener(names: str) -> str:
    """Groups: 1 ``[``, 2 the tag name, 3 the rest of the line (attributes, ``/``, ``]``)."""
    return rf"^{BLANK}*(\[)({names}){TAG_NAME_END}(.*)$"


OPENER_CAPTURES = {
    "1": {"name": "punctuation.definition.tag.begin.agent-inbox"},
    "2": {"name": "entity.name.tag.agent-inbox"},
    "3": {"patterns": [{"include": "#tag-rest"}]},
}
CLOSER_CAPTURES = {
    "1": {"name": "punctuation.definition.tag.begin.agent-inbox"},
    "2": {"name": "entity.name.tag.agent-inbox"},
    "3": {"name": "punctuation.definition.tag.end.agent-inbox"},
}


def closer(name: str) -> str:
    return rf"^{BLANK}*(\[/)({name})(\]){BLANK}*$"


def block(name: str) -> Rule:
    slug = name.lower().replace("_", "-")
    rule: Rule = {
        "name": f"meta.block.{slug}.agent-inbox",
        "begin": tag_opener(name).replace("(.*)$", f"(?!{INLINE_CONTENT})(.*)$"),
        "beginCaptures": OPENER_CAPTURES,
        "end": closer(name),
        "endCaptures": CLOSER_CAPTURES,
    }
    if name == "RUN_COMMAND":
        # begin/while so that the closer ends the shell body whatever the shell grammar left open.
        rule["patterns"] = [
            {
                "begin": r"(^|\G)",
                "while": rf"(^|\G)(?!{BLANK}*\[/{name}\]{BLANK}*$)",
                "contentName": "meta.embedded.block.shellscript",
                "patterns": [{"include": "source.shell"}],
            }
        ]
    else:
        rule["contentName"] = f"meta.body.{slug}.agent-inbox"
    return rule


FILE_TAGS = ("CREATE_FILE", "EDIT_FILE")


def file_block(name: str, language: str, scope: str, exts: str) -> Rule:
    """A file block whose ``path`` has an extension of ``language``: its body is handed to that grammar, ended at
    the closer whatever the grammar left open (begin/while, as for ``[RUN_COMMAND]``)."""
    slug = name.lower().replace("_", "-")
    path_attr = rf"(?=[^\n]*[ \t](?i:path)=\"[^\"\n]*\.(?:{exts})\")"
    return {
        "name": f"meta.block.{slug}.agent-inbox",
        "begin": tag_opener(name).replace("(.*)$", f"(?!{INLINE_CONTENT}){path_attr}(.*)$"),
        "beginCaptures": OPENER_CAPTURES,
        "end": closer(name),
        "endCaptures": CLOSER_CAPTURES,
        "patterns": [
            {
                "begin": r"(^|\G)",
                "while": rf"(^|\G)(?!{BLANK}*\[/{name}\]{BLANK}*$)",
                "contentName": f"meta.embedded.block.{language}",
                "patterns": [{"include": scope}],
            }
        ],
        "comment": f"{language} file",
    }


def file_blocks() -> dict[str, Rule]:
    return {
        f"block-{name.lower().replace('_', '-')}-{language}": file_block(name, language, scope, exts)
        for name in FILE_TAGS
        for language, scope, _consumer, _markers, exts in EMBEDDED
    }


def inbox_grammar() -> Rule:
    all_tags = "|".join(BLOCK_TAGS + SELF_CLOSING_TAGS)
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "Agent Inbox",
        "scopeName": "text.agent-inbox",
        "comment": "Generated by syntaxes/generate.py; edit that file, not this one.",
        "patterns": [
            *({"include": f"#{key}"} for key in file_blocks()),
            *({"include": f"#block-{n.lower().replace('_', '-')}"} for n in BLOCK_TAGS),
            {"include": "#tag-line"},
            {"include": "#stray-closer"},
        ],
        "repository": {
            **file_blocks(),
            **{f"block-{n.lower().replace('_', '-')}": block(n) for n in BLOCK_TAGS},
            "tag-line": {
                "comment": "Self-closing tags, and block openers with inline content (those open no block).",
                "name": "meta.tag.agent-inbox",
                "match": tag_opener(all_tags),
                "captures": OPENER_CAPTURES,
            },
            "stray-closer": {
                "name": "meta.tag.closer.agent-inbox",
                "match": closer("|".join(BLOCK_TAGS)),
                "captures": CLOSER_CAPTURES,
            },
            "tag-rest": {
                "patterns": [
                    {
                        "name": "meta.attribute.agent-inbox",
                        "begin": r"([A-Za-z_][A-Za-z0-9_]*)(=)(\")",
                        "beginCaptures": {
                            "1": {"name": "entity.other.attribute-name.agent-inbox"},
                            "2": {"name": "punctuation.separator.key-value.agent-inbox"},
                            "3": {"name": "punctuation.definition.string.begin.agent-inbox"},
                        },
                        "end": r"(\")|$",
                        "endCaptures": {"1": {"name": "punctuation.definition.string.end.agent-inbox"}},
                        "contentName": "string.quoted.double.agent-inbox",
                        "patterns": [{"name": "constant.character.escape.agent-inbox", "match": r"\\[\"\\]"}],
                    },
                    {
                        "match": r"(/?)(\])",
                        "captures": {
                            "1": {"name": "punctuation.definition.tag.self-closing.agent-inbox"},
                            "2": {"name": "punctuation.definition.tag.end.agent-inbox"},
                        },
                    },
                ]
            },
        },
    }


# --- agent-outbox ---------------------------------------------------------------------------------------------------

SECTIONS = ("HEADER", "PROTOCOL", "CONTEXT", "PROMPT")
COMMAND_NAMES = "|".join(BLOCK_TAGS + SELF_CLOSING_TAGS)


def section_marker(names: str) -> str:
    """A marker line is exactly ``=== NAME ===`` (docs/formats.md)."""
    return rf"^(===) ({names}) (===)$"


MARKER_CAPTURES = {
    "1": {"name": "punctuation.definition.heading.agent-outbox"},
    "2": {"name": "entity.name.section.agent-outbox"},
    "3": {"name": "punctuation.definition.heading.agent-outbox"},
}


def result_rule(word: str, scope: str) -> Rule:
    return {
        "name": f"meta.result.{word.lower()}.agent-outbox",
        "match": rf"^{BLANK}*(\[)({word})(\])(?:[ \t]+({COMMAND_NAMES})(:))?",
        "captures": {
            "1": {"name": "punctuation.definition.result.begin.agent-outbox"},
            "2": {"name": scope},
            "3": {"name": "punctuation.definition.result.end.agent-outbox"},
            "4": {"name": "entity.name.tag.agent-outbox"},
            "5": {"name": "punctuation.separator.agent-outbox"},
        },
    }


def outbox_grammar() -> Rule:
    key = r"^([A-Za-z][A-Za-z0-9_-]*)(:)"
    key_captures = {
        "1": {"name": "support.type.property-name.header.agent-outbox"},
        "2": {"name": "punctuation.separator.key-value.agent-outbox"},
    }
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "Agent Outbox",
        "scopeName": "text.agent-outbox",
        "comment": "Generated by syntaxes/generate.py; edit that file, not this one.",
        "patterns": [
            {"include": "#header-section"},
            {"include": "#section-marker"},
            {"include": "#file-block"},
            {"include": "#result"},
            {"include": "#heading"},
        ],
        "repository": {
            "header-section": {
                "name": "meta.section.header.agent-outbox",
                "begin": section_marker("HEADER"),
                "beginCaptures": {
                    "0": {"name": "markup.heading.section.agent-outbox"},
                    **MARKER_CAPTURES,
                },
                "end": rf"(?={section_marker('|'.join(SECTIONS))})",
                "patterns": [
                    {
                        "match": r"^(Session)(:)[ \t]*([0-9A-Fa-f]{8})?[ \t]*$",
                        "captures": {**key_captures, "3": {"name": "constant.numeric.hex.session.agent-outbox"}},
                    },
                    {
                        "match": r"^(Sequence)(:)[ \t]*([0-9]+)?[ \t]*$",
                        "captures": {**key_captures, "3": {"name": "constant.numeric.integer.agent-outbox"}},
                    },
                    {
                        "match": r"^(Task)(:)(.*)$",
                        "captures": {**key_captures, "3": {"name": "string.unquoted.task.agent-outbox"}},
                    },
                    {"match": key, "captures": key_captures},
                ],
            },
            "section-marker": {
                "name": "markup.heading.section.agent-outbox",
                "match": section_marker("|".join(SECTIONS)),
                "captures": MARKER_CAPTURES,
            },
            "file-block": {
                "comment": "Requested file contents: '--- path ---' ... '--- end path ---'; the body is plain.",
                "name": "meta.file-block.agent-outbox",
                "begin": r"^(---)[ \t]+(?!end[ \t])(\S(?:.*\S)?)[ \t]+(---)[ \t]*$",
                "beginCaptures": {
                    "1": {"name": "punctuation.definition.file-block.agent-outbox"},
                    "2": {"name": "string.unquoted.path.agent-outbox"},
                    "3": {"name": "punctuation.definition.file-block.agent-outbox"},
                },
                "end": r"^(---)[ \t]+(end)[ \t]+(\2)[ \t]+(---)[ \t]*$",
                "endCaptures": {
                    "1": {"name": "punctuation.definition.file-block.agent-outbox"},
                    "2": {"name": "keyword.control.end.agent-outbox"},
                    "3": {"name": "string.unquoted.path.agent-outbox"},
                    "4": {"name": "punctuation.definition.file-block.agent-outbox"},
                },
                "contentName": "meta.body.file-content.agent-outbox",
            },
            "result": {
                "patterns": [
                    result_rule("OK", "markup.inserted.result.ok.agent-outbox"),
                    result_rule("FAILED", "markup.deleted.result.failed.agent-outbox"),
                ]
            },
            "heading": {
                "name": "markup.heading.agent-outbox",
                "match": r"^(##)[ \t]+(.*)$",
                "captures": {
                    "1": {"name": "punctuation.definition.heading.agent-outbox"},
                    "2": {"name": "entity.name.section.agent-outbox"},
                },
            },
        },
    }


GRAMMARS = {
    "cli-script.tmLanguage.json": cli_grammar,
    "agent-inbox.tmLanguage.json": inbox_grammar,
    "agent-outbox.tmLanguage.json": outbox_grammar,
}


def render(grammar: Rule) -> str:
    return json.dumps(grammar, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for file_name, build in GRAMMARS.items():
        path = HERE / file_name
        text = render(build())
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(file_name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"out of date (run python3 syntaxes/generate.py): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
