"""Transcript files' names and folders (opt-in; README, *Evidence, transcripts and decision memory*); standard library
only, so ``council ask`` checks its ``--transcript`` folder before the sidecar starts, before any model call.

The name is stable for a session — its start time, the first words of the question and the session id — so a
follow-up or a re-opened debate rewrites the same file (:func:`council.archive.write_transcript` writes it whole).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

SLUG_CHARS = 48


def transcript_name(created_at: datetime, request_text: str, session_id: str) -> str:
    """``20261122-101500-should-we-split-our-monolith-1a2b3c4d.md``."""
    words = re.sub(r"[^\w]+", "-", request_text.strip().lower(), flags=re.UNICODE).strip("-_")
    slug = words[:SLUG_CHARS].rstrip("-_") or "session"
    safe_id = re.sub(r"[^A-Za-z0-9]", "", session_id)[:8] or "session"
    return f"{created_at:%Y%m%d-%H%M%S}-{slug}-{safe_id}.md"


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
