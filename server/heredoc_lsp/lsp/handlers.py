"""Request and notification handlers that fail soft: an exception is logged (stderr and ``window/logMessage``)
and the handler's default answer returned, so one broken feature never takes the server down."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from heredoc_lsp.lsp.feature import Server

log = logging.getLogger("heredoc_lsp.lsp")

F = TypeVar("F", bound=Callable[..., Any])


def guarded(server: Server, default: Any = None) -> Callable[[F], F]:
    """Wrap a handler: an exception is logged (stderr and window/logMessage) and ``default`` returned."""

    def decorate(fn: F) -> F:
        name = getattr(fn, "__qualname__", repr(fn))

        def report() -> None:
            log.exception("error in handler %s", name)
            server.log_to_client(f"heredoc-lsp: internal error in {name}; see the server log")

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(*args, **kwargs)
                except Exception:
                    report()
                    return default

            return cast(F, async_wrapper)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception:
                report()
                return default

        return cast(F, wrapper)

    return decorate
