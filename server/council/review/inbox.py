"""The JSON drop folder (seed 004: "JSON files dropped into a specific directory"): ``council inbox DIR``. Its layout,
the rule to read it by, why a request is rejected and what a crash leaves: README, "Review mode". Beyond that:

- a drop is claimed into processing/ by one atomic rename (:meth:`Inbox._claim`) before anything else happens to it;
- one watcher per DIR: an exclusive ``flock`` on ``DIR/.inbox.lock``, released by the kernel even on kill -9;
- at start, what is still in processing/ is reviewed again unless outbox/ holds its decision for the same bytes
  (SHA-256 in the audit: it moves to done/) or its error document was already written (it joins it);
- an error of the watcher's own sends the request to failed/, so nothing waits in processing/ to fail at every start.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from council.errors import CouncilError, internal_error, validation_error
from council.review import files
from council.review.files import display_name, fit_name, move_new, read_request_file, write_new
from council.review.requests import MAX_FILE_BYTES, load_request

if TYPE_CHECKING:  # an upward import, for the annotation only: the inbox is handed the review service above it
    from council.reviewer import Reviewer

log = logging.getLogger(__name__)

FOLDERS = ("inbox", "processing", "outbox", "rejected", "failed", "done")
ERROR_SUFFIX = ".error.json"
MAX_SLOTS = 10_000  # numbered names tried for one file
Report = Callable[[str, dict[str, Any]], None]


class InboxBusy(Exception):
    """Another watcher holds the folder's lock."""


class Inbox:
    """One drop folder's watcher: :meth:`open` (lock, folders, temp files), then ``await run()``, then :meth:`close`."""

    def __init__(self, root: Path, reviewer: Reviewer, *, jobs: int = 2, settle: float = 0.5,
                 interval: float = 0.5, timeout: float | None = None, report: Report = lambda kind, data: None) -> None:
        self.root = root
        self.reviewer = reviewer
        self.limiter = anyio.CapacityLimiter(max(1, jobs))
        self.settle = settle
        self.interval = interval
        self.timeout = timeout
        self.report = report
        self.dirs = {name: root / name for name in FOLDERS}
        self.inflight: set[str] = set()
        self.counts = {"decided": 0, "rejected": 0, "failed": 0, "recovered": 0, "stuck": 0, "unclaimed": 0}
        self._dropped_as: dict[str, str] = {}  # processing/ name → the inbox/ name, when a claim had to number it
        self._lock_fd: int | None = None
        self._seen: dict[str, tuple[tuple[int, int, int], float]] = {}  # inbox name → (signature, still since)

    # --- setup -------------------------------------------------------------------------------------------------
    def open(self) -> None:
        """Create the folders, take the lock (:class:`InboxBusy` when another watcher has it) and delete the temp
        files a killed run left."""
        for folder in self.dirs.values():
            folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / ".inbox.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InboxBusy(f"another `council inbox` is watching {self.root}") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd
        for name, folder in self.dirs.items():
            if name != "inbox":  # the agents' folder: their temp files are theirs
                for temp in files.remove_temp_files(folder):
                    log.info("inbox: removed %s/%s, left by a writer that was killed", name, temp)

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    # --- the loop ----------------------------------------------------------------------------------------------
    async def run(self, *, once: bool = False) -> dict[str, int]:
        """Recover what a dead run left in processing/, then review drops: once (what is there now) or until
        cancelled. Returns the counts."""
        async with anyio.create_task_group() as tg:
            for path in self._requests("processing"):
                tg.start_soon(self._handle, path, True)
            while True:
                for path in self._claim(settle=0.0 if once else self.settle):
                    tg.start_soon(self._handle, path, False)
                if once:
                    break
                await anyio.sleep(self.interval)
        return dict(self.counts)

    def _requests(self, folder: str) -> list[Path]:
        """The entries of ``folder`` named like requests (``*.json``, not hidden), by name."""
        try:
            names = os.listdir(self.dirs[folder])
        except OSError as exc:
            log.warning("inbox: cannot list %s/: %s", folder, exc.strerror)
            self.dirs[folder].mkdir(parents=True, exist_ok=True)  # deleted under a running watcher
            return []
        return [self.dirs[folder] / n for n in sorted(names) if n.endswith(".json") and not n.startswith(".")]

    def _claim(self, settle: float) -> list[Path]:
        """Move every settled drop (hidden names ignored) into processing/, oldest first, under the first free name of
        its slots; one that cannot be claimed stays in inbox/ and counts as ``unclaimed`` (``--once`` exits 3). A drop
        has settled when its mtime is ``settle`` seconds old, or when this watcher has seen it unchanged for that long
        (an mtime in the future does not wait forever). Entries that are not regular files are claimed too (and
        rejected), never opened here."""
        for folder in self.dirs.values():  # one deleted under a running watcher comes back
            folder.mkdir(parents=True, exist_ok=True)
        claimed = []
        now, still = time.time(), time.monotonic()
        candidates, seen = [], {}
        for path in self._requests("inbox"):
            try:
                st = os.lstat(path)
            except OSError:  # the agent took it back
                continue
            signature = (st.st_ino, st.st_size, st.st_mtime_ns)
            before = self._seen.get(path.name)
            seen[path.name] = before if before and before[0] == signature else (signature, still)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime < settle and still - seen[path.name][1] < settle:
                continue
            candidates.append((st.st_mtime, path.name, path))
        self._seen = seen
        for _, _name, path in sorted(candidates):
            try:
                target = self._move(path, "processing")
            except FileNotFoundError:  # the agent took it back
                continue
            except OSError as exc:
                log.warning("inbox: cannot claim %s: %s", display_name(path.name), exc.strerror)
                self.counts["unclaimed"] += 1
                continue
            if target.name != path.name:
                self._dropped_as[target.name] = path.name
            claimed.append(target)
        return claimed

    # --- one request -------------------------------------------------------------------------------------------
    async def _handle(self, path: Path, recovered: bool) -> None:
        async with self.limiter:
            try:
                await self._review(path, recovered)
            except Exception as exc:  # a fault of ours: the request goes to failed/ instead of waiting in processing/
                log.exception("inbox: %s failed", display_name(path.name))
                self._give_up(path, exc)
            finally:
                self._dropped_as.pop(path.name, None)  # its processing/ name is free for the next claim

    async def _review(self, path: Path, recovered: bool) -> None:
        try:
            raw: bytes | None = read_request_file(path, MAX_FILE_BYTES)
            unreadable = None
        except FileNotFoundError:
            return self.report("vanished", {"file": display_name(path.name)})
        except CouncilError as err:
            raw, unreadable = None, err
        sha = hashlib.sha256(raw).hexdigest() if raw is not None else None
        if recovered and self._rejoin_error_document(path, sha):
            return
        if unreadable is not None:
            return self._set_aside(path, "rejected", unreadable, sha)
        try:
            request = load_request(raw)
        except CouncilError as err:
            return self._set_aside(path, "rejected", err, sha)
        decision_path = self.dirs["outbox"] / f"{request.request_id}.decision.json"
        if os.path.lexists(decision_path):
            if recovered and _decided_sha(decision_path) == sha:
                self._move(path, "done")
                self.counts["recovered"] += 1
                return self.report("recovered", {"file": display_name(path.name), "request_id": request.request_id})
            return self._set_aside(path, "rejected", _already_decided(request.request_id, decision_path), sha)
        if request.request_id in self.inflight:
            return self._set_aside(path, "rejected", validation_error(
                f"request_id {request.request_id!r} is already under review; it is not reviewed twice",
                reason="duplicate", request_id=request.request_id), sha)
        self.inflight.add(request.request_id)
        try:
            self.report("reviewing", {"file": display_name(path.name), "request_id": request.request_id})
            decision = await self.reviewer.review(request, timeout=self.timeout, request_sha256=sha)
            write_new(decision_path, decision.to_wire())
        except CouncilError as err:  # could not review: a fault, never a verdict
            return self._set_aside(path, "failed", err, sha)
        except FileExistsError:  # a decision appeared meanwhile (not ours: we hold the lock)
            return self._set_aside(path, "rejected", _already_decided(request.request_id, decision_path), sha)
        finally:
            self.inflight.discard(request.request_id)
        self._move(path, "done")
        self.counts["decided"] += 1
        self.report("decided", {"file": display_name(path.name), "request_id": request.request_id,
                                "outcome": decision.final_outcome.value, "decision": f"outbox/{decision_path.name}"})

    def _give_up(self, path: Path, exc: Exception) -> None:
        """After an error of the watcher's own: the request goes to failed/ with it; only when even that fails (a
        full disk, a folder gone) does it stay in processing/ — for the next start."""
        err = internal_error(f"the watcher could not handle this request: {type(exc).__name__}: {exc}"[:1000],
                             reason="internal_error")
        try:
            self._set_aside(path, "failed", err, None)
        except Exception as again:
            if not os.path.lexists(path):
                return self.report("vanished", {"file": display_name(path.name)})
            log.exception("inbox: %s stays in processing/", display_name(path.name))
            self.counts["stuck"] += 1
            self.report("crashed", {"file": display_name(path.name), "error": f"{type(again).__name__}: {again}"})

    # --- moving files (never over another) ----------------------------------------------------------------------
    def _set_aside(self, path: Path, folder: str, err: CouncilError, sha: str | None) -> None:
        """Write the error document in ``folder``, then move the request beside it (a free pair of names)."""
        for target, doc_path in _slots(self.dirs[folder], path.name):
            if not _pair_is_free(target, doc_path):
                continue
            request = {"file": display_name(target.name), "dropped_as": display_name(self._dropped_name(path)),
                       "sha256": sha}
            if path.name != self._dropped_name(path):  # the name it was claimed as: how a restart finds this pair
                request["claimed_as"] = display_name(path.name)
            document = {"code": err.code.value, "message": err.message, "details": err.details, "request": request}
            try:
                write_new(doc_path, document)
            except FileExistsError:
                continue
            try:
                move_new(path, target)
            except FileExistsError:
                os.unlink(doc_path)
                continue
            except BaseException:
                os.unlink(doc_path)  # the request stays where it was, without a document that names it
                raise
            return self._placed(path, target, folder, code=err.code.value, message=err.message, details=err.details)
        raise OSError(errno.EEXIST, f"no free name for {display_name(path.name)} in {folder}/")

    def _rejoin_error_document(self, path: Path, sha: str | None) -> bool:
        """A run that died between writing a request's error document and moving the request beside it: finish the
        move (True), instead of setting it aside a second time or reviewing it again."""
        for folder in ("rejected", "failed"):
            for target, doc_path in _slots(self.dirs[folder], path.name):
                if _pair_is_free(target, doc_path):
                    break  # the first pair a set-aside would take now: the orphan, if any, came before
                if os.path.lexists(target) or not os.path.lexists(doc_path):
                    continue
                document = _read_document(doc_path)
                claimed_as = document.get("claimed_as", document.get("dropped_as"))
                if claimed_as != display_name(path.name) or document.get("sha256") != sha:
                    continue
                try:
                    move_new(path, target)
                except FileExistsError:
                    continue
                self._placed(path, target, folder,
                             message="set aside before a restart; its error document was already there")
                return True
        return False

    def _placed(self, path: Path, target: Path, folder: str, **data: Any) -> None:
        """A request now lies beside its error document in ``folder``: make it durable, count and report it."""
        files.sync_dir(target.parent)
        self.counts[folder] += 1
        self.report(folder, {"file": display_name(path.name), "moved_to": f"{folder}/{display_name(target.name)}",
                             **data})

    def _dropped_name(self, path: Path) -> str:
        """The name a request in processing/ was dropped as (its own name unless this run numbered its claim)."""
        return self._dropped_as.get(path.name, path.name)

    def _move(self, path: Path, folder: str) -> Path:
        for target, _doc in _slots(self.dirs[folder], path.name):
            try:
                move_new(path, target)
            except FileExistsError:
                continue
            return target
        raise OSError(errno.EEXIST, f"no free name for {display_name(path.name)} in {folder}/")


def _slots(folder: Path, name: str) -> Iterator[tuple[Path, Path]]:
    """The pairs of paths in ``folder`` for a request dropped as ``name`` and its error document, in order: (``S.json``,
    ``S.error.json``), (``S.1.json``, ``S.1.error.json``) …, the stem shortened when the error document's name would
    pass the 255-byte limit."""
    base = name.removesuffix(".json")
    for n in range(MAX_SLOTS):
        tag = "" if n == 0 else f".{n}"
        doc = fit_name(base, f"{tag}{ERROR_SUFFIX}")
        stem = doc.removesuffix(f"{tag}{ERROR_SUFFIX}")
        yield folder / (name if n == 0 and stem == base else f"{stem}{tag}.json"), folder / doc


def _pair_is_free(request: Path, doc: Path) -> bool:
    """Both names free, and placing them keeps the reading rule true: no ``<doc stem>.error.json`` that would read
    as the document's own document, no ``T.json`` beside a request named ``T.error.json``."""
    if os.path.lexists(request) or os.path.lexists(doc):
        return False
    if os.path.lexists(doc.with_name(doc.name.removesuffix(".json") + ERROR_SUFFIX)):
        return False
    name = request.name
    return not (name.endswith(ERROR_SUFFIX) and os.path.lexists(request.with_name(name.removesuffix(ERROR_SUFFIX)
                                                                                 + ".json")))


def _read_document(path: Path) -> dict[str, Any]:
    """The ``request`` part of an error document ({} when it is not one of ours)."""
    try:
        data = json.loads(read_request_file(path, 1024 * 1024))
    except (OSError, CouncilError, ValueError, RecursionError):
        return {}
    request = data.get("request") if isinstance(data, dict) else None
    return request if isinstance(request, dict) else {}


def _already_decided(request_id: str, decision_path: Path) -> CouncilError:
    return validation_error(f"request_id {request_id!r} was already decided; it is not reviewed twice",
                            reason="duplicate", request_id=request_id, decision=f"outbox/{decision_path.name}")


def _decided_sha(path: Path) -> str | None:
    try:
        return json.loads(read_request_file(path, 64 * 1024 * 1024)).get("audit", {}).get("request_sha256")
    except (OSError, CouncilError, ValueError, AttributeError, RecursionError):
        return None
