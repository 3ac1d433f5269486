"""Quick-fix edits, computed in code points from an analysis (pure: no LSP types, no I/O).

:func:`fixes_for` returns the :class:`Fix` es that resolve one diagnostic of an
:class:`~heredoc_lsp.analysis.core.Analysis`. The language server turns them into code actions; the command line
could apply them as they are. Edits are :class:`~heredoc_lsp.analysis.suppress.TextEdit` (a span in 0-based lines
and code-point columns, and the replacement text); the edits of one fix never overlap.
"""

from __future__ import annotations

from heredoc_lsp.fixes.model import Fix, FixContext, Source
from heredoc_lsp.fixes.registry import fixes_for

__all__ = ["Fix", "FixContext", "Source", "fixes_for"]
