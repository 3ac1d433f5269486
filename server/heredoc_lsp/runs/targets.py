"""What can be run in a document: the run targets of one analysed snapshot (pure; no LSP, no I/O).

A :class:`RunTarget` is one place where the editor offers a run or shows a result: the whole script (line 0), each
command line of a ``.cli`` script, the whole inbox reply (line 0), and each command block of a reply (only
``[RUN_COMMAND]`` blocks can be run on their own; the others show their result after the reply was applied).

Results are stored under a target's :attr:`~RunTarget.key`, built from what the target *does* (command text and
stdin, block name, attributes and body) rather than from its line: editing a comment or moving a command keeps its
result, editing the command itself makes the result disappear, which is what "results are cleared when the text
changes in a way that invalidates them" means here.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.cli import CliScript, Command, blocks_run
from heredoc_lsp.syntax.diagnostics import Diagnostic, Severity, Span
from heredoc_lsp.syntax.inbox import InboxReply

TargetKind = Literal["script", "command", "reply", "block"]
TargetKey = tuple[Hashable, ...]  # what the target does (see the module docstring), hashable and cheap to build
RUN_BLOCK_NAME = "RUN_COMMAND"
LABEL_CHARS = 60


@dataclass(frozen=True, slots=True)
class RunTarget:
    """One runnable (or result-showing) place of a document.

    ``line``/``end_line`` are the lines the target covers (hover anywhere inside shows its result); columns
    ``col``..``end_col`` of ``line`` (:attr:`span`) are where its lens and its result diagnostic go. ``problem``
    says why it cannot run (None when it can). ``index`` is the position among the script's commands or the
    reply's commands (-1 for whole-document targets).
    """

    kind: TargetKind
    key: TargetKey
    line: int
    end_line: int
    col: int
    end_col: int
    label: str
    index: int = -1
    runnable: bool = True
    problem: str | None = None
    command: str = ""

    @property
    def span(self) -> Span:
        return Span(self.line, self.col, self.line, self.end_col)


def short(text: str, limit: int = LABEL_CHARS) -> str:
    """One line of at most ``limit`` characters (for titles and lens labels)."""
    first = text.split("\n", 1)[0]
    more = first != text
    if len(first) > limit:
        return first[: limit - 1] + "…"
    return first + (" …" if more else "")


def _errors(found: Sequence[Diagnostic], blocking: Sequence[Diagnostic] = ()) -> list[Diagnostic]:
    """The errors of ``found`` and the diagnostics of ``blocking``, each once, in document order."""
    seen: set[tuple[Span, str]] = set()
    out: list[Diagnostic] = []
    candidates = [d for d in found if d.severity == Severity.ERROR]
    for d in [*candidates, *blocking]:
        if (d.span, d.code) not in seen:
            seen.add((d.span, d.code))
            out.append(d)
    out.sort(key=lambda d: (d.span.start_line, d.span.start_col))
    return out


def _not_runnable(errors: Sequence[Diagnostic], what: str) -> str:
    first = errors[0]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    problems = "errors" if any(d.severity == Severity.ERROR for d in errors) else "a warning that blocks a run"
    return f"{what} has {problems}: line {first.span.start_line + 1}: {first.message}{more}"


def _occurrence_keys(contents: Sequence[TargetKey]) -> list[TargetKey]:
    """Keys that stay unique when the same content occurs twice (the n-th occurrence keeps the n-th result)."""
    seen: dict[TargetKey, int] = {}
    keys: list[TargetKey] = []
    for content in contents:
        n = seen.get(content, 0)
        seen[content] = n + 1
        keys.append((*content, n))
    return keys


def _errors_within(errors: Sequence[Diagnostic], starts: Sequence[int], first: int, last: int) -> list[Diagnostic]:
    """The errors starting on lines ``first..last`` (``starts``: the errors' start lines, sorted)."""
    return list(errors[bisect_left(starts, first) : bisect_right(starts, last)])


def errors_of(tree_diagnostics: Sequence[Diagnostic], diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The errors that decide what can run, each once, in document order: the parse's errors and, among the final
    (unsuppressed) diagnostics, the warnings that block a run (possible_heredoc, early_close)."""
    return _errors([*tree_diagnostics, *diagnostics], [d for d in diagnostics if blocks_run(d)])


def cli_command_targets(
    tree: object,
    errors: Sequence[Diagnostic],
    first_line: int = 0,
    stop_line: int | None = None,
    seen: dict[TargetKey, int] | None = None,
) -> list[RunTarget]:
    """The command targets of the items starting on lines ``[first_line, stop_line)`` (default: all), in order.

    A command runs when it has no error of its own: a problem elsewhere in the script does not hide its lens (the
    server runs it alone, :func:`heredoc_lsp.lsp.run.execute.command_text`). Without ``seen``, keys are numbered as
    first occurrences (:func:`number_occurrences` numbers repeated contents in the whole list). With ``seen`` (how
    often each content occurred on earlier lines, updated here), keys are numbered as they go: building a script
    from its first line in consecutive windows with one ``seen`` numbers every key, and leaves the counts in it.
    """
    assert isinstance(tree, CliScript)
    starts = [d.span.start_line for d in errors]
    # A warning that blocks a run covers the lines of the heredoc body it speaks for: possible_heredoc from its line
    # to the terminator it names, early_close from the heredoc's opener to the stray marker line. None of them
    # runs on its own either.
    reaches = [(*_reach(d), d) for d in errors if d.severity != Severity.ERROR]
    commands: list[RunTarget] = []
    for item in tree.items_between(first_line, stop_line):
        if not isinstance(item, Command):
            continue
        end = max(item.end_line, item.line)
        own = _errors_within(errors, starts, item.line, end) if errors else []
        if not own and reaches:
            own = [d for first, last, d in reaches if first <= item.line <= last]
        problem: str | None = None
        if own:
            problem = _not_runnable(own, "This command")
        elif item.error is not None:
            problem = "This line is not a runnable command"
        text = item.run_text
        body = item.heredoc.body if item.heredoc is not None else None
        n = 0
        if seen is not None:
            content = ("cmd", text, body)
            n = seen.get(content, 0)
            seen[content] = n + 1
        commands.append(
            RunTarget(
                kind="command",
                key=("cmd", text, body, n),
                line=item.line,
                end_line=end,
                col=item.col,
                end_col=item.col + len(item.text),
                label=short(text),
                runnable=problem is None,
                problem=problem,
                command=text,
            )
        )
    return commands


def _reach(d: Diagnostic) -> tuple[int, int]:
    """The first and last line a run-blocking warning speaks for: from the opener it names (``early_close``) or
    its own line, to the terminator line it names or its own line."""
    data = d.data or {}
    first = data.get("opener_line") if d.code == "early_close" else None
    last = data.get("terminator_line")
    return (
        first if isinstance(first, int) else d.span.start_line,
        last if isinstance(last, int) else d.span.end_line,
    )


def content_of(target: RunTarget) -> TargetKey:
    """What a target does (its key without the occurrence number)."""
    return target.key[:-1]


def number_occurrences(targets: list[RunTarget], contents: set[TargetKey] | None = None) -> list[RunTarget]:
    """``targets`` with the n-th occurrence of a content keyed ``(*content, n)`` (only ``contents``, when given,
    are renumbered: the others are known to be right)."""
    seen: dict[TargetKey, int] = {}
    out = targets
    for i, t in enumerate(targets):
        content = content_of(t)
        if contents is not None and content not in contents:
            continue
        n = seen.get(content, 0)
        seen[content] = n + 1
        if t.key[-1] != n:
            if out is targets:
                out = list(targets)
            out[i] = replace(t, key=(*content, n))
    return out


def script_target(commands: Sequence[RunTarget], errors: Sequence[Diagnostic]) -> RunTarget:
    """The whole-script target at line 0: it runs when the script has no error and some command."""
    runnable = sum(1 for t in commands if t.runnable)
    script_problem: str | None = None
    if errors:
        script_problem = _not_runnable(errors, "The script")
    elif not runnable:
        script_problem = "The script has no commands"
    return _whole_document("script", tuple(c.key for c in commands), runnable, script_problem)


def cli_targets(tree: object, diagnostics: Sequence[Diagnostic]) -> list[RunTarget]:
    """The targets of a ``.cli`` script: the script at line 0, then every command line in order."""
    assert isinstance(tree, CliScript)
    errors = errors_of(tree.diagnostics, diagnostics)
    commands = number_occurrences(cli_command_targets(tree, errors))
    return [script_target(commands, errors), *commands]


def inbox_targets(tree: object, diagnostics: Sequence[Diagnostic]) -> list[RunTarget]:
    """The targets of an inbox reply: the reply at line 0, then every command block (RUN_COMMAND ones runnable)."""
    assert isinstance(tree, InboxReply)
    errors = _errors([*tree.diagnostics, *diagnostics])
    contents: list[TargetKey] = [(c.name, tuple(sorted(c.attrs.items())), c.body) for c in tree.commands]
    keys = _occurrence_keys(contents)
    starts = [d.span.start_line for d in errors]
    blocks: list[RunTarget] = []
    for i, (c, key) in enumerate(zip(tree.commands, keys, strict=True)):
        own = _errors_within(errors, starts, c.line, c.end_line) if errors else []
        is_run = c.name == RUN_BLOCK_NAME
        problem: str | None = None
        if is_run and own:
            problem = _not_runnable(own, "This block")
        elif is_run and not (c.body or "").strip(" \t\f\v\n"):
            problem = "This block has no command"
        body = c.body or ""
        label = short(body) if is_run else (f"{c.name} {c.path}" if c.path else c.name)
        blocks.append(
            RunTarget(
                kind="block",
                key=key,
                line=c.line,
                end_line=c.end_line,
                col=c.tag_span.start_col,
                end_col=c.tag_span.end_col,  # the tag is on the opener's line
                label=label,
                index=i,
                runnable=is_run and problem is None,
                problem=problem if is_run else None,
                command=body if is_run else "",
            )
        )
    reply_problem = None if tree.commands else "The reply has no commands"
    reply = _whole_document("reply", tuple(t.key for t in blocks), len(blocks), reply_problem)
    return [reply, *blocks]


def targets_for(language: Language, tree: object, diagnostics: Sequence[Diagnostic]) -> list[RunTarget]:
    """Every run target of a document (none for outboxes and standalone parameter bodies)."""
    if language is Language.CLI:
        return cli_targets(tree, diagnostics)
    if language is Language.INBOX:
        return inbox_targets(tree, diagnostics)
    return []


def target_at(targets: Sequence[RunTarget], line: int, *, runnable_only: bool = False) -> RunTarget | None:
    """The command or block target covering ``line`` (never the whole-document target); ``targets`` is the
    document's list (the whole-document target first, then the others in line order)."""
    k = bisect_right(targets, line, lo=1, key=_line_of) - 1
    if k < 1:
        return None
    t = targets[k]
    if t.kind in ("command", "block") and t.line <= line <= t.end_line and (t.runnable or not runnable_only):
        return t
    return None


def _line_of(target: RunTarget) -> int:
    return target.line


def _whole_document(kind: TargetKind, keys: tuple[TargetKey, ...], count: int, problem: str | None) -> RunTarget:
    """The target of a whole script or reply: line 0 (its lens is at the top), runnable unless ``problem``."""
    return RunTarget(
        kind=kind,
        key=(kind, keys),
        line=0,
        end_line=0,
        col=0,
        end_col=0,
        label=f"{count} command{'s' if count != 1 else ''}",
        runnable=problem is None,
        problem=problem,
    )
