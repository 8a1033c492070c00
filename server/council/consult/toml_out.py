"""A small TOML writer for persona files: strings, booleans, numbers and lists of them, keys in order.

Only what persona contracts hold; anything else is refused rather than written wrongly. Long strings are written
as ordinary basic strings (escaped), so the output always parses back to the same values.
"""

from __future__ import annotations

import math
import re
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _string(value: str) -> str:
    out = []
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + "".join(f"  {_value(v)},\n" for v in value) + "]"
    raise ValueError(f"cannot write {type(value).__name__} values to a persona file")


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _string(key)


def toml_text(data: dict[str, Any]) -> str:
    """``data`` as TOML: one ``key = value`` per line, in the given order."""
    return "".join(f"{_key(k)} = {_value(v)}\n" for k, v in data.items())
