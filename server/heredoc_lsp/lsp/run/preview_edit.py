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
from heredoc_lsp.syntax.text import split_lines_keepends

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


def changed_lines(codec: PositionCodec, before: str, after: str) -> tuple[types.Range, str]:
    """The range of ``before`` that differs from ``after`` in whole lines (their common first and last lines left
    out) and the text that replaces it."""
    old, new = split_lines_keepends(before), split_lines_keepends(after)
    first = 0
    while first < min(len(old), len(new)) and old[first] == new[first]:
        first += 1
    last = 0
    while last < min(len(old), len(new)) - first and old[-1 - last] == new[-1 - last]:
        last += 1
    start = types.Position(line=first, character=0)
    end = types.Position(line=len(old) - last, character=0) if last else end_position(codec, before)
    return types.Range(start=start, end=end), "".join(new[first : len(new) - last])


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
