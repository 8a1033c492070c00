"""Build tools, not shipped in the wheel: the generators of what is derived from the wire models (``docgen``:
docs/protocol.md, ``tsgen``: extension/src/wire.ts, ``lmtools``: package.json's languageModelTools; ``kindsgen``:
the provider settings in package.json and extension/src/providerKinds.ts, from the provider table). Run each from the
repository root as ``python -m tools.<name>``; ``--check`` exits 1 when the committed file is out of date."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(path: Path, text: str, check: bool, stale: str) -> int:
    """Write ``text`` to ``path`` (0); with ``check``, write nothing and return 1 (saying ``stale`` on stderr) when
    ``path`` does not hold exactly ``text``."""
    if check:
        if (path.read_text(encoding="utf-8") if path.exists() else "") != text:
            sys.stderr.write(stale + "\n")
            return 1
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return 0
