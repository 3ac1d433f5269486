"""From document text to final diagnostics, for ``check``, ``parse`` and the language server.

Public API:

- :func:`analyze` (text) and :func:`analyze_bytes` (file bytes) -> :class:`Analysis` (tree + final diagnostics);
- :func:`default_workspace` — the workspace root of an inbox reply outside an editor;
- :func:`decode_document` — bytes -> text, BOM flag and the ``invalid_encoding`` warning;
- :func:`workspace_diagnostics` — the file-system checks of an inbox reply;
- suppressions: :func:`parse_directive`, :meth:`Analysis.suppression_edit` (quick fix), :class:`TextEdit`;
- :func:`config_diagnostics` — a config file's problems as ``config_error`` diagnostics (for the server).
"""

from __future__ import annotations

from heredoc_lsp.analysis.config_file import config_diagnostics
from heredoc_lsp.analysis.core import Analysis, analyze, analyze_bytes, default_workspace
from heredoc_lsp.analysis.decode import DecodedDocument, decode_document
from heredoc_lsp.analysis.suppress import DIRECTIVE_PREFIX, TextEdit, parse_directive
from heredoc_lsp.analysis.workspace import workspace_diagnostics

__all__ = [
    "DIRECTIVE_PREFIX",
    "Analysis",
    "DecodedDocument",
    "TextEdit",
    "analyze",
    "analyze_bytes",
    "config_diagnostics",
    "decode_document",
    "default_workspace",
    "parse_directive",
    "workspace_diagnostics",
]
