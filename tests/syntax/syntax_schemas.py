"""The command schemas the syntax tests parse with: a multi-parameter, a single-parameter and a text command."""

from __future__ import annotations

from heredoc_lsp.syntax.schema import CommandSchema

TASK = CommandSchema(
    "chatroom task-started",
    "multi",
    params=("TITLE", "DESCRIPTION", "TECH_SPECS"),
    required=("TITLE", "DESCRIPTION"),
    terminator="PARAMS_END",
)
HANDOFF = CommandSchema("chatroom handoff", "single", single_param="MESSAGE", terminator="CHATROOM_HANDOFF_END")
TOOL = CommandSchema("tool run", "text", terminator="TOOL_END")
