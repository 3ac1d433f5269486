"""Running one process under asyncio with a real deadline and a whole-tree kill (docs/security.md).

- The process gets an argv list (never re-quoted), its own session and process group, the given environment and
  working directory, and stdin from a pipe fed with the given bytes (closed after them: a command that reads more
  sees end of file, one that never reads does not block us).
- stdout and stderr are read concurrently through the event loop into bounded :class:`StreamCapture` s.
- The deadline is a timer on the event loop, independent of the pipes: when it fires (or the run is cancelled)
  the whole tree gets SIGTERM, then after a short grace SIGKILL. "The tree" is the process group, every
  descendant found through ``/proc`` and every process carrying this command's run tag in its environment — so a
  grandchild that called ``setsid`` and closed its pipes dies too. Under bubblewrap the pid namespace already
  guarantees that.
- Exit is observed through a pidfd, so the child is reaped only after its group has been killed (its pid, and
  hence its group id, cannot be reused in between).
- Whatever ends the wait ends the tree: a run whose own task is cancelled (the event loop is being torn down, e.g.
  the language server got ``exit``) kills its tree at once, without awaiting. Every tree not yet known dead is
  listed per event loop, so that the server's end can wait for them (:func:`trees_ended`) and, once its loop is
  gone, kill what is left (:func:`kill_trees`); docs/running.md, "When the server ends".
- Before its first command, this process makes itself non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``, see
  :func:`hide_own_environment`): its ``/proc/PID/environ`` becomes root's, so a command run without bubblewrap as
  the same ordinary user cannot read ``/proc/$PPID/environ``, the secrets withheld from it. Commands themselves are
  dumpable again (``execve`` resets the flag).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import functools
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from heredoc_lsp.executor.control import RunControl
from heredoc_lsp.executor.environment import Redactor, StreamRedactor
from heredoc_lsp.executor.output import DEFAULT_CAPTURE_BYTES, CapturedOutput, StreamCapture

RUN_TAG_VARIABLE = "HEREDOC_LSP_RUN_TAG"
READ_CHUNK = 1 << 20
PIPE_SIZE = 1 << 20
DEFAULT_PIPE_SIZE = 1 << 16
WRITE_CHUNK = 1 << 16
DRAIN_AFTER_EXIT_S = 0.5  # how long leftover holders of the pipes may keep them after the process exited
DRAIN_AFTER_KILL_S = 1.0
KILL_ROUNDS = 50  # SIGKILL rounds at most (a fork bomb is frozen and killed a round at a time)
KILL_ROUND_PAUSE_S = 0.005
GRACE_POLL_S = 0.02  # how often the tree is looked at during the grace after SIGTERM

Stream = Literal["stdout", "stderr"]
STREAMS: tuple[Stream, Stream] = ("stdout", "stderr")
OutputCallback = Callable[[Stream, str], None]
StatusCallback = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class ProcessSpec:
    """Everything needed to run one process. ``argv`` is final (sandbox and limits already applied)."""

    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str]
    stdin: bytes = b""
    timeout_s: float | None = 30.0
    kill_grace_s: float = 1.0
    capture_bytes: int = DEFAULT_CAPTURE_BYTES
    redactor: Redactor = field(default_factory=Redactor)


@dataclass(frozen=True, slots=True)
class ProcessResult:
    """How a process ended. ``exit_code`` follows :mod:`subprocess`: negative for a signal, None if never started."""

    exit_code: int | None
    stdout: CapturedOutput
    stderr: CapturedOutput
    duration_s: float
    timed_out: bool = False
    cancelled: bool = False
    cancel_reason: str | None = None
    spawn_error: str | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.cancelled


# ---------------------------------------------------------------------------------------------------------------
# The process tree, as /proc shows it


@dataclass(frozen=True, slots=True)
class _ProcInfo:
    pid: int
    ppid: int
    pgrp: int
    state: str


def _read_stat(pid: int) -> _ProcInfo | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    # The command name is in parentheses and may itself contain spaces and parentheses.
    fields = raw[raw.rfind(b")") + 2 :].split()
    if len(fields) < 3:
        return None
    return _ProcInfo(pid, int(fields[1]), int(fields[2]), fields[0].decode("ascii", "replace"))


def _has_tag(pid: int, tag: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return tag in f.read().split(b"\0")
    except OSError:
        return False


def _live_tree(leader: int, pgid: int, tag: bytes | None) -> set[int]:
    """Live (non-zombie) processes that belong to the command: its group, its descendants, carriers of its tag."""
    infos: list[_ProcInfo] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return set()
    me = os.getpid()
    for name in names:
        if name.isdigit():
            info = _read_stat(int(name))
            if info is not None and info.pid != me:
                infos.append(info)
    children: dict[int, list[int]] = {}
    for info in infos:
        children.setdefault(info.ppid, []).append(info.pid)
    found = {leader}
    todo = [leader]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    alive = {i.pid for i in infos if i.state not in ("Z", "X")}
    found.update(i.pid for i in infos if i.pgrp == pgid)
    if tag is not None:
        found.update(i.pid for i in infos if i.pid not in found and i.pid in alive and _has_tag(i.pid, tag))
    return found & alive


def _signal_pids(pids: set[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


@dataclass(frozen=True, slots=True)
class _Tree:
    """A started command whose tree may still be alive, and the event loop that runs it."""

    leader: int
    pgid: int
    tag: bytes
    loop: asyncio.AbstractEventLoop


_TREES: dict[int, _Tree] = {}  # leader pid -> tree, from the start until the tree is known dead


def _kill_round(leader: int, pgid: int, tag: bytes) -> set[int]:
    """One SIGKILL round; the processes it found alive (none: the tree is gone)."""
    # Freeze first so nothing forks between the scan and the kill, then kill what the scan found.
    _signal_group(pgid, signal.SIGKILL)
    tree = _live_tree(leader, pgid, tag)
    if tree:
        _signal_pids(tree, signal.SIGSTOP)
        _signal_pids(_live_tree(leader, pgid, tag) | tree, signal.SIGKILL)
    return tree


def _kill_now(leader: int, pgid: int, tag: bytes) -> None:
    """SIGKILL until nothing of the tree is left, without awaiting (for a run whose task is being cancelled, and
    for the end of the process)."""
    for _round in range(KILL_ROUNDS):
        if not _kill_round(leader, pgid, tag):
            break
        time.sleep(KILL_ROUND_PAUSE_S)
    _TREES.pop(leader, None)


async def trees_ended(timeout_s: float) -> bool:
    """Wait until every process tree of this event loop is known dead, at most ``timeout_s``: after their runs were
    cancelled, their own kill (SIGTERM, grace, SIGKILL) ends them. False when some are left."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while any(t.loop is loop for t in list(_TREES.values())):  # list(): atomic against other threads' runs
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(GRACE_POLL_S)
    return True


def kill_trees(loop: asyncio.AbstractEventLoop) -> None:
    """Kill (SIGKILL) every process tree still listed for ``loop``, now: for when the loop no longer runs (the
    process is ending)."""
    for tree in [t for t in list(_TREES.values()) if t.loop is loop]:
        _kill_now(tree.leader, tree.pgid, tree.tag)


# ---------------------------------------------------------------------------------------------------------------
# Running


class _Streams:
    """The parent's ends of the three pipes, driven by the event loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        stdin_fd: int,
        data: bytes,
        out_fd: int,
        err_fd: int,
        captures: dict[Stream, StreamCapture],
        on_overflow: Callable[[Stream], None],
    ) -> None:
        self._loop = loop
        self._captures = captures
        self._on_overflow = on_overflow
        self._overflow_told: set[Stream] = set()
        self._fds: dict[Stream, int] = {"stdout": out_fd, "stderr": err_fd}
        self.eof: dict[Stream, asyncio.Future[None]] = {s: loop.create_future() for s in self._fds}
        self._enlarged: set[Stream] = set()
        for stream, fd in self._fds.items():
            os.set_blocking(fd, False)
            loop.add_reader(fd, self._readable, stream)
        self._stdin_fd: int | None = stdin_fd
        self._stdin = memoryview(data)
        self._stdin_pos = 0
        os.set_blocking(stdin_fd, False)
        self._write_stdin()
        if self._stdin_fd is not None:
            loop.add_writer(stdin_fd, self._write_stdin)

    def _readable(self, stream: Stream) -> None:
        fd = self._fds.get(stream)
        if fd is None:
            return
        try:
            data = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            if len(data) >= DEFAULT_PIPE_SIZE and stream not in self._enlarged:
                # A full default pipe: much output is coming; fewer, larger reads drain it faster.
                self._enlarged.add(stream)
                with contextlib.suppress(OSError):
                    fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
            capture = self._captures[stream]
            capture.feed(data)
            if capture.overflowed and stream not in self._overflow_told:
                self._overflow_told.add(stream)
                self._on_overflow(stream)
            return
        self._close_stream(stream)

    def _close_stream(self, stream: Stream) -> None:
        fd = self._fds.pop(stream, None)
        if fd is None:
            return
        self._loop.remove_reader(fd)
        os.close(fd)
        if not self.eof[stream].done():
            self.eof[stream].set_result(None)

    def _write_stdin(self) -> None:
        fd = self._stdin_fd
        if fd is None:
            return
        while self._stdin_pos < len(self._stdin):
            try:
                self._stdin_pos += os.write(fd, self._stdin[self._stdin_pos : self._stdin_pos + WRITE_CHUNK])
            except BlockingIOError:
                return  # the pipe is full; the loop calls again when the command reads
            except OSError:
                break  # EPIPE: the command closed its stdin or exited; the rest is not wanted
        self.close_stdin()

    def close_stdin(self) -> None:
        fd, self._stdin_fd = self._stdin_fd, None
        if fd is not None:
            self._loop.remove_writer(fd)
            os.close(fd)

    async def drain(self, timeout_s: float) -> bool:
        """Wait for end of file on both output pipes; False when someone still holds them after ``timeout_s``."""
        pending = [f for f in self.eof.values() if not f.done()]
        if not pending:
            return True
        _done, still = await asyncio.wait(pending, timeout=timeout_s)
        return not still

    def close(self) -> None:
        self.close_stdin()
        for stream in list(self._fds):
            # Read what is already buffered before giving up on a pipe someone else still holds.
            self._readable(stream)
            self._close_stream(stream)


class _ExitWatcher:
    """Resolves when the child has exited, without reaping it (pidfd; a poll as fallback)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, pid: int) -> None:
        self._loop = loop
        self._pid = pid
        self.exited: asyncio.Future[None] = loop.create_future()
        self._pidfd: int | None = None
        self._poller: asyncio.Task[None] | None = None
        try:
            self._pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self._poller = loop.create_task(self._poll())
        else:
            loop.add_reader(self._pidfd, self._on_exit)

    def _on_exit(self) -> None:
        # A pidfd stays readable once the process exited: stop watching it, or the loop would spin.
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
        if not self.exited.done():
            self.exited.set_result(None)

    async def _poll(self) -> None:
        while True:
            try:
                exited = os.waitid(os.P_PID, self._pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            except ChildProcessError:  # no such child any more: reaped already
                exited = True
            if exited:
                self._on_exit()
                return
            await asyncio.sleep(0.01)

    def close(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        if self._poller is not None:
            self._poller.cancel()


PR_SET_DUMPABLE = 4


@functools.lru_cache(maxsize=1)
def hide_own_environment() -> None:
    """Make this process non-dumpable (once): its ``/proc/PID`` files then belong to root, so that processes of
    the same user (the commands it runs) cannot read its environment. A no-op where ``prctl`` is not available."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


async def run_process(
    spec: ProcessSpec,
    control: RunControl | None = None,
    on_output: OutputCallback | None = None,
    on_status: StatusCallback | None = None,
) -> ProcessResult:
    """Run ``spec`` to its end, its deadline or the run's cancellation; never leaves a process behind on a kill."""
    loop = asyncio.get_running_loop()
    start = time.monotonic()
    hide_own_environment()
    # Both streams go through one redactor in arrival order; what it lets through is shown live and kept.
    live = StreamRedactor(spec.redactor)
    heads: dict[Stream, list[str]] = {s: [] for s in STREAMS}
    head_chars: dict[Stream, int] = {s: 0 for s in STREAMS}

    def emit(pieces: list[tuple[str, str]]) -> None:
        for label, text in pieces:
            stream: Stream = "stdout" if label == "stdout" else "stderr"
            heads[stream].append(text)
            if on_output is not None:
                on_output(stream, text)

    def head_text(stream: Stream) -> Callable[[str], None]:
        def forward(text: str) -> None:
            head_chars[stream] += len(text)
            emit(live.feed(stream, text))

        return forward

    half = spec.capture_bytes // 2
    captures: dict[Stream, StreamCapture] = {
        s: StreamCapture(half, spec.capture_bytes - half, head_text(s)) for s in STREAMS
    }
    if control is not None and control.cancelled:
        return _not_started(captures, start, cancelled=control.reason)
    tag = secrets.token_hex(12)
    env = {**spec.env, RUN_TAG_VARIABLE: tag}
    in_r, in_w = os.pipe2(os.O_CLOEXEC)
    out_r, out_w = os.pipe2(os.O_CLOEXEC)
    err_r, err_w = os.pipe2(os.O_CLOEXEC)
    try:
        proc = subprocess.Popen(
            list(spec.argv),
            stdin=in_r,
            stdout=out_w,
            stderr=err_w,
            cwd=spec.cwd,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        for fd in (in_r, in_w, out_r, out_w, err_r, err_w):
            os.close(fd)
        return _not_started(captures, start, error=f"cannot start {spec.argv[0]!r}: {exc}")
    finally:
        with contextlib.suppress(OSError):
            os.close(in_r)
            os.close(out_w)
            os.close(err_w)

    def overflow(stream: Stream) -> None:
        emit(live.cut())  # the live view of this stream ends here, maybe inside a secret
        if on_status is not None:
            on_status(f"{stream} is larger than {half} bytes: the rest is counted, its end kept")

    pgid = proc.pid
    tag_entry = f"{RUN_TAG_VARIABLE}={tag}".encode()
    _TREES[proc.pid] = _Tree(proc.pid, pgid, tag_entry, loop)
    streams = _Streams(loop, in_w, spec.stdin, out_r, err_r, captures, overflow)
    watcher = _ExitWatcher(loop, proc.pid)
    timed_out = False
    cancel_reason: str | None = None
    # One future settles the wait: the exit, the deadline or a cancel, whichever comes first.
    ended: asyncio.Future[str] = loop.create_future()

    def settle(why: str) -> None:
        if not ended.done():
            ended.set_result(why)

    watcher.exited.add_done_callback(lambda _f: settle("exit"))
    timer = loop.call_later(spec.timeout_s, settle, "timeout") if spec.timeout_s is not None else None
    unregister = control.on_cancel(lambda reason: settle("cancel:" + reason)) if control is not None else None
    finished = False
    try:
        why = await ended
        if why != "exit" and not watcher.exited.done():
            if why.startswith("cancel:"):
                cancel_reason = why.removeprefix("cancel:")
            else:
                timed_out = True
            await _kill_tree(proc.pid, pgid, tag_entry, watcher.exited, spec.kill_grace_s)
            _TREES.pop(proc.pid, None)  # dead: the server's end need not wait for the drain
            await streams.drain(DRAIN_AFTER_KILL_S)
        else:
            # Whatever the command left running ends with it (the pid is not reaped yet: no reuse): its group, and
            # what left the group (setsid) found by its run tag, whether or not it still holds the pipes.
            await _kill_tree(proc.pid, pgid, tag_entry, watcher.exited, 0.0)
            if not await streams.drain(DRAIN_AFTER_EXIT_S):
                await _kill_tree(proc.pid, pgid, tag_entry, watcher.exited, 0.0)
                await streams.drain(DRAIN_AFTER_KILL_S)
        finished = True
    finally:
        if timer is not None:
            timer.cancel()
        if unregister is not None:
            unregister()
        streams.close()
        watcher.close()
        if not finished:
            # This task was cancelled (or failed) before the tree was seen dead: kill it now, without awaiting, and
            # whether or not the child itself still lives (its grandchildren may; the child is not reaped yet).
            _kill_now(proc.pid, pgid, tag_entry)
        _TREES.pop(proc.pid, None)
        with contextlib.suppress(ChildProcessError):
            proc.wait()
    raw = {s: captures[s].finish() for s in STREAMS}
    emit(live.finish())
    kept = {s: _redacted(raw[s], "".join(heads[s]), head_chars[s], spec.redactor) for s in STREAMS}
    out, err = redact_pair(kept["stdout"], kept["stderr"], spec.redactor)
    return ProcessResult(
        exit_code=proc.returncode,
        stdout=out,
        stderr=err,
        duration_s=time.monotonic() - start,
        timed_out=timed_out,
        cancelled=cancel_reason is not None,
        cancel_reason=cancel_reason,
    )


async def _kill_tree(leader: int, pgid: int, tag: bytes, exited: asyncio.Future[None], grace_s: float) -> None:
    """SIGTERM to the tree, up to ``grace_s`` for the whole tree to end, then SIGKILL until nothing of it is left.
    Cancelled meanwhile, it kills the tree at once before it lets the cancellation through."""
    try:
        if grace_s > 0:
            tree = _live_tree(leader, pgid, tag)
            _signal_group(pgid, signal.SIGTERM)
            _signal_pids(tree, signal.SIGTERM)
            await _grace(leader, pgid, tag, exited, grace_s)
        for _round in range(KILL_ROUNDS):
            if not _kill_round(leader, pgid, tag):
                break
            await asyncio.sleep(KILL_ROUND_PAUSE_S)
    except asyncio.CancelledError:
        _kill_now(leader, pgid, tag)
        raise


async def _grace(leader: int, pgid: int, tag: bytes, exited: asyncio.Future[None], grace_s: float) -> None:
    """Wait up to ``grace_s`` for the tree to end after SIGTERM: the leader's exit, then the rest of the tree (a
    grandchild that handles SIGTERM gets its time to clean up even when its parent died at once)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace_s
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(asyncio.shield(exited), grace_s)
    while loop.time() < deadline and _live_tree(leader, pgid, tag):
        await asyncio.sleep(min(GRACE_POLL_S, max(0.0, deadline - loop.time())))


def _not_started(
    captures: dict[Stream, StreamCapture], start: float, *, error: str | None = None, cancelled: str | None = None
) -> ProcessResult:
    return ProcessResult(
        exit_code=None,
        stdout=captures["stdout"].finish(),
        stderr=captures["stderr"].finish(),
        duration_s=time.monotonic() - start,
        cancelled=cancelled is not None,
        cancel_reason=cancelled,
        spawn_error=error,
    )


def _redacted(raw: CapturedOutput, head: str, raw_head_chars: int, redactor: Redactor) -> CapturedOutput:
    """The kept output with secrets hidden: ``head`` is the live-redacted head; what came after it is redacted here.

    The switch from head to tail is a cut (the live view stopped there), and so is the dropped middle.
    """
    if not redactor:
        return raw
    if raw.omitted_bytes:
        return CapturedOutput(head, redactor.mask_start(raw.tail), raw.omitted_bytes, raw.total_bytes)
    rest = raw.head[raw_head_chars:]  # the tail, when nothing was dropped, follows the head in ``raw.head``
    return CapturedOutput(head + (redactor.mask_start(rest) if rest else ""), "", 0, raw.total_bytes)


def redact_pair(
    stdout: CapturedOutput, stderr: CapturedOutput, redactor: Redactor
) -> tuple[CapturedOutput, CapturedOutput]:
    """Hide a secret split between the end of stdout and the start of stderr (they are shown in that order)."""
    if not redactor:
        return stdout, stderr
    if stdout.omitted_bytes:
        end, tail = stdout.tail, True
    else:
        end, tail = stdout.head, False
    start = stderr.head
    new_end, new_start = redactor.redact_joined(end, start)
    if (new_end, new_start) == (end, start):
        return stdout, stderr
    out = replace(stdout, tail=new_end) if tail else replace(stdout, head=new_end)
    return out, replace(stderr, head=new_start)
