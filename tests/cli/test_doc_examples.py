"""Every fenced example of README.md, docs/*.md and docs/neovim/README.md, checked by the real command: one test case
per block. A block is judged by what it is: a script or reply passes ``check`` or shows exactly the code its rule
page names, a config file loads without a problem, a terminal session (``$ `` lines) prints what the page shows,
commands run. A block that another test drives (an editor snippet, a CI file, a terminal session that needs an
agent session set up) must be named by that test. A new block that no case here recognises fails
``test_every_example_is_checked``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.cli.conftest import REPO
from tests.editors.editors_harness import NVIM_012, editor_env

from heredoc_lsp.cli.main import SUBCOMMANDS
from heredoc_lsp.syntax.toml_load import loads as toml_loads

TESTS = REPO / "tests"
DOCS = ("README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md")), "docs/neovim/README.md")
BIN = Path(sys.executable).parent  # the heredoc-lsp of this environment
FENCE = re.compile(r"^( *)```(\S*)\n(.*?)^\1```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Example:
    doc: str
    line: int  # 1-based line of the opening fence
    info: str  # the fence's language (sh, toml, ...) or ""
    marker: str  # an HTML comment on the line before the fence ("editors-test: nvim-0.11"), or ""
    heading: str  # the nearest "## " heading above
    lead: str  # the text between the previous block (or heading) and this one
    text: str

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def examples() -> list[Example]:
    found: list[Example] = []
    for doc in DOCS:
        text = (REPO / doc).read_text(encoding="utf-8")
        last = 0
        for m in FENCE.finditer(text):
            before = text[last : m.start()]
            heading = ["", *re.findall(r"^## (.*)$", text[: m.start()], re.MULTILINE)][-1]
            lead = before.rsplit("\n## ", 1)[-1]
            marker = re.findall(r"<!-- (.*?) -->\s*$", before)
            indent = len(m.group(1))
            body = "".join(line[indent:] for line in m.group(3).splitlines(keepends=True))
            found.append(
                Example(
                    doc,
                    text.count("\n", 0, m.start()) + 1,
                    m.group(2),
                    marker[0] if marker else "",
                    heading,
                    lead,
                    body,
                )
            )
            last = m.end()
    return found


EXAMPLES = examples()


def env(home: Path) -> dict[str, str]:
    """The environment of a documented command: this heredoc-lsp first on PATH, a private HOME and config folder."""
    dropped = ("NO_COLOR", "FORCE_COLOR", "XDG_CONFIG_HOME", "COLUMNS", "LINES")  # usage is wrapped at 80 columns
    base = {k: v for k, v in os.environ.items() if k not in dropped}
    return {**base, "PATH": f"{BIN}{os.pathsep}{base.get('PATH', '')}", "HOME": str(home)}


def sh(command: str, cwd: Path, home: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env(home),
        input=stdin or "",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def check_json(cwd: Path, *args: str) -> tuple[int, list[str]]:
    """``heredoc-lsp check --output-format json ARGS`` (HOME: ``cwd/home``): the exit code and the codes reported,
    in order."""
    (cwd / "home").mkdir(exist_ok=True)
    done = sh(" ".join(["heredoc-lsp check --output-format json --select ALL", *args]), cwd, cwd / "home")
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, [d["code"] for d in json.loads(done.stdout)["diagnostics"]]


# --- docs/rules.md: each rule's example shows its code ------------------------------------------------------------

PARAMS_CONFIG = (
    '[commands.t]\nparams = ["TITLE", "DESCRIPTION", "MESSAGE", "BODY"]\nrequired = ["TITLE"]\n'
    'terminator = "PARAMS_END"\n'
)
# What an example needs around it to show its code: a config (heredoc-lsp.toml).
RULE_CONFIG = {"compat_arca_cli": 'compat = "arca-cli"\n'}
DESCRIBED = {"invalid_encoding": b"echo \xff\xfe\n"}  # examples that describe bytes a page cannot show


def _rule_example(example: Example, tmp_path: Path) -> None:
    code = example.heading
    head = re.search(r"^\*(\w+)\* — ([\w, ]+)$", example.lead, re.MULTILINE)
    assert head is not None, example.id
    language = head.group(2).split(",")[0].strip()
    text = example.text
    (tmp_path / "home").mkdir()
    if code in ("config_error", "ignored_setting"):  # the example is a workspace heredoc-lsp.toml
        (tmp_path / "heredoc-lsp.toml").write_text(text, encoding="utf-8")
        (tmp_path / "a.cli").write_text("echo hi\n", encoding="utf-8")
        _, codes = check_json(tmp_path, ".")
        assert code in codes, (example.id, codes)
        return
    if code == "run_failed":  # shown by the editor after a run: the command fails when run
        (tmp_path / "a.cli").write_text(text, encoding="utf-8")
        done = sh("heredoc-lsp run a.cli --yes --sandbox none", tmp_path, tmp_path / "home")
        assert done.returncode == 1 and "[FAILED] line 1: false (exit 1" in done.stdout, done.stdout + done.stderr
        return
    if code == "file_too_large":
        with (tmp_path / "big.log").open("wb") as big:
            big.truncate(11 * 1024 * 1024)
    data = DESCRIBED.get(code)
    if data is None:
        assert not text.startswith("("), f"{example.id}: an example that only describes itself"
        text = re.sub(r"<U\+([0-9A-F]{4})>", lambda m: chr(int(m.group(1), 16)), text)
        text = re.sub(r" +\(the characters? itself.*$", "", text, flags=re.MULTILINE)
        data = text.encode("utf-8")
    if code == "ambiguous_section_marker":  # a line inside the CONTEXT section of a complete outbox
        outbox = (REPO / "examples" / "outbox" / "5f3a9c1e_seq0001.txt").read_bytes()
        data = outbox.replace(b"=== CONTEXT ===\n", data, 1)
    config = RULE_CONFIG.get(code, "")
    args = ["--language", language]
    if language == "params":
        config, args = PARAMS_CONFIG, [*args, "--command", "t"]
    if language in ("any", "config"):
        args = ["--language", "cli"]
    if config:
        (tmp_path / "heredoc-lsp.toml").write_text(config, encoding="utf-8")
    (tmp_path / "example").write_bytes(data)
    _, codes = check_json(tmp_path, *args, "example")
    assert code in codes, (example.id, codes)


# --- configs -----------------------------------------------------------------------------------------------------


def _workspace_config(example: Example, tmp_path: Path) -> None:
    """A heredoc-lsp.toml (or fragment of one) loads: a clean script next to it has no problem at all."""
    (tmp_path / "heredoc-lsp.toml").write_text(example.text, encoding="utf-8")
    (tmp_path / "a.cli").write_text("echo hi\n", encoding="utf-8")
    assert check_json(tmp_path, "--strict", "a.cli") == (0, []), example.id


def _user_config(example: Example, tmp_path: Path) -> None:
    """The user's own config file, at the path its first line names, loads (and loosens what it may)."""
    first = example.text.splitlines()[0]
    assert first.startswith("# ~/"), example.id
    home = tmp_path / "home"
    path = home / first[4:]
    path.parent.mkdir(parents=True)
    path.write_text(example.text, encoding="utf-8")
    (tmp_path / "a.cli").write_text("echo hi\n", encoding="utf-8")
    done = sh("heredoc-lsp run a.cli --yes --output json", tmp_path, home)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    statuses = [e["payload"]["text"] for e in events if e["payload"].get("kind") == "status"]
    assert any("(sandbox: none)" in text for text in statuses), (example.id, statuses)  # the user's file applies
    assert done.returncode == 0, done.stderr


def _hook_commands(value: object) -> list[str]:
    """Every ``"command"`` of an agent's hook configuration."""
    if isinstance(value, dict):
        own = [value["command"]] if isinstance(value.get("command"), str) else []
        return own + [c for v in value.values() for c in _hook_commands(v)]
    if isinstance(value, list):
        return [c for v in value for c in _hook_commands(v)]
    return []


def _run_hooks(example: Example, config: object, tmp_path: Path) -> None:
    """Each hook command of an agent's configuration, run as the agent would: a harmless shell command passes in
    silence, one with an unclosed heredoc is denied."""
    commands = _hook_commands(config)
    assert commands and all(c.startswith("heredoc-lsp guard") for c in commands), (example.id, commands)
    for command in commands:
        for shell, denied in (("echo hi", False), ("cat <<EOF\nhello\n", True)):
            event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": shell}}
            done = sh(command, tmp_path, tmp_path, stdin=json.dumps(event))
            assert done.returncode == 0, (example.id, done.stderr)
            assert ('"deny"' in done.stdout) == denied, (example.id, shell, done.stdout)


def _toml(example: Example, tmp_path: Path) -> None:
    """An agent's hook configuration in TOML (Codex): it loads, and its hook commands work."""
    _run_hooks(example, toml_loads(example.text), tmp_path)


def _json(example: Example, tmp_path: Path) -> None:
    """JSON: one value, or one object per line (JSONL); an agent's hook configuration runs its hooks."""
    try:
        value = json.loads(example.text)
    except json.JSONDecodeError:
        for line in example.text.splitlines():
            assert isinstance(json.loads(line), dict), (example.id, line)
        return
    if isinstance(value, dict) and "hooks" in value:
        _run_hooks(example, value, tmp_path)


def _lua(example: Example, tmp_path: Path) -> None:
    """Lua run by a real headless Neovim 0.12 with this checkout as its plugin (``--cmd 'set rtp^=.'``): a chunk runs
    as written, a table (a lazy.nvim spec) has its ``config`` function called; either way without an error, and the
    server's configuration is then registered."""
    source = tmp_path / "snippet.lua"
    source.write_text(example.text, encoding="utf-8")
    script = (
        f"local text = io.open({json.dumps(str(source))}):read('*a') "
        "local chunk = loadstring(text) "
        "local ok, err "
        "if chunk then ok, err = pcall(chunk) "
        "else ok, err = pcall(function() assert(loadstring('return ' .. text))().config() end) end "
        "if ok and not (vim.lsp.config.heredoc_lsp and vim.lsp.config.heredoc_lsp.cmd[1] == 'heredoc-lsp') then "
        "ok, err = false, 'heredoc_lsp is not configured' end "
        "if not ok then io.stderr:write(tostring(err)) vim.cmd('cquit 1') end"
    )
    done = subprocess.run(
        [NVIM_012, "--clean", "--headless", "--cmd", f"set rtp^={REPO}", "-c", f"lua {script}", "-c", "qa!"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=editor_env(tmp_path / "home"),
        check=False,
    )
    assert done.returncode == 0, (example.id, done.stderr)


# --- commands and terminal sessions ------------------------------------------------------------------------------

# The files a terminal session works on, where its page says what they hold.
SESSION_FILES: dict[str, dict[str, str]] = {
    "docs/ci.md": {"sub/bad.cli": "echo start\ncat <<EOF\nbody\n", "good.cli": "echo hi\n"},
    "docs/ruff-side-by-side.md": {
        "pyproject.toml": '[tool.ruff.lint]\nselect = ["F", "E"]\nper-file-ignores = { "legacy/**" = ["F401"] }\n',
        "heredoc-lsp.toml": '[lint]\nper-file-ignores = { "legacy/**" = ["no_effect"] }\n',
        "app.py": 'import os\nimport sys\n\nprint("hi")\n',
        "deploy.cli": "cd build\nmake\ncat <<EOF > notes.md\nhello\n",
        "legacy/old.py": "import os\n",
        "legacy/old.cli": "cd build\nmake\n",
    },
}


def _session(example: Example, tmp_path: Path, *, only_codes: bool = False) -> None:
    """``$ command`` lines run in bash (continuation lines joined, ``/tmp/`` being the test's own folder); the
    lines up to the next ``$`` are exactly what the command printed (stdout then stderr), or with ``only_codes``
    (another tool's output, which changes between its versions) just what ``echo $?`` printed."""
    work = tmp_path / "work"
    work.mkdir()
    for name, content in SESSION_FILES.get(example.doc, {}).items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(content, encoding="utf-8")
    cwd = REPO if "rtp^=." in example.text else work
    steps: list[tuple[str, list[str]]] = []
    for line in example.text.replace("\\\n", "").splitlines():
        if line.startswith("$ "):
            steps.append((line[2:].replace("/tmp/", f"{tmp_path}/"), []))
        else:
            steps[-1][1].append(line)
    last = 0
    for command, shown in steps:
        command = command.replace("$?", str(last))
        done = sh(command, cwd, tmp_path)
        last = done.returncode
        if only_codes and command.startswith("echo "):
            assert done.stdout.splitlines() == shown, (example.id, steps)
        elif not only_codes:
            assert (done.stdout + done.stderr).splitlines() == shown, (example.id, command, done.stdout, done.stderr)


def _other_tool(example: Example, tmp_path: Path) -> None:
    """A ``console`` block: the same mistakes shown by another linter (ruff, of the test extra), exit codes only."""
    assert all(line.startswith(("$ ruff ", "$ echo $?")) for line in example.text.splitlines() if line[:2] == "$ ")
    _session(example, tmp_path, only_codes=True)


def _event_kind(line: str) -> tuple[str, str]:
    """The ``type`` and ``payload.kind`` of a shown event line (the page elides other values with ``…``)."""
    kind = re.search(r'"type":\s*"([\w.]+)"', line)
    top = re.split(r"[{\[]", line.partition('"payload":{')[2], maxsplit=1)[0]  # the payload's own keys
    payload = re.search(r'"kind":\s*"(\w+)"', top)
    assert kind is not None, line
    return kind.group(1), payload.group(1) if payload else ""


def _jsonl_session(example: Example, tmp_path: Path) -> None:
    """docs/jsonl.md's sessions, run for real: each ``>>`` line is written when the events shown before it have
    come (a question's id taken from the real question), and the real events have the types and kinds shown, in
    order; then the exit code, and stderr when the page shows it."""
    lines = example.text.splitlines()
    assert lines[0].startswith("$ heredoc-lsp "), lines[0]
    for name, content in {"hello.cli": "echo hello\n", "slow.cli": "sleep 30\n"}.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
    proc = subprocess.Popen(
        ["bash", "-c", lines[0][2:]],
        cwd=tmp_path,
        env=env(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    shown: list[tuple[str, str]] = []
    real: list[tuple[str, str]] = []
    question = ""
    try:
        for line in lines[1:]:
            if line.startswith("<< "):
                shown.append(_event_kind(line[3:]))
            elif line.startswith(">> "):
                while len(real) < len(shown):
                    event = json.loads(proc.stdout.readline())
                    real.append((event["type"], event["payload"].get("kind", "")))
                    question = event["payload"].get("question_id", question)
                message = re.sub(r'"question_id": "q_\w+"', f'"question_id": "{question}"', line[3:])
                proc.stdin.write(message + "\n")
                proc.stdin.flush()
        proc.stdin.close()
        real += [
            (event["type"], event["payload"].get("kind", ""))
            for event in map(json.loads, proc.stdout.read().splitlines())
        ]
        code = proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert real == shown, example.id
    end = re.fullmatch(r"\(exit (\d+)(?:; stderr: (.*))?\)", lines[-1])
    assert end is not None, lines[-1]
    assert code == int(end.group(1))
    if end.group(2):
        head = end.group(2).split("…")[0]
        assert head in proc.stderr.read(), head


# Output a page shows without its command (keyed by the block's first line): the files and the command that print
# it. The block's lines come, in one run, in what the command printed (stdout then stderr).
EXCERPTS: dict[str, tuple[dict[str, str], str]] = {
    "a.cli:3:7: error[unclosed_heredoc] Unclosed heredoc starting at line 3: expected 'EOF' but reached end of file": (
        {"a.cli": "echo 1\necho 2\ncat <<EOF > out\nbody\n"},  # "third line is `cat <<EOF > out`, fourth `body`"
        "heredoc-lsp check a.cli",
    ),
    "Fixed 1 problem:": (
        {"a.cli": "cat <<\u00c9\nx\n\u00c9\ncat<<EOF\nrm -rf build\nEOF\ncat <<END\nbody\n"},
        "heredoc-lsp check --fix --show-fixes a.cli",
    ),
}


def _excerpt(example: Example, tmp_path: Path) -> None:
    files, command = EXCERPTS[example.text.splitlines()[0]]
    for name, content in files.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
    done = sh(command, tmp_path, tmp_path)
    printed, shown = (done.stdout + done.stderr).splitlines(), example.text.splitlines()
    runs = [printed[i : i + len(shown)] for i in range(len(printed))]
    assert shown in runs, (example.id, command, printed)


def _stdin_fix(example: Example, tmp_path: Path) -> None:
    """The editor's formatter command: the buffer comes back fixed on stdout (safe fixes), the report on stderr."""
    (tmp_path / "buffer").write_text("cat <<\u00c9\nx\n\u00c9\n", encoding="utf-8")
    done = sh(f"FILE=a.cli; {example.text}", tmp_path, tmp_path)
    assert done.returncode == 0, done.stderr
    fixed = done.stdout.splitlines()
    assert fixed[0].startswith("cat <<") and fixed[1] == "x" and fixed[2] == fixed[0][6:], done.stdout
    assert fixed[2].isascii() and not (tmp_path / "a.cli").exists(), done.stdout


def _commands(example: Example, tmp_path: Path) -> None:
    """Each line (a shell command, ``# comment`` after it) runs and succeeds, in a home of its own."""
    home = tmp_path / "home"
    home.mkdir()
    for line in example.text.splitlines():
        done = sh(line, REPO, home, stdin="")
        assert done.returncode == 0, (example.id, line, done.stderr)


def _completion_install(example: Example, tmp_path: Path) -> None:
    """docs/checking.md: the completion and manual page commands, then each installed file works."""
    _commands(example, tmp_path)
    home = tmp_path / "home"
    for path in (
        ".zfunc/_heredoc-lsp",
        ".config/fish/completions/heredoc-lsp.fish",
        ".local/share/man/man1/heredoc-lsp.1",
    ):
        assert (home / path).stat().st_size > 0, path
    done = sh("MANPATH=$HOME/.local/share/man: MANPAGER=cat man heredoc-lsp", tmp_path, home)
    assert "heredoc-lsp completion" in done.stdout, done.stderr


def _quick_start(example: Example, tmp_path: Path) -> None:
    """README's first command: its check of the bundled examples gives two warnings and exit 0 (the venv part is
    tests/packaging/test_tool_install.py's)."""
    assert example.text.startswith("python3 -m venv .venv && .venv/bin/pip install -q -e . && "), example.text
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    code, codes = check_json(tmp_path, "examples/")
    assert (code, len(codes)) == (0, 2), codes


def _script_exists(example: Example, tmp_path: Path) -> None:
    del tmp_path
    for line in example.text.splitlines():
        assert os.access(REPO / line.split()[0], os.X_OK), (example.id, line)


def _tree(example: Example, tmp_path: Path) -> None:
    """README's map of the code: every folder it names exists."""
    del tmp_path
    base = ""
    for line in example.text.splitlines():
        for name in re.findall(r"(?:^|\s{2,})([\w./-]+/)(?=\s)", line + " "):
            if line.startswith("  "):
                assert (REPO / base / name).is_dir(), (example.id, base + name)
            else:
                base = name if line.startswith(name) and name.startswith("server") else ""
                assert (REPO / name).is_dir(), (example.id, name)


# --- README's own examples -----------------------------------------------------------------------------------


def _readme_script(example: Example, tmp_path: Path) -> None:
    (tmp_path / "example.cli").write_text(example.text, encoding="utf-8")
    assert check_json(tmp_path, "example.cli") == (0, [])


def _reply(example: Example, tmp_path: Path) -> None:
    # It names files of the reader's project (READ_FILE, EDIT_FILE): here they do not exist (warnings only).
    (tmp_path / "reply.inbox").write_text(example.text, encoding="utf-8")
    code, codes = check_json(tmp_path, "reply.inbox")
    assert code == 0 and set(codes) <= {"file_not_found"}, codes


def _command_summary(example: Example, tmp_path: Path) -> None:
    del tmp_path
    named = {line.split()[1] for line in example.text.splitlines() if line.startswith("heredoc-lsp ")}
    assert named == set(SUBCOMMANDS), named ^ set(SUBCOMMANDS)


# --- blocks that another test drives ----------------------------------------------------------------------------

# (doc, heading) -> the test that runs that block, and a string it must contain (how it finds the block).
ELSEWHERE: dict[tuple[str, str], tuple[str, str]] = {
    ("docs/running.md", "Replies are transactions"): ("tests/cli_run/test_transactions.py", "docs/running.md"),
    ("docs/guard.md", "A session"): ("tests/cli/test_guard.py", '"\\n## A session\\n"'),
    ("README.md", "Install"): ("tests/packaging/test_tool_install.py", '"README.md"'),
}
MARKER_READERS = {
    "editors-test": "tests/editors/editors_harness.py",
    "running-test": "tests/editors/test_editor_run_neovim.py",
    "ci-example": "tests/packaging/test_ci_docs.py",
}


def _elsewhere(example: Example, tmp_path: Path) -> None:
    """The block carries a marker that a test reads, or its section is named in ELSEWHERE: that test exists and
    names what it reads (the marker's tag in quotes, or the page)."""
    del tmp_path
    if example.marker:
        kind, _, tag = example.marker.partition(": ")
        reader = (REPO / MARKER_READERS[kind]).read_text(encoding="utf-8")
        users = [p for p in TESTS.rglob("*.py") if f'"{tag}"' in p.read_text(encoding="utf-8")]
        assert kind in reader and users, (example.id, example.marker)
        return
    path, needle = ELSEWHERE[(example.doc, example.heading)]
    assert needle in (REPO / path).read_text(encoding="utf-8"), (example.id, path)


Check = Callable[[Example, Path], None]


def kind(example: Example) -> Check | None:
    """How a block is checked; None for a block nobody checks (a failure)."""
    if example.doc == "docs/rules.md":
        return _rule_example
    if example.marker or (example.doc, example.heading) in ELSEWHERE:
        return _elsewhere
    if example.doc == "README.md":
        if example.line < 10:
            return _quick_start if example.text.startswith("python3 -m venv") else _script_exists
        if "**`.cli` scripts**" in example.lead:
            return _readme_script
        if "**Inbox replies**" in example.lead:
            return _reply
        if example.heading == "Command line":
            return _command_summary
        if example.heading == "Development":
            return _tree
    if example.doc == "docs/jsonl.md" and example.info == "text":
        return _jsonl_session
    if example.info == "console":
        return _other_tool
    if example.text.splitlines()[0] in EXCERPTS:
        return _excerpt
    if example.info == "sh" and "--fix --exit-zero --stdin-filename" in example.text:
        return _stdin_fix
    if re.search(r"^\$ ", example.text, re.MULTILINE):
        return _session
    if example.info == "toml":
        return (
            _user_config
            if example.text.startswith("# ~/")
            else (_toml if "[[hooks." in example.text else _workspace_config)
        )
    if example.info == "json":
        return _json
    if example.info == "lua":
        return _lua
    if example.info == "sh" and "heredoc-lsp completion" in example.text:
        return _completion_install
    if example.text.startswith("[") and example.doc == "docs/running.md":
        return _reply
    if example.info == "sh" and example.doc == "docs/vscode.md":
        return _vsix_build
    return None


def _vsix_build(example: Example, tmp_path: Path) -> None:
    """docs/vscode.md: the build command is the script that tests/vscode/conftest.py runs to build the package,
    and the file it names is the one that script prints."""
    del tmp_path
    first = example.text.splitlines()[0].split()[0]
    assert first in (TESTS / "vscode" / "conftest.py").read_text(encoding="utf-8"), first
    version = json.loads((REPO / "client-vscode" / "package.json").read_text(encoding="utf-8"))["version"]
    assert f"client-vscode/dist/heredoc-lsp-{version}.vsix" in example.text


def test_every_example_is_checked() -> None:
    assert len(EXAMPLES) > 80
    unchecked = [e.id for e in EXAMPLES if kind(e) is None]
    assert unchecked == []


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_example(example: Example, tmp_path: Path) -> None:
    check = kind(example)
    assert check is not None, example.id
    check(example, tmp_path)


def test_the_neovim_page_says_how_to_find_a_missing_server() -> None:
    """When nothing happens in a buffer, the first thing to try is Neovim's own health check."""
    page = (REPO / "docs" / "neovim" / "README.md").read_text(encoding="utf-8")
    assert ":checkhealth vim.lsp" in page and "heredoc-lsp --version" in page
