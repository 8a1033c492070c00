"""File primitives of the review inbox that never overwrite, never block and never read more than a limit.

:func:`move_new` renames without replacing (Linux ``renameat2(RENAME_NOREPLACE)``: one atomic step; elsewhere a hard
link then an unlink): Python's ``os.rename`` replaces a target silently and ``os.link`` alone cannot move a folder,
so this is hand-written over libc. Temp files are hidden, named ``.council-tmp-<pid>-<n>`` (never ``*.json``, so
never taken for a request).
"""

from __future__ import annotations

import ctypes
import errno
import itertools
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

from council.errors import validation_error

NAME_MAX = 255  # bytes in one file name (ext4, xfs, btrfs, tmpfs, APFS)
TEMP_PREFIX = ".council-tmp-"
# ours, and the earlier writer's ``.<name>.json.<pid>.<ns>.tmp`` that a kill -9 may have left before an upgrade
TEMP_NAME = re.compile(r"^\.council-tmp-[0-9]+-[0-9]+$|^\..+\.json\.[0-9]+\.[0-9]+\.tmp$")
_counter = itertools.count()

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1


def _renameat2() -> Any:
    """libc's ``renameat2`` (glibc ≥ 2.28, Linux ≥ 3.15), or None where it does not exist."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_RENAMEAT2 = _renameat2()


def move_new(src: Path, dst: Path) -> None:
    """Rename ``src`` to ``dst`` unless ``dst`` exists (``FileExistsError``; ``src`` is then left where it was)."""
    if _RENAMEAT2 is not None:
        if _RENAMEAT2(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_NOREPLACE) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS):  # EINVAL/ENOSYS: the file system lacks the flag
            raise OSError(err, os.strerror(err), str(src), None, str(dst))
    if os.path.isdir(src) and not os.path.islink(src):
        if os.path.lexists(dst):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(dst))
        os.rename(src, dst)  # a folder cannot be hard-linked; only this watcher writes here (it holds the lock)
        return
    os.link(src, dst, follow_symlinks=False)  # FileExistsError when taken
    os.unlink(src)


def write_new(path: Path, data: dict[str, Any]) -> None:
    """Write JSON to ``path``, which must not exist (``FileExistsError``): readers see no file or the whole one."""
    body = json_bytes(data)
    tmp = path.with_name(f"{TEMP_PREFIX}{os.getpid()}-{next(_counter)}")
    try:
        with open(tmp, "xb") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        move_new(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    sync_dir(path.parent)


def json_bytes(data: dict[str, Any]) -> bytes:
    """Indented UTF-8 JSON; text that UTF-8 cannot carry (a lone surrogate a model or a name brought in) is written
    as its ``\\u`` escape instead of failing the write, and values JSON lacks as their ``str``."""
    try:
        return (json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(data, ensure_ascii=True, indent=2, default=str) + "\n").encode("ascii")


def sync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_temp_files(folder: Path) -> list[str]:
    """Delete the temp files :func:`write_new` left in ``folder`` (call it only while holding the folder's lock)."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return removed
    for entry in entries:
        if TEMP_NAME.match(entry.name) and not entry.is_dir(follow_symlinks=False):
            try:
                os.unlink(entry.path)
                removed.append(entry.name)
            except FileNotFoundError:
                pass
    return removed


def read_request_file(path: Path | str, limit: int, *, stream_ok: bool = False) -> bytes:
    """The bytes of the regular file at ``path``, checked by ``fstat`` on a descriptor opened ``O_NONBLOCK |
    O_NOFOLLOW``: a link, FIFO, folder, socket or device, a file over ``limit`` (by its size, before it is read; one
    that grows meanwhile after limit + 1 bytes), or one that cannot be opened is a validation ``CouncilError``
    (``details.reason`` says which); ``FileNotFoundError`` when nothing is there. Never blocks. With ``stream_ok``
    (``council review FILE|-``): ``-`` is stdin, links are followed, a FIFO is read as a stream (``council review
    <(…)``), and any ``OSError`` is a validation error naming the file."""
    if stream_ok:
        try:
            if path == "-":
                return read_at_most(sys.stdin.fileno(), limit)
            return _read_open(os.open(path, os.O_RDONLY | os.O_NOCTTY), limit, regular_only=False)
        except OSError as exc:
            raise validation_error(f"cannot read {path}: {exc.strerror}", file=str(path)) from None
    try:
        before = os.lstat(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise validation_error(f"the file cannot be read: {exc.strerror}", reason="unreadable") from None
    if not stat.S_ISREG(before.st_mode):
        raise _not_regular(before.st_mode)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # it became a symbolic link since the lstat
            raise _not_regular(stat.S_IFLNK) from None
        raise validation_error(f"the file cannot be read: {exc.strerror}", reason="unreadable") from None
    return _read_open(fd, limit, regular_only=True)


def _read_open(fd: int, limit: int, *, regular_only: bool) -> bytes:
    try:
        st = os.fstat(fd)
        if regular_only and not stat.S_ISREG(st.st_mode):
            raise _not_regular(st.st_mode)
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise too_large(limit, st.st_size)
        return read_at_most(fd, limit)
    finally:
        os.close(fd)


def read_at_most(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes from ``fd``; more is a ``too_large`` validation error (the rest is never read)."""
    chunks, size = [], 0
    while size <= limit:
        try:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        except BlockingIOError:  # a non-blocking descriptor with nothing to read yet
            raise validation_error("the file is not a regular file", reason="not_regular", kind="fifo") from None
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise too_large(limit, None)
    return b"".join(chunks)


def too_large(limit: int, size: int | None):
    details: dict[str, Any] = {"reason": "too_large", "limit": limit}
    if size is not None:
        details["size"] = size
    return validation_error(f"the file is larger than {limit // (1024 * 1024)} MiB", **details)


def _not_regular(mode: int):
    kinds = {stat.S_IFLNK: "symlink", stat.S_IFIFO: "fifo", stat.S_IFDIR: "directory", stat.S_IFSOCK: "socket",
             stat.S_IFCHR: "character device", stat.S_IFBLK: "block device"}
    kind = kinds.get(stat.S_IFMT(mode), "special file")
    return validation_error(f"not a regular file but a {kind}: drop a JSON file (write it elsewhere, then rename "
                            "it in)", reason="not_regular", kind=kind)


def fit_name(stem: str, suffix: str) -> str:
    """``stem + suffix``, the stem cut (by whole characters) so that the name fits in ``NAME_MAX`` bytes."""
    room = NAME_MAX - len(os.fsencode(suffix))
    while len(os.fsencode(stem)) > room:
        stem = stem[:-1]
    return stem + suffix


def display_name(name: str) -> str:
    """A file name as text that JSON and terminals can carry (bytes that are not UTF-8 become U+FFFD)."""
    return os.fsencode(name).decode("utf-8", "replace")
