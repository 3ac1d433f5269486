"""Hostile replies against the real command line and real bubblewrap (docs/security.md "Isolation", "Protected paths").

Secrets are fakes: a private mount namespace (``unshare -m``, made as root) binds a temporary home at
``/home/alice`` (on a tmpfs ``/home``), a fake ``/etc/shadow`` over the real one and a folder holding a
listening UNIX socket at ``/run``, for the heredoc-lsp process only, which then runs as an ordinary user
(tests/ordinary_user.py), as people run it. The suite's run as that user deselects these (they need root to set up).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from heredoc_lsp.executor.sandbox import UNISOLATED_NOTE, pids_cgroup
from ordinary_user import ROOT_SETUP_MARK, OrdinaryUser, prepare

from .conftest import RunCli

root_setup = getattr(pytest.mark, ROOT_SETUP_MARK)

SECRET = "TOPSECRET-7f3a"
NS_HOME = "/home/alice"
NS_SOCKET_DIR = "/run/heredoc-lsp-test"


def _session(run_cli: RunCli, workspace: Path) -> None:
    done = run_cli("agent", "new", "security test")
    assert done.returncode == 0, done.stderr
    (workspace / "inbox").mkdir(exist_ok=True)


def _outbox(workspace: Path) -> str:
    latest = sorted((workspace / "outbox").glob("*_seq0002.txt"))
    assert latest, "no second outbox was written"
    return latest[-1].read_text()


def _reply(workspace: Path, text: str, name: str = "r1.txt") -> Path:
    path = workspace / "inbox" / name
    path.write_text(text)
    return path


@pytest.fixture
def fake_host(tmp_path: Path) -> Path:
    """A fake home with credentials, a fake /etc/shadow, both holding SECRET."""
    host = tmp_path / "host"
    home = host / "home"
    (home / ".local" / "bin").mkdir(parents=True)
    for rel in (".ssh/id_rsa", ".aws/credentials", ".config/gh/hosts.yml", ".bash_history"):
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(f"{SECRET} {rel}\n")
    (host / "shadow").write_text(f"root:{SECRET}:19000:0:99999:7:::\n")
    (host / "run").mkdir()
    return host


@pytest.fixture
def socket_server(fake_host: Path) -> Iterator[Path]:
    """A listening UNIX socket (like the Docker socket) that hands SECRET to whoever connects."""
    path = fake_host / "run" / "daemon.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(f"{SECRET} from the socket\n".encode())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield path
    stop.set()
    thread.join(2)
    server.close()


@pytest.fixture(scope="module")
def ordinary_user() -> OrdinaryUser:
    return prepare()


@pytest.fixture
def workspace(ordinary_user: OrdinaryUser, request: pytest.FixtureRequest) -> Path:
    """A workspace the ordinary user owns, in a folder it can reach."""
    return ordinary_user.scratch(f"sandbox-{request.node.name}"[:100])


def _apply_in_namespace(
    fake_host: Path,
    workspace: Path,
    cli_env: dict[str, str],
    reply: Path,
    user: OrdinaryUser,
    *,
    setup: str = "true",
) -> tuple[subprocess.CompletedProcess[str], str]:
    """``heredoc-lsp apply REPLY --yes`` as the ordinary user, in a private mount namespace where the fakes replace
    the real things: the finished process and the next outbox (the reply's commands ran to their ``echo finished``).

    ``setup`` runs there first, as root. PATH names folders of the fake home and the home itself: they stay
    unreachable.
    """
    assert shutil.which("unshare") is not None and os.geteuid() == 0
    for folder, dirs, files in os.walk(workspace):  # what the session's set-up wrote as root becomes the user's
        for name in [".", *dirs, *files]:
            os.chown(os.path.join(folder, name), user.uid, user.gid, follow_symlinks=False)
    script = (
        f'mount -t tmpfs tmpfs /home && mkdir {NS_HOME} && mount --bind "$1/home" {NS_HOME} && '
        'mount --bind "$1/shadow" /etc/shadow && '
        f'mount -t tmpfs tmpfs /run && mkdir {NS_SOCKET_DIR} && mount --bind "$1/run" {NS_SOCKET_DIR} && '
        f'{setup} && shift && exec "$@"'
    )
    search_path = f"/opt/tool/bin:{NS_HOME}/.local/bin:{NS_HOME}:{cli_env.get('PATH', '/usr/bin:/bin')}"
    argv = ["unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script, "ns", str(fake_host)]
    argv += user.argv(str(user.python), "-m", "heredoc_lsp", "apply", str(reply), "--yes")
    config_home = user.scratch(f"xdg-{workspace.name}")
    done = subprocess.run(
        argv,
        cwd=workspace,
        env={**cli_env, "HOME": NS_HOME, "PATH": search_path, "XDG_CONFIG_HOME": str(config_home)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    outbox = _outbox(workspace)
    assert "finished" in outbox
    return done, outbox


# -- isolation of RUN_COMMAND ---------------------------------------------------------------------------------


@root_setup
def test_run_command_cannot_read_the_users_home_or_shadow(
    ordinary_user: OrdinaryUser, fake_host: Path, workspace: Path, cli_env: dict[str, str], run_cli: RunCli
) -> None:
    _session(run_cli, workspace)
    files = " ".join(
        f"{NS_HOME}/{rel}" for rel in (".ssh/id_rsa", ".aws/credentials", ".config/gh/hosts.yml", ".bash_history")
    )
    reply = _reply(
        workspace,
        "[RUN_COMMAND]\n"
        f'cat {files} "$HOME/.ssh/id_rsa" /etc/shadow; ls -a {NS_HOME} /home; echo finished\n'
        "[/RUN_COMMAND]\n",
    )
    # The fakes really are in place for the heredoc-lsp process (so the test can fail).
    probe = subprocess.run(
        ["unshare", "-m", "/bin/sh", "-c", 'mount --bind "$1/shadow" /etc/shadow && cat /etc/shadow', "ns", fake_host],
        capture_output=True,
        text=True,
        check=False,
    )
    assert SECRET in probe.stdout
    done, outbox = _apply_in_namespace(fake_host, workspace, cli_env, reply, ordinary_user)
    assert SECRET not in outbox and SECRET not in done.stdout


@root_setup
def test_run_command_cannot_reach_a_host_socket_outside_tmp(
    ordinary_user: OrdinaryUser,
    fake_host: Path,
    socket_server: Path,
    workspace: Path,
    cli_env: dict[str, str],
    run_cli: RunCli,
) -> None:
    _session(run_cli, workspace)
    connect = (
        "import socket; s = socket.socket(socket.AF_UNIX); "
        f"s.connect('{NS_SOCKET_DIR}/{socket_server.name}'); print(s.recv(100).decode())"
    )
    reply = _reply(workspace, f'[RUN_COMMAND]\npython3 -c "{connect}"; echo finished\n[/RUN_COMMAND]\n')
    _, outbox = _apply_in_namespace(fake_host, workspace, cli_env, reply, ordinary_user)
    assert SECRET not in outbox
    assert "No such file or directory" in outbox


@root_setup
def test_toolchains_on_path_outside_the_system_folders_still_run(
    ordinary_user: OrdinaryUser, fake_host: Path, workspace: Path, cli_env: dict[str, str], run_cli: RunCli
) -> None:
    _session(run_cli, workspace)
    setup = (
        "mount -t tmpfs tmpfs /opt && mkdir -p /opt/tool/bin /opt/tool/share && echo toolchain-data > "
        "/opt/tool/share/data && printf '#!/bin/sh\\ncat /opt/tool/share/data\\n' > /opt/tool/bin/mytool && "
        "chmod +x /opt/tool/bin/mytool"
    )
    reply = _reply(workspace, f"[RUN_COMMAND]\nmytool; ls {NS_HOME}/.local; echo finished\n[/RUN_COMMAND]\n")
    _, outbox = _apply_in_namespace(fake_host, workspace, cli_env, reply, ordinary_user, setup=setup)
    assert "toolchain-data" in outbox
    assert f"ls: cannot access '{NS_HOME}/.local'" in outbox


def test_run_command_cannot_write_protected_workspace_paths(workspace: Path, run_cli: RunCli) -> None:
    """Under bubblewrap inbox/ and .git/ are read-only: no forged next reply, no planted hook."""
    _session(run_cli, workspace)
    hooks = workspace / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (workspace / "heredoc-lsp.toml").write_text("[executor]\ntimeout_s = 20\n")
    (workspace / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no table: tools may edit it
    reply = _reply(
        workspace,
        "[RUN_COMMAND]\n"
        "printf '[CREATE_FILE path=\"x\"]\\nforged\\n[/CREATE_FILE]\\n' > inbox/zz.txt; "
        "printf '#!/bin/sh\\ntouch PWNED\\n' > .git/hooks/post-commit; "
        "echo '[core]' >> .git/config; echo '[executor]' >> heredoc-lsp.toml; echo '#' >> pyproject.toml; "
        "touch src-ok.txt; echo finished\n"
        "[/RUN_COMMAND]\n",
    )
    done = run_cli("apply", str(reply), "--yes")
    assert done.returncode == 0, done.stderr
    assert not (workspace / "inbox" / "zz.txt").exists()
    assert not (hooks / "post-commit").exists()
    assert not (workspace / ".git" / "config").exists()
    assert (workspace / "heredoc-lsp.toml").read_text() == "[executor]\ntimeout_s = 20\n"
    assert (workspace / "pyproject.toml").read_text() == '[project]\nname = "x"\n#\n'
    assert (workspace / "src-ok.txt").exists()  # the rest of the workspace stays writable
    assert "Read-only file system" in _outbox(workspace)


def test_a_fork_bomb_is_bounded(workspace: Path, run_cli: RunCli) -> None:
    """The process limit holds as root too: a command cannot start more than the limit (512) at once."""
    # Every child waits on a pipe until the parent is gone (its end closed), so all of them are alive at once
    # however slowly the machine forks (children that slept a fixed time ended early on a loaded machine).
    (workspace / "heredoc-lsp.toml").write_text("[executor]\ntimeout_s = 20\n")
    probe = (
        "import os\n"
        "r, w = os.pipe()\n"
        "n = 0\n"
        "try:\n"
        "    while n < 1000:\n"
        "        if os.fork() == 0:\n"
        "            os.close(w)\n"
        "            os.read(r, 1)\n"
        "            os._exit(0)\n"
        "        n += 1\n"
        "except OSError as exc:\n"
        "    print('refused:', exc.strerror)\n"
        "print('forked', n)\n"
    )
    (workspace / "probe.py").write_text(probe)
    (workspace / "bomb.cli").write_text("python3 probe.py\n")
    done = run_cli("run", "bomb.cli", "--yes", "--output", "json")
    assert done.returncode == 0, done.stderr
    forked = [line for line in done.stdout.split("\n") if "forked" in line]
    assert forked, done.stdout
    count = int(forked[-1].split("forked ", 1)[1].split("\\n", 1)[0].strip('"} '))
    # As root the pids cgroup counts the command's processes only, so the bound is exact. As an ordinary user
    # RLIMIT_NPROC counts all of the user's tasks: the limit is those at the start plus 512, and tasks of the user
    # that end during the run (this test's own threads, an earlier test's server) free room for more forks (CI saw
    # 514). Unbounded, the probe reaches 1000.
    bound = 512 if os.geteuid() == 0 else 640
    assert 8 <= count < bound
    assert "Resource temporarily unavailable" in done.stdout


# -- protected paths: replies -----------------------------------------------------------------------------------


def _git(workspace: Path, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    return subprocess.run(["git", *args], cwd=workspace, env=env, capture_output=True, text=True, check=False)


def test_reply_cannot_plant_a_git_hook_or_fsmonitor(workspace: Path, tmp_path: Path, run_cli: RunCli) -> None:
    assert _git(workspace, "init", "-q", home=tmp_path).returncode == 0
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)  # an existing hook keeps its mode when a reply replaces it
    (workspace / "alias").symlink_to(".git")
    config_lines = len((workspace / ".git" / "config").read_text().split("\n")) - 1
    reply = workspace / "reply.txt"
    reply.write_text(
        '[CREATE_FILE path=".git/hooks/pre-commit"]\n#!/bin/sh\ntouch PWNED_HOOK\n[/CREATE_FILE]\n'
        '[CREATE_FILE path="alias/hooks/post-commit"]\n#!/bin/sh\ntouch PWNED_LINK\n[/CREATE_FILE]\n'
        '[CREATE_FILE path=".GIT/hooks/post-checkout"]\n#!/bin/sh\ntouch PWNED_CASE\n[/CREATE_FILE]\n'
        f'[EDIT_FILE path=".git/config" start_line="1" end_line="{config_lines}"]\n'
        '[core]\n\tfsmonitor = "touch PWNED_FSMONITOR; false"\n[/EDIT_FILE]\n'
        '[CREATE_FILE path="notes.md"]\nfine\n[/CREATE_FILE]\n'
    )
    done = run_cli("apply", str(reply), "--yes")
    assert done.returncode == 1, done.stderr  # the refused blocks failed
    # The real git commands that would have run the planted code.
    assert _git(workspace, "add", "notes.md", home=tmp_path).returncode == 0
    commit = _git(workspace, "commit", "-q", "-m", "x", home=tmp_path)
    assert commit.returncode == 0, commit.stderr
    assert _git(workspace, "status", home=tmp_path).returncode == 0
    assert _git(workspace, "checkout", "-q", "-b", "other", home=tmp_path).returncode == 0
    assert sorted(p.name for p in workspace.glob("PWNED*")) == []
    assert hook.read_text() == "#!/bin/sh\nexit 0\n"
    assert "[FAILED] CREATE_FILE: Path '.git/hooks/pre-commit' is protected" in done.stdout
    assert "[FAILED] CREATE_FILE: Path 'alias/hooks/post-commit' leads to '.git/hooks/post-commit'" in done.stdout
    assert "[FAILED] EDIT_FILE: Path '.git/config' is protected" in done.stdout
    assert "[OK] CREATE_FILE: Created 'notes.md'" in done.stdout


def test_reply_cannot_write_agent_state_or_the_config(workspace: Path, run_cli: RunCli) -> None:
    _session(run_cli, workspace)
    (workspace / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.heredoc-lsp.executor]\nconfirm = "always"\n'
    )
    reply = _reply(
        workspace,
        '[CREATE_FILE path="inbox/zz.txt"]\n[RUN_COMMAND]\ntouch PWNED\n[/RUN_COMMAND]\n[/CREATE_FILE]\n'
        '[CREATE_FILE path="heredoc-lsp.toml"]\n[executor]\nsandbox = "none"\n[/CREATE_FILE]\n'
        '[EDIT_FILE path="pyproject.toml" start_line="5" end_line="5"]\nconfirm = "never"\n[/EDIT_FILE]\n'
        '[EDIT_FILE path="pyproject.toml" start_line="2" end_line="2"]\nname = "y"\n[/EDIT_FILE]\n'
        '[CREATE_FILE path=".envrc"]\ntouch PWNED\n[/CREATE_FILE]\n'
        '[CREATE_FILE path=".vscode/tasks.json"]\n{}\n[/CREATE_FILE]\n',
    )
    done = run_cli("apply", str(reply), "--yes")
    assert done.returncode == 1, done.stderr  # the refused blocks failed
    for path in ("inbox/zz.txt", "heredoc-lsp.toml", ".envrc", ".vscode"):
        assert not (workspace / path).exists(), path
    assert (workspace / "pyproject.toml").read_text() == (
        '[project]\nname = "y"\n\n[tool.heredoc-lsp.executor]\nconfirm = "always"\n'
    )
    assert done.stdout.count("is protected") == 5


def test_check_reports_protected_path_on_an_inbox_reply(workspace: Path, run_cli: RunCli) -> None:
    (workspace / "inbox").mkdir()
    (workspace / "inbox" / "r.txt").write_text(
        'Planting a hook.\n[CREATE_FILE path=".git/hooks/pre-commit"]\ntouch x\n[/CREATE_FILE]\n'
    )
    done = run_cli("check", "inbox/r.txt")
    assert done.returncode == 1
    assert "inbox/r.txt:2:19: error[protected_path] Path '.git/hooks/pre-commit' is protected" in done.stdout


# -- without bubblewrap -------------------------------------------------------------------------------------------


def test_an_unisolated_run_says_so_first(workspace: Path, run_cli: RunCli) -> None:
    (workspace / "a.cli").write_text("echo one\necho two\n")
    done = run_cli("run", "a.cli", "--yes", "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.split("\n") if line.strip()]
    assert lines[0].startswith("Running ")
    assert lines[1] == f'sandbox = "none": {UNISOLATED_NOTE}'
    assert "/proc" in lines[1]
    assert done.stdout.count(UNISOLATED_NOTE) == 1


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_real_fork_bomb_is_contained_and_cleaned_up(workspace: Path, run_cli: RunCli, sandbox: str) -> None:
    """``:(){ :|:& };:`` hits the process limit, the deadline ends it, and none of its processes survive."""
    # Without a working process limit this bomb would fill the machine's process table, so its precondition is
    # asserted (never skipped): as root the limit is a pids cgroup, which must be available here.
    assert os.geteuid() != 0 or pids_cgroup(8) is not None, "no pids cgroup: the process limit cannot hold as root"
    (workspace / "heredoc-lsp.toml").write_text("[executor]\ntimeout_s = 3\n")
    (workspace / "bomb.cli").write_text("bash -c ':(){ :|:& };:'; sleep 30\n")
    done = run_cli("run", "bomb.cli", "--yes", "--sandbox", sandbox, "--output", "json", timeout=60)
    assert done.returncode == 1, done.stderr
    # Either the deadline ended it, or the process limit left the shell unable to fork even `sleep` (as an ordinary
    # user the bomb's own processes count against RLIMIT_NPROC): contained both ways.
    contained = ('"status": "timeout"', "timed out", "Resource temporarily unavailable")
    assert any(sign in done.stdout for sign in contained), done.stdout
    survivors = [
        pid for pid in os.listdir("/proc") if pid.isdigit() and _cmdline(pid).startswith("bash\0-c\0:(){ :|:& };:")
    ]
    assert survivors == []


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return ""
