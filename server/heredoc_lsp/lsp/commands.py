"""The ``workspace/executeCommand`` ids the run feature answers (:mod:`heredoc_lsp.lsp.run.commands` documents
them); lenses and code actions carry them."""

from __future__ import annotations

RUN_COMMAND = "heredoc-lsp.runCommand"
RUN_SCRIPT = "heredoc-lsp.runScript"
APPLY_REPLY = "heredoc-lsp.applyReply"
RUN_BLOCK = "heredoc-lsp.runBlock"
CANCEL_RUN = "heredoc-lsp.cancelRun"
SHOW_RUN_OUTPUT = "heredoc-lsp.showRunOutput"
UNDO_REPLY = "heredoc-lsp.undoReply"
# The agent loop in the editor (lsp/run/agent.py).
NEW_SESSION = "heredoc-lsp.newSession"
OUTBOX_TEXT = "heredoc-lsp.outboxText"
PASTE_REPLY = "heredoc-lsp.pasteReply"
PREVIEW_REPLY = "heredoc-lsp.previewReply"
AGENT_COMMANDS: tuple[str, ...] = (NEW_SESSION, OUTBOX_TEXT, PASTE_REPLY, PREVIEW_REPLY)
ALL_COMMANDS: tuple[str, ...] = (
    RUN_COMMAND,
    RUN_SCRIPT,
    APPLY_REPLY,
    RUN_BLOCK,
    CANCEL_RUN,
    SHOW_RUN_OUTPUT,
    UNDO_REPLY,
    *AGENT_COMMANDS,
)
