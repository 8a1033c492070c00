"""Text that can always be encoded as UTF-8 (JSON on the wire, HTTP request bodies, files, a terminal).

A file name that is not valid UTF-8 reaches Python as a ``str`` holding lone surrogates (``surrogateescape``:
byte 0xE9 → ``"\\udce9"``); so can a JSON string with an unpaired ``\\ud800`` escape. Such a string cannot be
encoded, and whatever tries (a transcript file, ``httpx`` posting a prompt, a strict JSON encoder) fails. Where
names from the disk become text people or models read, :func:`encodable` puts U+FFFD in each such place. What a
client sends (a JavaScript client cutting by UTF-16 units can split an emoji) gets :func:`encodable_value` once, where
the transport classifies it; ids and methods keep their text (docs/protocol.md, *Messages*).
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATES = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (the replacement character)."""
    return _SURROGATES.sub("\ufffd", text) if _SURROGATES.search(text) else text


def encodable_value(value: Any) -> Any:
    """A decoded JSON value with :func:`encodable` applied to every string in it, keys too (changed in place; the
    walk is iterative, so a value nested as deep as the JSON decoder allows cannot exhaust the stack)."""
    if isinstance(value, str):
        return encodable(value)
    stack = [value] if isinstance(value, (list, dict)) else []
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in [k for k in node if _SURROGATES.search(k)]:
                node[encodable(key)] = node.pop(key)
        for key, item in (node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(item, str):
                node[key] = encodable(item)
            elif isinstance(item, (list, dict)):
                stack.append(item)
    return value
