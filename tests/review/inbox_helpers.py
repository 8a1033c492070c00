"""Shared helpers of the ``council inbox`` tests: dropping files the way agents do, running a real watcher, and
checking the folders' invariants (every error document beside its request, nothing left half-done)."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from review_helpers import COUNCIL

SCRIPTED = ("--provider", "scripted")
ERROR_SUFFIX = ".error.json"


def drop(box: Path, name: str, data: Any = None, *, raw: str | bytes | None = None) -> Path:
    """Drop a request the way an agent should: write beside the inbox, then rename in."""
    (box / "inbox").mkdir(parents=True, exist_ok=True)
    body = raw if raw is not None else json.dumps(data)
    fd, tmp = tempfile.mkstemp(dir=box, prefix=".drop-", suffix=".part")
    with os.fdopen(fd, "wb") as f:
        f.write(body if isinstance(body, bytes) else body.encode("utf-8"))
    target = box / "inbox" / name
    os.rename(tmp, target)
    return target


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def wait_for(predicate, timeout: float = 30, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the watcher exited ({proc.returncode}): {proc.stderr.read()}")
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def watcher_argv(box: Path) -> list[str]:
    return [*COUNCIL, "inbox", str(box), *SCRIPTED, "--settle", "0.1", "--interval", "0.1"]


def watcher(box: Path, *args: str, stderr=subprocess.PIPE) -> subprocess.Popen:
    return subprocess.Popen([*watcher_argv(box), *args], stdout=subprocess.PIPE, stderr=stderr, text=True)


def set_aside(folder: Path) -> dict[str, dict[str, Any]]:
    """The requests in rejected/ or failed/ → their error documents, read by the documented rule (``X.error.json``
    is a document exactly when ``X.json`` lies beside it). Asserts that every other file is a request with a
    document, and that each document names its request."""
    files = set(names(folder))
    docs = {f for f in files if f.endswith(ERROR_SUFFIX) and f.removesuffix(ERROR_SUFFIX) + ".json" in files}
    requests = files - docs
    out = {}
    for name in requests:
        doc = name.removesuffix(".json") + ERROR_SUFFIX
        assert doc in docs, f"{folder.name}/{name} has no error document"
        document = json.loads((folder / doc).read_text(encoding="utf-8"))
        assert {"code", "message", "details", "request"} <= set(document), document
        assert document["request"]["file"] == name, document
        out[name] = document
    assert len(out) == len(docs), f"error documents without a request in {folder.name}/"
    return out
