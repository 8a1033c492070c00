"""The JSON drop folder (seed 004: "JSON files dropped into a specific directory"): ``council inbox DIR``.

Layout under DIR, each a plain folder::

    inbox/        agents drop <anything>.json here (write elsewhere and rename in, or the watcher waits until the
                  file has been still for ``settle`` seconds); names starting with "." are ignored
    processing/   claimed requests: a file moves here (one atomic rename) before anything else happens to it
    outbox/       <request_id>.decision.json — the CouncilDecision with ``verdicts`` and ``audit``, written atomically
    rejected/     malformed or duplicate requests, each beside <name>.error.json {code, message, details}
    failed/       requests that could not be reviewed (model down, timeout), beside <name>.error.json
    done/         requests whose decision is in outbox/

Crash safety: one watcher per DIR (an exclusive ``flock`` on ``DIR/.inbox.lock``, released by the kernel even on
kill -9). Everything still in processing/ when a watcher starts was claimed by a run that died: it is reviewed
again, unless outbox/ already holds its decision (same request bytes, by SHA-256 in the decision's audit), in which
case it only moves to done/. A decision is written before its request leaves processing/, so a crash at any point
leaves either the request in processing/ or the decision in outbox/, never neither. A request_id that already has
a decision is never reviewed twice: a later request with that id goes to rejected/ (``details.reason``
``duplicate``); two drops with one id in flight at once: the second is rejected the same way.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from council.errors import CouncilError, validation_error
from council.review.api import Reviewer, load_request

log = logging.getLogger(__name__)

FOLDERS = ("inbox", "processing", "outbox", "rejected", "failed", "done")
Report = Callable[[str, dict[str, Any]], None]


class InboxBusy(Exception):
    """Another watcher holds the folder's lock."""


def write_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write JSON to ``path`` so that readers see the old file or the whole new one, never a part."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _sync_dir(path.parent)


def _sync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _free_name(folder: Path, name: str) -> Path:
    """``folder/name``, or ``stem.N.json`` when a request of that name is already there."""
    stem = name.removesuffix(".json")
    for n in range(10_000):
        candidate = folder / (name if n == 0 else f"{stem}.{n}.json")
        if not candidate.exists():
            return candidate
    raise OSError(errno.EEXIST, f"no free name for {name} in {folder}")


class Inbox:
    def __init__(self, root: Path, reviewer: Reviewer, *, jobs: int = 2, settle: float = 0.5,
                 interval: float = 0.5, timeout: float | None = None, report: Report = lambda kind, data: None,
                 provider: str | None = None, model: str | None = None) -> None:
        self.root = root
        self.reviewer = reviewer
        self.limiter = anyio.CapacityLimiter(max(1, jobs))
        self.settle = settle
        self.interval = interval
        self.timeout = timeout
        self.report = report
        self.provider, self.model = provider, model
        self.dirs = {name: root / name for name in FOLDERS}
        self.inflight: set[str] = set()
        self.counts = {"decided": 0, "rejected": 0, "failed": 0, "recovered": 0}
        self._lock_fd: int | None = None

    # --- setup -------------------------------------------------------------------------------------------------
    def open(self) -> None:
        """Create the folders and take the lock (:class:`InboxBusy` when another watcher has it)."""
        for folder in self.dirs.values():
            folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / ".inbox.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InboxBusy(f"another `council inbox` is watching {self.root}") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    # --- the loop ----------------------------------------------------------------------------------------------
    async def run(self, *, once: bool = False) -> dict[str, int]:
        """Recover what a dead run left in processing/, then review drops: once (what is there now) or until
        cancelled. Returns the counts."""
        async with anyio.create_task_group() as tg:
            for path in sorted(self.dirs["processing"].glob("*.json")):
                tg.start_soon(self._handle, path, True)
            while True:
                for path in self._claim(settle=0.0 if once else self.settle):
                    tg.start_soon(self._handle, path, False)
                if once:
                    break
                await anyio.sleep(self.interval)
        return dict(self.counts)

    def _claim(self, settle: float) -> list[Path]:
        """Move every settled drop into processing/ (oldest first); a name still in processing/ waits its turn."""
        claimed = []
        now = time.time()
        candidates = []
        for path in self.dirs["inbox"].glob("*.json"):
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            if path.name.startswith(".") or not path.is_file() or now - stat.st_mtime < settle:
                continue
            candidates.append((stat.st_mtime, path.name, path))
        for _, name, path in sorted(candidates):
            target = self.dirs["processing"] / name
            if target.exists():
                continue
            try:
                os.rename(path, target)
            except FileNotFoundError:  # the agent took it back
                continue
            claimed.append(target)
        return claimed

    # --- one request -------------------------------------------------------------------------------------------
    async def _handle(self, path: Path, recovered: bool) -> None:
        async with self.limiter:
            try:
                await self._review(path, recovered)
            except Exception as exc:  # a bug must not stop the watcher; the file stays in processing/
                log.exception("inbox: %s failed", path.name)
                self.report("crashed", {"file": path.name, "error": f"{type(exc).__name__}: {exc}"})

    async def _review(self, path: Path, recovered: bool) -> None:
        raw = path.read_bytes()
        sha = hashlib.sha256(raw).hexdigest()
        try:
            request = load_request(raw)
        except CouncilError as err:
            return self._set_aside(path, "rejected", err)
        decision_path = self.dirs["outbox"] / f"{request.request_id}.decision.json"
        if decision_path.exists():
            if recovered and _decided_sha(decision_path) == sha:
                self._move(path, "done")
                self.counts["recovered"] += 1
                return self.report("recovered", {"file": path.name, "request_id": request.request_id})
            return self._set_aside(path, "rejected", validation_error(
                f"request_id {request.request_id!r} was already decided; it is not reviewed twice",
                reason="duplicate", request_id=request.request_id, decision=f"outbox/{decision_path.name}"))
        if request.request_id in self.inflight:
            return self._set_aside(path, "rejected", validation_error(
                f"request_id {request.request_id!r} is already under review; it is not reviewed twice",
                reason="duplicate", request_id=request.request_id))
        self.inflight.add(request.request_id)
        try:
            self.report("reviewing", {"file": path.name, "request_id": request.request_id})
            decision = await self.reviewer.review(request, provider=self.provider, model=self.model,
                                                  timeout=self.timeout, request_sha256=sha)
            write_atomic(decision_path, decision.to_wire())
        except CouncilError as err:  # could not review: a fault, never a verdict
            return self._set_aside(path, "failed", err)
        finally:
            self.inflight.discard(request.request_id)
        self._move(path, "done")
        self.counts["decided"] += 1
        self.report("decided", {"file": path.name, "request_id": request.request_id,
                                "outcome": decision.final_outcome.value, "decision": f"outbox/{decision_path.name}"})

    def _set_aside(self, path: Path, folder: str, err: CouncilError) -> None:
        """Write ``<name>.error.json`` in ``folder``, then move the request beside it."""
        target = _free_name(self.dirs[folder], path.name)
        error = {"code": err.code.value, "message": err.message, "details": err.details}
        write_atomic(target.with_name(target.name.removesuffix(".json") + ".error.json"), error)
        os.rename(path, target)
        self.counts[folder] += 1
        self.report(folder, {"file": path.name, "moved_to": f"{folder}/{target.name}", **error})

    def _move(self, path: Path, folder: str) -> None:
        os.rename(path, _free_name(self.dirs[folder], path.name))


def _decided_sha(path: Path) -> str | None:
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("audit", {}).get("request_sha256")
    except (OSError, ValueError, AttributeError):
        return None
