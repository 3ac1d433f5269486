"""Hover texts (Markdown) for the things :func:`heredoc_lsp.navigation.locate.target_at` finds.

- heredoc opener or terminator: the marker, the body's size, what stdin the command gets (with a preview),
  quoting and ``<<-`` semantics, where the other end is;
- parameter delimiter: the command's schema (allowed and required names, terminator, delimiter style) and this
  value's size;
- configured command: its schema;
- inbox tag or attribute: what the command does, its required attributes, the resolved path and whether it exists;
- outbox section marker: what the section holds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from heredoc_lsp.navigation.locate import (
    AttrTarget,
    CommandTarget,
    DelimiterTarget,
    MarkerTarget,
    SectionTarget,
    TagTarget,
    Target,
)
from heredoc_lsp.navigation.workspace_paths import resolve
from heredoc_lsp.syntax.cli import Command, Heredoc
from heredoc_lsp.syntax.inbox import PATH_COMMANDS, REQUIRED_ATTRS, InboxCommand
from heredoc_lsp.syntax.params import ParamsBody, delimiter_text
from heredoc_lsp.syntax.schema import CommandSchema
from heredoc_lsp.syntax.text import plural

PREVIEW_LINES = 5
PREVIEW_WIDTH = 120

INBOX_COMMANDS: Mapping[str, str] = {
    "CREATE_FILE": "Creates the file at `path` (or replaces it) with the block's body as its content, verbatim; "
    "parent directories are created.",
    "EDIT_FILE": "Replaces lines `start_line`..`end_line` (1-based, inclusive) of the file at `path` with the "
    "block's body; an empty body deletes them. The file's line endings are kept.",
    "DELETE_FILE": "Deletes the file at `path`.",
    "READ_FILE": "Reads the file at `path`; its contents go to the next outbox (capped).",
    "RUN_COMMAND": "Runs the block's body (trimmed) as a command in the workspace, sandboxed, with a timeout; "
    "its output goes to the next outbox.",
    "MESSAGE": "A message for the person running the agent (trimmed body); nothing is executed.",
    "DONE": "Ends the task: commands after it are skipped. The body (trimmed) is the final summary.",
}
INBOX_ATTRS: Mapping[str, str] = {
    "path": "The file, relative to the workspace root (`/` or `\\` separate); absolute paths, drives, `~` and "
    "`..` leaving the root are refused.",
    "start_line": "First line to replace, 1-based.",
    "end_line": "Last line to replace, 1-based and inclusive; at least `start_line`.",
}
OUTBOX_SECTIONS: Mapping[str, str] = {
    "HEADER": "Session id (8 hex digits), sequence number and the task; must be line 1.",
    "PROTOCOL": "heredoc-lsp's instructions to the LLM: every command with its syntax, the path rules, the "
    "`[DONE]` rule and the limits.",
    "CONTEXT": "Workspace files with sizes, the results of the previous reply and requested file contents.",
    "PROMPT": "The task (sequence 1) or the continuation prompt; the last `=== PROMPT ===` after CONTEXT.",
}
_MODES = {
    "multi": "multi: the body is `---NAME---` parameters",
    "single": "single: the whole body is one value",
    "text": "text: plain stdin, only the terminator is checked",
}


def code(text: str) -> str:
    """``text`` as inline Markdown code, whatever backticks it contains."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _block(lines: Sequence[str]) -> str:
    longest = max((len(m) for line in lines for m in re.findall(r"`{3,}", line)), default=2)
    fence = "`" * max(3, longest + 1)
    return "\n".join([f"{fence}text", *lines, fence])


def describe(target: Target, workspace: Path | None, config_source: Path | None = None) -> str | None:
    """The hover Markdown for ``target`` (None when there is nothing worth saying)."""
    if isinstance(target, MarkerTarget):
        return heredoc_text(target.command, target.heredoc, target.role)
    if isinstance(target, DelimiterTarget):
        return delimiter_text_md(target)
    if isinstance(target, CommandTarget):
        schema = target.command.schema
        return schema_text(schema, config_source) if schema is not None else None
    if isinstance(target, TagTarget):
        return tag_text(target.command, workspace)
    if isinstance(target, AttrTarget):
        return attr_text(target, workspace)
    if isinstance(target, SectionTarget):
        s = target.section
        first, end = s.text_lines
        size = plural(max(0, end - first), "line")
        return f"**section {s.name}** ({size})\n\n{OUTBOX_SECTIONS.get(s.name, '')}".rstrip()
    return None


# -- heredocs ----------------------------------------------------------------------------------------------------


def heredoc_text(command: Command, h: Heredoc, role: str) -> str:
    opener = f"<<{'-' if h.strip_tabs else ''}{h.quote}{h.marker}{h.quote}"
    parts: list[str] = []
    if command.text:
        parts.append(f"**heredoc** {code(opener)}: stdin of {code(command.text)}")
    else:
        parts.append(f"**heredoc** {code(opener)} without a command: nothing runs it")
    facts: list[str] = []
    if role == "terminator":
        facts.append(f"opened on line {command.line + 1}")
    if h.terminator_line is not None:
        facts.append(
            f"marker {code(h.marker)}: the body ends at the first line that is exactly {code(h.marker)} "
            f"(blanks around it allowed), line {h.terminator_line + 1}"
        )
    else:
        facts.append(
            f"**unclosed**: no line {code(h.marker)} follows, so the body runs to the end of the file"
            if h.marker
            else "no marker: the heredoc has no body"
        )
    n = len(h.body)
    stdin = h.stdin_text()
    if n == 0:
        facts.append("empty body: the command gets empty stdin")
    else:
        where = f"line {h.body_start + 1}" if n == 1 else f"lines {h.body_start + 1}-{h.body_start + n}"
        facts.append(
            f"body: {plural(n, 'line')} ({where}); stdin is {plural(len(stdin), 'character')}, "
            "each body line followed by a newline"
        )
    if h.quoted:
        facts.append("quoted marker: the same as unquoted here (nothing is ever interpolated)")
    if h.strip_tabs:
        facts.append("`<<-`: leading tabs are removed from every body line")
    if command.params is not None:
        facts.append(_structured_fact(command))
    if command.error is not None and command.error != "unclosed_heredoc":
        facts.append(f"not run: {command.error.replace('_', ' ')}")
    parts.append("\n".join(f"- {f}" for f in facts))
    if n:
        shown = [_clip(line) for line in h.body[:PREVIEW_LINES]]
        if n > PREVIEW_LINES:
            shown.append(f"… {plural(n - PREVIEW_LINES, 'line')} more")
        parts.append("stdin:\n\n" + _block(shown))
    return "\n\n".join(parts)


def _clip(line: str) -> str:
    return line if len(line) <= PREVIEW_WIDTH else line[: PREVIEW_WIDTH - 1] + "…"


def _structured_fact(command: Command) -> str:
    body = command.params
    assert body is not None
    names = [p.name for p in body.params if p.kind == "param"]
    owner = f"{code(command.schema.name)}" if command.schema is not None else "no configured command (any name)"
    listed = ", ".join(names) if names else "none yet"
    return f"structured body ({body.mode}) for {owner}: parameters {listed}"


# -- schemas and delimiters ----------------------------------------------------------------------------------------


def schema_lines(schema: CommandSchema) -> list[str]:
    out = [f"mode {_MODES[schema.mode]}"]
    if schema.mode == "multi":
        if schema.params is None:
            out.append("parameters: any `[A-Z_]+` name")
        else:
            out.append(
                "parameters: "
                + ", ".join(f"`{p}` (required)" if p in schema.required else f"`{p}`" for p in schema.params)
            )
        missing_from_list = [r for r in schema.required if schema.params is None or r not in schema.params]
        if missing_from_list:
            out.append("required: " + ", ".join(f"`{r}`" for r in missing_from_list))
    elif schema.mode == "single":
        name = schema.single_param or "MESSAGE"
        out.append(f"parameter: `{name}` (an optional first line `---{name.upper()}---` is dropped)")
    if schema.terminator:
        out.append(f"terminator: {code(schema.terminator)} must not appear as a body line")
    return out


def schema_text(schema: CommandSchema, source: Path | None = None) -> str:
    where = f" (from {code(source.name)})" if source is not None else ""
    head = f"**configured command** {code(schema.name)}{where}"
    return head + "\n\n" + "\n".join(f"- {line}" for line in schema_lines(schema))


def _value_size(param_value: str, count: int) -> str:
    if count <= 0:
        return "empty"
    return f"{plural(count, 'line')}, {plural(len(param_value), 'character')}"


def delimiter_text_md(target: DelimiterTarget) -> str:
    p = target.param
    body: ParamsBody = target.body
    command = target.command
    schema = command.schema if command is not None else None
    required = schema is not None and p.name in schema.required
    owner = f" of {code(schema.name)}" if schema is not None else ""
    head = f"**parameter** `{p.name}`{owner}" + (" (required)" if required else "")
    facts: list[str] = []
    if p.kind == "unknown":
        facts.append("**not allowed** here: its content is dropped")
    elif p.kind == "duplicate":
        first = next((q for q in body.params if q.name == p.name and q.kind == "param"), None)
        where = f" (first on line {first.line + 1})" if first is not None and first.line is not None else ""
        facts.append(f"**duplicate**{where}: this section is content of nothing and is reported")
    else:
        facts.append(f"value: {_value_size(p.value, p.value_end - p.value_start)}")
    if body.style == "uuid" and body.uuid:
        facts.append(
            f"delimiters carry the id {code(body.uuid)}: only {code(delimiter_text('NAME', body.uuid))} lines delimit"
        )
    if schema is not None:
        facts.extend(schema_lines(schema))
        used = {q.name for q in body.params if q.kind == "param"}
        if schema.required:
            missing = [r for r in schema.required if r not in used]
            facts.append("missing: " + ", ".join(f"`{m}`" for m in missing) if missing else "all required present")
    else:
        facts.append("no configured command: any `[A-Z_]+` name is allowed, none is required")
    return head + "\n\n" + "\n".join(f"- {f}" for f in facts)


# -- inbox -------------------------------------------------------------------------------------------------------


def _path_fact(command: InboxCommand, workspace: Path | None) -> str | None:
    if command.name not in PATH_COMMANDS:
        return None
    path = command.attrs.get("path")
    if path is None:
        return "path: missing"
    r = resolve(workspace, path)
    if r.problem is not None or r.location is None:
        return f"path {code(path)}: **refused**: {r.problem}"
    state = "a directory" if r.is_dir else ("exists" if r.exists else "does not exist yet")
    return f"path {code(path)} → {code(str(r.location))} ({state})"


def tag_text(command: InboxCommand, workspace: Path | None) -> str:
    name = command.name
    kind = "self-closing" if command.self_closing else f"block, closed by `[/{name}]`"
    head = f"**{name}** ({kind})\n\n{INBOX_COMMANDS.get(name, '')}"
    facts: list[str] = []
    required = REQUIRED_ATTRS.get(name, ())
    facts.append("required attributes: " + (", ".join(f"`{a}`" for a in required) if required else "none"))
    path = _path_fact(command, workspace)
    if path is not None:
        facts.append(path)
    if name == "EDIT_FILE" and command.line_range is not None:
        first, last = command.line_range
        facts.append(f"replaces lines {first}-{last}")
    if command.errors:
        facts.append(f"**not executed**: {command.errors[0].message}")
    return head + "\n\n" + "\n".join(f"- {f}" for f in facts)


def attr_text(target: AttrTarget, workspace: Path | None) -> str:
    a = target.attr
    c = target.command
    known = REQUIRED_ATTRS.get(c.name, ())
    if a.name in known:
        head = f"**{a.name}** (required by {c.name})\n\n{INBOX_ATTRS.get(a.name, '')}"
    else:
        head = f"**{a.name}**: not used by {c.name} (kept, ignored)"
    facts: list[str] = [f"value: {code(a.value)}"]
    if a.name == "path" and c.name in PATH_COMMANDS:
        path = _path_fact(c, workspace)
        if path is not None and c.attrs.get("path") == a.value:
            facts.append(path)
    return head + "\n\n" + "\n".join(f"- {f}" for f in facts)
