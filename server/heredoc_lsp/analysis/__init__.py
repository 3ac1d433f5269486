"""From document text to final diagnostics, for ``check``, ``parse`` and the language server.

Public API:

- :func:`analyze` (text), :func:`analyze_lines` (split lines), :func:`analyze_bytes` (file bytes)
  -> :class:`Analysis` (tree + final diagnostics);
- :func:`document_workspace` — the workspace a document belongs to (:func:`default_workspace`: an inbox reply
  outside an editor);
- :func:`decode_document` — bytes -> text, BOM flag and the ``invalid_encoding`` warning;
- :func:`workspace_diagnostics` — the file-system checks of an inbox reply;
- suppressions: :func:`parse_directive`, :meth:`Analysis.suppression_edit` (quick fix), :class:`TextEdit`;
- :func:`config_diagnostics` — a config file's problems as ``config_error`` diagnostics (for the server).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from heredoc_lsp.analysis.config_file import config_diagnostics
    from heredoc_lsp.analysis.core import (
        Analysis,
        analyze,
        analyze_bytes,
        analyze_lines,
        default_workspace,
        document_workspace,
    )
    from heredoc_lsp.analysis.decode import DecodedDocument, decode_document
    from heredoc_lsp.analysis.suppress import DIRECTIVE_PREFIX, TextEdit, parse_directive
    from heredoc_lsp.analysis.workspace import workspace_diagnostics

# Names are loaded on first use, so that importing one submodule (``check`` imports only ``core``) stays cheap.
_WHERE: dict[str, str] = {
    "config_diagnostics": "config_file",
    "Analysis": "core",
    "analyze": "core",
    "analyze_bytes": "core",
    "analyze_lines": "core",
    "default_workspace": "core",
    "document_workspace": "core",
    "DecodedDocument": "decode",
    "decode_document": "decode",
    "DIRECTIVE_PREFIX": "suppress",
    "TextEdit": "suppress",
    "parse_directive": "suppress",
    "workspace_diagnostics": "workspace",
}

__all__ = [
    "DIRECTIVE_PREFIX",
    "Analysis",
    "DecodedDocument",
    "TextEdit",
    "analyze",
    "analyze_bytes",
    "analyze_lines",
    "config_diagnostics",
    "decode_document",
    "default_workspace",
    "document_workspace",
    "parse_directive",
    "workspace_diagnostics",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'heredoc_lsp.analysis' has no attribute {name!r}")
    import importlib  # deferred: check start-up: importing the package (done by every submodule import) stays cheap

    return getattr(importlib.import_module(f"heredoc_lsp.analysis.{module}"), name)
