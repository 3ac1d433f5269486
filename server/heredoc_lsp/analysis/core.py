"""One entry point from document text to everything wrong with it, shared by ``check``, ``parse`` and the
language server: parser diagnostics, workspace checks (inbox replies), then suppressions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from heredoc_lsp.config.model import DEFAULT_CONFIG, Config
from heredoc_lsp.languages import Language
from heredoc_lsp.syntax.diagnostics import Diagnostic, Severity
from heredoc_lsp.syntax.records import record
from heredoc_lsp.syntax.text import split_lines

DIRECTIVE_MARK = "heredoc-lsp"  # every suppression directive holds it: a line without it holds none

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    from heredoc_lsp.analysis.suppress import TextEdit
    from heredoc_lsp.syntax.bash import BashCommand
    from heredoc_lsp.syntax.cli import CliScript
    from heredoc_lsp.syntax.inbox import InboxReply
    from heredoc_lsp.syntax.outbox import Outbox
    from heredoc_lsp.syntax.params import ParamsBody

    Tree: TypeAlias = CliScript | ParamsBody | InboxReply | Outbox | BashCommand


@record
class Analysis:
    """The result of :func:`analyze`. ``diagnostics`` are final (suppressed ones removed), sorted by position."""

    language: Language
    lines: Sequence[str]
    tree: Tree
    diagnostics: tuple[Diagnostic, ...]
    suppressed: tuple[Diagnostic, ...]
    newline: str
    had_bom: bool = False
    workspace: Path | None = None
    bodies: tuple[Diagnostic, ...] = ()  # body_syntax before suppressions (kept for incremental re-analysis)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == Severity.ERROR for d in self.diagnostics)

    def suppression_edit(self, diagnostic: Diagnostic, *, whole_file: bool = False) -> TextEdit | None:
        """The edit inserting (or extending) a ``# heredoc-lsp: disable=`` directive for ``diagnostic``; None for
        formats without directives (outbox, stand-alone bodies)."""
        from heredoc_lsp.analysis.layouts import layout_for  # deferred: check start-up
        from heredoc_lsp.analysis.suppress import suppression_edit  # deferred: check start-up

        layout = layout_for(self.language, self.lines, self.tree)
        return suppression_edit(self.lines, layout, diagnostic, newline=self.newline, whole_file=whole_file)


def _newline_of(text: str) -> str:
    for i, c in enumerate(text):
        if c == "\n":
            return "\n"
        if c == "\r":
            return "\r\n" if text.startswith("\n", i + 1) else "\r"
    return "\n"


def _position(d: Diagnostic) -> tuple[int, int, Severity]:
    span = d.span
    return (span.start_line, span.start_col, d.severity)


def analyze(
    text: str,
    language: Language,
    config: Config = DEFAULT_CONFIG,
    *,
    workspace: Path | None = None,
    command: str | None = None,
    had_bom: bool = False,
    extra_diagnostics: Sequence[Diagnostic] = (),
) -> Analysis:
    """Parse ``text`` (decoded, BOM removed) as ``language`` and return its final diagnostics.

    ``workspace``: the root that inbox paths are relative to; when given, the file-system checks run (the only I/O
    here). ``command``: for a stand-alone structured body, the command whose schema applies. ``extra_diagnostics``
    (e.g. ``invalid_encoding`` from :func:`heredoc_lsp.analysis.decode.decode_document`) join the parser's and can
    be suppressed like them.
    """
    if language is Language.BASH:
        # bash's lines end at "\n" only: the text is read whole, not split by the text model.
        from heredoc_lsp.syntax.bash import parse_bash  # deferred: check start-up

        checked = parse_bash(text, config.commands)
        return finish_analysis(
            language,
            checked.lines,
            checked,
            [*extra_diagnostics, *checked.diagnostics],
            newline="\n",
            had_bom=had_bom,
            may_have_directives=False,
        )
    return analyze_lines(
        split_lines(text),
        language,
        config,
        newline=_newline_of(text),
        workspace=workspace,
        command=command,
        had_bom=had_bom,
        extra_diagnostics=extra_diagnostics,
        directives_in=text,
    )


def analyze_lines(
    lines: Sequence[str],
    language: Language,
    config: Config = DEFAULT_CONFIG,
    *,
    newline: str = "\n",
    workspace: Path | None = None,
    command: str | None = None,
    had_bom: bool = False,
    extra_diagnostics: Sequence[Diagnostic] = (),
    may_have_directives: bool | None = None,
    directives_in: str | None = None,
) -> Analysis:
    """:func:`analyze` for a document already split into lines (a server keeps them; no join and re-split).

    ``may_have_directives=False`` promises that no line contains ``heredoc-lsp`` (skips the suppression pass);
    None makes it look (in ``directives_in``, the document's text, when given): a directive can suppress
    diagnostics or name an unknown code (``unknown_code``).
    """
    tree: Tree
    found: list[Diagnostic] = list(extra_diagnostics)
    if language is Language.CLI:
        from heredoc_lsp.syntax.cli import parse_cli  # deferred: check start-up

        tree = parse_cli(lines, config.commands, config.compat, shell=config.shell)
    elif language is Language.PARAMS:
        from heredoc_lsp.syntax.params import parse_params  # deferred: check start-up
        from heredoc_lsp.syntax.schema import lookup_schema  # deferred: check start-up

        schema = lookup_schema(config.commands, command) if command else None
        tree = parse_params(lines, schema)
    elif language is Language.INBOX:
        from heredoc_lsp.syntax.inbox import parse_inbox  # deferred: check start-up
        from heredoc_lsp.syntax.reply_shape import prompt_tree  # deferred: check start-up

        tree = parse_inbox(lines)
        prompt = prompt_tree(list(lines), tree)
        if prompt is not None:
            tree = prompt  # one diagnostic for a pasted prompt, no workspace checks of its examples
        elif workspace is not None:
            from heredoc_lsp.analysis.workspace import workspace_diagnostics  # deferred: check start-up

            found.extend(workspace_diagnostics(tree, workspace))
    elif language is Language.BASH:
        from heredoc_lsp.syntax.bash import parse_bash  # deferred: check start-up

        tree = parse_bash("\n".join(lines), config.commands)
    else:
        from heredoc_lsp.syntax.outbox import parse_outbox  # deferred: check start-up

        tree = parse_outbox(lines)
    found.extend(tree.diagnostics)
    from heredoc_lsp.analysis.bodies import body_diagnostics  # deferred: check start-up

    if may_have_directives is None:
        if directives_in is not None:
            may_have_directives = DIRECTIVE_MARK in directives_in
        else:
            may_have_directives = any(DIRECTIVE_MARK in line for line in lines)
    bodies = tuple(body_diagnostics(lines, tree, directives=bool(may_have_directives)))
    return finish_analysis(
        language,
        lines,
        tree,
        found,
        newline=newline,
        had_bom=had_bom,
        workspace=workspace,
        may_have_directives=bool(may_have_directives),
        bodies=bodies,
    )


def finish_analysis(
    language: Language,
    lines: Sequence[str],
    tree: Tree,
    found: list[Diagnostic],
    *,
    newline: str = "\n",
    had_bom: bool = False,
    workspace: Path | None = None,
    may_have_directives: bool = True,
    bodies: Sequence[Diagnostic] = (),
) -> Analysis:
    """Apply suppressions to ``found`` (every diagnostic of a parsed document) and ``bodies`` (its ``body_syntax``
    diagnostics, kept apart in the result for incremental re-analysis) and build the :class:`Analysis`.

    The server calls this after its incremental re-parse; :func:`analyze_lines` after a full parse.
    """
    if bodies:
        found = found + list(bodies)
    kept: list[Diagnostic] = found
    suppressed: list[Diagnostic] = []
    if may_have_directives:  # directives are rare: skip the layout work for most documents
        # deferred: check start-up
        from heredoc_lsp.analysis.layouts import layout_for
        from heredoc_lsp.analysis.suppress import (
            apply_suppressions,
            bad_directive_diagnostics,
            find_suppressions,
            unknown_code_diagnostics,
        )

        layout = layout_for(language, lines, tree)
        suppressions = find_suppressions(lines, layout)
        found = found + unknown_code_diagnostics(lines, suppressions) + bad_directive_diagnostics(lines, layout)
        kept, suppressed = apply_suppressions(found, suppressions)
    kept.sort(key=_position)
    return Analysis(
        language=language,
        lines=lines,
        tree=tree,
        diagnostics=tuple(kept),
        suppressed=tuple(suppressed),
        newline=newline,
        had_bom=had_bom,
        workspace=workspace,
        bodies=tuple(bodies),
    )


def analyze_bytes(
    data: bytes,
    language: Language,
    config: Config = DEFAULT_CONFIG,
    *,
    workspace: Path | None = None,
    command: str | None = None,
) -> Analysis:
    """:func:`analyze` for a file's bytes: BOM removed, invalid UTF-8 replaced and reported (``invalid_encoding``)."""
    from heredoc_lsp.syntax.text import decode_bytes  # deferred: check start-up

    decoded = decode_bytes(data)
    extra: tuple[Diagnostic, ...] = ()
    if decoded.first_invalid_line is not None:
        from heredoc_lsp.analysis.decode import invalid_encoding  # deferred: check start-up

        extra = (invalid_encoding(decoded.text, decoded.first_invalid_line),)
    return analyze(
        decoded.text,
        language,
        config,
        workspace=workspace,
        command=command,
        had_bom=decoded.had_bom,
        extra_diagnostics=extra,
    )


def default_workspace(path: Path, config: Config | None = None) -> Path:
    """The workspace root used for an inbox reply outside an editor (``check``, ``parse``, ``agent``): see
    :func:`document_workspace`."""
    found = document_workspace(path, Language.INBOX, config=config)
    assert found is not None
    return found


def document_workspace(
    path: Path | None, language: Language, *, folder: Path | None = None, config: Config | None = None
) -> Path | None:
    """The workspace a document belongs to, the one rule for the command line and the editor (checks and runs).

    An inbox reply in the agent loop's layout (``<root>/inbox/x.txt``, ``<root>/inbox/processed/x.txt``) belongs
    to ``<root>``; any other document to ``folder`` (the editor's workspace folder holding it), else to the
    directory of the config file that applies (when ``config`` is given), else to its own directory. None for a
    document with no path outside every folder.
    """
    if path is not None and language is Language.INBOX:
        parent = path.absolute().parent
        if parent.name == "inbox":
            return parent.parent
        if parent.name == "processed" and parent.parent.name == "inbox":
            return parent.parent.parent
    if folder is not None:
        return folder
    if path is None:
        return None
    if config is not None and config.source is not None:
        return config.source.absolute().parent
    return path.absolute().parent
