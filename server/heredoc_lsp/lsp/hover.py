"""``textDocument/hover``: Markdown assembled from a list of providers.

pygls allows one hover handler, so features contribute through ``server.hover_providers`` (set by
:func:`register`; hover is registered before the run features). Each provider is called as
``provider(snapshot, position)`` with the analysis snapshot and the hovered ``lsprotocol`` position (in the client's
encoding; convert it with :func:`heredoc_lsp.lsp.positions.from_client` when columns matter). It returns None
(nothing to say), a Markdown string, or a :class:`HoverPart` (Markdown plus the code-point span it is about). The
parts of all providers are joined in list order, separated by a horizontal rule; the hover's range is the span of
the first part that has one.

The first provider explains heredoc openers and terminators, parameter delimiters, configured commands, inbox tags
and attributes and outbox sections (:func:`navigation_hover`, texts from :mod:`heredoc_lsp.navigation.describe`).
Another feature adds its part from its own ``register(server)``, e.g. the last output of a command::

    from heredoc_lsp.lsp.hover import add_provider
    add_provider(server, lambda snap, position: last_output_markdown(snap, position))
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.capabilities import get_capability

from heredoc_lsp.lsp.handlers import guarded
from heredoc_lsp.lsp.positions import from_client, span_to_range
from heredoc_lsp.navigation.describe import describe
from heredoc_lsp.navigation.locate import target_at
from heredoc_lsp.syntax.diagnostics import Span

if TYPE_CHECKING:
    from heredoc_lsp.lsp.analysis import Snapshot
    from heredoc_lsp.lsp.server import HeredocLanguageServer


log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class HoverPart:
    markdown: str
    span: Span | None = None


HoverProvider = Callable[["Snapshot", types.Position], "str | HoverPart | None"]


def navigation_hover(server: HeredocLanguageServer, snap: Snapshot, position: types.Position) -> HoverPart | None:
    """What the thing under the cursor is and means (heredocs, delimiters, schemas, tags, attributes, sections)."""
    point = from_client(server.position_codec, snap.lines, position)
    target = target_at(snap.language, snap.lines, snap.tree, point)
    if target is None:
        return None
    text = describe(target, snap.lines, snap.config.commands, snap.analysis.workspace, snap.config.source)
    if text is None:
        return None
    span = getattr(target, "span", None)
    return HoverPart(text, span if isinstance(span, Span) else None)


def providers_of(server: HeredocLanguageServer) -> list[HoverProvider]:
    """``server.hover_providers`` (created empty when hover is not registered yet)."""
    providers = getattr(server, "hover_providers", None)
    if not isinstance(providers, list):
        providers = []
        setattr(server, "hover_providers", providers)  # noqa: B010 - an attribute other features look up by name
    return providers


def add_provider(server: HeredocLanguageServer, provider: HoverProvider, *, first: bool = False) -> None:
    """Add ``provider`` to the server's hover (once): at the end, or at the start with ``first=True``."""
    providers = providers_of(server)
    if provider in providers:
        return
    if first:
        providers.insert(0, provider)
    else:
        providers.append(provider)


def collect(server: HeredocLanguageServer, snap: Snapshot, position: types.Position) -> tuple[str, Span | None] | None:
    """The joined Markdown of every provider and the span of the first part that has one."""
    texts: list[str] = []
    span: Span | None = None
    for provider in list(providers_of(server)):
        try:
            part = provider(snap, position)
        except Exception:  # one broken provider must not hide the others
            log.exception("hover provider %s failed", getattr(provider, "__qualname__", provider))
            continue
        if part is None:
            continue
        if isinstance(part, HoverPart):
            if span is None:
                span = part.span
            part = part.markdown
        if part.strip():
            texts.append(part)
    if not texts:
        return None
    return "\n\n---\n\n".join(texts), span


def register(server: HeredocLanguageServer) -> None:

    add_provider(server, lambda snap, position: navigation_hover(server, snap, position), first=True)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded(server)
    def hover(params: types.HoverParams) -> types.Hover | None:
        snap = server.analyses.get(params.text_document.uri)
        if snap is None:
            return None
        codec = server.position_codec
        found = collect(server, snap, params.position)
        if found is None:
            return None
        text, span = found
        formats = get_capability(server.client_capabilities, "text_document.hover.content_format", None)
        kind = types.MarkupKind.Markdown
        if formats and types.MarkupKind.Markdown not in formats:
            kind = types.MarkupKind.PlainText
        return types.Hover(
            contents=types.MarkupContent(kind=kind, value=text),
            range=span_to_range(codec, snap.lines, span) if span is not None else None,
        )
