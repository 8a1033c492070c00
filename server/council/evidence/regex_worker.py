"""The matching half of ``search_code``, run as its own process (``python -I -S regex_worker.py``) so that a pattern
that backtracks for ever can be killed (why: :mod:`council.evidence.search`). Standard library only, no council
imports (it starts in ~20 ms).

Input, one JSON object on stdin: ``pattern``, ``flags``, ``seconds`` (its own time limit), ``root`` (the workspace's
real root), ``paths`` (relative to the root, as the sidecar's check resolved them; each the latin-1 text of its
bytes) and the limits in ``council.evidence.tools.LIMITS``. Output, JSON lines on stdout, each flushed before a
match is searched further: ``{"searched": [files, bytes]}`` (progress), ``{"match": [path index, line number, the
line squeezed and cut]}``, and last ``{"end": [files, bytes, cut]}`` (cut: a time, match or byte limit stopped it).

Every line is redacted as ``read_file`` redacts it (:mod:`council.evidence.redaction`, loaded by its path), and it
matches only when the redacted line still does: a pattern can neither find a secret nor tell by its hits what one
holds. Each file is opened as the sidecar's ``read_file`` opens one (:mod:`council.evidence.opening`, loaded by its
path), so a file swapped for a symlink after the sidecar listed it is skipped, never followed, and a FIFO never blocks.
A search stuck inside one line is the sidecar's to kill at its deadline; an alarm ends this process a little later in
any case, so it never outlives a sidecar that died.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import sys
import time

PROGRESS_SECONDS = 0.02  # how often the count of files searched is reported when nothing matches


def emit(key: str, value: list, flush: bool = True) -> None:
    sys.stdout.write(json.dumps({key: value}) + "\n")
    if flush:
        sys.stdout.flush()


def load(name: str):
    """``council.evidence.<name>``, loaded from its file (this process cannot import council)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(os.path.dirname(__file__), f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


opening = load("opening")
redaction = load("redaction")


def read_text(opener, path: bytes, max_bytes: int, sniff_bytes: int) -> bytes | None:
    """The file's bytes, or None: not opened (changed since it was listed, not a regular file, hard-linked),
    unreadable, too large or binary."""
    try:
        fd, _ = opener.open(path)
        with open(fd, "rb") as f:
            data = f.read(max_bytes + 1)
    except (OSError, opening.Refused):
        return None
    if len(data) > max_bytes or b"\0" in data[:sniff_bytes]:
        return None
    return data


def search(job: dict, opener, deadline: float) -> list:
    """Search every file in turn, reporting as it goes; the final counts and whether it stopped early."""
    pattern = re.compile(job["pattern"], job["flags"])
    line_chars, match_chars, max_matches = job["line_chars"], job["match_chars"], job["max_matches"]
    files = scanned = matched = 0
    reported, last = (0, 0), time.monotonic()
    for index, name in enumerate(job["paths"]):
        if scanned > job["max_scanned_bytes"] or time.monotonic() > deadline:
            return [files, scanned, True]
        data = read_text(opener, name.encode("latin-1"), job["max_file_bytes"], job["sniff_bytes"])
        if data is None:
            continue
        files, scanned = files + 1, scanned + len(data)
        if time.monotonic() - last >= PROGRESS_SECONDS:
            emit("searched", [files, scanned])
            reported, last = (files, scanned), time.monotonic()
        lines = data.decode("utf-8", errors="replace").splitlines()
        redactor = redaction.Redactor() if redaction.may_hold_key(data) else None
        for number, line in enumerate(lines, start=1):
            keyed = redactor and redactor.key_lines(line)  # a private-key block: never matched, whatever the pattern
            line = line if keyed is None else keyed
            if pattern.search(line[:line_chars]) and \
                    pattern.search((line := redaction.redact(line[:line_chars + redaction.SPAN]))[:line_chars]):
                if reported != (files, scanned):
                    emit("searched", [files, scanned], flush=False)
                    reported = (files, scanned)
                emit("match", [index, number, " ".join(line.split())[:match_chars]])
                matched += 1
                if matched >= max_matches:  # cut if any line or file is left
                    return [files, scanned, number < len(lines) or index + 1 < len(job["paths"])]
    return [files, scanned, False]


def main() -> int:
    job = json.loads(sys.stdin.buffer.read())
    seconds = float(job["seconds"])
    if hasattr(signal, "SIGALRM"):  # ends the process (default action) should nobody kill it
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(int(seconds) + 3)
    with opening.Opener(job["root"].encode("latin-1")) as opener:
        emit("end", search(job, opener, time.monotonic() + seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
