"""Opening a workspace file so that what is read is what was checked (README, "Evidence").

Opening a judged path again by name would follow whatever it leads to *then*: a file, or a folder on its way, swapped
for a symlink in between. So :class:`Opener` walks the resolved path from the root one component at a time with
``O_NOFOLLOW`` (``openat``), ``lstat``-s the file first (only a regular file is opened, so a FIFO never blocks) and
verifies the descriptor: the file ``lstat`` saw, one hard link (its other names cannot be judged), and inside the root
where the kernel says it lies (``/proc/self/fd``, ``F_GETPATH``: a folder moved out while it was walked). A symlink
met on the way is refused as ``not_found``, never followed. Without ``dir_fd`` (Windows) the file is opened by name and
verified after: the race window narrowed, not closed.

Standard library only, no council imports: the search child (:mod:`council.evidence.regex_worker`, ``python -I -S``)
loads this file by its path.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

CHANGED = "the path changed while it was opened"
READ = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOINHERIT", 0)
WALKS = (os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")
         and hasattr(os, "O_DIRECTORY"))
FOLDER = READ | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
FILE = READ | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
LINKED = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)  # what O_NOFOLLOW / O_DIRECTORY say of a symlink


class Refused(Exception):
    """Why a path was not opened: ``code`` is an evidence refusal (``not_found``, ``not_a_file``, ``hard_link``,
    ``outside_workspace``), ``detail`` says more."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code, detail)
        self.code, self.detail = code, detail


class Opener:
    """Opens regular files under one root (as the check resolved them, relative to it). It keeps the folders of the
    last file open for the next one (a search opens many files in few folders); close it, or use ``with``."""

    def __init__(self, root: str | bytes) -> None:
        self.root = os.fsencode(root).rstrip(b"/") or b"/"
        self._folders: list[tuple[bytes, int]] = []  # the open chain below the root: (name, descriptor)
        self._root_fd: int | None = None
        self._root_where: bytes | None = None  # where the kernel says the root lies (its spelling, e.g. its case)

    def __enter__(self) -> Opener:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._drop(0)
        if self._root_fd is not None:
            os.close(self._root_fd)
            self._root_fd = None

    def open(self, rel: str | bytes) -> tuple[int, os.stat_result]:
        """A read-only descriptor of the regular file ``rel`` names and its ``fstat`` (the caller closes it), or
        :class:`Refused`; other ``OSError`` (no permission …) pass through."""
        parts = [p for p in os.fsencode(rel).replace(b"\\", b"/").split(b"/") if p]
        if not parts:
            raise Refused("not_a_file")
        if any(p in (b".", b"..") for p in parts):
            raise Refused("outside_workspace")
        fd, seen = self._walk(parts) if WALKS else self._by_name(parts)
        try:  # the descriptor is of the file lstat saw, still regular with one name, and inside the root
            now = os.fstat(fd)
            _judge(now)
            if (now.st_dev, now.st_ino) != (seen.st_dev, seen.st_ino):
                raise Refused("not_found", CHANGED)
            if WALKS:
                where = _where(fd)
                if where is not None and self._root_where is not None and not self._inside(where):
                    raise Refused("outside_workspace", CHANGED)
            elif not self._same(os.path.join(self.root, *parts)):
                raise Refused("not_found", CHANGED)
        except BaseException:
            os.close(fd)
            raise
        return fd, now

    def _walk(self, parts: list[bytes]) -> tuple[int, os.stat_result]:
        folder = self._folder(parts[:-1])
        try:
            seen = os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
            _judge(seen)
            return os.open(parts[-1], FILE, dir_fd=folder), seen
        except OSError as exc:
            raise _refusal(exc) from exc

    def _folder(self, names: list[bytes]) -> int:
        """The descriptor of the folder ``names`` below the root, each opened without following a link."""
        if self._root_fd is None:
            self._root_fd = os.open(self.root, READ | os.O_DIRECTORY)
            self._root_where = _where(self._root_fd)
        kept = 0
        while kept < min(len(names), len(self._folders)) and self._folders[kept][0] == names[kept]:
            kept += 1
        self._drop(kept)
        for name in names[kept:]:
            parent = self._folders[-1][1] if self._folders else self._root_fd
            try:
                self._folders.append((name, os.open(name, FOLDER, dir_fd=parent)))
            except OSError as exc:
                raise _refusal(exc) from exc
        return self._folders[-1][1] if self._folders else self._root_fd

    def _drop(self, keep: int) -> None:
        while len(self._folders) > keep:
            os.close(self._folders.pop()[1])

    def _by_name(self, parts: list[bytes]) -> tuple[int, os.stat_result]:
        path = os.path.join(self.root, *parts)
        try:
            if not self._same(path):
                raise Refused("not_found", CHANGED)
            seen = os.lstat(path)
            _judge(seen)
            return os.open(path, READ), seen
        except OSError as exc:
            raise _refusal(exc) from exc

    @staticmethod
    def _same(path: bytes) -> bool:
        """Whether ``path`` leads where it says (no link on the way)."""
        return os.path.normcase(os.path.realpath(path)) == os.path.normcase(path)

    def _inside(self, path: bytes) -> bool:
        root = self._root_where or self.root
        return root == b"/" or path.startswith(root + b"/")


def _judge(st: os.stat_result) -> None:
    """Only a regular file with one name may be read."""
    if stat.S_ISLNK(st.st_mode):
        raise Refused("not_found", CHANGED)
    if stat.S_ISDIR(st.st_mode):
        raise Refused("not_a_file")
    if not stat.S_ISREG(st.st_mode):
        raise Refused("not_found", "not a regular file")
    if st.st_nlink > 1:
        raise Refused("hard_link", f"{st.st_nlink} hard links")


def _refusal(exc: OSError) -> Refused:
    """The refusal for a path gone or turned into a link since the check; any other error is raised as it is."""
    if exc.errno == errno.ENOENT or exc.errno in LINKED:
        return Refused("not_found", CHANGED)
    raise exc


def _where(fd: int) -> bytes | None:
    """Where the kernel says the descriptor's file lies (None where it cannot say)."""
    try:
        if sys.platform.startswith("linux"):
            return os.readlink(b"/proc/self/fd/%d" % fd)
        import fcntl
        if hasattr(fcntl, "F_GETPATH"):
            return fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024)).split(b"\0", 1)[0]
    except OSError:
        return None
    return None
