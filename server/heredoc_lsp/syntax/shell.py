"""A shell lexer that reads a command as ``sh`` (dash) or ``bash`` would, without running a shell.

:func:`scan` reads a command once, left to right, with an explicit stack of open constructs (quotes, ``$(``,
``${``, ``$((``, subshells, ``{ }``, ``if``/``for``/``while``/``until``/``case``, bash's ``[[``, ``((`` and
arrays): no recursion, so neither deep nesting nor a 50 MB input can exhaust the Python stack. It returns the
heredocs with bash's rules (the word after ``<<``/``<<-`` with quote removal; bodies read after the next newline
token, several per line in order; ``<<-`` strips leading tabs; an unquoted body joins a line ending in an odd
number of backslashes to the next; ``<<<`` is a here-string; ``<<`` in quotes, comments and arithmetic is no
operator), the lines where a command is a closed heredoc's marker alone, and the first syntax error.

:func:`incomplete` is the question the ``.cli`` lints ask: is this text a complete shell command on its own?

The shell's line is what ends at ``\\n``: a ``\\r`` before it is part of the line, as it is for bash and dash.
Lines here are 0-based indexes of those lines. Where the lexer cannot judge (nesting deeper than
:data:`MAX_DEPTH`, more than :data:`MAX_HEREDOCS` heredocs), it stops and says so (``Scan.gave_up``); it never
reports an error it is not sure of.
"""

from __future__ import annotations

from heredoc_lsp.syntax.lazy_re import lazy_compile
from heredoc_lsp.syntax.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Literal

    Dialect = Literal["sh", "bash"]

__all__ = ["MAX_DEPTH", "MAX_HEREDOCS", "Scan", "ShellHeredoc", "Stray", "incomplete", "scan"]

MAX_DEPTH = 1000
MAX_HEREDOCS = 10_000

# Characters that end an unquoted word.
_META = " \t\n;&|<>()"
# A run of characters with no meaning of their own inside an unquoted word.
_PLAIN_RUN = lazy_compile(r"""[^ \t\n;&|<>()'"\\`$]+""")
# Inside double quotes: a run of ordinary characters.
_DQ_RUN = lazy_compile(r'[^"\\`$]+')
# Inside ``${ }`` and ``$(( ))``: a run of ordinary characters.
_PARAM_RUN = lazy_compile(r"""[^{}'"\\`$]+""")
_ARITH_RUN = lazy_compile(r"""[^()'"\\`$]+""")
# Blanks between words.
_BLANKS = lazy_compile(r"[ \t]+")
# ``NAME=`` / ``NAME+=`` / ``NAME[i]=`` ending a word: ``NAME=(`` is a bash array.
_ASSIGNMENT = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=\Z")
_ASSIGNMENT_WORD = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

_RESERVED_SH = frozenset({"if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done"} | {"case", "esac"})
_RESERVED_BASH = _RESERVED_SH | {"[[", "function", "select"}
_DECLARATIONS = frozenset({"declare", "typeset", "local", "export", "readonly"})
_PIPES = ("|", "&&", "||", "|&", "!")


@record
class ShellHeredoc:
    """One here-document: ``<<`` (or ``<<-``) at ``line``/``column``, its body on lines ``[body_start, body_end)``.

    ``body_end`` is the terminator's line when ``closed``, else the number of lines (the body ran to the end).
    ``glued`` is bash's leniency inside ``$( )``: a line that starts with the marker followed by ``)`` ended the
    body (bash warns "delimited by end-of-file"; dash reads on).
    """

    line: int
    column: int
    marker: str
    quoted: bool
    strip_tabs: bool
    body_start: int
    body_end: int
    closed: bool
    glued: bool = False
    in_substitution: bool = False
    command: str = ""  # the simple command's text before the operator (assignments included)
    word_column: int = 0  # the marker word as written (quotes included) on the operator's line
    word_end_column: int = 0
    cut: bool = False  # the `$( )` holding the operator closed before the line ended: no body (dash; bash warns)


@record
class Stray:
    """A command word alone on ``line`` that is the marker of the closed heredoc number ``heredoc``."""

    line: int
    heredoc: int


@record
class Scan:
    """What :func:`scan` found. ``error`` is None when the text is a complete command for the dialect."""

    heredocs: tuple[ShellHeredoc, ...]
    strays: tuple[Stray, ...]
    orphans: tuple[int, ...]  # lines whose first command word starts with '-' (an option meant for a command above)
    error: str | None
    error_line: int | None
    gave_up: bool
    line_count: int


def incomplete(text: str, *, dialect: Dialect = "sh") -> str | None:
    """None when ``text`` is a complete command on its own for ``dialect``; else a short reason."""
    return scan(text, dialect=dialect).error


def scan(text: str, *, dialect: Dialect = "bash") -> Scan:
    """Read ``text`` as ``dialect`` would (see the module docstring)."""
    return _Lexer(text, dialect == "bash").run()


class _Frame:
    """One open construct. ``kind``: cmd (a command list), dq, param, arith, dbracket, array, extglob."""

    __slots__ = (
        "cmd_seen",
        "cmd_start",
        "empty",
        "first_word",
        "in_word",
        "kind",
        "line",
        "need",
        "nwords",
        "opener",
        "phase",
        "redirect",
        "start",
        "word_plain",
        "word_start",
        "word_target",
    )

    def __init__(self, kind: str, opener: str, line: int, phase: str = "") -> None:
        self.kind = kind
        self.opener = opener  # top ( $( <( { if for while until select case [[ (( $(( ${ " ...
        self.line = line
        self.phase = phase
        self.start = True  # the next word is in command position (reserved words count)
        self.cmd_seen = False  # the current command has a word, a redirection or a compound command
        self.need = ""  # an operator that needs a command after it (| && || !)
        self.redirect = ""  # a redirection operator waiting for its word
        self.empty = True  # the list holds no command yet
        # The word being read: its start, whether it is plain (no quote, escape or expansion), whether it is the
        # word of a redirection.
        self.in_word = False
        self.word_start = 0
        self.word_plain = True
        self.word_target = False
        self.nwords = 0  # words of the current simple command
        self.cmd_start = 0  # where the current simple command's first word starts
        self.first_word = ""


class _Pending:
    """A heredoc operator whose body is still to be read."""

    __slots__ = ("col", "command", "depth", "in_sub", "line", "marker", "quoted", "strip", "word_col", "word_end_col")

    def __init__(
        self,
        line: int,
        col: int,
        marker: str,
        quoted: bool,
        strip: bool,
        in_sub: bool,
        command: str,
        word_col: int,
        word_end_col: int,
        depth: int = 1,
    ) -> None:
        self.line, self.col, self.marker, self.quoted, self.strip = line, col, marker, quoted, strip
        self.in_sub, self.command, self.word_col, self.word_end_col = in_sub, command, word_col, word_end_col
        self.depth = depth  # the stack depth of the command list holding the operator

    def done(
        self, body_start: int, body_end: int, closed: bool, glued: bool = False, cut: bool = False
    ) -> ShellHeredoc:
        return ShellHeredoc(
            self.line,
            self.col,
            self.marker,
            self.quoted,
            self.strip,
            body_start,
            body_end,
            closed,
            glued,
            self.in_sub,
            self.command,
            self.word_col,
            self.word_end_col,
            cut,
        )


class _Stop(Exception):
    """The scan ends early: a syntax error or a limit."""


class _Lexer:
    def __init__(self, text: str, bash: bool) -> None:
        self.text = text
        self.n = len(text)
        self.bash = bash
        self.i = 0
        self.line = 0
        self.stack: list[_Frame] = [_Frame("cmd", "top", 0)]
        self.heredocs: list[ShellHeredoc] = []
        self.pending: list[_Pending] = []
        self.strays: list[Stray] = []
        self.orphans: list[int] = []
        self.closed_markers: dict[str, int] = {}
        self.error: str | None = None
        self.error_line: int | None = None
        self.gave_up = False

    # -- driver --------------------------------------------------------------------------------------------------

    def run(self) -> Scan:
        try:
            while self.i < self.n:
                kind = self.stack[-1].kind
                if kind == "cmd":
                    self.step_cmd()
                elif kind == "dq":
                    self.step_dq()
                elif kind == "param":
                    self.step_param()
                else:  # arith, array, extglob, dbracket
                    self.step_nested()
            self.at_end()
        except _Stop:
            pass
        return Scan(
            heredocs=tuple(self.heredocs),
            strays=tuple(self.strays),
            orphans=tuple(self.orphans),
            error=self.error,
            error_line=self.error_line,
            gave_up=self.gave_up,
            line_count=self.text.count("\n") + (0 if not self.text or self.text.endswith("\n") else 1),
        )

    def fail(self, message: str, line: int | None = None) -> _Stop:
        self.error = message
        self.error_line = self.line if line is None else line
        return _Stop()

    def give_up(self) -> _Stop:
        self.gave_up = True
        return _Stop()

    def push(self, frame: _Frame) -> None:
        if len(self.stack) >= MAX_DEPTH:
            raise self.give_up()
        self.stack.append(frame)

    # -- shared pieces -------------------------------------------------------------------------------------------

    def skip_single_quote(self, ansi: bool) -> None:
        """``self.i`` is just after an opening ``'``; move past the closing one."""
        text, start_line = self.text, self.line
        j = self.i
        while True:
            k = text.find("'", j)
            if k < 0:
                raise self.fail(f"unterminated single quote (opened on line {start_line + 1})", start_line)
            if ansi:
                # In $'...' a backslash escapes the next character, a quote included.
                b = k - 1
                while b >= j and text[b] == "\\":
                    b -= 1
                if (k - 1 - b) % 2 == 1:
                    self.count_lines(j, k + 1)
                    j = k + 1
                    continue
            self.count_lines(j, k + 1)
            self.i = k + 1
            return

    def skip_backquote(self) -> None:
        """``self.i`` is just after an opening backquote; move past the closing one (content not checked)."""
        text, start_line = self.text, self.line
        j = self.i
        while j < self.n:
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if c == "`":
                self.count_lines(self.i, j + 1)
                self.i = j + 1
                return
            j += 1
        raise self.fail(f"backquote never closed (opened on line {start_line + 1})", start_line)

    def count_lines(self, start: int, end: int) -> None:
        self.line += self.text.count("\n", start, end)

    def dollar(self, in_dq: bool) -> None:
        """``self.i`` is at ``$``: open what it starts, or move past it."""
        text, i = self.text, self.i
        nxt = text[i + 1] if i + 1 < self.n else ""
        if nxt == "(":
            if i + 2 < self.n and text[i + 2] == "(":
                self.i = i + 3
                self.push(_Frame("arith", "$((", self.line))
            else:
                self.i = i + 2
                self.push(_Frame("cmd", "$(", self.line))
        elif nxt == "{":
            self.i = i + 2
            self.push(_Frame("param", "${", self.line, "dq" if in_dq else ""))
        elif nxt == "'" and self.bash and not in_dq:
            self.i = i + 2
            self.skip_single_quote(ansi=True)
        elif nxt == '"' and self.bash and not in_dq:
            self.i = i + 2
            self.push(_Frame("dq", '"', self.line))
        else:
            self.i = i + 1

    # -- command lists -------------------------------------------------------------------------------------------

    def step_cmd(self) -> None:
        text, i = self.text, self.i
        c = text[i]
        frame = self.stack[-1]
        if frame.in_word:
            if c in _META:
                if c == "(" and self.bash and text[i - 1] in "?*+@!" and i > frame.word_start:
                    self.i = i + 1
                    self.push(_Frame("extglob", "(", self.line))
                    return
                if c == "(" and self.bash and self.array_allowed(frame):
                    self.i = i + 1
                    self.push(_Frame("array", "(", self.line))
                    return
                self.end_word(frame)
                return
            self.word_char(frame, c, in_dq=False)
            return
        if c == " " or c == "\t":
            m = _BLANKS.match(text, i)
            self.i = m.end() if m else i + 1
        elif c == "\n":
            self.newline()
        elif c == "#":
            k = text.find("\n", i)
            self.i = self.n if k < 0 else k
        elif c in ";&|<>()":
            self.operator(c, frame)
        elif c == "\\" and i + 1 < self.n and text[i + 1] == "\n":
            self.i = i + 2
            self.line += 1
        else:
            frame.in_word, frame.word_start, frame.word_plain = True, i, True
            frame.word_target = bool(frame.redirect)
            frame.redirect = ""
            if frame.start and not frame.word_target:
                frame.cmd_start = i

    def array_allowed(self, frame: _Frame) -> bool:
        """``NAME=(`` is an array where an assignment may stand: before the command word, or as an argument of a
        declaration builtin."""
        if not _ASSIGNMENT.match(self.text, frame.word_start, self.i):
            return False
        return frame.start or frame.nwords == 0 or frame.first_word in _DECLARATIONS

    def word_char(self, frame: _Frame, c: str, in_dq: bool) -> None:
        """Read one piece of ``frame``'s word at ``self.i`` (not a metacharacter)."""
        text, i = self.text, self.i
        if c == "'":
            frame.word_plain = False
            self.i = i + 1
            self.skip_single_quote(ansi=False)
        elif c == '"':
            frame.word_plain = False
            self.i = i + 1
            self.push(_Frame("dq", '"', self.line))
        elif c == "\\":
            frame.word_plain = False
            if i + 1 < self.n and text[i + 1] == "\n":
                self.line += 1
            self.i = i + 2
        elif c == "`":
            frame.word_plain = False
            self.i = i + 1
            self.skip_backquote()
        elif c == "$":
            frame.word_plain = False
            self.dollar(in_dq)
        else:
            m = _PLAIN_RUN.match(text, i)
            self.i = m.end() if m else i + 1

    def end_word(self, frame: _Frame) -> None:
        """``frame``'s word that started at ``frame.word_start`` ends at ``self.i``."""
        frame.in_word = False
        if frame.word_target:
            frame.word_target = False
            return
        word = self.text[frame.word_start : self.i] if frame.word_plain else None
        if frame.phase and self.phase_word(frame, word):
            return
        if frame.start and word is not None:
            if word == "!" and frame.need in _PIPES:
                raise self.fail(f"'!' can only start a pipeline, not follow '{frame.need}'")
            if word in (_RESERVED_BASH if self.bash else _RESERVED_SH) or word in ("{", "}", "!"):
                self.reserved(word, frame)
                return
            if self.bash and (word in ("time", "coproc") or (word == "-p" and frame.need == "time")):
                # Prefixes of a pipeline: the next word is in command position still (`time { ...; }`).
                frame.need, frame.cmd_seen, frame.empty = ("time" if word != "coproc" else "coproc"), True, False
                return
            if (
                word[:1] == "-"
                and len(word) > 1
                and len(self.orphans) < MAX_HEREDOCS
                and self.starts_line(frame.word_start)
            ):
                self.orphans.append(self.line)
            stray_of = self.closed_markers.get(word)
            if (
                stray_of is not None
                and len(self.strays) < MAX_HEREDOCS
                and self.alone_on_line(frame.word_start, self.i)
            ):
                self.strays.append(Stray(self.line, stray_of))
        if frame.start:
            frame.nwords = 0
        if frame.nwords == 0:
            frame.first_word = word or ""
        frame.nwords += 1
        if frame.start and word is not None and _ASSIGNMENT_WORD.match(word):
            # An assignment before the command word: the command word is still to come (reserved words are not).
            frame.nwords = 0
        frame.start = False
        frame.cmd_seen = True
        if frame.need in _PIPES or frame.need in ("function", "time", "coproc"):
            frame.need = ""
        frame.empty = False

    def starts_line(self, start: int) -> bool:
        text = self.text
        return not text[text.rfind("\n", 0, start) + 1 : start].strip(" \t")

    def alone_on_line(self, start: int, end: int) -> bool:
        text = self.text
        before = text.rfind("\n", 0, start) + 1
        after = text.find("\n", end)
        after = self.n if after < 0 else after
        return not text[before:start].strip(" \t") and not text[end:after].strip(" \t")

    def phase_word(self, frame: _Frame, word: str | None) -> bool:
        """A word in a compound command's head (``case WORD in``, ``for NAME in ...``); True when consumed."""
        phase = frame.phase
        if phase == "case_word":
            frame.phase = "case_in"
            return True
        if phase == "case_in":
            if word != "in":
                raise self.fail("'case' without 'in'", frame.line)
            frame.phase = "pattern_start"
            return True
        if phase in ("pattern_start", "pattern_start_bar", "pattern"):
            if phase == "pattern_start" and word == "esac":
                self.close_compound(frame)
                return True
            frame.phase = "pattern"
            return True
        if phase == "for_name":
            frame.phase = "for_in"
            return True
        if phase == "for_in":
            if word == "do":
                frame.phase = "body"
                frame.start, frame.need, frame.cmd_seen, frame.empty = True, "do", False, True
                return True
            if word == "in":
                frame.phase = "for_words"
                return True
            raise self.fail(f"'{frame.opener}' needs 'in' or 'do' after its name", frame.line)
        if phase == "for_words":
            return True
        if phase in ("for_do", "for_do_arith"):
            if word == "do":
                frame.phase = "body"
                frame.start, frame.need, frame.cmd_seen, frame.empty = True, "do", False, True
                return True
            raise self.fail(f"'{frame.opener}' without 'do'", frame.line)
        if phase == "function_name":
            frame.phase = ""
            frame.start = True
            self.stack.pop()  # the function's name is read; its body is the next (compound) command
            parent = self.stack[-1]
            parent.start, parent.need = True, "function"
            return True
        return False

    def reserved(self, word: str, frame: _Frame) -> None:
        line = self.line
        if word == "!":
            frame.need, frame.start = "!", True
            return
        if word in ("if", "while", "until"):
            self.open_compound(frame, _Frame("cmd", word, line, "cond"))
            frame_new = self.stack[-1]
            frame_new.need = word
            return
        if word in ("for", "select"):
            self.open_compound(frame, _Frame("cmd", word, line, "for_name"))
            return
        if word == "case":
            self.open_compound(frame, _Frame("cmd", word, line, "case_word"))
            return
        if word == "{":
            self.open_compound(frame, _Frame("cmd", "{", line))
            self.stack[-1].need = "{"
            return
        if word == "[[":
            self.open_compound(frame, _Frame("dbracket", "[[", line))
            return
        if word == "function":
            self.open_compound(frame, _Frame("cmd", "function", line, "function_name"))
            return
        # then elif else fi do done esac }
        op, ph = frame.opener, frame.phase
        if op == "if" and word == "then" and ph == "cond":
            self.check_list(frame, word)
            frame.phase = "then"
        elif op == "if" and word == "elif" and ph == "then":
            self.check_list(frame, word)
            frame.phase = "cond"
        elif op == "if" and word == "else" and ph == "then":
            self.check_list(frame, word)
            frame.phase = "else"
        elif op == "if" and word == "fi" and ph in ("then", "else"):
            self.check_list(frame, word)
            self.close_compound(frame)
            return
        elif op in ("while", "until") and word == "do" and ph == "cond":
            self.check_list(frame, word)
            frame.phase = "body"
        elif op in ("while", "until", "for", "select") and word == "done" and ph == "body":
            self.check_list(frame, word)
            self.close_compound(frame)
            return
        elif op == "case" and word == "esac" and ph == "body":
            self.check_tail(frame)
            self.close_compound(frame)
            return
        elif op == "{" and word == "}":
            self.check_list(frame, word)
            self.close_compound(frame)
            return
        else:
            raise self.fail(self.unexpected(word, frame))
        frame.start, frame.need, frame.cmd_seen, frame.empty = True, word, False, True

    def unexpected(self, word: str, frame: _Frame) -> str:
        if frame.opener != "top" and frame.kind == "cmd":
            return f"unexpected '{word}': {self.open_message(frame)}"
        wanted = {"then": "if", "elif": "if", "else": "if", "fi": "if", "do": "for/while", "done": "do"}
        wanted.update({"esac": "case", "}": "{"})
        return f"'{word}' without '{wanted.get(word, '?')}'"

    def check_list(self, frame: _Frame, word: str) -> None:
        """``word`` ends a list: the list must hold a command and end cleanly."""
        self.check_tail(frame)
        if frame.empty:
            raise self.fail(f"'{word}' comes before any command after '{frame.need or frame.opener}'")

    def check_tail(self, frame: _Frame) -> None:
        if frame.need in _PIPES:
            raise self.fail(f"'{frame.need}' needs a command after it")
        if frame.redirect:
            raise self.fail(f"'{frame.redirect}' needs a file name after it")

    def open_compound(self, parent: _Frame, child: _Frame) -> None:
        parent.start = False
        parent.empty = False
        parent.need = ""
        self.push(child)

    def close_compound(self, frame: _Frame) -> None:
        self.stack.pop()
        parent = self.stack[-1]
        parent.start, parent.cmd_seen, parent.need, parent.empty = False, True, "", False

    def operator(self, c: str, frame: _Frame) -> None:
        text, i = self.text, self.i
        two = text[i : i + 2]
        three = text[i : i + 3]
        if frame.redirect and not (self.bash and two in ("<(", ">(")):  # `done < <(cmd)`: the target is a word
            raise self.fail(f"'{frame.redirect}' needs a file name after it")
        heads = ("case_word", "case_in", "for_name", "function_name")
        if frame.phase in heads and c in ";&|<>(" and not (c == "(" and frame.phase == "for_name" and self.bash):
            raise self.fail(f"unexpected '{c}' after '{frame.opener}'", self.line)
        if c == "<" or c == ">":
            if three == "<<<" and self.bash:
                self.i = i + 3
                self.set_redirect(frame, "<<<")
                return
            if two == "<<":
                self.heredoc_operator(frame)
                return
            if self.bash and (two == "<(" or two == ">("):
                # Process substitution: a word of its own.
                self.i = i + 2
                frame.in_word, frame.word_start, frame.word_plain = True, i, False
                frame.word_target = bool(frame.redirect)
                frame.redirect = ""
                self.push(_Frame("cmd", two, self.line))
                return
            for op in (">>", ">&", ">|", "<&", "<>", "<", ">"):
                if text.startswith(op, i):
                    self.i = i + len(op)
                    if op in (">&", "<&") and text.startswith("-", self.i):
                        self.i += 1
                        frame.cmd_seen = True
                        return
                    self.set_redirect(frame, op)
                    return
        if c == "&" and self.bash and text.startswith("&>", i):
            self.i = i + (3 if text.startswith("&>>", i) else 2)
            self.set_redirect(frame, "&>")
            return
        if c == "(":
            self.open_paren(frame)
            return
        if c == ")":
            self.close_paren(frame)
            return
        if c == ";":
            if two == ";;" or two == ";&":
                op = ";;&" if three == ";;&" else two
                if frame.opener == "case" and frame.phase == "body":
                    self.check_tail(frame)
                    self.i = i + len(op)
                    frame.phase = "pattern_start"
                    frame.start, frame.need, frame.cmd_seen, frame.empty = True, "", False, True
                    return
                raise self.fail(f"'{op}' outside a 'case'")
            self.i = i + 1
            self.separator(frame, ";")
            return
        if c == "&":
            if two == "&&":
                self.i = i + 2
                self.pipe(frame, "&&")
            else:
                self.i = i + 1
                self.separator(frame, "&")
            return
        if c == "|":
            if frame.opener == "case" and frame.phase == "pattern":
                self.i = i + 1
                frame.phase = "pattern_start_bar"
                return
            op = "||" if two == "||" else ("|&" if two == "|&" and self.bash else "|")
            self.i = i + len(op)
            self.pipe(frame, op)
            return
        raise AssertionError(c)  # pragma: no cover

    def set_redirect(self, frame: _Frame, op: str) -> None:
        frame.redirect = op
        frame.cmd_seen = True
        frame.empty = False
        if frame.need in _PIPES:
            frame.need = ""

    def separator(self, frame: _Frame, op: str) -> None:
        if frame.phase in ("for_in", "for_words", "for_do_arith"):
            frame.phase = "for_do"
            frame.start = True
            return
        if frame.need and frame.need in _PIPES:
            raise self.fail(f"'{frame.need}' needs a command after it")
        if not frame.cmd_seen:
            raise self.fail(f"'{op}' with no command before it")
        frame.start, frame.cmd_seen = True, False

    def pipe(self, frame: _Frame, op: str) -> None:
        if not frame.cmd_seen or frame.need in _PIPES:
            raise self.fail(f"'{op}' with no command before it")
        frame.start, frame.cmd_seen, frame.need = True, False, op

    def newline(self) -> None:
        frame = self.stack[-1]
        if frame.redirect:
            raise self.fail(f"'{frame.redirect}' needs a file name after it")
        self.i += 1
        self.line += 1
        if self.pending:
            self.read_bodies()
        phase = frame.phase
        if phase in ("for_in", "for_words", "for_do_arith"):
            frame.phase = "for_do"
            frame.start = True
            return
        if phase in ("case_word", "function_name", "for_name"):
            return
        if phase.startswith("pattern") and phase != "pattern_start":
            raise self.fail("a 'case' pattern needs ')' before the end of the line")
        if frame.cmd_seen:
            frame.start, frame.cmd_seen = True, False
        # A newline after | && || ! or an opening word keeps waiting for the command.

    def open_paren(self, frame: _Frame) -> None:
        i = self.i
        if frame.need == "function" or (frame.nwords == 1 and not frame.start):
            # `name ( )`: a function definition (after one word, or after `function name`).
            j = i + 1
            while j < self.n and self.text[j] in " \t":
                j += 1
            if j < self.n and self.text[j] == ")":
                self.i = j + 1
                frame.start, frame.need, frame.cmd_seen = True, "function", False
                return
        if frame.phase == "pattern_start":
            self.i = i + 1
            frame.phase = "pattern_start_bar"
            return
        if frame.phase == "for_name" and self.bash and self.text.startswith("((", i):
            self.i = i + 2
            frame.phase = "for_in_arith"
            self.push(_Frame("arith", "((", self.line))
            return
        if frame.start:
            if self.bash and self.text.startswith("((", i):
                self.i = i + 2
                self.open_compound(frame, _Frame("arith", "((", self.line))
                return
            self.i = i + 1
            self.open_compound(frame, _Frame("cmd", "(", self.line))
            self.stack[-1].need = "("
            return
        raise self.fail("unexpected '(' (a subshell must start a command; quote it if it is text)")

    def close_paren(self, frame: _Frame) -> None:
        if frame.phase in ("pattern", "pattern_start_bar") and frame.opener == "case":
            self.i += 1
            frame.phase = "body"
            frame.start, frame.need, frame.cmd_seen, frame.empty = True, "", False, True
            return
        if frame.opener in ("(", "$(", "<(", ">("):
            self.check_tail(frame)
            if frame.opener != "(" and self.pending:
                self.cut_pending(len(self.stack))
            if frame.opener == "(" and frame.empty:
                raise self.fail("'()' holds no command")
            self.i += 1
            self.stack.pop()
            parent = self.stack[-1]
            if frame.opener == "(":
                parent.start, parent.cmd_seen, parent.need, parent.empty = False, True, "", False
            return
        if frame.opener in ("top",):
            raise self.fail("')' without '('")
        raise self.fail("unexpected ')': " + self.open_message(frame))

    # -- heredocs ------------------------------------------------------------------------------------------------

    def heredoc_operator(self, frame: _Frame) -> None:
        text, i = self.text, self.i
        strip = text.startswith("<<-", i)
        j = i + (3 if strip else 2)
        while j < self.n and text[j] in " \t":
            j += 1
        # The marker word, quotes removed; it ends at an unquoted metacharacter.
        parts: list[str] = []
        quoted = False
        k = j
        while k < self.n:
            c = text[k]
            if c in _META:
                break
            if c == "'":
                end = text.find("'", k + 1)
                if end < 0:
                    raise self.fail("unterminated single quote in a here-document marker")
                parts.append(text[k + 1 : end])
                quoted = True
                k = end + 1
            elif c == '"':
                end = k + 1
                while end < self.n and text[end] != '"':
                    end += 2 if text[end] == "\\" else 1
                if end >= self.n:
                    raise self.fail("unterminated double quote in a here-document marker")
                parts.append(text[k + 1 : end].replace('\\"', '"').replace("\\\\", "\\"))
                quoted = True
                k = end + 1
            elif c == "\\":
                parts.append(text[k + 1 : k + 2])
                quoted = True
                k += 2
            else:
                parts.append(c)
                k += 1
        if k == j:
            if text.startswith("<<<", i):
                raise self.fail("'<<<' (a here-string) is bash only; use: echo \"...\" | command")
            raise self.fail(f"'{'<<-' if strip else '<<'}' needs a marker word after it")
        if "\n" in text[j:k]:
            self.count_lines(j, k)
        if len(self.pending) + len(self.heredocs) >= MAX_HEREDOCS:
            raise self.give_up()
        line_start = text.rfind("\n", 0, i) + 1
        in_sub = any(f.opener in ("$(", "<(", ">(") for f in self.stack)
        command = "" if frame.start else text[frame.cmd_start : i].strip(" \t")
        self.pending.append(
            _Pending(
                self.line,
                i - line_start,
                "".join(parts),
                quoted,
                strip,
                in_sub,
                command,
                j - line_start,
                k - line_start,
                len(self.stack),
            )
        )
        frame.cmd_seen, frame.empty = True, False
        if frame.need in _PIPES:
            frame.need = ""
        self.i = k

    def read_bodies(self) -> None:
        """``self.i`` is just after a newline token: read the pending bodies in order."""
        text, n = self.text, self.n
        for op in self.pending:
            marker, quoted, strip = op.marker, op.quoted, op.strip
            body_start = self.line
            pos = self.i
            closed = False
            while pos < n:
                end = text.find("\n", pos)
                if end < 0:
                    end = n
                logical_end = end
                # An unquoted body joins a line ending in an odd number of backslashes to the next.
                while not quoted and logical_end < n and _odd_backslashes(text, pos, logical_end):
                    nxt = text.find("\n", logical_end + 1)
                    self.line += 1
                    logical_end = n if nxt < 0 else nxt
                row = text[pos:logical_end]
                if strip:
                    row = row.lstrip("\t")
                if row == marker:
                    closed = True
                    self.heredocs.append(op.done(body_start, self.line, True))
                    self.closed_markers[marker] = len(self.heredocs) - 1
                    pos = logical_end + 1
                    self.line += 1
                    break
                if self.bash and op.in_sub and row.startswith(marker) and row[len(marker) : len(marker) + 1] == ")":
                    # bash ends the body here inside $( ) (with a warning); the `)` is read as shell again.
                    closed = True
                    self.heredocs.append(op.done(body_start, self.line, True, True))
                    pos = pos + (len(text[pos:logical_end]) - len(row)) + len(marker)
                    break
                pos = logical_end + 1
                if logical_end < n:
                    self.line += 1
            if not closed:
                self.heredocs.append(op.done(body_start, self.line_total(), False))
                pos = n
            self.i = min(pos, n)
        self.pending.clear()

    def cut_pending(self, depth: int) -> None:
        """Heredocs opened in a substitution that closes before the line ends get no body: dash runs the lines meant
        as their bodies as commands, bash 5 reads them with a warning ("unterminated here-document")."""
        kept = []
        for op in self.pending:
            if op.depth >= depth:
                self.heredocs.append(op.done(self.line, self.line, False, cut=True))
            else:
                kept.append(op)
        self.pending[:] = kept

    def line_total(self) -> int:
        text = self.text
        return text.count("\n") + (0 if not text or text.endswith("\n") else 1)

    # -- double quotes, ${ }, arithmetic, arrays, [[ ]] ------------------------------------------------------------

    def step_dq(self) -> None:
        text, i = self.text, self.i
        c = text[i]
        if c == '"':
            self.i = i + 1
            self.stack.pop()
        elif self.step_quote_or_expansion(c, i, single_quote=False, in_dq=True):  # '"' was read above
            return
        else:
            self.skip_run(_DQ_RUN, i)

    def step_param(self) -> None:
        text, i = self.text, self.i
        c = text[i]
        frame = self.stack[-1]
        if c == "}":
            self.i = i + 1
            self.stack.pop()
        elif c == "{":
            self.i = i + 1
        elif self.step_quote_or_expansion(
            c, i, single_quote=frame.phase != "dq" or self.bash, in_dq=frame.phase == "dq"
        ):  # bash quotes with ' in "${x:-'a'}" too
            return
        else:
            self.skip_run(_PARAM_RUN, i)

    def skip_run(self, run: re.Pattern[str], i: int) -> None:
        """Past the characters ``run`` matches at ``i`` (one character when it matches none), counting lines."""
        m = run.match(self.text, i)
        end = m.end() if m else i + 1
        self.count_lines(i, end)
        self.i = end

    def step_quote_or_expansion(self, c: str, i: int, *, single_quote: bool, in_dq: bool) -> bool:
        """A quote, an escape, a backquote or a ``$`` expansion at ``i``, read the same in every nested state; False
        when ``c`` is none of them."""
        if c == "'" and single_quote:
            self.i = i + 1
            self.skip_single_quote(ansi=False)
        elif c == '"':
            self.i = i + 1
            self.push(_Frame("dq", '"', self.line))
        elif c == "\\":
            if i + 1 < self.n and self.text[i + 1] == "\n":
                self.line += 1
            self.i = i + 2
        elif c == "`":
            self.i = i + 1
            self.skip_backquote()
        elif c == "$":
            self.dollar(in_dq=in_dq)
        else:
            return False
        return True

    def step_nested(self) -> None:
        """Arithmetic, arrays, extglob groups and ``[[ ]]``: parentheses nest, quotes and expansions are read."""
        text, i = self.text, self.i
        c = text[i]
        frame = self.stack[-1]
        if frame.kind == "dbracket":
            self.step_dbracket(frame)
            return
        depth = int(frame.phase or "0")
        if c == "(":
            frame.phase = str(depth + 1)
            self.i = i + 1
        elif c == ")":
            if depth > 0:
                frame.phase = str(depth - 1)
                self.i = i + 1
                return
            if frame.kind == "arith":
                if text.startswith("))", i):
                    self.i = i + 2
                    self.stack.pop()
                    self.after_arith(frame)
                    return
                if frame.opener == "$((" and self.bash:
                    # `$((cmd); cmd)`: a command substitution that starts with a subshell.
                    self.i = i + 1
                    self.stack[-1] = _Frame("cmd", "$(", frame.line)
                    self.stack[-1].start = False
                    self.stack[-1].cmd_seen = True
                    self.stack[-1].empty = False
                    return
                raise self.fail(f"'{frame.opener}' is closed by ')' instead of '))'")
            self.i = i + 1
            self.stack.pop()
        elif self.step_quote_or_expansion(c, i, single_quote=True, in_dq=False):
            return
        elif c == "#" and frame.kind == "array" and (i == 0 or text[i - 1] in " \t\n("):
            k = text.find("\n", i)
            self.i = self.n if k < 0 else k
        else:
            self.skip_run(_ARITH_RUN, i)

    def after_arith(self, frame: _Frame) -> None:
        parent = self.stack[-1]
        if frame.opener == "((" and parent.kind == "cmd":
            if parent.phase == "for_in_arith":
                parent.phase = "for_do_arith"
                parent.start = True
                return
            parent.start, parent.cmd_seen, parent.need, parent.empty = False, True, "", False

    def step_dbracket(self, frame: _Frame) -> None:
        """Inside ``[[ ]]``: ``<``, ``>``, ``(``, ``)``, ``&&``, ``||`` and ``!`` are operators of the test."""
        text, i = self.text, self.i
        c = text[i]
        if frame.in_word:
            if c in _META:
                frame.in_word = False
                if frame.word_plain and text[frame.word_start : i] == "]]":
                    self.close_compound(frame)
                return
            self.word_char(frame, c, in_dq=False)
        elif c in " \t":
            m = _BLANKS.match(text, i)
            self.i = m.end() if m else i + 1
        elif c == "\n":
            self.i = i + 1
            self.line += 1
        elif c in "()<>!&|;":
            # Operators of the test, or parts of a `=~` regular expression (`^(a|b)$`): never an error here.
            self.i = i + (2 if text.startswith(("&&", "||"), i) else 1)
        else:
            frame.in_word, frame.word_start, frame.word_plain = True, i, True

    # -- the end -------------------------------------------------------------------------------------------------

    def at_end(self) -> None:
        frame = self.stack[-1]
        if frame.in_word and frame.kind == "cmd":
            self.end_word(frame)
        elif frame.in_word and frame.kind == "dbracket":
            self.step_dbracket_end(frame)
        if self.pending:
            # A heredoc on the last line with no newline after it: its body is empty and unclosed.
            total = self.line_total()
            for op in self.pending:
                self.heredocs.append(op.done(total, total, False))
            self.pending.clear()
        frame = self.stack[-1]
        if len(self.stack) == 1:
            if frame.redirect:
                raise self.fail(f"'{frame.redirect}' needs a file name after it")
            if frame.need and not (frame.need in ("!", "time") and self.bash):
                raise self.fail(f"'{frame.need}' needs a command after it")
            return
        message = self.open_message(frame)
        # A heredoc that swallowed the lines that would have closed the construct is the cause to name.
        unclosed = [h for h in self.heredocs[-8:] if not h.closed and h.body_end > h.body_start]
        if unclosed:
            h = unclosed[-1]
            message = f"the here-document '{h.marker}' of line {h.line + 1} is never closed, so {message}"
        raise self.fail(message, frame.line)

    def step_dbracket_end(self, frame: _Frame) -> None:
        frame.in_word = False
        if frame.word_plain and self.text[frame.word_start : self.i] == "]]":
            self.close_compound(frame)

    def open_message(self, frame: _Frame) -> str:
        op, where = frame.opener, f" (opened on line {frame.line + 1})"
        if frame.kind == "dq":
            return "unterminated double quote" + where
        if frame.kind == "param":
            return "'${' is never closed with '}'" + where
        if frame.kind in ("arith", "array", "extglob"):
            closer = "))" if frame.kind == "arith" else ")"
            return f"'{op}' is never closed with '{closer}'{where}"
        if frame.kind == "dbracket":
            return "'[[' without ']]'" + where
        closers = {"(": "')'", "$(": "')'", "<(": "')'", ">(": "')'", "{": "'}'", "if": "'fi'", "case": "'esac'"}
        if op in closers:
            return f"'{op}' without {closers[op]}{where}"
        if op in ("for", "select", "while", "until"):
            return f"'{op}' without '{'done' if frame.phase == 'body' else 'do ... done'}'{where}"
        if op == "function":
            return "'function' without a name" + where
        return f"'{op}' is never closed{where}"


def _odd_backslashes(text: str, start: int, end: int) -> bool:
    b = end - 1
    while b >= start and text[b] == "\\":
        b -= 1
    return (end - 1 - b) % 2 == 1
