"""What the client can do, read once from its ``initialize`` capabilities: every feature asks ``server.client``."""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types
from pygls.capabilities import get_capability


@dataclass(frozen=True, slots=True)
class ClientProfile:
    """The client capabilities the server uses (all off until ``initialize``)."""

    position_encoding: str = types.PositionEncodingKind.Utf16.value
    # diagnostics
    pull_diagnostics: bool = False
    diagnostics_refresh: bool = False
    push_related_information: bool = False
    push_data: bool = False
    pull_related_information: bool = True
    # views
    semantic_tokens: bool = False
    semantic_tokens_refresh: bool = False
    code_lens_refresh: bool = False
    hierarchical_symbols: bool = False
    folding_collapsed_text: bool = False
    folding_range_limit: int | None = None
    link_tooltips: bool = False
    definition_links: bool = False
    hover_markdown: bool = True
    completion_snippets: bool = False
    completion_markdown: bool = False
    # edits and windows
    document_changes: bool = False
    change_annotations: bool = False  # workspace edits whose changes need the user's confirmation (a preview)
    resource_operations: tuple[str, ...] = ()  # create, rename, delete in workspace edits
    work_done_progress: bool = False
    show_document: bool = False
    configuration: bool = False
    watched_files_registration: bool = False

    @classmethod
    def of(cls, caps: types.ClientCapabilities, position_encoding: str) -> ClientProfile:
        def has(path: str) -> bool:
            return bool(get_capability(caps, path, False))

        hover_formats = get_capability(caps, "text_document.hover.content_format", None)
        documentation = get_capability(caps, "text_document.completion.completion_item.documentation_format", None)
        return cls(
            position_encoding=position_encoding,
            pull_diagnostics=get_capability(caps, "text_document.diagnostic", None) is not None,
            diagnostics_refresh=has("workspace.diagnostics.refresh_support"),
            push_related_information=has("text_document.publish_diagnostics.related_information"),
            push_data=has("text_document.publish_diagnostics.data_support"),
            pull_related_information=bool(get_capability(caps, "text_document.diagnostic.related_information", True)),
            semantic_tokens=get_capability(caps, "text_document.semantic_tokens", None) is not None,
            semantic_tokens_refresh=has("workspace.semantic_tokens.refresh_support"),
            code_lens_refresh=has("workspace.code_lens.refresh_support"),
            hierarchical_symbols=has("text_document.document_symbol.hierarchical_document_symbol_support"),
            folding_collapsed_text=has("text_document.folding_range.folding_range.collapsed_text"),
            folding_range_limit=get_capability(caps, "text_document.folding_range.range_limit", None),
            link_tooltips=has("text_document.document_link.tooltip_support"),
            definition_links=has("text_document.definition.link_support"),
            hover_markdown=not hover_formats or types.MarkupKind.Markdown in hover_formats,
            completion_snippets=has("text_document.completion.completion_item.snippet_support"),
            completion_markdown=types.MarkupKind.Markdown in (documentation or []),
            document_changes=has("workspace.workspace_edit.document_changes"),
            change_annotations=get_capability(caps, "workspace.workspace_edit.change_annotation_support", None)
            is not None,
            resource_operations=tuple(
                str(getattr(op, "value", op))
                for op in get_capability(caps, "workspace.workspace_edit.resource_operations", None) or ()
            ),
            work_done_progress=has("window.work_done_progress"),
            show_document=has("window.show_document.support"),
            configuration=has("workspace.configuration"),
            watched_files_registration=has("workspace.did_change_watched_files.dynamic_registration"),
        )
