"""The language of a heredoc body or of a reply's file block, decided once for every view (docs/bodies.md).

First match wins:

1. a directive on the line just above the opener or block: ``# heredoc-lsp: lang=NAME`` (``lang=none`` says the
   body is data);
2. the command's entry in the config (``lang = "NAME"``);
3. the consumer command: ``python3 -``, ``bash``, ``sh -s``, ``node -``, ``jq .``, ``kubectl apply -f -``...
   (for ``cat <<EOF | CMD``, the command after the pipe);
4. the marker name: ``PY``/``PYTHON``, ``JSON``, ``YAML``/``YML``, ``TOML``, ``SH``/``BASH``, ``SQL``...;
5. the file the heredoc writes: ``cat > f.json <<EOF``, ``cat <<EOF > f.json``, ``tee f.toml <<EOF``;
6. a shebang on the body's first line;

and for a ``[CREATE_FILE]``/``[EDIT_FILE]`` block: the directive, the shebang, then the path's extension. A body
with no language (None) is data.

Everything here is pure text work: nothing is run and no file is read.
"""

from __future__ import annotations

from functools import lru_cache

from heredoc_lsp.syntax.lazy_re import lazy_compile
from heredoc_lsp.syntax.schema import env_prefix_end

__all__ = [
    "LANGUAGES",
    "NO_LANGUAGE",
    "command_language",
    "file_language",
    "lang_directive",
    "language_name",
    "marker_language",
    "path_language",
    "plain_program",
    "shebang_language",
    "target_language",
]

# Canonical names, and the names a directive, a config entry or a marker may use for them.
LANGUAGES: dict[str, str] = {
    "python": "python",
    "py": "python",
    "python3": "python",
    "json": "json",
    "jsonc": "jsonc",
    "yaml": "yaml",
    "yml": "yaml",
    "toml": "toml",
    "sh": "sh",
    "shell": "sh",
    "dash": "sh",
    "bash": "bash",
    "sql": "sql",
    "javascript": "javascript",
    "js": "javascript",
    "node": "javascript",
    "ruby": "ruby",
    "perl": "perl",
}
# ``lang=none`` (or ``text``/``data``): the body is data, whatever else would say.
NO_LANGUAGE = "none"
_NONE_NAMES = frozenset({"none", "text", "data", "plain"})

_DIRECTIVE = lazy_compile(r"#[ \t]*heredoc-lsp[ \t]*:[ \t]*lang[ \t]*=[ \t]*([A-Za-z0-9_+.-]+)[ \t]*")

# Marker names (compared upper-cased) that name a language.
_MARKERS: dict[str, str] = {
    "PY": "python",
    "PY3": "python",
    "PYTHON": "python",
    "PYTHON3": "python",
    "JSON": "json",
    "YAML": "yaml",
    "YML": "yaml",
    "TOML": "toml",
    "SH": "sh",
    "SHELL": "sh",
    "BASH": "bash",
    "SQL": "sql",
    "PSQL": "sql",
    "JS": "javascript",
    "JAVASCRIPT": "javascript",
    "NODE": "javascript",
    "RUBY": "ruby",
    "PERL": "perl",
}

_EXTENSIONS: dict[str, str] = {
    "py": "python",
    "pyw": "python",
    "pyi": "python",
    "json": "json",
    "geojson": "json",
    "jsonc": "jsonc",
    "yaml": "yaml",
    "yml": "yaml",
    "toml": "toml",
    "sh": "sh",
    "bash": "bash",
    "sql": "sql",
    "js": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "rb": "ruby",
    "pl": "perl",
}
# JSON files that editors and tools read as JSON with comments: never checked as strict JSON.
_JSONC_NAMES = frozenset(
    {
        "settings.json",
        "tsconfig.json",
        "jsconfig.json",
        "launch.json",
        "tasks.json",
        "extensions.json",
        "keybindings.json",
        "devcontainer.json",
        ".devcontainer.json",
        ".eslintrc.json",
        "argv.json",
    }
)

_PYTHON = lazy_compile(r"(?:python|pypy)(?:[0-9]+(?:\.[0-9]+)*)?(?:-dbg)?")
_SHELLS: dict[str, str] = {"sh": "sh", "dash": "sh", "ash": "sh", "bash": "bash", "ksh": "bash"}
# Words that run the command after them (their own options are skipped).
_WRAPPERS = frozenset({"sudo", "env", "exec", "command", "nohup", "time", "nice", "doas"})
# Options of python and of the shells that take a separate argument.
_PYTHON_ARG_OPTIONS = frozenset({"-W", "-X", "--check-hash-based-pycs"})
_SHELL_ARG_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_SQL_CLIENTS = frozenset({"psql", "mysql", "mariadb", "sqlite3", "duckdb", "sqlcmd", "clickhouse-client"})


def language_name(name: str) -> str | None:
    """The canonical language for a name a person wrote (``py`` -> ``python``); :data:`NO_LANGUAGE` for
    ``none``/``text``/``data``; None for an unknown name."""
    lowered = name.lower()
    if lowered in _NONE_NAMES:
        return NO_LANGUAGE
    return LANGUAGES.get(lowered)


def lang_directive(line: str) -> str | None:
    """The name in a ``# heredoc-lsp: lang=NAME`` line (as written), or None when the line is not one."""
    if "heredoc-lsp" not in line:
        return None
    m = _DIRECTIVE.fullmatch(line.strip(" \t\f\v"))
    return m.group(1) if m is not None else None


def marker_language(marker: str) -> str | None:
    return _MARKERS.get(marker.upper())


def path_language(path: str) -> str | None:
    """The language of a file by its name: ``a/b.py`` -> ``python``; JSON files read with comments -> ``jsonc``."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    if base.lower() in _JSONC_NAMES:
        return "jsonc"
    if "." not in base.strip("."):
        return None
    return _EXTENSIONS.get(base.rsplit(".", 1)[1].lower())


def _words(text: str) -> list[str]:
    return [w for w in text.replace("\t", " ").replace("\f", " ").replace("\v", " ").split(" ") if w]


def _unquote(word: str) -> str:
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return word[1:-1]
    return word


def _program(words: list[str]) -> int:
    """Index of the program word, after wrappers (``sudo``, ``env`` and their options and assignments)."""
    i = 0
    while i < len(words):
        base = words[i].rsplit("/", 1)[-1]
        if base not in _WRAPPERS:
            return i
        i += 1
        while i < len(words) and (words[i].startswith("-") or (base == "env" and "=" in words[i])):
            i += 1
    return i


def _interpreter(program: str, args: list[str]) -> str | None:
    """The language of the program ``program`` run with ``args`` when it reads its program from stdin."""
    if program.startswith(("python", "pypy")) and _PYTHON.fullmatch(program):  # (no compile for others)
        i = 0
        while i < len(args):
            a = args[i]
            if a == "-":
                return "python"
            if a == "-m":
                return "json" if args[i + 1 : i + 2] == ["json.tool"] else None
            if a.startswith("-c") or a.startswith("-m"):
                return None
            if not a.startswith("-"):
                return None  # a script file: stdin is its data
            i += 2 if a in _PYTHON_ARG_OPTIONS else 1
        return "python"
    shell = _SHELLS.get(program)
    if shell is not None:
        i = 0
        while i < len(args):
            a = args[i]
            if a == "-s" or (a.startswith("-") and not a.startswith("--") and "s" in a[1:]):
                return shell
            if a == "--":
                return shell if i + 1 == len(args) else None
            if a in ("-c", "-i") or (a.startswith("-") and not a.startswith("--") and "c" in a[1:]):
                return None
            if not a.startswith(("-", "+")):
                return None  # a script file
            takes_arg = a in _SHELL_ARG_OPTIONS or (not a.startswith("--") and a.endswith(("o", "O")))
            i += 2 if takes_arg else 1  # (-o NAME, also at the end of a cluster: -euo pipefail)
        return shell
    if program in ("node", "nodejs"):
        return "javascript" if not args or args == ["-"] else None
    if program in ("ruby", "perl"):
        return program if not args or args == ["-"] else None
    return None


def _consumer(words: list[str]) -> str | None:
    i = _program(words)
    if i >= len(words):
        return None
    program = words[i].rsplit("/", 1)[-1]
    args = words[i + 1 :]
    found = _interpreter(program, args)
    if found is not None:
        return found
    if program in ("jq", "yq", "gojq"):
        if any(a in ("-n", "--null-input", "-R", "--raw-input") for a in args):
            return None
        plain = [a for a in args if not a.startswith("-")]
        if len(plain) <= 1:
            return "yaml" if program == "yq" else "json"
        return None
    if program in ("kubectl", "oc") and args[:1] in (["apply"], ["create"], ["replace"]):
        for k, a in enumerate(args):
            if a in ("-f", "--filename") and args[k + 1 : k + 2] == ["-"]:
                return "yaml"
            if a in ("-f-", "--filename=-"):
                return "yaml"
        return None
    if program in _SQL_CLIENTS:
        return "sql"
    return None


# Every program word (base name) :func:`command_language` or :func:`target_language` reads more of; a command whose
# first word is none of these (and no ``python``/``pypy`` name, no assignment) names no language (see plain_program).
_KNOWN_PROGRAMS = (
    _WRAPPERS
    | _SHELLS.keys()
    | _SQL_CLIENTS
    | {"node", "nodejs", "ruby", "perl", "jq", "yq", "gojq", "kubectl", "oc", "cat", "tee"}
)


def plain_program(text: str) -> bool:
    """True when :func:`command_language` and :func:`target_language` of the command ``text`` (trimmed) are None
    whatever its tail: its first word is no program they know and no assignment. A cheap test (one split, one set
    lookup) so that a script's many ordinary heredoc commands skip the word-by-word reading."""
    return _plain_word(text.split(" ", 1)[0])


@lru_cache(maxsize=1024)
def _plain_word(word: str) -> bool:
    # Kept per first word: a script repeats its programs (w100k: 5,127 heredoc commands, 4.1 -> 2.0 ms).
    if not word or "=" in word or "\t" in word or "\f" in word or "\v" in word:
        return False  # (an assignment prefix, or a blank other than a space: read it word by word)
    base = word.rsplit("/", 1)[-1]
    return base not in _KNOWN_PROGRAMS and not base.startswith(("python", "pypy"))


def _split_command(text: str) -> tuple[str, str | None]:
    """``text`` up to a pipe (``|``, not ``||``), and what follows the pipe (None without one)."""
    i = text.find("|")
    while i >= 0:
        if text.startswith("||", i):
            return text[:i], None
        if not text.startswith("|&", i):
            return text[:i], text[i + 1 :]
        i = text.find("|", i + 2)
    return text, None


def command_language(text: str, tail: str = "") -> str | None:
    """The language a consumer command gives the heredoc body it reads: ``python3 -`` -> ``python``.

    ``text`` is the command before the heredoc operator, ``tail`` what follows the marker (``| python3``). A body
    fed to ``cat`` whose output is piped goes to the command after the pipe.
    """
    head = text[env_prefix_end(text) :]
    words = _words(head)
    found = _consumer(words)
    if found is not None:
        return found
    i = _program(words)
    if i < len(words) and words[i].rsplit("/", 1)[-1] == "cat" and all(w.startswith("-") for w in words[i + 1 :]):
        _, piped = _split_command(tail)
        if piped is not None:
            return _consumer(_words(_split_command(piped)[0]))
    return None


def _redirect_target(words: list[str]) -> str | None:
    for k, w in enumerate(words):
        for op in (">>", ">|", ">"):
            if w.startswith(op) and not w.startswith(">&"):
                rest = w[len(op) :]
                if rest:
                    return _unquote(rest)
                return _unquote(words[k + 1]) if k + 1 < len(words) else None
    return None


def target_language(text: str, tail: str = "") -> str | None:
    """The language of the file a heredoc writes: ``cat > f.json``, ``cat`` with tail ``> f.json``, ``tee f.toml``
    (also after ``cat <<EOF |``); None when the command writes no file or the name says nothing."""
    head = text[env_prefix_end(text) :]
    words = _words(head)
    i = _program(words)
    if i >= len(words):
        return None
    program = words[i].rsplit("/", 1)[-1]
    if program == "cat":
        before_pipe, piped = _split_command(tail)
        target = _redirect_target(words[i + 1 :] + _words(before_pipe))
        if target is not None:
            return path_language(target)
        if piped is not None:
            return target_language(_split_command(piped)[0])
        return None
    if program == "tee":
        files = [w for w in words[i + 1 :] if not w.startswith("-")]
        return path_language(_unquote(files[0])) if files else None
    return None


def shebang_language(first_line: str) -> str | None:
    """The language a ``#!`` line names: ``#!/usr/bin/env python3`` -> ``python``."""
    if not first_line.startswith("#!"):
        return None
    words = _words(first_line[2:].strip(" \t\f\v"))
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    if program == "env":
        args = [a for a in args if not a.startswith("-")]
        if not args:
            return None
        program, args = args[0].rsplit("/", 1)[-1], []
    if program.startswith(("python", "pypy")) and _PYTHON.fullmatch(program):
        return "python"
    if program in _SHELLS:
        return _SHELLS[program]
    if program in ("node", "nodejs"):
        return "javascript"
    if program in ("ruby", "perl"):
        return program
    return None


def file_language(path: str, first_line: str | None) -> str | None:
    """The language of a reply's file block (no directive): a shebang on its first line, else the path's
    extension."""
    if first_line is not None:
        found = shebang_language(first_line)
        if found is not None:
            return found
    return path_language(path)
