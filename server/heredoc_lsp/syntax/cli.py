"""``.cli`` scripts: one command per line, ``#`` comments, ``cmd <<MARKER`` heredocs (docs/formats.md).

``parse_cli(lines)`` scans already-split lines once and returns a :class:`CliScript`. Diagnostics are computed
eagerly; the item objects (:class:`Command`, :class:`Comment`, :class:`Heredoc`) are built on first access of
``items``/``commands`` (or one at a time through ``item()``, ``item_at()`` and ``outline()``), because building tens
of thousands of frozen objects costs more than the scan itself and a diagnostics pass never needs them.

Incremental re-parsing: the scanner can start at any *top-level* line, that is a line outside every heredoc (the
start line of an item, or any line between items). ``parse_cli(lines, ..., start_line=L)`` parses from such a line
with "outside heredoc" state and reports only items and diagnostics at or after ``L``;
``CliScript.resume_line(line)`` gives the safe restart line for an edit at ``line``, and :func:`reparse_cli` does
the whole incremental update (restart, then splice the untouched prefix of the previous parse).

Choices the rules of docs/formats.md leave open:

- ``cmd <<<word`` is a here-string, i.e. a plain command (a ``bashism`` under the ``sh`` dialect).
- ``invalid_marker`` (``cmd <<ÉOF``, ``cmd << 'A B'``, ``cmd <<`` with no word) consumes a body only up to a later
  line trimmed to the word (quotes removed); without such a line nothing is consumed, because swallowing the rest
  of the file would hide every later command.
- An opener's tail (docs/formats.md) starts with a redirection (``>``, ``<``, ``N>``, ``&>``...), ``|``, ``&&`` or
  ``;``; ``&`` alone or ``#`` is no tail. ``Command.run_text`` is what the runner gets (``cat <<EOF > out.txt``: ``cat >
  out.txt``). A marker glued to a tail (``<<EOF>out``) is ``invalid_marker``, its body running to the marker.
- ``possible_heredoc`` covers ``<<WORD`` needing a space before ``<<`` or followed by a word that is no tail (``cmd
  <<EOF extra``); at most one per line. Lines whose result depends on later lines are remembered for
  ``resume_line``. It blocks a run (:func:`blocks_run`).
- Lint (docs/formats.md, warnings): ``no_effect`` for a plain command line that only changes shell state
  (:data:`NO_EFFECT_COMMANDS`, or assignments alone) and holds no ``; & | < >``, backquote or ``$(``;
  ``line_continuation`` for a plain command (or opener tail) ending in an odd number of ``\\`` outside a ``#``
  comment.
- Mistakes that would run something nobody meant (docs/checking.md, warnings): ``early_close`` on a plain command
  line that trims to the marker of a closed heredoc before it (the latest one: the scanner keeps the closed
  heredocs per marker, and an incremental scan asks the previous parse about those before its start line);
  ``orphan_option``; and, for the runner's shell (``shell``: ``"sh"`` as dash, ``"bash"``, None for none),
  ``bashism`` (``sh`` only), ``background_stdin`` and ``shell_syntax`` (``syntax/shell.py`` decides, after a
  cheap filter and a fast accept have cleared the common lines).
- An erroneous heredoc that is also unclosed gets both diagnostics; structured bodies are checked only for
  runnable commands. With configured commands, a command matching none has plain stdin (no auto-detection).
- Messages quote at most 60 characters of user text.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import chain, count

from heredoc_lsp.syntax.diagnostics import Diagnostic, Related, Severity, Span, error, information, warning
from heredoc_lsp.syntax.lazy_re import lazy_compile
from heredoc_lsp.syntax.params import ParamsBody, is_delimiter_line, parse_params
from heredoc_lsp.syntax.records import field, record, record_fields
from heredoc_lsp.syntax.schema import CommandSchema, is_only_assignments, lookup_schema
from heredoc_lsp.syntax.shell import incomplete
from heredoc_lsp.syntax.text import BLANK_CHARS, LineEdit
from heredoc_lsp.syntax.visible import hidden_diagnostics

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    ItemKind = Literal["comment", "command", "heredoc"]
    ErrorCode = Literal["unclosed_heredoc", "heredoc_without_command", "invalid_marker", "multiple_heredocs"]


# `<<` (or `<<-`) at the start of the trimmed line or after a blank, and not part of `<<<` (a here-string).
_OPERATOR = r"(?<![^ \t\f\v])<<(?!<)(-?)[ \t]*"
_MARKER = r"""(?:([A-Za-z0-9_]+)|'([A-Za-z0-9_]+)'|"([A-Za-z0-9_]+)")"""
# What may follow the marker (after blanks): a redirection (`>`, `>>`, `<`, `2>`, `2>&1`, `>&2`, `&>`, `N<`...),
# a pipe or a list operator (`|`, `||`, `&&`, `;`). Anything else makes the line a plain command.
_TAIL_START = r"(?:[0-9]*[<>]|&>|\||&&|;)"
_TAIL = lazy_compile(_TAIL_START)
_TAILS_SHOWN = "a redirection, a pipe, '&&', '||' or ';'"
# The end of an opener on the trimmed line: the end of the line, or blanks and a tail (which starts at ``m.end()``).
_OPENER_TAIL = r"(?:\Z|[ \t\f\v]+(?=" + _TAIL_START + r"))"
_OPENER_END = lazy_compile(_OPENER_TAIL)
# A valid opener; the line's first match is its opener (a later `<<` in the tail is `multiple_heredocs`).
_OPENER = lazy_compile(_OPERATOR + _MARKER + _OPENER_TAIL)
# A complete heredoc redirection anywhere (followed by a blank or the end): finds `<<A` in `cmd <<A <<B`.
_HEREDOC_TOKEN = lazy_compile(_OPERATOR + _MARKER + r"(?![^ \t\f\v])")
# An operator followed by one word (maybe quoted, maybe empty) that is no valid marker, where an opener would end.
_INVALID = lazy_compile(_OPERATOR + r"""('[^']*'|"[^"]*"|[^ \t\f\v]*)""" + _OPENER_TAIL)
# A valid marker glued to what looks like the start of a tail (`<<EOF>out`, `<<EOF|tee`): a missing blank.
_GLUED_TAIL = lazy_compile(r"""(?:[A-Za-z0-9_]+|'[A-Za-z0-9_]+'|"[A-Za-z0-9_]+")(?=""" + _TAIL_START + ")")
# `<<WORD` anywhere in a plain command (no blank needed before it): candidates for `possible_heredoc`.
_LOOSE_TOKEN = lazy_compile(r"(?<!<)<<(?!<)-?[ \t]*" + _MARKER)
_FIRST_WORD = lazy_compile(r"[^ \t\f\v]+")
# A `#` starting a word: the rest of the line is a shell comment (a backslash there continues nothing).
_SHELL_COMMENT = lazy_compile(r"(?:^|[ \t\f\v])#")
# Shell syntax through which a line does more than change the shell's own state: lists, pipes, redirections,
# command substitution. A line holding any of it is never `no_effect`.
_EFFECT_CHARS = ";&|<>`"  # and `$(`
_RESERVED = r"(?:if|then|else|elif|fi|for|while|until|do|done|case|esac|in|select|function|time|coproc|!|\[\[|\]\])"
# The scanner's cheap filter (:func:`_needs_shell_look`): a command needs a closer look for `shell_syntax` and
# `bashism` when it holds one of these characters, an odd number of double quotes, or starts with a reserved word
# (the first three characters are tested first). Other commands are complete shell in sh and bash.
_HARD = "'`\\(){}|&;<>["
_HARD_CHARS = lazy_compile("[" + re.escape(_HARD) + "]")
_RESERVED_WORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "select"}
    | {"function", "coproc", "time", "!", "[[", "]]"}
)
# Their first three characters (a two-character word: the word alone, or followed by a blank). `!` followed by a
# blank is only two characters, never a line's first three: the filter tests a first character `!` on its own.
_RESERVED_STARTS = frozenset(w[:3] for w in _RESERVED_WORDS) | {
    w + blank for w in _RESERVED_WORDS if len(w) == 2 for blank in BLANK_CHARS
}
# A fast accept, not a lexer: words of plain characters (no `[`), single-quoted strings, double-quoted strings
# holding no substitution but `$name`, and `$name`; simple redirections; `|`, `||`, `&&`, `;` between commands whose
# first word is no reserved word; a final `;` or `&`. What it matches is complete shell in sh and bash (the tests
# hold it against `sh -n` and `bash -n`); everything else goes to the shell lexer (syntax/shell.py).
_WORD = r"""(?:[^ \t\f\v'"`$\\(){}|&;<>#\[]|'[^']*'|"(?:[^"\\`$]|\$[A-Za-z0-9_])*"|\$[A-Za-z0-9_])+"""
# (`[` only as a word of its own, the test command: bash reads `name[` starting a command as an array assignment)
_ITEM = r"(?:[0-9]?(?:>>|>|<)[ \t]*" + _WORD + r"|[0-9]?>&[0-9]|\[(?![^ \t])|" + _WORD + ")"
# (a reserved word ends at a blank or an operator: `esac|`, `do;` are reserved words too)
_SIMPLE_COMMAND = r"(?!" + _RESERVED + r"(?![^ \t\f\v;&|<>()]))" + _ITEM + r"(?:[ \t]+" + _ITEM + ")*"
_SIMPLE = lazy_compile(_SIMPLE_COMMAND + r"(?:[ \t]*(?:\|\||&&|\||;)[ \t]*" + _SIMPLE_COMMAND + r")*(?:[ \t]*[;&])?")
# Quoted text and escaped characters (hidden before looking for bash-only operators).
_QUOTED = lazy_compile(r"""'[^']*'|"(?:\\.|[^"\\])*"|\\.""")
# Bash-only syntax that /bin/sh reads differently or rejects (`bashism`), with what to write instead.
_BASHISM = lazy_compile(
    r"(&>|<<<)|(?:^|[;&|(]|(?<![^ \t;&|(])(?:if|then|elif|else|while|until|do|!)(?=[ \t]))[ \t]*(\[\[)(?![^ \t])"
)
_BASHISM_INSTEAD = {
    "&>": "dash runs the command before it in the background and then truncates the file; write '> FILE 2>&1'",
    "<<<": "dash has no here-strings; write \"printf '%s\\n' WORD | command\" or a heredoc",
    "[[": "dash has no '[[ ... ]]'; write '[ ... ]' (test), with '=' for comparisons",
}
BASH_RUNNER = '["bash", "-c", "{command}"]'
# Commands longer than this are not judged by `shell_syntax` (the lexer's work grows with the command, and a keystroke
# on such a line would pay it again); `bashism` is a plain pattern search and still looks at them.
SHELL_SYNTAX_MAX = 4096
# Work counter, for tests and the benchmark: command lines the scanner's filter handed to the shell lints.
STATS: dict[str, int] = {"shell_looks": 0}
# The bytes of a line (UTF-8) that the scanner's tests of a top-level line look for: `#` (comments), the hard
# characters (`<` of `<<` among them), `"`, `=` and `\\` (lints), `!` (a reserved word) and every byte of a non-ASCII
# character (hidden characters). :func:`_marks` keeps only these; a line whose marks are none or _QUIET_MARKS is an
# ASCII plain command line that only its first word can make a lint case.
_MARKED = frozenset((_HARD + '#"=!').encode()) | frozenset(range(0x80, 0x100))
_UNMARKED = bytes(b for b in range(0x100) if b not in _MARKED and b != 0x0A)  # ("\n" is kept: it splits the lines)
_QUIET_MARKS = frozenset({b'""', b'""""'})  # marks of a line as good as none: an even number of `"` alone
_MARKS_CHUNK = 4096
_WARNING = Severity.WARNING


def _with_args(args: Sequence[str]) -> bool:
    return bool(args)


def _exports(args: Sequence[str]) -> bool:
    return bool(args) and "-p" not in args  # `export -p` prints


def _sets(args: Sequence[str]) -> bool:
    return bool(args) and list(args) not in (["-o"], ["+o"])  # `set -o` prints the options


def _shopt_sets(args: Sequence[str]) -> bool:
    return len(args) > 1 and args[0] in ("-s", "-u")


def _defines_alias(args: Sequence[str]) -> bool:
    return any("=" in a for a in args)  # `alias ll` prints the alias


def _sets_umask(args: Sequence[str]) -> bool:
    return bool(args) and not args[0].startswith("-")  # `umask -S` prints


def _always(args: Sequence[str]) -> bool:
    return True


# docs/formats.md `no_effect`: commands that only change the shell's own state (which the next line, run in a shell of
# its own, never sees), with what they change and when they do nothing else (as opposed to printing something).
# Assignments alone (`X=1`) are the other case.
NO_EFFECT_COMMANDS: dict[str, tuple[str, Callable[[Sequence[str]], bool]]] = {
    "cd": ("the change of directory", _always),
    "export": ("the variable", _exports),
    "readonly": ("the variable", _exports),
    "unset": ("the variable", _with_args),
    "set": ("the shell option", _sets),
    "shopt": ("the shell option", _shopt_sets),
    "alias": ("the alias", _defines_alias),
    "unalias": ("the alias", _with_args),
    "source": ("what it defines", _with_args),
    ".": ("what it defines", _with_args),
    "umask": ("the file mode mask", _sets_umask),
}
# The first two characters of every line _lint can warn about, except assignments (which hold `=`) and line
# continuations (which end in `\`): the scanner's cheap filter.
_LINT_STARTS = frozenset(
    {name[:2] for name in NO_EFFECT_COMMANDS if len(name) > 1} | {"." + blank for blank in BLANK_CHARS}
)

# _LINT_STARTS and the first two characters of the reserved words but `!`: the scanner's cheap filter of unmarked
# command lines (which hold no `!`), whose first word is all that can make them a lint case or need a shell look.
_WORD_STARTS = _LINT_STARTS | frozenset(w[:2] for w in _RESERVED_WORDS if w != "!")

COMPAT_CODE = "compat_arca_cli"


# --------------------------------------------------------------------------------------------------------------
# The tree


@record
class Heredoc:
    """The heredoc of one command line.

    ``marker`` is the word without quotes; ``marker_span`` covers that word (inside the quotes when quoted).
    ``body`` holds the stdin lines: verbatim, line terminators removed, leading tabs removed for ``<<-``.
    ``terminator_line``/``terminator_span`` are None when the heredoc is unclosed (the body then runs to the end of
    the file). ``body_end`` is the exclusive end line of the body. ``tail`` is the redirection or pipe that follows
    the marker on the opener line (``> out.txt`` in ``cat <<EOF > out.txt``), ``""`` without one.
    """

    operator_span: Span
    marker: str
    marker_span: Span
    quoted: bool
    quote: str
    strip_tabs: bool
    body_start: int
    body: tuple[str, ...]
    terminator_line: int | None
    terminator_span: Span | None
    tail: str = ""

    @property
    def body_end(self) -> int:
        return self.body_start + len(self.body)

    @property
    def closed(self) -> bool:
        return self.terminator_line is not None

    def stdin_text(self) -> str:
        """The command's stdin: each body line followed by ``\\n``; an empty body gives ``""``."""
        return "".join(line + "\n" for line in self.body)


@record
class Command:
    """A command line (with its heredoc, if any).

    ``text`` is the trimmed command (for a heredoc line, the text before the operator); it starts at column
    ``col`` of ``line``. ``run_text`` is what the runner gets (docs/formats.md: with a heredoc tail, the text before the
    operator, one space and the tail). ``end_line`` is the last line the item covers (the terminator for a closed
    heredoc).
    ``error`` is None for runnable commands; otherwise the code of the error that made the line no command
    (such items are in ``CliScript.items`` but not in ``CliScript.commands``). ``schema`` is the configured command
    matching ``text``; ``params`` the parse of a structured heredoc body.
    """

    line: int
    col: int
    text: str
    heredoc: Heredoc | None = None
    end_line: int = -1
    schema: CommandSchema | None = None
    params: ParamsBody | None = None
    error: ErrorCode | None = None

    @property
    def span(self) -> Span:
        return Span(self.line, self.col, self.line, self.col + len(self.text))

    @property
    def runnable(self) -> bool:
        return self.error is None

    @property
    def run_text(self) -> str:
        """The command given to the runner: ``cat <<EOF > out.txt`` runs ``cat > out.txt``."""
        h = self.heredoc
        if h is None or not h.tail:
            return self.text
        return f"{self.text} {h.tail}" if self.text else h.tail

    def stdin_text(self) -> str:
        """Stdin for running this command: the heredoc body (each line + ``\\n``), or ``""`` without one."""
        return self.heredoc.stdin_text() if self.heredoc is not None else ""


@record
class Comment:
    """A full-line ``#`` comment; ``text`` is the trimmed line, starting at column ``col``."""

    line: int
    col: int
    text: str

    @property
    def span(self) -> Span:
        return Span(self.line, self.col, self.line, self.col + len(self.text))

    @property
    def end_line(self) -> int:
        return self.line


Item = Command | Comment


# Warnings that stop a script from running (docs/checking.md): the lines they are about would run as commands.
RUN_BLOCKING_WARNINGS = frozenset({"possible_heredoc", "early_close"})


def blocks_run(diagnostic: Diagnostic) -> bool:
    """True when ``diagnostic`` (not suppressed) means the script must not run: any error, or a warning of
    :data:`RUN_BLOCKING_WARNINGS`."""
    return diagnostic.severity == Severity.ERROR or diagnostic.code in RUN_BLOCKING_WARNINGS


def may_end_opener(rest: str) -> bool:
    """True when ``rest``, the text after a marker, lets the marker end an opener (docs/formats.md): nothing, or blanks
    and a tail starting with a redirection, a pipe or a list operator."""
    return _OPENER_END.match(rest) is not None


class _Row:
    """What the scanner keeps about a heredoc line until items are built (cheap, mutable, private).

    ``op_at`` is the column of the operator in the trimmed line, which starts at column ``col``; the other columns
    are derived (by matching again) only when items are built. ``tail`` is the column in the trimmed line where the
    redirection or pipe after the marker starts (``cat <<EOF > out.txt``), 0 when there is none.
    """

    __slots__ = (
        "col",
        "error",
        "line",
        "marker",
        "op_at",
        "params",
        "schema",
        "simple",
        "strip",
        "tail",
        "terminator",
    )

    def __init__(
        self,
        line: int,
        col: int,
        op_at: int,
        marker: str,
        strip: bool,
        error: ErrorCode | None,
        simple: bool = False,
        tail: int = 0,
    ) -> None:
        self.line = line
        self.simple = simple  # `cmd <<WORD`: operator `<<`, the marker right after it, no quotes
        self.col = col
        self.op_at = op_at
        self.tail = tail
        self.marker = marker
        self.strip = strip
        self.error: ErrorCode | None = error
        self.terminator = -1  # terminator line; -1 while open, -2 when the line has no body at all
        self.schema: CommandSchema | None = None
        self.params: ParamsBody | None = None

    def end_line(self, n: int) -> int:
        """The last line of the item in a document of ``n`` lines."""
        if self.terminator >= 0:
            return self.terminator
        return self.line if self.terminator == -2 else max(self.line, n - 1)

    def layout(self, line: str) -> tuple[int, int, int, str, int]:
        """(operator column, operator length, marker column, quote, command length), columns in the trimmed line."""
        op_at = self.op_at
        if self.simple:
            return op_at, 2, op_at + 2, "", len(line[self.col : self.col + op_at].rstrip(BLANK_CHARS))
        t = line.strip(BLANK_CHARS)
        cmd_len = len(t[:op_at].rstrip(BLANK_CHARS))
        if self.error == "invalid_marker":
            m = _INVALID.match(t, op_at)
            assert m is not None
            word = m.group(2)
            glued = _GLUED_TAIL.match(word)
            if glued is not None:
                word = word[: glued.end()]
            quoted = len(word) >= 2 and word[0] in "'\"" and word[-1] == word[0]
            return op_at, 2 + len(m.group(1)), m.start(2) + quoted, word[0] if quoted else "", cmd_len
        m = _HEREDOC_TOKEN.match(t, op_at)
        assert m is not None
        op_len = 2 + len(m.group(1))
        if m.group(2) is not None:
            return op_at, op_len, m.start(2), "", cmd_len
        if m.group(3) is not None:
            return op_at, op_len, m.start(3), "'", cmd_len
        return op_at, op_len, m.start(4), '"', cmd_len


# A row is a plain command line (int >= 0), a comment line (~line, < 0) or a heredoc line (_Row).
_RowT = int | _Row


@record(eq=False)
class CliScript:
    """The parse of a ``.cli`` script.

    ``lines`` are the parsed lines (a tuple). ``diagnostics`` are sorted by position. ``items`` holds every
    top-level item in order (commands, comments and erroneous heredoc lines, the latter as :class:`Command` with
    ``error`` set); ``commands`` the runnable commands. Both are built on first access and cached. ``start_line`` is
    where scanning started (0 for a full parse). Compare scripts by their ``items`` and ``diagnostics``.
    """

    lines: Sequence[str] = field(repr=False)
    diagnostics: tuple[Diagnostic, ...]
    start_line: int = 0
    _rows: Sequence[_RowT] = field(default=(), repr=False)  # the scanner's list, never changed after the parse
    _lookahead: tuple[int, ...] = field(default=(), repr=False)  # lines whose result depends on later lines
    _schemas: Mapping[str, CommandSchema] | None = field(default=None, repr=False)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)
    # Opener lines of the closed heredocs, per marker, in order (what an `early_close` line looks back for), and the
    # plain command lines holding no blank (the only ones that can be an `early_close`).
    _openers: Mapping[str, tuple[int, ...]] = field(default_factory=dict, repr=False)
    _bare: tuple[int, ...] = field(default=(), repr=False)
    # The rows of the closed heredocs, in order, when this is a whole parse (None after a splice): what a pass over
    # every heredoc reads without walking every row.
    _closed_rows: Sequence[_Row] | None = field(default=None, repr=False)

    @property
    def items(self) -> tuple[Item, ...]:
        items = self._cache.get("items")
        if items is None:
            built = _build_items(self.lines, self._rows, self._schemas)
            for index, item in self._cache.get("built", {}).items():
                built[index] = item  # keep the objects item()/item_at() already handed out
            items = self._cache["items"] = tuple(built)
        return items

    @property
    def commands(self) -> tuple[Command, ...]:
        commands = self._cache.get("commands")
        if commands is None:
            commands = self._cache["commands"] = tuple(
                item for item in self.items if isinstance(item, Command) and item.error is None
            )
        return commands

    @property
    def has_errors(self) -> bool:
        return any(d.severity == Severity.ERROR for d in self.diagnostics)

    def item(self, index: int) -> Item:
        """``items[index]``, built alone (and cached) when ``items`` has not been built."""
        items = self._cache.get("items")
        if items is not None:
            return items[index]  # type: ignore[no-any-return]
        built: dict[int, Item] = self._cache.setdefault("built", {})
        item = built.get(index)
        if item is None:
            row = self._rows[index]
            if isinstance(row, _Row):
                item = built[index] = _heredoc_command(self.lines, row, len(self.lines))
            else:
                item = built[index] = _build_items(self.lines, (row,), self._schemas)[0]
        return item

    def items_between(self, first_line: int, stop_line: int | None = None) -> list[Item]:
        """The items starting on lines ``[first_line, stop_line)`` (default: to the end); builds only those."""
        starts = self._starts()
        lo = bisect_left(starts, first_line)
        hi = len(starts) if stop_line is None else bisect_left(starts, stop_line, lo)
        items = self._cache.get("items")
        if items is not None:
            return list(items[lo:hi])
        return _build_items(self.lines, self._rows[lo:hi], self._schemas)

    def item_at(self, line: int) -> Item | None:
        """The item covering ``line`` (its opener, body or terminator), or None; builds only that item."""
        k = bisect_right(self._starts(), line) - 1
        if k < 0:
            return None
        item = self.item(k)
        return item if item.end_line >= line else None

    def outline(
        self, first_line: int = 0, last_line: int | None = None
    ) -> Iterator[tuple[ItemKind, int, Command | None]]:
        """The items covering lines ``first_line..last_line`` (inclusive; default: to the end) in order, cheaply:
        ``("comment", line, None)``, ``("command", line, None)`` for a command without heredoc (its text is the
        trimmed line) and ``("heredoc", line, command)`` for a heredoc line (runnable or not), whose
        :class:`Command` is built alone. For folding, semantic tokens and outlines of big scripts."""
        n = len(self.lines)
        last = n - 1 if last_line is None else last_line
        rows = self._rows
        for index in range(max(0, bisect_right(self._starts(), first_line) - 1), len(rows)):
            row = rows[index]
            if isinstance(row, _Row):
                if row.line > last:
                    return
                if row.end_line(n) >= first_line:
                    command = self.item(index)
                    assert isinstance(command, Command)
                    yield "heredoc", row.line, command
            elif row >= 0:
                if row > last:
                    return
                if row >= first_line:
                    yield "command", row, None
            else:
                if ~row > last:
                    return
                if ~row >= first_line:
                    yield "comment", ~row, None

    def resume_line(self, line: int) -> int:
        """A top-level line at or before ``line`` from which re-scanning gives the same result as a full parse,
        provided no line before ``line`` changed. It is the start of the item covering or preceding ``line``, or
        earlier when an item before it looked ahead (``possible_heredoc``, ``invalid_marker``)."""
        starts = self._starts()
        k = bisect_right(starts, line) - 1
        resume = starts[k] if k >= 0 else self.start_line
        if self._lookahead and self._lookahead[0] < resume:
            resume = self._lookahead[0]
        return min(resume, line) if line >= self.start_line else self.start_line

    def _row_at(self, line: int) -> _Row:
        """The heredoc row whose opener is on ``line`` (which must be one)."""
        row = self._rows[bisect_left(self._starts(), line)]
        assert isinstance(row, _Row) and row.line == line
        return row

    def _starts(self) -> list[int]:
        starts = self._cache.get("starts")
        if starts is None:
            row_type = _Row
            starts = self._cache["starts"] = [
                r.line if isinstance(r, row_type) else r if r >= 0 else ~r for r in self._rows
            ]
        return starts


# --------------------------------------------------------------------------------------------------------------
# Parsing


def parse_cli(
    lines: Sequence[str],
    schemas: Mapping[str, CommandSchema] | None = None,
    compat: str | None = None,
    *,
    start_line: int = 0,
    shell: str | None = "sh",
    earlier: CliScript | None = None,
) -> CliScript:
    """Parse a ``.cli`` script given as split lines (see :func:`heredoc_lsp.syntax.text.split_lines`).

    ``schemas`` are the configured commands (structured heredoc bodies); without any, a body whose first non-blank
    line is a delimiter is parsed as a structured body allowing any name. ``compat="arca-cli"`` adds portability
    hints. ``shell`` is the runner's shell dialect (``"sh"``, ``"bash"``, or None for a runner that is no shell):
    what ``shell_syntax`` and ``bashism`` judge. ``start_line`` must be a top-level line (see the module doc);
    ``earlier``, a full parse whose lines before ``start_line`` are these, tells which heredocs were opened before
    it (``early_close``). Never raises on any text.
    """
    lines = lines if isinstance(lines, tuple) else tuple(lines)
    start = max(0, start_line)
    scanner = _Scanner(lines, schemas or None, compat, shell, earlier if start else None, start)
    rows = scanner.scan(start)
    diagnostics = scanner.diagnostics
    if len(diagnostics) > 1:
        diagnostics.sort(key=_position)
    return CliScript(
        lines=lines,
        diagnostics=tuple(diagnostics),
        start_line=start,
        _rows=rows,
        _lookahead=tuple(scanner.lookahead),
        _schemas=schemas or None,
        _openers={m: tuple(x) for m, x in scanner.opener_lines.items()},
        _bare=tuple(scanner.bare),
        _closed_rows=scanner.closed_rows if start == 0 else None,
    )


def _joined_openers(
    old: Mapping[str, tuple[int, ...]],
    before: int,
    middle: Mapping[str, tuple[int, ...]],
    after: int,
    delta: int,
    touched: Iterable[str] | None = None,
) -> dict[str, tuple[int, ...]]:
    """The openers index of a spliced parse: ``old``'s lines before ``before``, ``middle`` (the new scan's), and
    ``old``'s lines from ``after`` on, moved by ``delta``. ``touched``: the only markers with old lines in
    ``[before, after)`` or new ones in ``middle`` (default: look at every marker); when nothing moved, the other
    markers keep their entries as they are."""
    if touched is None or delta:
        markers: Iterable[str] = old.keys() | middle.keys()
        out: dict[str, tuple[int, ...]] = {}
    else:
        markers = touched
        out = dict(old)
    for marker in markers:
        at = old.get(marker, ())
        lo = bisect_left(at, before)
        hi = bisect_left(at, after, lo)
        tail = at[hi:]
        if delta and tail:
            tail = tuple(x + delta for x in tail)
        joined = at[:lo] + middle.get(marker, ()) + tail
        if joined:
            out[marker] = joined
        else:
            out.pop(marker, None)
    return out


def _last_closed(rows: Iterable[_RowT]) -> dict[str, tuple[int, int]]:
    """Per marker, (opener line, terminator line) of the last closed heredoc among ``rows``."""
    out: dict[str, tuple[int, int]] = {}
    for row in rows:
        if isinstance(row, _Row) and row.terminator >= 0:
            out[row.marker] = (row.line, row.terminator)
    return out


def reparse_cli(
    previous: CliScript,
    lines: Sequence[str],
    first_changed_line: int,
    schemas: Mapping[str, CommandSchema] | None = None,
    compat: str | None = None,
    *,
    shell: str | None = "sh",
) -> CliScript:
    """Parse ``lines`` reusing ``previous`` (a parse of the same document in which lines before
    ``first_changed_line`` are unchanged). The result equals ``parse_cli(lines, schemas, compat, shell=shell)``;
    ``schemas``, ``compat`` and ``shell`` must be the ones ``previous`` was parsed with."""
    if previous.start_line != 0:
        return parse_cli(lines, schemas, compat, shell=shell)
    resume = previous.resume_line(max(0, min(first_changed_line, len(lines))))
    suffix = parse_cli(lines, schemas, compat, start_line=resume, shell=shell, earlier=previous)
    k = bisect_left(previous._starts(), resume)
    rows = list(previous._rows[:k])
    rows.extend(suffix._rows)
    prefix_diags = tuple(d for d in previous.diagnostics if d.span.start_line < resume)
    lookahead = tuple(x for x in previous._lookahead if x < resume) + suffix._lookahead
    bare = previous._bare[: bisect_left(previous._bare, resume)] + suffix._bare
    return CliScript(
        lines=suffix.lines,
        diagnostics=prefix_diags + suffix.diagnostics,
        start_line=0,
        _rows=rows,
        _lookahead=lookahead,
        _schemas=schemas or None,
        _openers=_joined_openers(previous._openers, resume, suffix._openers, len(previous.lines) + 1, 0),
        _bare=bare,
    )


def _shown(text: str, limit: int = 60) -> str:
    """``text`` for a message, shortened in the middle when longer than ``limit``."""
    if len(text) <= limit:
        return text
    half = (limit - 3) // 2
    return f"{text[:half]}...{text[-half:]}"


def _token_end(m: re.Match[str]) -> int:
    """The end of a heredoc redirection's marker (its closing quote included) in a match of ``_MARKER``."""
    if m.group(2) is not None:
        return m.end(2)
    return m.end(3) + 1 if m.group(3) is not None else m.end(4) + 1


def _no_effect(t: str) -> tuple[str, str, str] | None:
    """(command, what it changes, how to write it instead) when the command ``t`` only changes shell state."""
    # (string methods before any regex: the common cases compile none; t is trimmed and not empty)
    first = t.split(" ", 1)[0]
    if "\t" in first or "\f" in first or "\v" in first:
        first = _FIRST_WORD.match(t).group()  # type: ignore[union-attr]
    entry = NO_EFFECT_COMMANDS.get(first)
    # An assignment's first word holds its "=": the common plain command is ruled out without a regex.
    if entry is None and "=" not in first:
        return None
    if "$(" in t or any(c in t for c in _EFFECT_CHARS):
        return None
    if is_only_assignments(t):
        return "assignment", "the variable", f"{t} <command>"
    if entry is None:
        return None
    words = _FIRST_WORD.findall(t)
    if not entry[1](words[1:]):
        return None
    return words[0], entry[0], f"{t} && <command>"


@lru_cache(maxsize=1024)
def _no_effect_message(t: str) -> tuple[str, str] | None:
    """(command, message) of a ``no_effect`` warning for the command ``t``: scripts repeat their assignments, and
    the decision and the message depend on the text alone."""
    found = _no_effect(t)
    if found is None:
        return None
    name, what, example = found
    return name, (
        f"'{_shown(t)}' has no effect: every line runs in a shell of its own, so {what} does not carry "
        f"over to the next lines; put it on the line of the command that needs it ('{_shown(example)}')"
    )


def _needs_shell_look(command: str) -> bool:
    """Whether ``command`` may be incomplete or bash-only shell: it holds quotes, substitutions, groups, operators or
    redirections (double quotes alone only when their number is odd), or starts with a reserved word."""
    if _HARD_CHARS.search(command) is not None or command.count('"') % 2:
        return True
    first = _FIRST_WORD.match(command)
    return first is not None and first.group() in _RESERVED_WORDS  # (the scanner's loop has this inline)


def _marks(lines: tuple[str, ...]) -> Iterator[list[bytes]]:
    """The marked bytes of each line (see :data:`_MARKED`), in lists of :data:`_MARKS_CHUNK` lines, each list found
    in one C-level pass (join, encode, translate, split) over a text small enough to stay in the cache."""
    for k in range(0, len(lines), _MARKS_CHUNK):
        chunk = lines[k : k + _MARKS_CHUNK]
        marks = "\n".join(chunk).encode("utf-8", "surrogatepass").translate(None, _UNMARKED).split(b"\n")
        if len(marks) != len(chunk):
            # A line holding "\n" (never one from split_lines): one line at a time (its "\n" is a mark too).
            marks = [line.encode("utf-8", "surrogatepass").translate(None, _UNMARKED) for line in chunk]
        yield marks


def _blanked(m: re.Match[str]) -> str:
    return "_" * len(m.group())


def _position(d: Diagnostic) -> tuple[int, int]:
    return (d.span.start_line, d.span.start_col)


class _Scanner:
    """One pass over the lines; collects rows and diagnostics."""

    def __init__(
        self,
        lines: tuple[str, ...],
        schemas: Mapping[str, CommandSchema] | None,
        compat: str | None,
        shell: str | None = "sh",
        earlier: CliScript | None = None,
        start: int = 0,
    ):
        self.lines = lines
        self.schemas = schemas
        self.arca = compat == "arca-cli"
        self.shell = shell
        self.earlier = earlier  # a full parse of the same lines before ``start`` (heredocs opened there)
        self.start = start
        self.diagnostics: list[Diagnostic] = []
        self.lookahead: list[int] = []
        self.opener_lines: dict[str, list[int]] = {}  # closed heredocs of this scan, per marker
        self.closed: dict[str, _Row] = {}  # the last closed heredoc of this scan, per marker
        self.bare: list[int] = []  # plain command lines with no blank in them
        self.closed_rows: list[_Row] = []  # the closed heredocs of this scan, in order
        self._trimmed_index: dict[str, list[int]] | None = None

    def scan(self, start: int) -> list[_RowT]:
        # The hot loop: one strip per top-level line, one substring test per body line; everything rare is a call.
        # Bodies are consumed by an inner loop on the same iterator, so top-level lines pay no "in a body?" test.
        # Each line comes with its marks (_marks): a top-level line without any (most command lines) is a plain
        # command, ASCII, holding none of the characters the lints look for, and pays neither the hidden-character
        # test nor the search for hard characters; a body line without any is ASCII.
        lines = self.lines
        rows: list[_RowT] = []
        append = rows.append
        blanks = BLANK_CHARS
        plain_ok = not self.arca
        check_all = bool(self.schemas)
        lint_starts = _LINT_STARTS
        word_starts = _WORD_STARTS
        no_effect = NO_EFFECT_COMMANDS
        closed = self.closed
        opener_lines = self.opener_lines
        closed_rows = self.closed_rows
        hard = _HARD_CHARS.search if self.shell is not None else None
        reserved_starts = _RESERVED_STARTS
        reserved = _RESERVED_WORDS
        quiet = _QUIET_MARKS
        opener_marks = b"<<"
        scanned = lines[start:] if start else lines
        numbered = zip(count(start), scanned, chain.from_iterable(_marks(scanned)))
        for i, line, marks in numbered:
            t = line.strip(blanks)
            if not t:
                continue
            if not marks or marks in quiet:
                # An unmarked line: a plain ASCII command holding no `\\`, `=`, `!`, `#`, hard character nor an odd
                # number of `"`, so only its first word can make it a lint case (see _lint) or need a shell look.
                # (str.split's first word is a prefix of the blank-delimited one: it never hides a name)
                append(i)
                start2 = t[:2]
                if start2 in word_starts:
                    word = t.split(None, 1)[0]
                    if word in no_effect and start2 in lint_starts:
                        self._lint(i, line, t)
                    if hard is not None and word in reserved and t[:3] in reserved_starts:
                        self._shell_lints(i, len(line) - len(line.lstrip(blanks)), t, t, t)
                elif t[0] == "-":
                    self._lint(i, line, t)
                if " " not in t:
                    self._bare(i, line, t)
                continue
            if not line.isascii():
                self._hidden(i, line, "a comment" if t[0] == "#" else "a command line")
            if t[0] == "#":
                append(~i)
                continue
            if "<<" not in t:
                append(i)
                # Cheap filters first: most commands cannot be a lint case (see _lint).
                if (
                    t[-1] == "\\"
                    or "=" in t
                    or t[0] == "-"
                    or (t[:2] in lint_starts and t.split(None, 1)[0] in no_effect)
                ):
                    self._lint(i, line, t)
                if hard is not None and (
                    hard(t) is not None
                    or ('"' in t and t.count('"') % 2)
                    or ((t[:3] in reserved_starts or t[0] == "!") and t.split(None, 1)[0] in reserved)
                ):
                    self._shell_lints(i, len(line) - len(line.lstrip(blanks)), t, t, t)
                if " " not in t:
                    self._bare(i, line, t)
                continue
            j = t.rfind("<<")
            row: _Row | None = None
            if j > 0 and plain_ok:
                # The common case, `cmd <<WORD` and no other `<<`, with string methods (cheaper than a regex).
                marker = t[j + 2 :]
                if (
                    marker.isascii()
                    and marker.replace("_", "a").isalnum()
                    and t[j - 1] in blanks
                    and t.find("<<", 0, j) < 0
                ):
                    row = _Row(i, len(line) - len(line.lstrip(blanks)), j, marker, False, None, True)
            if row is None:
                row = self._heredoc_line(i, line, t)
                if row is None:
                    append(i)
                    self._lint(i, line, t)
                    if hard is not None and _needs_shell_look(t):
                        self._shell_lints(i, len(line) - len(line.lstrip(blanks)), t, t, t)
                    continue
                if row.terminator != -1:
                    append(row)
                    continue
                marker = row.marker
                if row.error is None:
                    self._opener_lints(row, t)
            elif t[0] == "-" or (
                # _needs_shell_look of the command before `<<`, inline and without a slice (a superset:
                # _opener_lints looks again): most openers are plain commands (marked by their `<<` alone)
                hard is not None
                and (
                    (marks != opener_marks and (hard(t, 0, j) is not None or ('"' in t and t.count('"', 0, j) % 2)))
                    or ((t[:3] in reserved_starts or t[0] == "!") and t.split(None, 1)[0] in reserved)
                )
            ):
                self._opener_lints(row, t)
            append(row)
            # The body: it ends at the first line whose trimmed text is the marker.
            for k, body_line, body_marks in numbered:
                if body_marks and not body_line.isascii():
                    self._hidden(k, body_line, "a heredoc body")
                if marker in body_line and body_line.strip(blanks) == marker:
                    row.terminator = k
                    closed_rows.append(row)
                    if check_all:
                        self._close(row)
                    else:
                        # Unconfigured, a body is structured only when its first non-blank line is a delimiter:
                        # test its first line cheaply (for an empty body that is the terminator; harmless).
                        first = lines[i + 1]
                        if first.startswith("---") or not first.strip(blanks) or (row.strip and first[:1] == "\t"):
                            self._close(row)
                    closed[marker] = row
                    found = opener_lines.get(marker)
                    if found is None:
                        opener_lines[marker] = [i]
                    else:
                        found.append(i)
                    break
            else:
                self._unclosed(row)
        return rows

    def _bare(self, i: int, line: str, t: str) -> None:
        """A plain command line holding no blank: remembered, and an ``early_close`` when it is a closed marker."""
        self.bare.append(i)
        if t in self.closed or (self.earlier is not None and t in self.earlier._openers):
            self._early_close(i, line, t)

    def _hidden(self, i: int, line: str, where: str) -> None:
        """Bidirectional controls and invisible characters: errors on every line (what runs, its stdin, comments)."""
        self.diagnostics.extend(hidden_diagnostics(i, line, where))

    # ---- a line containing `<<`

    def _heredoc_line(self, i: int, line: str, t: str) -> _Row | None:
        """Classify a top-level line containing ``<<`` (trimmed: ``t``); None: a plain command."""
        col = len(line) - len(line.lstrip(BLANK_CHARS))
        m = _OPENER.search(t)
        if m is not None:
            return self._opener(i, col, t, m)
        m = _INVALID.search(t)
        if m is not None:
            return self._invalid(i, col, t, m)
        self._possible_heredoc(i, col, t)
        return None

    def _opener(self, i: int, col: int, t: str, m: re.Match[str]) -> _Row:
        marker = m.group(2) or m.group(3) or m.group(4)
        op_at = m.start()
        tail = m.end() if m.end() < len(t) else 0
        # Every complete heredoc redirection of the line: before the opener (`cmd <<A x <<B`) and in its tail.
        tokens = [m]
        if t.find("<<", 0, op_at) >= 0:
            tokens[:0] = _HEREDOC_TOKEN.finditer(t, 0, op_at)
        if tail and t.find("<<", tail) >= 0:
            tokens.extend(_HEREDOC_TOKEN.finditer(t, tail))
        error_code: ErrorCode | None = None
        if op_at == 0:
            error_code = "heredoc_without_command"
            self.diagnostics.append(
                error(
                    Span(i, col, i, col + _token_end(m)),
                    "heredoc_without_command",
                    f"Heredoc '{_shown(t)}' has no command: write the command before '<<' on this line",
                    data={"marker": marker},
                )
            )
        if len(tokens) > 1:
            error_code = "multiple_heredocs"
            markers = [e.group(2) or e.group(3) or e.group(4) for e in tokens]
            last = tokens[-1]
            marker = markers[-1]
            shown = (
                [f"'<<{x}'" for x in markers]
                if len(markers) <= 5
                else [
                    *(f"'<<{x}'" for x in markers[:3]),
                    f"... {len(markers) - 4} more",
                    f"'<<{markers[-1]}'",
                ]
            )
            listed = ", ".join(shown)
            self.diagnostics.append(
                error(
                    Span(i, col + tokens[0].start(), i, col + _token_end(last)),
                    "multiple_heredocs",
                    f"Only one heredoc per command is supported, this line has {len(markers)} ({listed}); "
                    f"the body runs to the last marker '{marker}'",
                    data={"markers": markers, "marker": marker},
                )
            )
            # The body (and the heredoc's operator and marker) are the last redirection's.
            return _Row(i, col, last.start(), marker, bool(last.group(1)), error_code)
        if error_code is None and self.arca and (m.group(2) is None or m.group(1) or m.start(2) != op_at + 2 or tail):
            self.diagnostics.append(
                information(
                    Span(i, col + op_at, i, col + (len(t) if tail else _token_end(m))),
                    COMPAT_CODE,
                    f"arca-cli's cli.script runs this line as a plain command: it only understands "
                    f"'<<{marker}' at the end of the line (no quotes, no '-', no space after '<<', nothing after "
                    "the marker)",
                    data={"marker": marker},
                )
            )
        if tail and t[-1] == "\\":
            self._line_continuation(i, col, t)
        return _Row(i, col, op_at, marker, bool(m.group(1)), error_code, tail=tail)

    def _invalid(self, i: int, col: int, t: str, m: re.Match[str]) -> _Row:
        word = m.group(2)
        op_at = m.start()
        op_len = 2 + len(m.group(1))
        # `<<EOF>out`: a valid marker glued to a redirection or pipe. Its body ends at the marker's line.
        glued = _GLUED_TAIL.match(word)
        name = word[: glued.end()] if glued is not None else word
        marker = name[1:-1] if len(name) >= 2 and name[0] in "'\"" and name[-1] == name[0] else name
        row = _Row(i, col, op_at, marker, bool(m.group(1)), "invalid_marker")
        if op_at == 0:
            self.diagnostics.append(
                error(
                    Span(i, col, i, col + m.end(2)),
                    "heredoc_without_command",
                    f"Heredoc '{_shown(t)}' has no command: write the command before '<<' on this line",
                    data={"marker": marker},
                )
            )
        if not word:
            self.diagnostics.append(
                error(
                    Span(i, col + op_at, i, col + op_at + op_len),
                    "invalid_marker",
                    f"Missing heredoc marker after '{t[op_at : op_at + op_len]}'",
                    data={"word": ""},
                )
            )
            row.terminator = -2
            return row
        # The body runs to the first later line trimmed to the word, if there is one; otherwise nothing is
        # consumed (the word was probably not meant as a marker, swallowing the rest of the file would hide it).
        self.lookahead.append(i)
        closing = self._later_line(marker, i)
        data: dict[str, Any] = {"word": word, "marker": marker, "terminator_line": closing}
        if glued is not None:
            shown_name = name if name[0] in "'\"" else "'" + name + "'"
            why = (
                f"put a blank between the marker {shown_name} and '{_shown(word[glued.end() :])}' "
                "(a redirection or pipe after the marker must be separated from it)"
            )
            data["glued_col"] = col + m.start(2) + glued.end()
        else:
            why = "a marker is letters A-Z or a-z, digits and '_', optionally quoted"
        self.diagnostics.append(
            error(
                Span(i, col + m.start(2), i, col + m.end(2)),
                "invalid_marker",
                f"Invalid heredoc marker '{_shown(word)}': {why}",
                data=data,
            )
        )
        if closing is None:
            row.terminator = -2
        return row

    def _possible_heredoc(self, i: int, col: int, t: str) -> None:
        """Warn about the first ``<<WORD`` of a plain command whose WORD a later line trims to (one per line)."""
        self.lookahead.append(i)
        for m in _LOOSE_TOKEN.finditer(t):
            word = next(g for g in m.groups() if g is not None)
            later = self._later_line(word, i)
            if later is None:
                continue
            at = m.start()
            needs_space = at > 0 and t[at - 1] not in BLANK_CHARS
            if needs_space:
                why = "it needs a space before '<<'"
            else:
                after = _FIRST_WORD.search(t, m.end())
                follower = after.group(0) if after is not None else ""
                if after is not None and after.start() == m.end() and _TAIL.match(follower) is not None:
                    # `cat <<EOF; echo ok`: a tail, but glued to the marker.
                    why = f"the marker is glued to '{_shown(follower)}': put a blank between them"
                else:
                    why = f"it is followed by '{_shown(follower)}', and only {_TAILS_SHOWN} may follow a marker"
            self.diagnostics.append(
                warning(
                    Span(i, col + at, i, col + m.end()),
                    "possible_heredoc",
                    f"'{_shown(m.group(0))}' is not a heredoc opener ({why}), so line {later + 1} ('{_shown(word)}') "
                    "would run as a command: the script does not run while this warning stands",
                    data={
                        "marker": word,
                        "terminator_line": later,
                        "operator_col": col + at,
                        "needs_space": needs_space,
                    },
                )
            )
            return

    # ---- lint warnings of plain commands (docs/formats.md)

    def _lint(self, i: int, line: str, t: str) -> None:
        """``line_continuation``, ``no_effect``, ``orphan_option``, ``bashism`` and ``shell_syntax`` for the plain
        command ``t`` (the trimmed ``line``)."""
        col = len(line) - len(line.lstrip(BLANK_CHARS))
        if t[-1] == "\\":
            self._line_continuation(i, col, t)
        if t[0] == "-":
            self._orphan_option(i, col, t)
        found = _no_effect_message(t)
        if found is not None:
            name, message = found
            # (built positionally: warning()'s keywords and enum lookup would double the cost of the common lint)
            span = Span(i, col, i, col + len(t))
            self.diagnostics.append(Diagnostic(span, _WARNING, "no_effect", message, (), {"command": name}))

    def _orphan_option(self, i: int, col: int, command: str) -> None:
        word = _FIRST_WORD.match(command).group()  # type: ignore[union-attr]  # command is trimmed, not empty
        self.diagnostics.append(
            warning(
                Span(i, col, i, col + len(word)),
                "orphan_option",
                f"'{_shown(command)}' starts with '{_shown(word, 20)}': this line runs as a command of its own, not "
                "as options of the command above it (lines are never joined); put the options on that command's line",
                data={"option": word},
            )
        )

    def _shell_lints(self, i: int, col: int, t: str, command: str, visible: str) -> None:
        """``bashism`` and ``shell_syntax`` of ``command`` (what the runner gets from the line ``t``, which starts
        at column ``col``); ``visible`` is ``t`` with the heredoc operator and marker blanked out."""
        STATS["shell_looks"] += 1
        if _SIMPLE.fullmatch(command) is not None:
            return
        if self.shell == "sh":
            hidden = (
                _QUOTED.sub(_blanked, visible) if ("'" in visible or '"' in visible or "\\" in visible) else visible
            )
            found: dict[str, int] = {}  # the first of each construct (a line of many gets one warning per kind)
            for m in _BASHISM.finditer(hidden):
                group = 1 if m.group(1) is not None else 2
                found.setdefault(m.group(group), m.start(group))
            for construct, at in found.items():
                start = col + at
                self.diagnostics.append(
                    warning(
                        Span(i, start, i, start + len(construct)),
                        "bashism",
                        f"'{construct}' is bash-only syntax and the runner is /bin/sh: "
                        f"{_BASHISM_INSTEAD[construct]}; or run the script with bash: "
                        f"script.runner = {BASH_RUNNER} in your own config ($XDG_CONFIG_HOME/heredoc-lsp/config.toml) "
                        "or your editor's user settings",
                        data={"construct": construct},
                    )
                )
            if found:
                return  # (dash may also reject the line: the bashism says why and what to write)
        if len(command) > SHELL_SYNTAX_MAX:
            return
        reason = incomplete(command, dialect="sh" if self.shell == "sh" else "bash")
        if reason is None:
            return
        reason = reason.removesuffix(" (opened on line 1)")  # (the command is one line)
        shell = "/bin/sh (dash)" if self.shell == "sh" else "bash"
        hint = (
            "give the heredoc to the command itself (\"git commit -F - <<'EOF'\") or finish the command on this line"
            if command is not t
            else "finish the command on this line, or feed a multi-line script to a shell through a heredoc "
            "(\"sh <<'EOF'\")"
        )
        self.diagnostics.append(
            warning(
                Span(i, col, i, col + len(t)),
                "shell_syntax",
                f"'{_shown(command)}' is not complete shell on its own for {shell}: {reason}. Every line runs in a "
                f"shell of its own, so nothing it opens can be closed on a later line; {hint}",
                data={"reason": reason, "shell": self.shell},
            )
        )

    def _opener_lints(self, row: _Row, t: str) -> None:
        """``orphan_option``, ``background_stdin``, ``bashism`` and ``shell_syntax`` of a heredoc command line."""
        i = row.line
        col = row.col
        if t[0] == "-":
            self._orphan_option(i, col, t)
        if self.shell is None:
            return
        op_at, _op_len, marker_at, quote, cmd_len = row.layout(self.lines[i])
        marker_end = marker_at + len(row.marker) + (1 if quote else 0)
        text = t[:cmd_len]
        tail = t[row.tail :] if row.tail else ""
        if tail:
            end = len(tail.rstrip(BLANK_CHARS))
            if tail[end - 1] == "&" and (end < 2 or tail[end - 2] not in "&|<>\\"):
                at = col + row.tail + end - 1
                self.diagnostics.append(
                    warning(
                        Span(i, at, i, at + 1),
                        "background_stdin",
                        f"'{_shown(t)}' runs in the background ('&' at the end): the shell gives a background "
                        "command /dev/null as stdin, so the heredoc body never reaches it; remove the '&'",
                        data={"ampersand_col": at},
                    )
                )
        command = f"{text} {tail}" if tail and text else text or tail
        if not _needs_shell_look(command):
            return
        visible = t[:op_at] + " " * (marker_end - op_at) + t[marker_end:]
        self._shell_lints(i, col, t, command, visible)

    def _early_close(self, i: int, line: str, t: str) -> None:
        """``early_close`` when a heredoc with the marker ``t`` was closed before line ``i`` (its body held its own
        marker, so the lines after it ran as commands)."""
        row = self.closed.get(t)
        earlier = self.earlier
        if row is None:
            if earlier is None:
                return
            at = earlier._openers.get(t, ())
            k = bisect_left(at, self.start)
            if k == 0:
                return
            row = earlier._row_at(at[k - 1])
        lines = self.lines
        opener = row.line
        closed = row.terminator
        marker_col = row.col + row.layout(lines[opener])[2]
        close_text = lines[closed]
        close_col = len(close_text) - len(close_text.lstrip(BLANK_CHARS))
        col = len(line) - len(line.lstrip(BLANK_CHARS))
        self.diagnostics.append(
            warning(
                Span(i, col, i, col + len(t)),
                "early_close",
                f"'{_shown(t)}' closes no heredoc: the heredoc opened at line {opener + 1} already ended at line "
                f"{closed + 1}, a body line equal to its marker, so the lines after that run as commands; give the "
                "heredoc a marker that occurs in no line of its body",
                related=(
                    Related(Span(opener, marker_col, opener, marker_col + len(t)), f"heredoc '{t}' opened here"),
                    Related(
                        Span(closed, close_col, closed, close_col + len(t)),
                        f"its body ended here, at a line '{t}'",
                    ),
                ),
                data={"marker": t, "opener_line": opener, "closed_line": closed},
            )
        )

    def _line_continuation(self, i: int, col: int, t: str) -> None:
        """Warn when ``t`` ends in an unescaped backslash that is not inside a ``#`` shell comment."""
        backslashes = len(t) - len(t.rstrip("\\"))
        if backslashes % 2 == 0 or _SHELL_COMMENT.search(t) is not None:
            return
        end = col + len(t)
        self.diagnostics.append(
            warning(
                Span(i, end - 1, i, end),
                "line_continuation",
                "Line ends with '\\' but lines are never joined: the next line runs on its own (or is heredoc body) "
                "and this command gets a dangling '\\'; write the whole command on one line",
                data={"next_line": i + 1},
            )
        )

    def _later_line(self, text: str, after: int) -> int | None:
        """The first line after ``after`` whose trimmed text is ``text``."""
        index = self._trimmed_index
        if index is None:
            index = self._trimmed_index = {}
            for k, line in enumerate(self.lines):
                index.setdefault(line.strip(BLANK_CHARS), []).append(k)
        found = index.get(text)
        if not found:
            return None
        k = bisect_right(found, after)
        return found[k] if k < len(found) else None

    # ---- end of a heredoc

    def _close(self, row: _Row) -> None:
        """A heredoc's terminator was found: check its body when it is structured."""
        if row.error is not None:
            return
        lines = self.lines
        start = row.line + 1
        schemas = self.schemas
        if schemas:
            cmd_len = row.layout(lines[row.line])[4]
            schema = lookup_schema(schemas, lines[row.line][row.col : row.col + cmd_len])
            if schema is None:
                return
            row.schema = schema
        else:
            # Unconfigured: structured only when the first non-blank line is a delimiter (checked cheaply first).
            schema = None
            for k in range(start, row.terminator):
                first = lines[k]
                if first.strip(BLANK_CHARS):
                    if row.strip:
                        first = first.lstrip("\t")
                    if not first.startswith("---") or not is_delimiter_line(first):
                        return
                    break
            else:
                return
        body: Sequence[str] = lines[start : row.terminator]
        offsets: list[int] | None = None
        if row.strip:
            stripped = [b.lstrip("\t") for b in body]
            offsets = [len(b) - len(s) for b, s in zip(body, stripped, strict=True)]
            body = stripped
        params = parse_params(body, schema, line_offset=start, col_offsets=offsets)
        row.params = params
        self.diagnostics.extend(params.diagnostics)

    def _unclosed(self, row: _Row) -> None:
        lines = self.lines
        n = len(lines)
        last = n - 1
        eof = Span(last, len(lines[last]), last, len(lines[last]))
        marker_col = row.col + row.layout(lines[row.line])[2]
        self.diagnostics.append(
            error(
                Span(row.line, marker_col, row.line, marker_col + len(row.marker)),
                "unclosed_heredoc",
                f"Unclosed heredoc starting at line {row.line + 1}: expected '{row.marker}' but reached end of file",
                related=(Related(eof, f"end of file reached without a line '{row.marker}'"),),
                data={"marker": row.marker, "opener_line": row.line, "insert_line": n},
            )
        )
        if row.error is None:
            row.error = "unclosed_heredoc"


# --------------------------------------------------------------------------------------------------------------
# Building the items (lazily, on first access)


def _slot_setters(cls: type, names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The slot descriptors' setters of a frozen slots record, in ``names`` order.

    A script has tens of thousands of commands and comments; filling the slots directly costs less than half of
    the generated frozen ``__init__`` (which calls ``object.__setattr__`` by name per field). The objects are the
    same: every field set, frozen from then on.
    """
    setters = tuple(getattr(cls, name).__set__ for name in names.split())
    assert len(setters) == len(record_fields(cls))
    return setters


_COMMAND_SETTERS = _slot_setters(Command, "line col text heredoc end_line schema params error")
_COMMENT_SETTERS = _slot_setters(Comment, "line col text")
_HEREDOC_SETTERS = _slot_setters(
    Heredoc,
    "operator_span marker marker_span quoted quote strip_tabs body_start body terminator_line terminator_span tail",
)
_new = object.__new__


def _build_items(
    lines: Sequence[str], rows: Sequence[_RowT], schemas: Mapping[str, CommandSchema] | None
) -> list[Item]:
    blanks = BLANK_CHARS
    items: list[Item] = []
    append = items.append
    n = len(lines)
    new = _new
    c_line, c_col, c_text, c_heredoc, c_end, c_schema, c_params, c_error = _COMMAND_SETTERS
    k_line, k_col, k_text = _COMMENT_SETTERS
    for row in rows:
        if isinstance(row, _Row):
            append(_heredoc_command(lines, row, n))
            continue
        if row < 0:
            i = ~row
            line = lines[i]
            t = line.strip(blanks)
            comment = new(Comment)
            k_line(comment, i)
            k_col(comment, len(line) - len(line.lstrip(blanks)))
            k_text(comment, t)
            append(comment)
            continue
        line = lines[row]
        t = line.strip(blanks)
        command = new(Command)
        c_line(command, row)
        c_col(command, len(line) - len(line.lstrip(blanks)))
        c_text(command, t)
        c_heredoc(command, None)
        c_end(command, row)
        c_schema(command, lookup_schema(schemas, t) if schemas else None)
        c_params(command, None)
        c_error(command, None)
        append(command)
    return items


def _heredoc_command(lines: Sequence[str], row: _Row, n: int) -> Command:
    i = row.line
    col = row.col
    start = i + 1
    end_line = row.end_line(n)
    if row.terminator >= 0:
        body_end = row.terminator
    elif row.terminator == -2:
        body_end = start
    else:
        body_end = n
    body: tuple[str, ...] = tuple(lines[start:body_end])
    if row.strip:
        body = tuple(b.lstrip("\t") for b in body)
    terminator_span: Span | None = None
    if row.terminator >= 0:
        term = lines[row.terminator]
        term_col = len(term) - len(term.lstrip(BLANK_CHARS))
        terminator_span = Span(row.terminator, term_col, row.terminator, term_col + len(row.marker))
    op_at, op_len, marker_at, quote, cmd_len = row.layout(lines[i])
    marker_col = col + marker_at
    # Filled through the slot setters like plain commands in _build_items (same objects, about twice as fast).
    h_op, h_marker, h_marker_span, h_quoted, h_quote, h_strip, h_start, h_body, h_term, h_term_span, h_tail = (
        _HEREDOC_SETTERS
    )
    heredoc = _new(Heredoc)
    h_op(heredoc, Span(i, col + op_at, i, col + op_at + op_len))
    h_marker(heredoc, row.marker)
    h_marker_span(heredoc, Span(i, marker_col, i, marker_col + len(row.marker)))
    h_quoted(heredoc, bool(quote))
    h_quote(heredoc, quote)
    h_strip(heredoc, row.strip)
    h_start(heredoc, start)
    h_body(heredoc, body)
    h_term(heredoc, row.terminator if row.terminator >= 0 else None)
    h_term_span(heredoc, terminator_span)
    h_tail(heredoc, lines[i].strip(BLANK_CHARS)[row.tail :] if row.tail else "")
    c_line, c_col, c_text, c_heredoc, c_end, c_schema, c_params, c_error = _COMMAND_SETTERS
    command = _new(Command)
    c_line(command, i)
    c_col(command, col)
    c_text(command, lines[i][col : col + cmd_len])
    c_heredoc(command, heredoc)
    c_end(command, end_line)
    c_schema(command, row.schema)
    c_params(command, row.params)
    c_error(command, row.error)
    return command


# --------------------------------------------------------------------------------------------------------------
# Incremental re-parsing after an edit

FIRST_WINDOW = 48  # lines scanned past the edit before the first attempt to meet the old parse again


@record(eq=False)
class Reparse:
    """The result of :func:`reparse`: ``script`` equals ``parse_cli`` of the new lines.

    Rows (items) starting at new lines ``[resume, stop)`` were scanned again; those before ``resume`` are the old
    ones, those at or after ``stop`` are the old ones at ``line - delta`` (moved by ``delta``). ``stop`` is the
    number of lines when the scan ran from ``resume`` to the end of the document (the fallback), less otherwise.
    """

    script: CliScript
    resume: int
    stop: int
    delta: int

    @property
    def scanned(self) -> int:
        """How many lines were scanned again (the work, for tests and benchmarks)."""
        return self.stop - self.resume


def _moved_rows(rows: Sequence[_RowT], delta: int) -> tuple[_RowT, ...] | None:
    """Rows moved down ``delta`` lines; None when one holds a structured body (its parse quotes absolute lines)."""
    out: list[_RowT] = []
    append = out.append
    for r in rows:
        if r.__class__ is int:
            assert isinstance(r, int)
            append(r + delta if r >= 0 else r - delta)
            continue
        assert isinstance(r, _Row)
        if r.params is not None:
            return None
        moved = object.__new__(_Row)
        for slot in _Row.__slots__:
            setattr(moved, slot, getattr(r, slot))
        moved.line = r.line + delta
        if r.terminator >= 0:
            moved.terminator = r.terminator + delta
        append(moved)
    return tuple(out)


def _first_at(diagnostics: Sequence[Diagnostic], line: int) -> int:
    """Index of the first diagnostic starting at or after ``line`` (diagnostics are sorted by position)."""
    lo, hi = 0, len(diagnostics)
    while lo < hi:
        mid = (lo + hi) // 2
        if diagnostics[mid].span.start_line < line:
            lo = mid + 1
        else:
            hi = mid
    return lo


def reparse(
    old: CliScript,
    lines: Sequence[str],
    edit: LineEdit,
    schemas: Mapping[str, CommandSchema] | None = None,
    compat: str | None = None,
    *,
    shell: str | None = "sh",
) -> Reparse:
    """``parse_cli(lines, schemas, compat, shell=shell)`` computed from ``old``, the parse of the text before
    ``edit``.

    1. Re-scan from the nearest safe line before the edit (:meth:`CliScript.resume_line`);
    2. stop as soon as the new scan is outside every heredoc at a line ``m`` past the edit whose old counterpart
       ``m - delta`` was an item start of the old parse: from there on the lines and the parse are the same (when
       the scan ends inside a heredoc, the next attempt goes past the next line holding its marker);
    3. splice the old rows before the restart, the re-scanned window and the old rows from ``m - delta`` on,
       moved by ``delta`` lines.

    Cases that depend on text beyond the window scan everything from the restart line: lines that look ahead
    (``possible_heredoc``, ``invalid_marker``); when lines moved, old rows after the window with diagnostics
    or structured bodies (their messages and data quote absolute line numbers); and a window whose closed heredocs
    changed while a blank-free command line after it may be an ``early_close`` of one of them (it looks back).
    ``schemas``, ``compat`` and ``shell`` must be the ones ``old`` was parsed with.
    """
    lines = lines if isinstance(lines, tuple) else tuple(lines)
    n = len(lines)
    delta = edit.delta
    old_n = n - delta
    old_starts = old._starts()
    old_rows = old._rows
    old_diags = old.diagnostics
    schemas = schemas or None
    resume = old.resume_line(min(edit.start, old_n))

    def rest() -> Reparse:
        return Reparse(reparse_cli(old, lines, resume, schemas, compat, shell=shell), resume, n, delta)

    if old.start_line != 0 or resume > edit.start:
        return rest()
    changed_old_end = edit.start + edit.removed  # the first old line after the edited block
    k = bisect_left(old_starts, changed_old_end)
    target_old = changed_old_end + FIRST_WINDOW
    while True:
        k = bisect_left(old_starts, target_old, lo=k)
        if k >= len(old_starts):
            return rest()  # no old item start left: scan to the end
        meet_old = old_starts[k]
        meet = meet_old + delta
        scan = parse_cli(lines[:meet], schemas, compat, start_line=resume, shell=shell, earlier=old)
        if scan._lookahead:
            return rest()
        open_marker = next(
            ((d.data or {}).get("marker") for d in scan.diagnostics if d.code == "unclosed_heredoc"), None
        )
        if open_marker is None:
            break
        # The scan ended inside a heredoc: it cannot close before a line holding its marker. Jump to the first
        # such line (exact match, found by a C-level search); none at all means it runs to the end of the file
        # (or closes at a marker line with blanks around it): scan everything from the restart line.
        try:
            close_at = lines.index(str(open_marker), meet)
        except ValueError:
            return rest()
        target_old = max(close_at + 1 - delta, meet_old + 1)
    suffix_rows: Sequence[_RowT] = old_rows[k:]
    suffix_starts = old_starts[k:]
    suffix_diags = old_diags[_first_at(old_diags, meet_old) :]
    suffix_lookahead = tuple(x for x in old._lookahead if x >= meet_old)
    suffix_bare = old._bare[bisect_left(old._bare, meet_old) :]
    if suffix_bare:
        # A blank-free command line after the window is an `early_close` when a heredoc with its marker was closed
        # before it: when the window's last closed heredoc of a marker changed, such lines must be looked at again.
        before = _last_closed(old_rows[bisect_left(old_starts, resume) : k])
        after = _last_closed(scan._rows)
        if delta:
            # (a marker whose heredoc moved or went away had `early_close` lines after it: they fall back below)
            changed = after.keys() - before.keys()
        else:
            changed = {m for m in before.keys() | after.keys() if before.get(m) != after.get(m)}
        if changed and any(old.lines[x].strip(BLANK_CHARS) in changed for x in suffix_bare):
            return rest()
    if delta:
        if suffix_diags or suffix_lookahead:
            return rest()  # their messages and data quote absolute line numbers: moving them is not enough
        moved = _moved_rows(suffix_rows, delta)
        if moved is None:
            return rest()
        suffix_rows = moved
        suffix_starts = [x + delta for x in suffix_starts]
        suffix_bare = tuple(x + delta for x in suffix_bare)
    k_prefix = bisect_left(old_starts, resume)
    script = CliScript(
        lines=lines,
        diagnostics=old_diags[: _first_at(old_diags, resume)] + scan.diagnostics + tuple(suffix_diags),
        start_line=0,
        _rows=(*old_rows[:k_prefix], *scan._rows, *suffix_rows),
        _lookahead=tuple(x for x in old._lookahead if x < resume) + scan._lookahead + suffix_lookahead,
        _schemas=schemas,
        _openers=_joined_openers(
            old._openers,
            resume,
            scan._openers,
            meet_old,
            delta,
            {r.marker for r in old_rows[k_prefix:k] if isinstance(r, _Row)} | scan._openers.keys(),
        ),
        _bare=old._bare[: bisect_left(old._bare, resume)] + scan._bare + tuple(suffix_bare),
    )
    script._cache["starts"] = old_starts[:k_prefix] + scan._starts() + suffix_starts
    return Reparse(script, resume, meet, delta)
