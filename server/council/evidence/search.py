"""``search_code``'s matching, run in a child process that is killed at the deadline.

A model writes the pattern, and CPython's ``re`` holds the GIL while it matches: ``(a+)+$`` against a line of ``a``s
backtracks for minutes, freezing every thread of the sidecar (the tool's time limit could not even fire). So the
parent decides which files may be searched and hands their resolved paths to :mod:`council.evidence.regex_worker`
(``python -I -S``), which streams its matches back as JSON lines; at the deadline the parent kills and reaps it and
keeps what had arrived (the result is cut). A child that fails or writes anything but its JSON lines is a
:class:`WorkerFailed`, never another exception. Literal searches take the same path: the child's ~20 ms start
overlaps the listing of the files, and the scanning stays off the sidecar's GIL.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

WORKER = Path(__file__).with_name("regex_worker.py")
COMMAND = [sys.executable, "-I", "-S", str(WORKER)]
CHILD_MARGIN = 0.1  # the child stops itself this much before the deadline, so it usually ends cleanly


class WorkerFailed(Exception):
    """The child failed (could not start, crashed, or wrote something else than its JSON lines)."""


@dataclass
class Found:
    """What the child reported: matches as (path index, line number, text), files and bytes searched, and
    whether the search stopped early (its own limits, or killed at the deadline)."""

    matches: list[tuple[int, int, str]] = field(default_factory=list)
    files: int = 0
    size: int = 0
    cut: bool = False


class Worker:
    """One child process: started at once (its start-up overlaps the listing of the files), given one search, and
    killed and reaped on leaving the ``with`` block if it still runs."""

    def __init__(self) -> None:
        try:
            self.child = subprocess.Popen(COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE,
                                          creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))
        except OSError as exc:
            raise WorkerFailed(f"could not start: {type(exc).__name__}") from exc

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.child.poll() is None:
            self.child.kill()
            self.child.communicate()  # closes the pipes and reaps it
        for pipe in (self.child.stdin, self.child.stdout, self.child.stderr):
            if pipe is not None and not pipe.closed:
                pipe.close()

    def search(self, pattern: str, flags: int, root: Path, paths: list[str], deadline: float,
               limits: dict[str, int]) -> Found:
        """Search ``paths`` (relative to ``root``, as the check resolved them) for ``pattern`` until ``deadline``
        (``time.monotonic``); raises :class:`WorkerFailed`."""
        job = {"pattern": pattern, "flags": flags, "seconds": max(0.0, deadline - time.monotonic() - CHILD_MARGIN),
               "root": os.fsencode(root).decode("latin-1"),
               "paths": [os.fsencode(p).decode("latin-1") for p in paths], **limits}
        child = self.child
        try:
            out, err = child.communicate(json.dumps(job).encode("ascii"),
                                         timeout=max(0.0, deadline - time.monotonic()))
            killed = False
        except subprocess.TimeoutExpired:
            child.kill()
            out, err = child.communicate()  # what it wrote before it was killed; reaps it
            killed = True
        if not killed and child.returncode != 0:
            log.warning("the search worker exited with %s: %s", child.returncode, err.decode(errors="replace")[-500:])
            raise WorkerFailed(f"exited with {child.returncode}")
        return _parse(out, killed, len(paths))


def _parse(out: bytes, killed: bool, count: int) -> Found:
    """The child's JSON lines (the last one may be cut short when it was killed)."""
    found = Found(cut=killed)
    lines = out.split(b"\n")
    if lines[-1] and not killed:
        raise WorkerFailed("unterminated output")
    ended = False
    for raw in lines[:-1]:
        try:
            (key, value), = json.loads(raw).items()
        except (ValueError, AttributeError) as exc:
            raise WorkerFailed("unreadable output") from exc
        if ended:
            raise WorkerFailed("output after the end")
        if key == "match" and _is_match(value, count):
            found.matches.append((value[0], value[1], value[2]))
        elif key in ("searched", "end") and _is_counts(value, key):
            found.files, found.size = value[0], value[1]
            found.cut, ended = found.cut or (key == "end" and value[2]), key == "end"
        else:
            raise WorkerFailed(f"unexpected output: {key}")
    if not ended and not killed:
        raise WorkerFailed("no end")
    return found


def _is_match(value: object, count: int) -> bool:
    return (isinstance(value, list) and len(value) == 3 and isinstance(value[0], int) and 0 <= value[0] < count
            and isinstance(value[1], int) and isinstance(value[2], str))


def _is_counts(value: object, key: str) -> bool:
    return (isinstance(value, list) and len(value) == (3 if key == "end" else 2)
            and all(isinstance(v, int) and v >= 0 for v in value[:2]) and (key != "end" or isinstance(value[2], bool)))
