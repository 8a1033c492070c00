"""Transcript files (opt-in): each completed session's markdown transcript written to a folder the user chose
(``council serve --transcript-dir``, which ``council ask --transcript DIR`` and the VS Code setting
``council.transcripts.directory`` pass on).

The file name is stable for a session — its start time, the first words of the question and the session id — so a
follow-up or a re-opened debate rewrites the same file. Files are written whole (a temporary file, then a rename).
:func:`folder_problem` says up front when the folder cannot take them (a file in its place, or a place nobody may
write), so ``council ask --transcript`` refuses before any model call and ``council serve`` logs it at start.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from council.session.state.entities import ConversationSession

SLUG_CHARS = 48


def transcript_name(created_at: datetime, request_text: str, session_id: str) -> str:
    """``20261122-101500-should-we-split-our-monolith-1a2b3c4d.md``."""
    words = re.sub(r"[^\w]+", "-", request_text.strip().lower(), flags=re.UNICODE).strip("-_")
    slug = words[:SLUG_CHARS].rstrip("-_") or "session"
    safe_id = re.sub(r"[^A-Za-z0-9]", "", session_id)[:8] or "session"
    return f"{created_at:%Y%m%d-%H%M%S}-{slug}-{safe_id}.md"


def write_transcript(folder: Path, session: ConversationSession) -> Path:
    """Write (or rewrite) the session's transcript in ``folder``; returns the file's path."""
    from council.present.transcript import transcript  # imported here: folder_problem runs before anything heavy

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / transcript_name(session.created_at, session.request_text, session.session_id)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".council-", suffix=".md.tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(transcript(session))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


@dataclass(frozen=True)
class FolderProblem:
    """Why transcripts cannot be written into a folder: ``path`` (the folder or the parent it would be created in)
    is not a folder, or a file cannot be created in it (``detail``: the system's reason)."""

    reason: Literal["not_a_folder", "not_writable"]
    path: Path
    detail: str = ""


def folder_problem(folder: Path) -> FolderProblem | None:
    """Whether transcripts can be written into ``folder`` (None: they can). Nothing is left behind: the folder, or
    the nearest existing parent it would be created in, gets a temporary file that is removed at once."""
    place = folder
    while not os.path.lexists(place) and place.parent != place:
        place = place.parent
    if not place.is_dir():
        return FolderProblem("not_a_folder", place)
    try:
        with tempfile.TemporaryFile(dir=place, prefix=".council-"):
            pass
    except OSError as exc:
        return FolderProblem("not_writable", place, exc.strerror or type(exc).__name__)
    return None
