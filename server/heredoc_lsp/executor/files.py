"""File operations of an inbox reply, confined to the workspace (docs/formats.md).

Every operation checks its path twice:

1. the text, with :func:`heredoc_lsp.syntax.paths.check_path_text` (absolute paths, drives, ``~``, ``..``...);
2. right before the operation, the real path: symlinks resolved (for a file that does not exist yet, through its
   existing parents) must stay inside the workspace's real path, and a write (CREATE_FILE, EDIT_FILE,
   DELETE_FILE) must not touch a protected path (:mod:`heredoc_lsp.syntax.protected`), neither as written nor
   where it really leads (``x -> .git`` makes ``x/hooks/pre-commit`` protected). Protected names are checked
   before any missing parent folder is created; a ``pyproject.toml``'s table is compared on the file's text read
   through the same descriptor that the write then uses.

The operation itself then walks the resolved path from an open descriptor of the workspace root, one component at
a time with ``O_NOFOLLOW``, creating missing directories on the way, and acts relative to the final directory's
descriptor. A symlink swapped in after the check is therefore refused instead of followed, and a write replaces
the directory entry by ``rename`` (atomic: the file is either old or new), never writing through a link. Modes
of existing files are kept.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from heredoc_lsp.analysis.workspace import MAX_EDIT_BYTES, count_lines_fd, too_large_message
from heredoc_lsp.executor.environment import Redactor
from heredoc_lsp.fs import TreeWalk
from heredoc_lsp.syntax.paths import check_path_text, display_path, normalize_relative
from heredoc_lsp.syntax.protected import (
    ProtectedPath,
    check_edit,
    check_protected,
    is_pyproject,
    protected_reason,
)
from heredoc_lsp.syntax.text import split_lines, split_lines_keepends, trim

DEFAULT_READ_CHARS = 100_000
BINARY_SNIFF_BYTES = 8192
TEMP_SUFFIX = ".heredoc-lsp.tmp"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class FileOpError(Exception):
    """A file operation that did not happen. ``str(exc)`` is the result summary in the seed's wording."""

    def __init__(self, summary: str, *, rejected: bool = False, not_found: bool = False, detail: str = "") -> None:
        super().__init__(summary)
        self.summary = summary
        self.rejected = rejected
        self.not_found = not_found
        self.detail = detail  # more lines for the result's output (what a stale EDIT_FILE found instead)


def _rejected(message: str) -> FileOpError:
    return FileOpError(f"REJECTED: {message}", rejected=True)


@dataclass(frozen=True, slots=True)
class FileContents:
    """What READ_FILE puts into the next outbox."""

    path: str
    text: str
    size: int
    binary: bool = False
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class FileState:
    """A file's bytes and permission bits, as undo keeps and restores them."""

    data: bytes
    mode: int


@dataclass(frozen=True, slots=True)
class WorkspaceFile:
    path: str  # relative, POSIX separators
    size: int


class Workspace:
    """A directory that inbox commands may change, and nothing outside it.

    ``protected`` names relative directories that replies may not touch (the agent's own inbox, outbox and
    session folders when they live inside the workspace).
    """

    def __init__(self, root: Path | str, protected: Sequence[str] = ()) -> None:
        self.root = Path(os.path.realpath(root))
        if not self.root.is_dir():
            raise FileOpError(f"Workspace '{root}' is not a directory")
        self.protected = tuple(p.strip("/") for p in protected if p.strip("/"))

    # -- phase 1 and 2 ------------------------------------------------------------------------------------------

    def resolve(self, path: str) -> list[str]:
        """The components of ``path``'s real location relative to the root; :class:`FileOpError` when refused."""
        problem = check_path_text(path)
        if problem is not None:
            raise _rejected(problem.message)
        shown = display_path(path)
        real = os.path.realpath(os.path.join(self.root, normalize_relative(path)))
        root = str(self.root)
        if real == root:
            raise _rejected(f"Path '{shown}' names the workspace root")
        if not real.startswith(root.rstrip(os.sep) + os.sep):
            raise _rejected(f"Path '{shown}' is outside workspace: it resolves to '{real}' through a symbolic link")
        parts = os.path.relpath(real, root).split(os.sep)
        for protected in self.protected:
            top = protected.split("/")
            if parts[: len(top)] == top:
                raise _rejected(f"Path '{shown}' is inside '{protected}/', which is reserved for heredoc-lsp")
        return parts

    @contextlib.contextmanager
    def _parent(self, path: str, parts: list[str], *, create: bool) -> Iterator[int]:
        """An open descriptor of the directory that holds ``parts[-1]``, reached without following any link."""
        fd = os.open(self.root, _DIR_FLAGS)
        try:
            for i, name in enumerate(parts[:-1]):
                try:
                    nfd = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise FileOpError(f"File '{display_path(path)}' not found", not_found=True) from None
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, 0o777, dir_fd=fd)
                    nfd = self._open_component(path, parts, i, fd)
                except OSError as exc:
                    raise self._component_error(path, parts, i, exc, fd) from None
                os.close(fd)
                fd = nfd
            yield fd
        finally:
            os.close(fd)

    def _open_component(self, path: str, parts: list[str], i: int, fd: int) -> int:
        try:
            return os.open(parts[i], _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
        except OSError as exc:
            raise self._component_error(path, parts, i, exc, fd) from None

    def _component_error(self, path: str, parts: list[str], i: int, exc: OSError, dir_fd: int) -> FileOpError:
        where = "/".join(parts[: i + 1])
        st = _lstat(dir_fd, parts[i]) if exc.errno == errno.ENOTDIR else None
        if exc.errno in (errno.ELOOP, errno.EMLINK) or (st is not None and stat.S_ISLNK(st.st_mode)):
            return _rejected(f"Path '{display_path(path)}' changed during the operation ('{where}' became a link)")
        if exc.errno == errno.ENOTDIR:
            return FileOpError(f"Cannot use '{display_path(path)}': '{where}' is not a directory")
        return FileOpError(f"Cannot use '{display_path(path)}': {exc.strerror}")

    # -- operations ---------------------------------------------------------------------------------------------

    def create_file(self, path: str, content: str) -> str:
        """CREATE_FILE: write ``content`` (parents created), atomically. Returns the summary."""
        with _as_file_error(path, "write"):
            return self._create_file(path, content)

    def edit_file(
        self,
        path: str,
        start_line: int,
        end_line: int,
        body: str,
        max_edit_bytes: int = MAX_EDIT_BYTES,
        expect: Mapping[str, str] | None = None,
    ) -> str:
        """EDIT_FILE: replace lines ``start_line..end_line`` (1-based, inclusive); line endings are kept.

        A file larger than ``max_edit_bytes`` is refused before anything is read (editing holds it in memory).
        ``expect``: the command's attributes; its ``start_text``/``end_text`` must match (:func:`stale_edit`).
        """
        with _as_file_error(path, "edit"):
            return self._edit_file(path, start_line, end_line, body, max_edit_bytes, expect or {})

    def delete_file(self, path: str) -> str:
        """DELETE_FILE. Returns the summary."""
        with _as_file_error(path, "delete"):
            return self._delete_file(path)

    def read_file(
        self, path: str, max_chars: int = DEFAULT_READ_CHARS, redactor: Redactor | None = None
    ) -> FileContents:
        """READ_FILE: the text (capped at ``max_chars``, secret values hidden) or a binary notice."""
        with _as_file_error(path, "read"):
            return self._read_file(path, max_chars, redactor or Redactor())

    def check_write(self, path: str) -> None:
        """:class:`FileOpError` when a reply may not write ``path`` (outside the workspace, protected by name)."""
        with _as_file_error(path, "write"):
            self._resolve_for_write(path)

    def _resolve_for_write(self, path: str) -> list[str]:
        """:meth:`resolve`, refusing a protected path (by name) as written and where links lead, before any change."""
        if check_path_text(path) is None:
            _refuse_named(path, normalize_relative(path))
        parts = self.resolve(path)
        _refuse_named(path, "/".join(parts))
        return parts

    def _create_file(self, path: str, content: str) -> str:
        """CREATE_FILE: write ``content`` (parents created), atomically. Returns the summary."""
        parts = self._resolve_for_write(path)
        data = _encode(path, content)
        with self._parent(path, parts, create=True) as dir_fd:
            existing = _replaceable(dir_fd, parts[-1], path)
            config_rel = _pyproject_rel(path, parts)
            if config_rel is not None:
                before = None if existing is None else _read_text(dir_fd, parts[-1], path)
                _refuse_protected(path, check_protected(config_rel, before, content))
            _write_atomic(dir_fd, parts[-1], data, existing)
        shown = display_path(path)
        return f"Created '{shown}'" if existing is None else f"Created '{shown}' (replaced the existing file)"

    def _edit_file(
        self, path: str, start_line: int, end_line: int, body: str, max_edit_bytes: int, expect: Mapping[str, str]
    ) -> str:
        """EDIT_FILE: replace lines ``start_line..end_line`` (1-based, inclusive); line endings are kept."""
        parts = self._resolve_for_write(path)
        shown = display_path(path)
        with self._parent(path, parts, create=False) as dir_fd:
            existing = _found(dir_fd, parts[-1], path)
            raw = _read_all(dir_fd, parts[-1], path, limit=max_edit_bytes)
            if b"\0" in raw[:BINARY_SNIFF_BYTES]:
                raise FileOpError(f"File '{shown}' is binary; EDIT_FILE changes text files only")
            text = raw.decode("utf-8", "surrogateescape")
            config_rel = _pyproject_rel(path, parts)
            if config_rel is not None:
                _refuse_protected(path, check_edit(config_rel, text, start_line, end_line, body))
            stale = stale_edit(text, start_line, end_line, expect, shown)
            if stale is not None:
                raise stale
            new_text, count = replace_lines(text, start_line, end_line, body, shown)
            _write_atomic(dir_fd, parts[-1], new_text.encode("utf-8", "surrogateescape"), existing)
        new_lines = len(split_lines(body)) if body else 0
        span = f"line {start_line}" if start_line == end_line else f"lines {start_line}-{end_line}"
        what = "deleted" if new_lines == 0 else f"replaced with {new_lines} line{'s' if new_lines != 1 else ''}"
        return f"Edited '{shown}': {span} {what} (now {count} lines)"

    def _delete_file(self, path: str) -> str:
        parts = self._resolve_for_write(path)
        shown = display_path(path)
        with self._parent(path, parts, create=False) as dir_fd:
            existing = _found(dir_fd, parts[-1], path, regular=False)
            if stat.S_ISDIR(existing.st_mode):
                raise FileOpError(f"'{shown}' is a directory; DELETE_FILE deletes files only")
            config_rel = _pyproject_rel(path, parts)
            if config_rel is not None and stat.S_ISREG(existing.st_mode):
                _refuse_protected(path, check_protected(config_rel, _read_text(dir_fd, parts[-1], path)))
            try:
                os.unlink(parts[-1], dir_fd=dir_fd)
            except FileNotFoundError:
                raise FileOpError(f"File '{shown}' not found", not_found=True) from None
        return f"Deleted '{shown}'"

    def _read_file(self, path: str, max_chars: int, redactor: Redactor) -> FileContents:
        """READ_FILE: at most about ``4 * max_chars`` bytes are read, whatever the file's size (from fstat)."""
        parts = self.resolve(path)
        with self._parent(path, parts, create=False) as dir_fd:
            _found(dir_fd, parts[-1], path)
            # A character is at most 4 bytes: this much is enough to fill the cap.
            raw, size = _read_prefix(dir_fd, parts[-1], path, 4 * max_chars + 4)
        if b"\0" in raw[:BINARY_SNIFF_BYTES]:
            return FileContents(normalize_relative(path), f"(binary file, {size} bytes)", size, binary=True)
        text = raw.decode("utf-8", "replace")
        if len(raw) < size and text.endswith("\ufffd"):
            text = text.rstrip("\ufffd")  # a character cut by the read limit, not a bad byte
        truncated = len(raw) < size or len(text) > max_chars
        if truncated:
            text = text[:max_chars]
            kept = len(text)
            # The cap may cut a secret in two: its beginning at the end is hidden too.
            text = redactor.mask_end(text)
            text += f"\n[... truncated: showing the first {kept} characters of {size} bytes ...]"
        else:
            text = redactor.redact(text)
        return FileContents(normalize_relative(path), text, size, truncated=truncated)

    def file_state(self, path: str, limit: int = MAX_EDIT_BYTES) -> FileState | None:
        """The bytes and mode of an existing regular file (None when there is none), read without following links.

        :class:`FileOpError` for a refused path, a directory or special file, or a file larger than ``limit``."""
        with _as_file_error(path, "read"):
            parts = self.resolve(path)
            try:
                with self._parent(path, parts, create=False) as dir_fd:
                    existing = _found(dir_fd, parts[-1], path)
                    return FileState(_read_all(dir_fd, parts[-1], path, limit=limit), stat.S_IMODE(existing.st_mode))
            except FileOpError as exc:
                if exc.not_found:
                    return None
                raise

    def restore_file(self, path: str, data: bytes, mode: int) -> None:
        """Write ``data`` with ``mode`` at ``path`` atomically (undo), under the same checks as CREATE_FILE."""
        with _as_file_error(path, "write"):
            parts = self._resolve_for_write(path)
            with self._parent(path, parts, create=True) as dir_fd:
                existing = _replaceable(dir_fd, parts[-1], path)
                _write_atomic(dir_fd, parts[-1], data, existing, mode=mode)

    def exists(self, path: str) -> bool:
        """True when ``path`` is an existing file inside the workspace (False when refused)."""
        try:
            parts = self.resolve(path)
        except FileOpError:
            return False
        return os.path.isfile(os.path.join(self.root, *parts))

    def line_count(self, path: str, max_bytes: int = MAX_EDIT_BYTES) -> int | None:
        """Number of lines of an existing file (for range checks), counted in chunks; None when it cannot be read
        or is larger than ``max_bytes``."""
        try:
            parts = self.resolve(path)
            with self._parent(path, parts, create=False) as dir_fd:
                fd = _open_regular(dir_fd, parts[-1], path)
                try:
                    if os.fstat(fd).st_size > max_bytes:
                        return None
                    return count_lines_fd(fd)
                finally:
                    os.close(fd)
        except (FileOpError, OSError):
            return None

    def list_files(self, limit: int = 1000) -> tuple[list[WorkspaceFile], int]:
        """Files under the root (no links followed, hidden VCS folders and temporaries skipped), and how many more
        (:class:`heredoc_lsp.fs.TreeWalk`: iterative, bounded depth and size)."""
        found: list[WorkspaceFile] = []
        more = 0
        skip_dirs = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv"}
        walk = TreeWalk(self.root, "")
        for entry, rel_dir in walk:
            name = entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if name not in skip_dirs and f"{rel_dir}{name}" not in self.protected:
                    walk.enter(entry, f"{rel_dir}{name}/")
                continue
            if name.endswith(TEMP_SUFFIX):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            if len(found) < limit:
                found.append(WorkspaceFile(rel_dir + name, st.st_size))
            else:
                more += 1
        found.sort(key=lambda f: f.path)
        return found, more


# ---------------------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _as_file_error(path: str, verb: str) -> Iterator[None]:
    """Any other OS error (a folder removed or swapped meanwhile, no space, no permission) as a FAILED result."""
    try:
        yield
    except OSError as exc:
        raise FileOpError(f"Cannot {verb} '{display_path(path)}': {exc.strerror or exc}") from None


def _refuse_protected(path: str, problem: ProtectedPath | None) -> None:
    """A protected path is a FAILED result (``protected_path``), naming the real location when a link leads there."""
    if problem is None:
        return
    shown = display_path(path)
    if normalize_relative(path) == problem.path:
        raise FileOpError(problem.message)
    raise FileOpError(f"Path '{shown}' leads to '{problem.path}', which is protected: {problem.reason}")


def _refuse_named(path: str, rel: str) -> None:
    why = protected_reason(rel)
    if why is not None:
        _refuse_protected(path, ProtectedPath(rel, why))


def _pyproject_rel(path: str, parts: list[str]) -> str | None:
    """The pyproject.toml that a write changes (named as written, or the real file), else None."""
    real = "/".join(parts)
    if is_pyproject(real):
        return real
    written = normalize_relative(path)
    return written if is_pyproject(written) else None


def _read_text(dir_fd: int, name: str, path: str) -> str:
    return _read_all(dir_fd, name, path, limit=MAX_EDIT_BYTES).decode("utf-8", "surrogateescape")


def _encode(path: str, content: str) -> bytes:
    try:
        return content.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise FileOpError(f"Cannot write '{display_path(path)}': {exc.reason}") from None


def _lstat(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _found(dir_fd: int, name: str, path: str, regular: bool = True) -> os.stat_result:
    """The entry ``name`` of ``path``'s folder, which must exist (and be a regular file when ``regular``)."""
    existing = _lstat(dir_fd, name)
    if existing is None:
        raise FileOpError(f"File '{display_path(path)}' not found", not_found=True)
    if regular and not stat.S_ISREG(existing.st_mode):
        raise _not_a_file(path, existing)
    return existing


def _replaceable(dir_fd: int, name: str, path: str) -> os.stat_result | None:
    """The regular file ``name`` a write would replace (None: there is none); anything else is refused."""
    existing = _lstat(dir_fd, name)
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        raise _not_a_file(path, existing)
    return existing


def _not_a_file(path: str, st: os.stat_result) -> FileOpError:
    shown = display_path(path)
    if stat.S_ISDIR(st.st_mode):
        return FileOpError(f"'{shown}' is a directory")
    if stat.S_ISLNK(st.st_mode):
        return _rejected(f"Path '{shown}' changed during the operation (it became a link)")
    return FileOpError(f"'{shown}' is not a regular file")


def _open_regular(dir_fd: int, name: str, path: str) -> int:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
    except FileNotFoundError:
        raise FileOpError(f"File '{display_path(path)}' not found", not_found=True) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _rejected(f"Path '{display_path(path)}' changed during the operation (it became a link)") from None
        raise FileOpError(f"Cannot read '{display_path(path)}': {exc.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise FileOpError(f"'{display_path(path)}' is not a regular file")
    return fd


def _read_all(dir_fd: int, name: str, path: str, *, limit: int) -> bytes:
    """The whole file, when it is at most ``limit`` bytes (by fstat, and by what is read: it may grow meanwhile)."""
    fd = _open_regular(dir_fd, name, path)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise FileOpError(too_large_message(display_path(path), size, limit))
        chunks: list[bytes] = []
        got = 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - got)):
            chunks.append(chunk)
            got += len(chunk)
            if got > limit:
                raise FileOpError(too_large_message(display_path(path), max(size, got), limit))
        return b"".join(chunks)
    finally:
        os.close(fd)


def _read_prefix(dir_fd: int, name: str, path: str, limit: int) -> tuple[bytes, int]:
    fd = _open_regular(dir_fd, name, path)
    try:
        size = os.fstat(fd).st_size
        chunks: list[bytes] = []
        got = 0
        while got < limit and (chunk := os.read(fd, min(1 << 20, limit - got))):
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks), max(size, got)
    finally:
        os.close(fd)


def _write_atomic(
    dir_fd: int, name: str, data: bytes, existing: os.stat_result | None, *, mode: int | None = None
) -> None:
    """Write a temporary file next to ``name`` and rename it over ``name``: readers see the old or the new file.

    The new file gets ``mode`` when given, else the existing file's."""
    stem = name if len(name) <= 180 else name[:180]
    tmp = f".{stem}.{secrets.token_hex(6)}{TEMP_SUFFIX}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if mode is not None:
                os.fchmod(fd, mode)
            elif existing is not None:
                os.fchmod(fd, stat.S_IMODE(existing.st_mode))
            if existing is not None and os.geteuid() == 0 and (existing.st_uid, existing.st_gid) != (0, 0):
                os.fchown(fd, existing.st_uid, existing.st_gid)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)


def replace_lines(text: str, start: int, end: int, body: str, shown: str) -> tuple[str, int]:
    """``text`` with lines ``start..end`` replaced by ``body``'s lines, keeping line endings and the final newline."""
    lines = split_lines_keepends(text)
    if end > len(lines) or start < 1 or end < start:
        count = len(lines)
        raise FileOpError(
            f"Line range {start}-{end} is beyond the end of '{shown}' ({count} line{'s' if count != 1 else ''})"
        )
    eol = _line_ending(lines)
    final_newline = bool(lines) and lines[-1].endswith(("\n", "\r"))
    new_lines = [line + eol for line in split_lines(body)] if body else []
    result = lines[: start - 1] + new_lines + lines[end:]
    if result:
        last = result[-1]
        stripped = last.rstrip("\r\n") if last.endswith(("\n", "\r")) else last
        if final_newline and stripped == last:
            result[-1] = last + eol
        elif not final_newline and stripped != last:
            result[-1] = stripped
    return "".join(result), len(result)


#: EDIT_FILE attributes naming the text the edit expects at its first and last line (see docs/running.md).
EXPECT_ATTRS = (("start_text", "start_line"), ("end_text", "end_line"))
_CONTEXT_LINES = 2


def stale_edit(text: str, start: int, end: int, expect: Mapping[str, str], shown: str) -> FileOpError | None:
    """The failure of an EDIT_FILE whose ``start_text``/``end_text`` is not what lines ``start``/``end`` of ``text``
    hold (compared trimmed of blanks at both ends), or None. Its detail shows the lines around the range as they are."""
    lines = split_lines(text)
    for attr, which in EXPECT_ATTRS:
        wanted = expect.get(attr)
        number = start if which == "start_line" else end
        if wanted is None or number > len(lines):
            continue
        found = lines[number - 1]
        if trim(found) == trim(wanted):
            continue
        first = max(1, start - _CONTEXT_LINES)
        last = min(len(lines), end + _CONTEXT_LINES)
        detail = "\n".join(f"{k:>5}: {lines[k - 1]}" for k in range(first, last + 1))
        return FileOpError(
            f"Line {number} of '{shown}' is '{trim(found)}', not the expected {attr} '{trim(wanted)}': the file "
            f"is not as the edit expects, so nothing was changed (lines {first}-{last} as they are now are below)",
            detail=f"Lines {first}-{last} of '{shown}' now:\n{detail}",
        )
    return None


def _line_ending(lines: list[str]) -> str:
    """The file's line ending: that of its first terminated line (``\\n`` for a file without any)."""
    for line in lines:
        if line.endswith("\r\n"):
            return "\r\n"
        if line.endswith("\n"):
            return "\n"
        if line.endswith("\r"):
            return "\r"
    return "\n"


def atomic_write_text(path: Path, text: str) -> None:
    """Write heredoc-lsp's own files (outboxes, sessions) atomically: a temporary file renamed over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.parent, _DIR_FLAGS)
    try:
        existing = _lstat(fd, path.name)
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            existing = None
        _write_atomic(fd, path.name, text.encode("utf-8", "surrogateescape"), existing)
    finally:
        os.close(fd)
