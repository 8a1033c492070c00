"""The three evidence tools (README, "Evidence"), synchronous and bounded, and :class:`WorkspaceTools`, the session's
``EvidenceTools`` for one root, which runs each in a worker thread under a time limit (refused as ``timeout``; a tool
that fails, as ``error``). Searching and listing also stop at the deadline themselves and say the result was cut.
No pattern a model writes is matched here while holding the GIL (why: :mod:`~council.evidence.search`,
:mod:`~council.evidence.globs`): a search matches in a child process, a listing's glob in linear time.
The rules README only shows by example: search_code ignores case when the query is all lowercase; list_files' glob
without ``/`` matches at any depth and a folder name lists the folder; read_file returns numbered lines.
Every text a tool returns is redacted (:mod:`~council.evidence.redaction`), and :func:`workspace_tools` refuses a
root that is a home or system folder unless the user allowed it (:func:`~council.evidence.credentials.root_refusal`).
"""

from __future__ import annotations

import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import anyio
import anyio.to_thread

from council.evidence import redaction, search
from council.evidence.credentials import Why, root_refusal
from council.evidence.globs import Glob, GlobError
from council.evidence.opening import Refused
from council.evidence.workspace import MAX_FILE_BYTES, SNIFF_BYTES, Located, Workspace
from council.session.state.grounds import EvidenceResult, Refusal

log = logging.getLogger(__name__)

TOOL_SECONDS = 5.0  # one tool's time limit
GRACE_SECONDS = 1.0  # past it, WorkspaceTools stops waiting for a tool that did not stop itself
READ_CHARS = 8000  # of one file, kept in the session (the prompt budget cuts further)
MAX_MATCHES = 40
MATCH_CHARS = 200  # of one matching line
MAX_LISTED = 150
MAX_SCANNED_BYTES = 64_000_000  # searched in one request
MAX_REFERENCES = 10  # file URIs of one result (chat references)
MAX_CANDIDATES = 200_000  # files handed to one search
LINE_CHARS = 2000  # of one line, searched
LIMITS = {"max_file_bytes": MAX_FILE_BYTES, "sniff_bytes": SNIFF_BYTES, "line_chars": LINE_CHARS,
          "match_chars": MATCH_CHARS, "max_matches": MAX_MATCHES, "max_scanned_bytes": MAX_SCANNED_BYTES}
_RANGE = re.compile(r"^(.*?):(\d{1,9})(?:-(\d{1,9}))?$")  # longer numbers are no line numbers (and int() refuses)


def _count(n: int, noun: str) -> str:
    """A count for the models' reading ("1 line", "3 matches")."""
    return f"{n} {noun}" + ("" if n == 1 else "es" if noun.endswith("ch") else "s")


def _refused(code, detail: str = "", **extra) -> EvidenceResult:
    return EvidenceResult(ok=False, refusal=code, detail=detail[:300], **extra)


def _text_of(ws: Workspace, found: Located) -> str | EvidenceResult:
    """The file's text, or the refusal (a folder, too large, binary, more than one hard link, changed since the
    check)."""
    try:
        fd, st = ws.open(found)
    except Refused as refused:
        named = refused.code in ("not_a_file", "hard_link")  # the file is there, not to be read
        return _refused(refused.code, refused.detail, files=[found.rel] if named else [])
    with os.fdopen(fd, "rb") as f:
        if st.st_size > MAX_FILE_BYTES:
            return _refused("too_large", size=st.st_size, files=[found.rel])
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        return _refused("too_large", size=len(data), files=[found.rel])
    if b"\0" in data[:SNIFF_BYTES]:
        return _refused("binary", size=len(data), files=[found.rel])
    return data.decode("utf-8", errors="replace")


def read_file(ws: Workspace, query: str, regex: bool, deadline: float) -> EvidenceResult:
    query = query.strip().strip("`'\"")
    start = end = None
    m = _RANGE.match(query)
    if m and not os.path.lexists(ws.root / query):
        query, start, end = m.group(1), int(m.group(2)), int(m.group(3) or m.group(2))
    found = ws.locate(query) if query else "not_found"
    if isinstance(found, str):
        return _refused(found)
    text = _text_of(ws, found)
    if isinstance(text, EvidenceResult):
        return text
    lines = text.splitlines()
    if not lines:  # an empty file (or only a BOM-less newline): say so, there is no line to number
        return EvidenceResult(ok=True, text="(0 lines: the file is empty)", size=len(text.encode("utf-8")), count=0,
                              files=[found.rel], uris=[found.path.as_uri()])
    first = min(max(1, start or 1), max(1, len(lines)))
    last = max(first, min(len(lines), end or len(lines)))
    shown, truncated = _numbered(lines, first, last)
    head = f"lines {first}-{last} of {len(lines)}" if (start or truncated) else _count(len(lines), "line")
    return EvidenceResult(ok=True, text=f"({head})\n{shown}", size=len(text.encode("utf-8")), count=len(lines),
                          truncated=truncated, files=[found.rel], uris=[found.path.as_uri()])


def _numbered(lines: list[str], first: int, last: int) -> tuple[str, bool]:
    """Lines ``first``-``last``, numbered and redacted, as many as :data:`READ_CHARS` holds (a first line longer
    than that is cut), and whether any was left out."""
    redactor = redaction.Redactor()
    for line in lines[:first - 1]:
        redactor.key_lines(line)  # a private-key block opened above the lines shown
    shown: list[str] = []
    used = -1
    for n in range(first, last + 1):
        entry = f"{n:>5}  {redactor.line(lines[n - 1], READ_CHARS)}"
        used += len(entry) + 1
        if used > READ_CHARS:
            return "\n".join(shown) if shown else entry[:READ_CHARS], True
        shown.append(entry)
    return "\n".join(shown), False


def _candidates(ws: Workspace, deadline: float) -> tuple[list[Located], bool]:
    """The files ``search_code`` may search (shown, not over the size limit), and whether listing them stopped
    early (the deadline, or :data:`MAX_CANDIDATES`)."""
    found: list[Located] = []
    for located in ws.files(deadline):
        if time.monotonic() > deadline or len(found) >= MAX_CANDIDATES:
            return found, True
        try:
            if os.lstat(located.path).st_size <= MAX_FILE_BYTES:  # the child opens it as read_file does
                found.append(located)
        except OSError:
            continue
    return found, time.monotonic() > deadline  # the listing itself may have stopped at the deadline


def search_code(ws: Workspace, query: str, regex: bool, deadline: float) -> EvidenceResult:
    flags = re.IGNORECASE if not regex and query == query.lower() else 0
    source = query if regex else re.escape(query)
    try:
        re.compile(source, flags)  # the compiler's reason for the advisors; matching happens in the worker
    except re.error as exc:
        return _refused("bad_pattern", str(exc))
    try:
        with search.Worker() as worker:
            candidates, truncated = _candidates(ws, deadline)
            found = search.Found(cut=bool(candidates))  # files left, no time to search them
            if time.monotonic() < deadline:
                paths = [ws.relative(str(c.path)) for c in candidates]
                found = worker.search(source, flags, ws.root, paths, deadline, LIMITS)
    except search.WorkerFailed as exc:
        return _refused("error", f"search worker {exc}")
    hit_files = [candidates[i] for i in dict.fromkeys(i for i, _, _ in found.matches)]
    truncated = truncated or found.cut
    summary = (f"{_count(len(found.matches), 'match')} in {len(hit_files)} of {_count(found.files, 'file')} searched"
               + (" (cut)" if truncated else ""))
    lines = [redaction.redact(f"{candidates[i].rel}:{n}: {text}") for i, n, text in found.matches]
    return EvidenceResult(ok=True, text="\n".join([summary, *lines]), size=found.size, count=len(lines),
                          truncated=truncated, files=[f.rel for f in hit_files],
                          uris=[f.path.as_uri() for f in hit_files[:MAX_REFERENCES]])


def _glob(ws: Workspace, query: str) -> Glob | Refusal:
    """The glob over workspace-relative paths (matched in linear time, whatever the model wrote), or a refusal."""
    pattern = query.strip().strip("`'\"").replace("\\", "/") or "**"
    if Path(pattern).is_absolute() or ".." in pattern.split("/"):
        return "outside_workspace"
    pattern = pattern.removeprefix("./").rstrip("/") if pattern not in ("/", "./") else "**"
    if not any(c in pattern for c in "*?[") and (ws.root / pattern).is_dir():
        pattern += "/**"  # a folder: what is in it
    try:
        return Glob(pattern, anchored="/" in pattern)
    except GlobError:
        return "bad_pattern"


def list_files(ws: Workspace, query: str, regex: bool, deadline: float) -> EvidenceResult:
    pattern = _glob(ws, query)
    if isinstance(pattern, str):
        return _refused(pattern)
    listed: list[str] = []
    total = size = 0
    for found in ws.files(deadline):
        if time.monotonic() > deadline:
            break  # cut: the check after the loop says so
        if pattern.match(found.rel):
            total += 1
            if len(listed) < MAX_LISTED:
                listed.append(redaction.redact(found.rel))
                try:
                    size += os.lstat(found.path).st_size
                except OSError:
                    pass
    truncated = total > len(listed) or time.monotonic() > deadline
    summary = _count(total, "file") + (f", the first {len(listed)} shown" if total > len(listed) else "")
    return EvidenceResult(ok=True, text="\n".join([summary, *listed]), size=size, count=total, truncated=truncated)


TOOLS = {"read_file": read_file, "search_code": search_code, "list_files": list_files}


class WorkspaceTools:
    def __init__(self, root: Path, seconds: float = TOOL_SECONDS) -> None:
        self.root = root
        self.seconds = seconds
        self._workspace: Workspace | None = None
        self._opening = anyio.Lock()

    async def workspace(self) -> Workspace:
        async with self._opening:
            if self._workspace is None:
                self._workspace = await anyio.to_thread.run_sync(Workspace, self.root)
            return self._workspace

    async def overview(self) -> list[str]:
        try:
            with anyio.fail_after(self.seconds + GRACE_SECONDS):
                ws = await self.workspace()
                names = await anyio.to_thread.run_sync(ws.overview, abandon_on_cancel=True)
                return [redaction.redact(name) for name in names]
        except Exception as exc:  # the advisors can still list files themselves
            log.warning("could not list the workspace's top level: %s", exc)
            return []

    async def run(self, tool: str, query: str, regex: bool) -> EvidenceResult:
        fn = TOOLS.get(tool)
        if fn is None:
            return EvidenceResult(ok=False, refusal="unknown_tool", detail=tool[:300])
        deadline = time.monotonic() + self.seconds
        try:
            with anyio.fail_after(self.seconds + GRACE_SECONDS):
                ws = await self.workspace()
                return await anyio.to_thread.run_sync(fn, ws, query, regex, deadline, abandon_on_cancel=True)
        except TimeoutError:
            return EvidenceResult(ok=False, refusal="timeout")
        except OSError as exc:
            log.info("%s %r failed: %s", tool, query, exc)
            return EvidenceResult(ok=False, refusal="error", detail=type(exc).__name__)


@dataclass(frozen=True)
class RootRefused:
    """A workspace the evidence tools do not read: ``why`` it is a home or system folder (README, "Evidence")."""

    folder: str
    why: Why


def workspace_tools(root: Path | None, *, any_root: bool = False) -> tuple[WorkspaceTools | None, RootRefused | None]:
    """The evidence tools for ``root`` (None without one), or None and why a home or system folder is not read
    (``any_root``: the user allowed any folder, ``--evidence-any-root``)."""
    if root is None:
        return None, None
    why = None if any_root else root_refusal(root)
    if why is not None:
        log.warning("the workspace %s is a %s folder: the advisors do not read it (--evidence-any-root allows it)",
                    root, why)
        return None, RootRefused(str(root), why)
    return WorkspaceTools(root), None
