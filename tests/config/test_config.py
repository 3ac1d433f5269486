"""Config loading (docs/configuration.md): values, every kind of invalid input with file, line and key, pyproject,
walk-up."""

from __future__ import annotations

from pathlib import Path

import pytest

from heredoc_lsp.config import (
    DEFAULT_CONFIG,
    Config,
    ConfigError,
    ConfigResolver,
    ExecutorSettings,
    config_for_file,
    find_config,
    load_config,
    parse_config_text,
)
from heredoc_lsp.syntax.schema import CommandSchema

SPEC_EXAMPLE = """\
compat = "arca-cli"                 # optional portability hints
[cli]
output = "text"
[script]
runner = ["/bin/sh", "-c", "{command}"]
[executor]
timeout_s = 30
sandbox = "auto"
allow_network = false
max_output_chars = 4000
confirm = "always"
env = ["MY_VAR"]
"""
PLAIN_CAT = '[commands."plain cat"]\nterminator = "END"\n'


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def problems(text: str, name: str = "heredoc-lsp.toml") -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_config_text(text, Path(name))
    return [p.format() for p in info.value.problems]


def test_defaults_without_any_file() -> None:
    assert Config() == DEFAULT_CONFIG
    assert DEFAULT_CONFIG.compat is None
    assert DEFAULT_CONFIG.cli_output == "text"
    assert DEFAULT_CONFIG.script_runner == ("/bin/sh", "-c", "{command}")
    assert DEFAULT_CONFIG.executor == ExecutorSettings(30, "auto", False, 4000, "always", ())
    assert dict(DEFAULT_CONFIG.commands) == {}
    assert DEFAULT_CONFIG.source is None


def test_spec_example_builds_every_mode(tmp_path: Path, commands_toml: str) -> None:
    path = write(tmp_path / "heredoc-lsp.toml", SPEC_EXAMPLE + commands_toml + PLAIN_CAT)
    config = load_config(path)
    assert config.compat == "arca-cli"
    assert config.cli_output == "text"
    assert config.script_runner == ("/bin/sh", "-c", "{command}")
    assert config.executor == ExecutorSettings(30, "auto", False, 4000, "always", ("MY_VAR",))
    assert config.source == path
    assert dict(config.commands) == {
        "chatroom task-started": CommandSchema(
            "chatroom task-started",
            "multi",
            ("TITLE", "DESCRIPTION", "TECH_SPECS"),
            ("TITLE", "DESCRIPTION"),
            None,
            "PARAMS_END",
        ),
        "chatroom handoff": CommandSchema("chatroom handoff", "single", None, (), "MESSAGE", "CHATROOM_HANDOFF_END"),
        "tracker note": CommandSchema("tracker note", "multi", None, ("BODY",), None, None),
        "plain cat": CommandSchema("plain cat", "text", None, (), None, "END"),
    }


def test_config_is_frozen() -> None:
    with pytest.raises(AttributeError):
        DEFAULT_CONFIG.compat = "arca-cli"  # type: ignore[misc]


def test_empty_file_gives_defaults_with_source(tmp_path: Path) -> None:
    path = write(tmp_path / "heredoc-lsp.toml", "# nothing configured\n")
    assert load_config(path) == Config(source=path)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('[cli]\noutput = "jsn"\n', 2, 'cli.output: expected one of "text", "json", got "jsn"'),
        (
            "[executor]\nsandbox = 'auto'\ntimout_s = 5\n",
            3,
            "executor.timout_s: unknown key (did you mean 'timeout_s'?)",
        ),
        ("colour = 1\n", 1, "colour: unknown key (expected one of: compat, cli, script, executor, commands, lint)"),
        ("[executor]\ntimeout_s = 0\n", 2, "executor.timeout_s: expected a positive number of seconds, got 0"),
        ("[executor]\ntimeout_s = true\n", 2, "executor.timeout_s: expected a positive number of seconds, got true"),
        ('[executor]\nallow_network = "yes"\n', 2, 'executor.allow_network: expected true or false, got "yes"'),
        (
            "[executor]\nmax_output_chars = 2.5\n",
            2,
            "executor.max_output_chars: expected a positive whole number of characters, got 2.5",
        ),
        ('[executor]\nenv = ["OK", "1BAD"]\n', 2, 'executor.env: "1BAD" is not an environment variable name'),
        ('compat = "bash"\n', 1, 'compat: expected one of "arca-cli", "none", got "bash"'),
        (
            '[script]\nrunner = ["/bin/sh", "-c"]\n',
            2,
            'script.runner: the argv list must contain the item "{command}" (replaced by the command text)',
        ),
        ("executor = 5\n", 1, "executor: expected a table, got 5"),
        (
            '[commands."x"]\nparams = ["TITLE", "title"]\n',
            2,
            'commands.x.params: "title" is not a parameter name (A-Z and _ only, as in ---NAME---)',
        ),
        ('[commands."x"]\nparams = ["A", "A"]\n', 2, 'commands.x.params: "A" is listed twice'),
        (
            '[commands."chatroom task-started"]\nparams = ["TITLE", "DESCRIPTION"]\nrequired = ["DESCRIPTON"]\n',
            3,
            'commands."chatroom task-started".required: required parameter '
            "'DESCRIPTON' is not in 'params' (did you mean 'DESCRIPTION'?)",
        ),
        (
            '[commands."h"]\nsingle_param = "MESSAGE"\nparams = ["A"]\n',
            3,
            "commands.h.params: 'params' and 'single_param' exclude each other: a command is multi or single mode",
        ),
        (
            '[commands."h"]\nmode = "single"\n',
            2,
            "commands.h.mode: mode \"single\" needs 'single_param' (the parameter's name)",
        ),
        (
            '[commands."h"]\nparams = ["A"]\nmode = "text"\n',
            3,
            "commands.h.mode: mode \"text\" contradicts 'params' (multi mode)",
        ),
        (
            '[commands."h"]\nrequired = ["A"]\n',
            2,
            "commands.h.required: 'required' is only used in multi mode (set 'params' or mode = \"multi\")",
        ),
        (
            '[commands."h"]\nterminator = " END"\n',
            2,
            'commands.h.terminator: expected a non-empty word on one line without surrounding blanks, got " END"',
        ),
        (
            '[commands."h"]\nsingle_param = "MY MESSAGE"\n',
            2,
            'commands.h.single_param: expected a parameter name (letters and _), got "MY MESSAGE"',
        ),
        ('[commands."h"]\nparam = ["A"]\n', 2, "commands.h.param: unknown key (did you mean 'params'?)"),
        (
            '[commands." padded "]\nparams = ["A"]\n',
            1,
            'commands." padded ": a command name must be non-empty, on one line, without leading or trailing blanks',
        ),
        ("[commands]\nx = 3\n", 2, "commands.x: expected a table, got 3"),
    ],
)
def test_each_invalid_value_names_file_line_and_key(text: str, line: int, message: str) -> None:
    assert problems(text) == [f"heredoc-lsp.toml:{line}: error: {message}"]


def test_every_problem_is_reported_in_line_order() -> None:
    text = '[cli]\noutput = "x"\n[executor]\nsandbox = "docker"\nconfirm = "sometimes"\n'
    assert problems(text) == [
        'heredoc-lsp.toml:2: error: cli.output: expected one of "text", "json", got "x"',
        'heredoc-lsp.toml:4: error: executor.sandbox: expected one of "auto", "bwrap", "none", got "docker"',
        'heredoc-lsp.toml:5: error: executor.confirm: expected one of "always", "never", got "sometimes"',
    ]


def test_problem_carries_line_column_and_key() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config_text("\n[executor]\n  timeout_s = -1\n", Path("heredoc-lsp.toml"))
    (problem,) = info.value.problems
    assert (problem.line, problem.column, problem.key) == (3, 3, "executor.timeout_s")


def test_dotted_and_inline_keys_are_located() -> None:
    assert problems('executor.sandbox = "vm"\n') == [
        'heredoc-lsp.toml:1: error: executor.sandbox: expected one of "auto", "bwrap", "none", got "vm"'
    ]
    # Keys inside an inline table are reported at the inline table's line.
    assert problems('# c\n\ncommands = { "x y" = { params = ["bad"] } }\n') == [
        'heredoc-lsp.toml:3: error: commands."x y".params: "bad" is not a parameter name (A-Z and _ only, as in '
        "---NAME---)"
    ]


def test_multiline_array_and_string_do_not_confuse_line_numbers() -> None:
    text = (
        '[commands."a"]\n'
        "params = [\n"
        '  "TITLE",\n'
        '  "BODY",\n'
        "]\n"
        'terminator = """\n'
        "sandbox = 1\n"
        '"""\n'
        "[executor]\n"
        "sandbox = 1\n"
    )
    found = problems(text)
    assert found == [
        "heredoc-lsp.toml:6: error: commands.a.terminator: expected a non-empty word on one line without "
        'surrounding blanks, got "sandbox = 1\\n"',
        'heredoc-lsp.toml:10: error: executor.sandbox: expected one of "auto", "bwrap", "none", got 1',
    ]


def test_toml_syntax_error_has_its_line() -> None:
    assert problems("[executor]\ntimeout_s = 30\nsandbox = auto\n") == [
        "heredoc-lsp.toml:3: error: invalid TOML: Invalid value"
    ]


def test_invalid_utf8_config(tmp_path: Path) -> None:
    path = tmp_path / "heredoc-lsp.toml"
    path.write_bytes(b'compat = "none"\n# caf\xe9\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.format("heredoc-lsp.toml") == "heredoc-lsp.toml:2: error: config file is not valid UTF-8"


def test_unreadable_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "missing.toml")
    assert "cannot read config file: No such file or directory" in str(info.value)


def test_pyproject_section(tmp_path: Path) -> None:
    path = write(
        tmp_path / "pyproject.toml",
        '[project]\nname = "demo"\n\n[tool.heredoc-lsp]\ncompat = "arca-cli"\n\n'
        '[tool.heredoc-lsp.commands."note"]\nsingle_param = "MESSAGE"\n',
    )
    config = load_config(path)
    assert config.compat == "arca-cli"
    assert dict(config.commands) == {"note": CommandSchema("note", "single", None, (), "MESSAGE", None)}
    assert find_config(tmp_path) == path


def test_pyproject_errors_name_the_pyproject_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "pyproject.toml",
        '[project]\nname = "demo"\n\n[tool.heredoc-lsp.executor]\nsandbox = "auto"\ntimeout = 3\n',
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.format("pyproject.toml") == (
        "pyproject.toml:6: error: executor.timeout: unknown key (did you mean 'timeout_s'?)"
    )


def test_pyproject_without_our_section_is_skipped_when_walking_up(tmp_path: Path) -> None:
    top = write(tmp_path / "heredoc-lsp.toml", 'compat = "arca-cli"\n')
    # Mentions heredoc-lsp (as a dependency), but configures nothing: not a config file.
    write(tmp_path / "proj" / "pyproject.toml", '[project]\nname = "x"\ndependencies = ["heredoc-lsp"]\n')
    script = write(tmp_path / "proj" / "src" / "a.cli", "echo hi\n")
    assert find_config(script.parent) == top
    assert config_for_file(script).compat == "arca-cli"


def test_walk_up_finds_the_nearest(tmp_path: Path) -> None:
    outer = write(tmp_path / "heredoc-lsp.toml", 'compat = "arca-cli"\n')
    inner = write(tmp_path / "a" / "heredoc-lsp.toml", "[executor]\ntimeout_s = 5\n")
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    assert find_config(deep) == inner
    assert find_config(tmp_path) == outer
    config = config_for_file(deep / "x.cli")
    assert config.executor.timeout_s == 5
    assert config.compat is None  # the nearest file wins whole; files are not merged
    assert config.source == inner


def test_heredoc_lsp_toml_wins_over_pyproject_in_the_same_directory(tmp_path: Path) -> None:
    toml = write(tmp_path / "heredoc-lsp.toml", "")
    write(tmp_path / "pyproject.toml", '[tool.heredoc-lsp]\ncompat = "arca-cli"\n')
    assert find_config(tmp_path) == toml


def test_explicit_config_is_used_for_every_file(tmp_path: Path) -> None:
    write(tmp_path / "a" / "heredoc-lsp.toml", 'compat = "arca-cli"\n')
    explicit = write(tmp_path / "elsewhere.toml", "[executor]\ntimeout_s = 7\n")
    resolver = ConfigResolver(explicit)
    config = resolver.config_for(tmp_path / "a" / "x.cli")
    assert config.compat is None
    assert config.executor.timeout_s == 7


def test_resolver_caches_and_reraises_the_same_error(tmp_path: Path) -> None:
    write(tmp_path / "heredoc-lsp.toml", "compat = 1\n")
    resolver = ConfigResolver()
    with pytest.raises(ConfigError) as first:
        resolver.config_for(tmp_path / "a.cli")
    with pytest.raises(ConfigError) as second:
        resolver.config_for(tmp_path / "sub" / "b.cli")
    assert first.value is second.value
