"""Run by tests/lsp/test_lsp_warm_up.py in a fresh process: start the server in this process (lsp_raw.in_process),
open one document and print, as JSON, what its first check did after the warm-up: the lazy regular expressions it
compiled (heredoc_lsp.syntax.lazy_re), the heredoc_lsp modules it imported, and the bodies it checked.

Usage: python warm_up_probe.py WORKSPACE_DIR DOCUMENT_FILE
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from lsp_raw import in_process, notification

import heredoc_lsp.lsp.server as server_module
from heredoc_lsp.analysis.bodies import STATS
from heredoc_lsp.syntax import lazy_re

seen: dict[str, Any] = {"warmed": False, "compiled": [], "modules": set(), "checked": 0}


def _ours() -> set[str]:
    return {name for name in sys.modules if name.startswith("heredoc_lsp")}


original_getattr = lazy_re._LazyPattern.__getattr__
original_warm_up = server_module.warm_up


def counting_getattr(self: Any, name: str) -> Any:
    if seen["warmed"]:
        seen["compiled"].append(repr(self))
    return original_getattr(self, name)


def recording_warm_up(server: Any) -> None:
    original_warm_up(server)
    seen["warmed"] = True
    seen["modules"] = _ours()
    seen["checked"] = STATS["checked"]


lazy_re._LazyPattern.__getattr__ = counting_getattr  # type: ignore[method-assign]
server_module.warm_up = recording_warm_up


async def main(root: Path, document: Path) -> None:
    async with in_process(root) as peer:
        uri = document.as_uri()
        item = {"uri": uri, "languageId": "cli-script", "version": 1, "text": document.read_text(encoding="utf-8")}
        peer.send(notification("textDocument/didOpen", {"textDocument": item}))
        await peer.published_version(uri, 1)
    print(
        json.dumps(
            {
                "warmed": seen["warmed"],
                "compiled": seen["compiled"],
                "imported": sorted(_ours() - seen["modules"]),
                "checked": STATS["checked"] - seen["checked"],
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
