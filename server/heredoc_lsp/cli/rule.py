"""``heredoc-lsp rule CODE`` / ``rule --all``: what a diagnostic code means, why, an example and the fix, from
the rules registry (:mod:`heredoc_lsp.rules`); ``--output-format markdown`` with ``--all`` is docs/rules.md."""

from __future__ import annotations

import argparse
import json
import sys

from heredoc_lsp.cli.names import did_you_mean
from heredoc_lsp.cli.output import error_exit
from heredoc_lsp.cli.sources import write_stdout
from heredoc_lsp.rules import RULES, rule_text, rules_markdown

DESCRIPTION = "Explain a diagnostic code: what it means, why, an example, and the fix."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("code", nargs="?", metavar="CODE", help="the code, as shown in brackets by check")
    p.add_argument("--all", action="store_true", help="every code")
    p.add_argument(
        "--output-format", "--format", choices=("text", "json", "markdown"), default="text", help="output format"
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.all == (args.code is not None):
        return error_exit("give one CODE or --all", "heredoc-lsp rule")
    if args.code is not None and args.code not in RULES:
        hint = did_you_mean(args.code, list(RULES))
        return error_exit(f"unknown code '{args.code}'{hint}; 'heredoc-lsp rule --all' lists them", "heredoc-lsp rule")
    rules = list(RULES.values()) if args.all else [RULES[args.code]]
    if args.output_format == "json":
        fields = ("code", "severity", "formats", "summary", "explanation", "example", "fix", "fix_safety")
        data = [{f: getattr(r, f) for f in fields} for r in rules]
        write_stdout(json.dumps(data if args.all else data[0], ensure_ascii=False, indent=2) + "\n")
    elif args.output_format == "markdown":
        if not args.all:
            sys.stderr.write("heredoc-lsp rule: --output-format markdown writes the whole page: use --all\n")
            return 2
        write_stdout(rules_markdown())
    else:
        write_stdout("\n".join(rule_text(r) for r in rules))
    return 0
