"""No cycle collection between an edit and its push (lsp/diagnostics.py ``flush``, docs/decisions.md), and the
collector is on again after every push, whatever the push raised."""

from __future__ import annotations

import gc

import pytest

from heredoc_lsp.lsp.diagnostics import DiagnosticsFeature
from heredoc_lsp.lsp.server import build_server


def _diagnostics() -> DiagnosticsFeature:
    server = build_server()
    return next(f for f in server.features if isinstance(f, DiagnosticsFeature))


def test_a_push_runs_without_collections_and_the_collector_is_on_after(monkeypatch: pytest.MonkeyPatch) -> None:
    feature = _diagnostics()
    seen: list[tuple[str, bool]] = []

    def publish(key: str, uri: str) -> None:
        seen.append((uri, gc.isenabled()))
        if uri.endswith("b.cli"):
            raise RuntimeError("a bug in one push")

    monkeypatch.setattr(feature, "_publish", publish)
    assert gc.isenabled()
    for name in ("a.cli", "b.cli", "c.cli"):
        feature.schedule(f"file:///{name}")
    feature.flush()
    assert seen == [("file:///a.cli", False), ("file:///b.cli", False), ("file:///c.cli", False)]
    assert gc.isenabled()


def test_an_exception_out_of_a_flush_leaves_the_collector_on(monkeypatch: pytest.MonkeyPatch) -> None:
    feature = _diagnostics()

    def publish(key: str, uri: str) -> None:
        raise RuntimeError("a bug in one push")

    def log_to_client(message: str) -> None:
        raise KeyboardInterrupt  # escapes the flush

    monkeypatch.setattr(feature, "_publish", publish)
    monkeypatch.setattr(feature.server, "log_to_client", log_to_client)
    feature.schedule("file:///a.cli")
    try:
        with pytest.raises(KeyboardInterrupt):
            feature.flush()
        assert gc.isenabled()
    finally:
        gc.enable()


def test_a_flush_with_the_collector_off_leaves_it_off() -> None:
    feature = _diagnostics()
    gc.disable()
    try:
        feature.schedule("file:///a.cli")
        feature.flush()
        assert not gc.isenabled()
    finally:
        gc.enable()
