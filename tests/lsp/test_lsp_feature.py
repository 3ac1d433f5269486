"""The feature contract: lifecycle and contributions are called over ``server.features`` in order, and one
failing feature never stops the others."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from heredoc_lsp.lsp.client import ClientProfile
from heredoc_lsp.lsp.feature import Feature, HoverPart
from heredoc_lsp.lsp.server import build_server


class Broken(Feature):
    def closed(self, uri: str) -> None:
        raise RuntimeError("a broken feature")

    def hover(self, snap: Any, position: types.Position) -> str | HoverPart | None:
        raise RuntimeError("a broken feature")


class Recording(Feature):
    def __init__(self, server: Any) -> None:
        super().__init__(server)
        self.seen: list[str] = []

    def closed(self, uri: str) -> None:
        self.seen.append(uri)

    def hover(self, snap: Any, position: types.Position) -> str | HoverPart | None:
        return "part"


def test_one_failing_feature_never_stops_the_others() -> None:
    server = build_server()
    recording = Recording(server)
    server.features = (Broken(server), recording)
    server.each(lambda f: f.closed("file:///a.cli"), "closed")
    assert recording.seen == ["file:///a.cli"]
    assert server.each(lambda f: f.hover(None, types.Position(0, 0)), "hover") == ["part"]


def test_a_plain_feature_contributes_nothing() -> None:
    feature = Feature(build_server())
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri="file:///a.cli"),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[]),
    )
    snap: Any = None
    assert (feature.diagnostics(snap), feature.code_actions(params, snap), feature.code_action_kinds()) == ((), (), ())
    assert (feature.hover(snap, types.Position(0, 0)), feature.code_lenses(snap)) == (None, None)
    assert feature.file_diagnostics("file:///heredoc-lsp.toml") is None


def test_client_profile_is_read_once_from_the_capabilities() -> None:
    caps = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            diagnostic=types.DiagnosticClientCapabilities(),
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.PlainText]),
            document_symbol=types.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
        ),
        window=types.WindowClientCapabilities(work_done_progress=True),
    )
    profile = ClientProfile.of(caps, "utf-8")
    assert profile.pull_diagnostics and profile.hierarchical_symbols and profile.work_done_progress
    assert not profile.hover_markdown and not profile.code_lens_refresh and not profile.document_changes
    assert profile.position_encoding == "utf-8"
    assert ClientProfile.of(types.ClientCapabilities(), "utf-16") == ClientProfile()
