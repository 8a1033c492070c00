"""Text that can always be encoded as UTF-8 (JSON on the wire, HTTP request bodies, files, a terminal).

A file name that is not valid UTF-8 reaches Python as a ``str`` holding lone surrogates (``surrogateescape``:
byte 0xE9 → ``"\\udce9"``); so can a JSON string with an unpaired ``\\ud800`` escape. Such a string cannot be
encoded, and whatever tries (a transcript file, ``httpx`` posting a prompt, a strict JSON encoder) fails. Where
names from the disk become text people or models read, :func:`encodable` puts U+FFFD in each such place.
"""

from __future__ import annotations

import re

_SURROGATES = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (the replacement character)."""
    return _SURROGATES.sub("\ufffd", text) if _SURROGATES.search(text) else text
