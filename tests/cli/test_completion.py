"""``heredoc-lsp completion bash|zsh|fish`` and ``heredoc-lsp manpage``, driven as real processes and judged by
the real shells and ``man``. What each command must offer is read from the parser's own ``--help`` output (its
options and its subcommands), so an option added to any parser is checked here without editing this file."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
from pathlib import Path

import pytest
from tests.cli.conftest import run_cli

from heredoc_lsp.cli.main import SUBCOMMANDS, build_parser


def parser_help(words: tuple[str, ...]) -> str:
    """argparse's ``--help`` of ``heredoc-lsp WORDS``, from the parser itself (``guard --help`` on the command line
    is answered by its fast path before argparse)."""
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        patch.setenv("COLUMNS", "250")
        build_parser(words[0]).parse_args([*words, "--help"])
    return out.getvalue()


def help_flags(text: str) -> set[str]:
    """The option strings an argparse ``--help`` lists (its ``  -x, --long VALUE   help`` lines)."""
    flags: set[str] = set()
    for line in text.splitlines():
        if line.startswith("  -"):
            invocation = re.split(r" {2,}", line.strip(), maxsplit=1)[0]
            flags.update(re.findall(r"(?:^|, )(-{1,2}[A-Za-z][\w-]*)", invocation))
    return flags


def help_subcommands(text: str) -> list[str]:
    """The subcommands an argparse ``--help`` lists under its positional arguments (indented by four)."""
    section = text.partition("positional arguments:")[2].partition("\n\n")[0]
    return re.findall(r"^    ([a-z][\w-]*)(?: {2,}|$)", section, re.MULTILINE)


def commands() -> list[tuple[tuple[str, ...], str]]:
    """Every command path under ``heredoc-lsp`` (``("agent", "watch")``...) with its ``--help`` text."""
    found: list[tuple[tuple[str, ...], str]] = []
    todo = [(name,) for name in SUBCOMMANDS]
    while todo:
        words = todo.pop(0)
        text = parser_help(words)
        found.append((words, text))
        todo += [(*words, sub) for sub in help_subcommands(text)]
    return found


@pytest.fixture(scope="module")
def tree() -> list[tuple[tuple[str, ...], str]]:
    found = commands()
    assert ("agent", "watch") in [words for words, _ in found]  # the oracle sees nested subcommands
    return found


@pytest.fixture(scope="module")
def scripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("completion")
    out: dict[str, Path] = {}
    for shell in ("bash", "zsh", "fish"):
        done = run_cli("completion", shell)
        assert done.returncode == 0, done.stderr
        out[shell] = folder / f"heredoc-lsp.{shell}"
        out[shell].write_text(done.stdout, encoding="utf-8")
    page = run_cli("manpage")
    assert page.returncode == 0, page.stderr
    out["man"] = folder / "heredoc-lsp.1"
    out["man"].write_text(page.stdout, encoding="utf-8")
    return out


def bash_complete(script: Path, *words: str) -> list[str]:
    """What real bash's completion function offers for ``heredoc-lsp WORDS`` (the last word being completed)."""
    program = (
        'source "$1" || exit 9\ncomplete -p heredoc-lsp >/dev/null || exit 8\n'
        'shift\nCOMP_WORDS=(heredoc-lsp "$@"); COMP_CWORD=$#\n'
        'COMPREPLY=(); "$(complete -p heredoc-lsp | sed -E "s/.* -F ([^ ]+) .*/\\1/")"\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "-c", program, "bash", str(script), *words], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


def test_bash_completes_subcommands_options_and_values(scripts: dict[str, Path]) -> None:
    bash = scripts["bash"]
    assert bash_complete(bash, "ch") == ["check"]
    assert set(bash_complete(bash, "")) == set(SUBCOMMANDS)
    assert bash_complete(bash, "check", "--sta") == ["--statistics"]
    assert bash_complete(bash, "check", "--format", "js") == ["json"]
    assert bash_complete(bash, "check", "--format", "=", "js") == ["json"]  # bash splits --format=js at "="
    assert bash_complete(bash, "agent", "w") == ["watch"]
    assert bash_complete(bash, "agent", "watch", "--on") == ["--once"]
    assert sorted(bash_complete(bash, "completion", "")) == ["bash", "fish", "zsh"]
    # An option's value is skipped when finding the subcommand: '--config check' names a file, not 'check'.
    assert bash_complete(bash, "run", "--config", "check", "--sta") == []


def test_bash_offers_every_option_of_every_command(
    scripts: dict[str, Path], tree: list[tuple[tuple[str, ...], str]]
) -> None:
    for words, text in tree:
        offered = set(bash_complete(scripts["bash"], *words, "-"))
        assert offered == help_flags(text), words


def test_zsh_and_fish_scripts_parse(scripts: dict[str, Path]) -> None:
    for shell in ("zsh", "fish"):
        done = subprocess.run([shell, "-n", str(scripts[shell])], capture_output=True, text=True, timeout=30)
        assert (done.returncode, done.stderr) == (0, ""), shell


# Types a line and a Tab into an interactive zsh (zpty) with the script loaded; compadd is wrapped to write every
# candidate to a file, and the completion function to write --end-- when it is done.
ZSH_CAPTURE = r"""
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1=''; autoload -U compinit; compinit -u -D; source ${(q)1}"
zpty -w z "compadd() { local -a h; builtin compadd -O h \"\$@\"; print -rl -- \$h >> ${(q)3}; builtin compadd \"\$@\" }"
zpty -w z "_wrapped() { _heredoc_lsp \"\$@\"; print -r -- --end-- >> ${(q)3} }; compdef _wrapped heredoc-lsp"
zpty -n -w z "$2"$'\t'
for i in {1..600}; do
  [[ -f $3 ]] && grep -q -- '^--end--$' $3 && break
  sleep 0.1
done
zpty -d z
"""


def zsh_complete(script: Path, line: str) -> list[str]:
    """What real zsh's completion system offers for ``line`` (the last word being completed)."""
    hits = script.parent / "zsh-hits"
    hits.unlink(missing_ok=True)
    done = subprocess.run(
        ["zsh", "-f", "-c", ZSH_CAPTURE, "zsh", str(script), line, str(hits)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(script.parent)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = hits.read_text(encoding="utf-8").splitlines()
    assert found[-1] == "--end--", found
    return sorted({hit for hit in found[:-1] if hit})


def test_zsh_completes_subcommands_options_and_values(scripts: dict[str, Path]) -> None:
    zsh = scripts["zsh"]
    assert zsh_complete(zsh, "heredoc-lsp ch") == ["check"]
    assert zsh_complete(zsh, "heredoc-lsp check --stat") == ["--statistics"]
    assert zsh_complete(zsh, "heredoc-lsp check --format j") == ["json", "junit"]
    assert zsh_complete(zsh, "heredoc-lsp check --format=j") == ["json", "junit"]
    assert zsh_complete(zsh, "heredoc-lsp agent ") == ["new", "watch"]
    assert zsh_complete(zsh, "heredoc-lsp agent watch --on") == ["--once"]
    assert zsh_complete(zsh, "heredoc-lsp completion ") == ["bash", "fish", "zsh"]


def test_zsh_offers_every_option_of_every_command(
    scripts: dict[str, Path], tree: list[tuple[tuple[str, ...], str]]
) -> None:
    for words, text in tree:
        assert set(zsh_complete(scripts["zsh"], " ".join(["heredoc-lsp", *words, "-"]))) == help_flags(text), words


def test_zsh_registers_the_completion_function(scripts: dict[str, Path]) -> None:
    program = 'autoload -U compinit; compinit -u -D; source "$1"; print -r -- ${_comps[heredoc-lsp]}'
    done = subprocess.run(
        ["zsh", "-f", "-c", program, "zsh", str(scripts["zsh"])],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "HOME": str(scripts["zsh"].parent)},
    )
    assert (done.returncode, done.stdout.strip()) == (0, "_heredoc_lsp"), done.stderr


def fish_complete(script: Path, line: str) -> list[str]:
    done = subprocess.run(
        ["fish", "--no-config", "-c", f"source {script}; complete -C {line!r}"],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "HOME": str(script.parent)},
    )
    assert done.returncode == 0, done.stderr
    return [entry.split("\t")[0] for entry in done.stdout.splitlines()]


def test_fish_completes_subcommands_options_and_values(scripts: dict[str, Path]) -> None:
    fish = scripts["fish"]
    assert fish_complete(fish, "heredoc-lsp ch") == ["check"]
    assert fish_complete(fish, "heredoc-lsp check --stat") == ["--statistics"]
    assert fish_complete(fish, "heredoc-lsp check --format js") == ["json"]
    assert fish_complete(fish, "heredoc-lsp agent ") == ["new", "watch"]
    assert fish_complete(fish, "heredoc-lsp agent watch --on") == ["--once"]


def test_fish_offers_every_option_of_every_command(
    scripts: dict[str, Path], tree: list[tuple[tuple[str, ...], str]]
) -> None:
    for words, text in tree:
        assert set(fish_complete(scripts["fish"], " ".join(["heredoc-lsp", *words, "-"]))) == help_flags(text), words


def rendered_sections(page: Path) -> dict[str, str]:
    """``man -l`` of the page as plain text, cut at its subsection headings (three spaces in)."""
    done = subprocess.run(
        ["man", "-l", str(page)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "250", "MAN_KEEP_FORMATTING": ""},
    )
    assert done.returncode == 0, done.stderr
    assert "HEREDOC-LSP(1)" in done.stdout
    sections: dict[str, str] = {}
    name = ""
    for line in done.stdout.splitlines():
        if re.fullmatch(r"   \S.*", line) or re.fullmatch(r"[A-Z][A-Z ]+", line):
            name = line.strip()
        sections[name] = sections.get(name, "") + line + "\n"
    return sections


def test_the_man_page_renders_every_command_and_option(
    scripts: dict[str, Path], tree: list[tuple[tuple[str, ...], str]]
) -> None:
    sections = rendered_sections(scripts["man"])
    for name in SUBCOMMANDS:
        assert re.search(rf"^       {re.escape(name)}\b", sections["COMMANDS"], re.MULTILINE), name
    for words, text in tree:
        section = sections.get(" ".join(words))
        assert section is not None, words
        for flag in help_flags(text):
            assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", section), (words, flag)
