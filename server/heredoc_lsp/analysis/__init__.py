"""From document text to final diagnostics, for ``check``, ``parse`` and the language server.

- ``core.py``: :func:`analyze` (text), :func:`analyze_lines` (split lines), :func:`analyze_bytes` (file bytes)
  -> :class:`Analysis` (tree + final diagnostics); :func:`document_workspace`, the workspace a document belongs to
  (:func:`default_workspace`: an inbox reply outside an editor);
- ``incremental.py``: :func:`analyze_edit`, the same after an edit, re-parsing from the nearest safe line;
- ``decode.py``: :func:`decode_document` — bytes -> text, BOM flag and the ``invalid_encoding`` warning;
- ``workspace.py``: :func:`workspace_diagnostics` — the file-system checks of an inbox reply;
- ``suppress.py``: :func:`parse_directive`, :meth:`Analysis.suppression_edit` (quick fix), :class:`TextEdit`;
- ``config_file.py``: :func:`config_diagnostics` — a config file's problems as ``config_error`` diagnostics.
"""
