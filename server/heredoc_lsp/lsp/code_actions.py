"""Quick fixes (code actions of kind ``quickfix``) for the diagnostics of the current snapshot."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from heredoc_lsp.lsp.server import HeredocLanguageServer


def register(server: HeredocLanguageServer) -> None:
    del server
