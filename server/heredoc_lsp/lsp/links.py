"""Document links and go-to-definition.

- ``textDocument/documentLink``: every inbox ``path="…"`` value that docs/formats.md accepts and whose real location
  stays inside the workspace links to that file (a file not created yet still gets its link, the tooltip says so).
  Refused paths get none.
- ``textDocument/definition``: on a ``path="…"`` value, the file (existing files only); on a heredoc terminator, the
  opener's marker and back; on an inbox closer ``[/NAME]``, its opener and back. ``LocationLink`` (with the origin
  span) for clients that support it, else ``Location``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from heredoc_lsp.languages import Language
from heredoc_lsp.lsp.feature import Feature
from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.positions import from_client, span_to_range
from heredoc_lsp.navigation.locate import AttrTarget, MarkerTarget, TagTarget, target_at
from heredoc_lsp.navigation.workspace_paths import resolve
from heredoc_lsp.syntax.diagnostics import Span
from heredoc_lsp.syntax.inbox import PATH_COMMANDS, InboxReply

if TYPE_CHECKING:
    from pathlib import Path

    from pygls.workspace import PositionCodec


Definition = list[types.Location] | list[types.LocationLink]


def path_links(reply: InboxReply, workspace: Path | None) -> list[tuple[Span, Path, bool]]:
    """(value span, target, exists) for every accepted, non-empty path attribute."""
    out: list[tuple[Span, Path, bool]] = []
    for c in reply.commands:
        if c.name not in PATH_COMMANDS:
            continue
        attr = c.attr("path")
        if attr is None or not attr.value or attr.value_span.end_col <= attr.value_span.start_col:
            continue
        r = resolve(workspace, attr.value)
        if r.location is not None and not r.is_dir:
            out.append((attr.value_span, r.location, r.exists))
    return out


def _answer(
    codec: PositionCodec,
    lines: Sequence[str],
    origin: Span,
    uri: str,
    target: Span,
    target_lines: Sequence[str] | None,
    links: bool,
) -> Definition:
    target_range = (
        span_to_range(codec, target_lines, target)
        if target_lines is not None
        else types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    )
    if links:
        return [
            types.LocationLink(
                target_uri=uri,
                target_range=target_range,
                target_selection_range=target_range,
                origin_selection_range=span_to_range(codec, lines, origin),
            )
        ]
    return [types.Location(uri=uri, range=target_range)]


def _other_end(target: MarkerTarget | TagTarget) -> tuple[Span, Span | None]:
    """(origin, the other end) of a heredoc marker or an inbox tag: a closer leads to its opener and back."""
    if isinstance(target, MarkerTarget):
        h = target.heredoc
        return (target.span, h.marker_span) if target.role == "terminator" else (h.marker_span, h.terminator_span)
    c = target.command
    return (target.span, c.tag_span) if target.role == "closer" else (c.name_span, c.close_span)


class LinksFeature(Feature):
    def register(self) -> None:
        server = self.server

        @server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DocumentLinkOptions(resolve_provider=False))
        @guarded(server)
        async def document_link(params: types.DocumentLinkParams) -> list[types.DocumentLink] | None:
            snap = await server.analyses.latest(params.text_document.uri)
            if snap is None or snap.language is not Language.INBOX or not isinstance(snap.tree, InboxReply):
                return None
            codec = server.position_codec
            tooltips = server.client.link_tooltips
            return [
                types.DocumentLink(
                    range=span_to_range(codec, snap.lines, span),
                    target=target.as_uri(),
                    tooltip=(f"Open {target}" if exists else f"{target} (does not exist yet)") if tooltips else None,
                )
                for span, target, exists in path_links(snap.tree, snap.analysis.workspace)
            ]

        @server.feature(types.TEXT_DOCUMENT_DEFINITION)
        @guarded(server)
        def definition(params: types.DefinitionParams) -> Definition | None:
            snap = server.analyses.get(params.text_document.uri)
            if snap is None:
                return None
            codec = server.position_codec
            lines = snap.lines
            point = from_client(codec, lines, params.position)
            target = target_at(snap.language, lines, snap.tree, point)
            links = server.client.definition_links
            if isinstance(target, (MarkerTarget, TagTarget)):
                origin, other = _other_end(target)
                return None if other is None else _answer(codec, lines, origin, snap.uri, other, lines, links)
            if isinstance(target, AttrTarget) and target.part == "value" and target.attr.name == "path":
                if target.command.name not in PATH_COMMANDS:
                    return None
                r = resolve(snap.analysis.workspace, target.attr.value)
                if r.location is None or not r.exists or r.is_dir:
                    return None
                return _answer(codec, lines, target.span, r.location.as_uri(), Span(0, 0, 0, 0), None, links)
            return None
