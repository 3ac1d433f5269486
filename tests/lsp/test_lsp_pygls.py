"""The pygls internals the server relies on exist in the installed pygls, and only lsp/protocol.py uses them."""

from __future__ import annotations

import ast
import inspect
from importlib.metadata import version
from pathlib import Path

from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol
from pygls.workspace import Workspace

import heredoc_lsp
from heredoc_lsp.lsp import protocol
from heredoc_lsp.lsp.server import build_server

PACKAGE = Path(heredoc_lsp.__file__).parent


def test_the_installed_pygls_is_the_one_checked() -> None:
    assert version("pygls") == protocol.PYGLS_CHECKED


def test_the_internals_exist() -> None:
    assert list(inspect.signature(JsonRPCProtocol._send_response).parameters) == ["self", "msg_id", "result", "error"]
    server = build_server()
    assert isinstance(server.protocol._result_types, dict)
    assert protocol.converter_of(server.protocol) is server.protocol._converter
    assert isinstance(Workspace(None)._text_documents, dict)
    assert isinstance(server, LanguageServer)
    assert isinstance(server.protocol._request_futures, dict)


def test_no_other_module_uses_them() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path == Path(protocol.__file__):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in protocol.PYGLS_INTERNALS:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .{node.attr}")
            # getattr(obj, "_name") is a use too
            if isinstance(node, ast.Constant) and node.value in protocol.PYGLS_INTERNALS:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.value!r}")
    assert offenders == []
