"""Regular expressions compiled on first use.

Compiling costs 0.1-0.6 ms per pattern, and most patterns of the parsers serve rare lines (quoted markers, invalid
markers, here-strings, structured bodies, CR line ends); ``heredoc-lsp check`` on a script without them should not
pay for them at start-up.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, AnyStr


class _LazyPattern:
    """Stands for ``re.compile(pattern, flags)``; compiles on the first attribute access and then keeps each
    attribute (bound methods included) in the instance, so later uses cost a plain attribute lookup."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self._source: tuple[Any, int] = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name == "_source":  # not set yet (copy/pickle build objects without __init__)
            raise AttributeError(name)
        value = getattr(re.compile(*self._source), name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"lazy_compile({self._source[0]!r}, {self._source[1]})"


def lazy_compile(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile`` deferred to the pattern's first use."""
    return _LazyPattern(pattern, flags)  # type: ignore[return-value]
