"""``heredoc-lsp lsp``: the language server on stdio (or ``--tcp HOST:PORT`` for debugging)."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import stat
import sys

LOG_LEVELS = ("debug", "info", "warning", "error")


DESCRIPTION = "Run the heredoc-lsp language server over stdio. Logs go to stderr, never stdout."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead (for debugging)")
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default=os.environ.get("HEREDOC_LSP_LOG", "warning").lower()
        if os.environ.get("HEREDOC_LSP_LOG", "").lower() in LOG_LEVELS
        else "warning",
        help="stderr log level (default: warning, or $HEREDOC_LSP_LOG)",
    )
    parser.set_defaults(handler=run)


def _parse_host_port(value: str) -> tuple[str, int] | None:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return (host or "127.0.0.1").strip("[]"), int(port)


def tune_gc() -> None:
    """Collect cycles less often in a long-lived server whose documents are many small acyclic objects.

    The modules, classes and functions loaded so far live as long as the process: ``gc.freeze`` takes them out
    of every later collection. A 100k-line parse allocates hundreds of thousands of objects, which would start a
    young collection every 700 allocations; reference counting frees them anyway, so collect every 20000.
    """
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def input_is_empty() -> bool:
    """Whether stdin can never hold a message: ``/dev/null`` or an empty regular file. The server would load
    (half a second) only to read the end of its input and end."""
    try:
        info = os.fstat(sys.stdin.fileno())
        if stat.S_ISREG(info.st_mode):
            return info.st_size == 0
        return stat.S_ISCHR(info.st_mode) and info.st_rdev == os.stat(os.devnull).st_rdev
    except (OSError, ValueError, AttributeError):  # no stdin at all, or not a file
        return False


def run(args: argparse.Namespace) -> int:
    address = None
    if args.tcp is not None:
        address = _parse_host_port(args.tcp)
        if address is None:
            sys.stderr.write(f"heredoc-lsp lsp: error: --tcp expects HOST:PORT, got {args.tcp!r}\n")
            return 2
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, args.log_level.upper()),
        format="heredoc-lsp %(levelname)s %(name)s: %(message)s",
    )
    # pygls logs every message body at INFO: keep it quiet unless debugging.
    if args.log_level != "debug":
        logging.getLogger("pygls").setLevel(logging.WARNING)
    if address is None and input_is_empty():
        logging.getLogger("heredoc_lsp").info("stdin is empty: nothing to serve")
        return 0

    # The server loads pygls and every feature (0.5 s): not on the path of `--help` and the other subcommands,
    # which import this module to build the argument parser (`heredoc-lsp --help`: 0.07 s instead of 0.61 s).
    from heredoc_lsp.lsp.server import ClientLogHandler, build_server  # deferred: check start-up

    server = build_server()
    logging.getLogger("heredoc_lsp").addHandler(ClientLogHandler(server))
    tune_gc()
    if address is not None:
        server.start_tcp(*address)
        return 0
    return server.start_io()
