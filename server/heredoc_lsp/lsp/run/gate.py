"""Who may run what: workspace trust and the confirmation question (docs/running.md).

- **Trust.** ``initializationOptions.trusted`` or the setting ``heredocLsp.trusted`` (the setting wins when both are
  given) set to ``false`` marks the workspace untrusted (VS Code's Restricted Mode): no run lens or action is offered
  and every run command is refused. Anything else (absent, ``true``) is trusted.
- **Confirmation.** With ``executor.confirm = "always"`` (the default) a run asks through
  ``window/showMessageRequest``: *Run*, *Run and don't ask again for this file*, *Cancel*. The second answer is
  remembered for the document until the server stops. ``"never"`` runs without asking.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from heredoc_lsp.lsp.documents import DocumentStore

if TYPE_CHECKING:
    from heredoc_lsp.lsp.feature import Server

log = logging.getLogger(__name__)

TRUST_KEY = "trusted"
ANSWER_RUN = "Run"
ANSWER_ALWAYS = "Run and don't ask again for this file"
ANSWER_CANCEL = "Cancel"
UNTRUSTED_MESSAGE = (
    "heredoc-lsp: this workspace is not trusted, so nothing is run from the editor "
    "(trust the workspace, or set heredocLsp.trusted = true)"
)


def _trust_value(settings: Mapping[str, Any]) -> bool | None:
    value = settings.get(TRUST_KEY)
    if isinstance(value, bool):
        return value
    return None


class RunGate:
    """Trust and confirmation for runs started from the editor."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.dont_ask: set[str] = set()

    def trusted(self) -> bool:
        """False only when the client said so (initialization option or setting ``trusted: false``)."""
        settings = self.server.settings
        from_settings = _trust_value(settings.client_settings)
        if from_settings is not None:
            return from_settings
        from_init = _trust_value(settings.init_options)
        return True if from_init is None else from_init

    def forget(self, uri: str) -> None:
        self.dont_ask.discard(DocumentStore.key(uri))

    async def confirm(self, uri: str, confirm_mode: str, question: str) -> bool:
        """True when the run may go ahead (asking the user when the configuration says so)."""
        key = DocumentStore.key(uri)
        if confirm_mode == "never" or key in self.dont_ask:
            return True
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=question,
            actions=[
                types.MessageActionItem(title=ANSWER_RUN),
                types.MessageActionItem(title=ANSWER_ALWAYS),
                types.MessageActionItem(title=ANSWER_CANCEL),
            ],
        )
        try:
            # Shielded: cancelling a task that awaits a client request breaks pygls' response handling (#621).
            answer = await asyncio.shield(self.server.window_show_message_request_async(params))
        except Exception as exc:
            log.warning("window/showMessageRequest failed: %s", exc)
            return False
        title = answer.title if isinstance(answer, types.MessageActionItem) else None
        if title == ANSWER_ALWAYS:
            self.dont_ask.add(key)
            return True
        return title == ANSWER_RUN
