"""A reply's file changes as a ``WorkspaceEdit`` for the editor's refactoring preview (docs/running.md, "Preview
reply").

One entry of ``documentChanges`` per file operation (CreateFile then the created file's text, a TextDocumentEdit
replacing the lines of an edited file that change, DeleteFile), every one carrying the annotation of its file: a
``ChangeAnnotation`` with ``needsConfirmation`` (label: the blocks and the file, description: what they do), so
VS Code shows its preview with a checkbox per file. Pure given the open documents.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls.workspace import PositionCodec

from heredoc_lsp.executor.reply_preview import FileChange, ReplyPreview
from heredoc_lsp.lsp.documents import split_with_endings
from heredoc_lsp.syntax.text import common_prefix, common_suffix

#: The version a TextDocumentEdit names for a file that is not open in the editor.
NOT_OPEN = None


class PreviewConflict(Exception):
    """The preview cannot be sent as an edit (a file open with unsaved changes); the message says which."""


def end_position(codec: PositionCodec, text: str) -> types.Position:
    """The position after the last character of ``text`` (LSP line model, in the client's units)."""
    lines, endings = split_with_endings(text)
    if not lines:
        return types.Position(line=0, character=0)
    if endings[-1]:
        return types.Position(line=len(lines), character=0)
    return types.Position(line=len(lines) - 1, character=codec.client_num_units(lines[-1]))


def _is_line_start(text: str, i: int) -> bool:
    """Offset ``i`` starts a line (LSP line model: after ``\n``, ``\r\n`` or a lone ``\r``; never inside ``\r\n``)."""
    if i == 0:
        return True
    if text[i - 1] == "\n":
        return True
    return text[i - 1] == "\r" and (i == len(text) or text[i] != "\n")


def _line_start_before(text: str, i: int) -> int:
    """The start of the line holding offset ``i``."""
    if i > 0 and text[i - 1] == "\r" and i < len(text) and text[i] == "\n":
        i -= 1  # inside a \r\n: its line starts before the \r
    return max(text.rfind("\n", 0, i), text.rfind("\r", 0, i)) + 1


def _line_start_after(text: str, i: int) -> int:
    """The first line start at or after offset ``i`` (the end of the text when there is none)."""
    if _is_line_start(text, i):
        return i
    cuts = [k for k in (text.find("\n", i), text.find("\r", i)) if k >= 0]
    if not cuts:
        return len(text)
    k = min(cuts)
    return k + 2 if text.startswith("\r\n", k) else k + 1


def _position(codec: PositionCodec, text: str, i: int) -> types.Position:
    """Offset ``i`` of ``text`` (a line start, or the end of the text) as an LSP position."""
    line = text.count("\n", 0, i) + text.count("\r", 0, i) - text.count("\r\n", 0, i)
    start = _line_start_before(text, i)
    return types.Position(line=line, character=codec.client_num_units(text[start:i]) if start < i else 0)


def changed_lines(codec: PositionCodec, before: str, after: str) -> tuple[types.Range, str]:
    """The range of ``before`` that differs from ``after`` in whole lines (their common first and last lines left
    out) and the text that replaces it."""
    first = _line_start_before(before, common_prefix(before, after))
    tail = common_suffix(before, after, first)
    end = _line_start_after(before, len(before) - tail)
    stop = len(after) - (len(before) - end)
    return types.Range(start=_position(codec, before, first), end=_position(codec, before, end)), after[first:stop]


def annotation_id(k: int) -> str:
    return f"heredoc-lsp.file{k + 1}"


def preview_edit(
    preview: ReplyPreview,
    codec: PositionCodec,
    open_text: Callable[[str], tuple[int, str] | None],
) -> types.WorkspaceEdit:
    """The workspace edit of ``preview``'s file changes. ``open_text(uri)``: (version, text) of a document open in
    the editor, else None; an open document whose text is not the file's is a :class:`PreviewConflict`."""
    changes: list[types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile] = []
    annotations: dict[str, types.ChangeAnnotation] = {}
    for k, change in enumerate(preview.files):
        key = annotation_id(k)
        annotations[key] = types.ChangeAnnotation(
            label=change.label, description=change.description, needs_confirmation=True
        )
        uri = (preview.workspace / change.path).as_uri()
        version, before = _document(change, uri, open_text)
        if change.before is None:
            changes.append(
                types.CreateFile(
                    uri=uri,
                    options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False),
                    annotation_id=key,
                )
            )
        if change.after is None:
            changes.append(
                types.DeleteFile(
                    uri=uri, options=types.DeleteFileOptions(ignore_if_not_exists=False), annotation_id=key
                )
            )
            continue
        if change.before is None and not change.after:
            continue  # an empty new file: CreateFile alone
        span, text = changed_lines(codec, before, change.after)
        changes.append(
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=[types.AnnotatedTextEdit(range=span, new_text=text, annotation_id=key)],
            )
        )
    return types.WorkspaceEdit(document_changes=changes, change_annotations=annotations)


def _document(
    change: FileChange, uri: str, open_text: Callable[[str], tuple[int, str] | None]
) -> tuple[int | None, str]:
    """The version to name (None: not open) and the text the edit replaces."""
    before = "" if change.before is None else change.before.data.decode("utf-8", "surrogateescape")
    found = open_text(uri)
    if found is None:
        return NOT_OPEN, before
    version, text = found
    if text != before:
        name = Path(change.path).name
        raise PreviewConflict(
            f"heredoc-lsp: {name} is open with changes that are not saved; save or revert it, then preview again"
        )
    return version, text
