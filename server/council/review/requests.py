"""A review request as it arrives (seed 004: "as JSON files dropped into a directory or passed as context strings"):
bytes, a context string or decoded JSON become a :class:`~council.review.models.CouncilRequest`, or a validation
``CouncilError`` saying what is wrong, before any model sees it.
"""

from __future__ import annotations

import json
import re

from pydantic import ValidationError

from council.errors import from_pydantic, validation_error
from council.review.models import CouncilRequest

MAX_FILE_BYTES = 20 * 1024 * 1024  # one request file (the inbox's, or `council review FILE`)
MAX_DEPTH = 64  # JSON objects and arrays in one another; a seed request needs 3
_SURROGATE = re.compile("[\ud800-\udfff]")


def load_request(source: str | bytes | dict) -> CouncilRequest:
    """A ``CouncilRequest`` from a file's bytes, a context string holding its JSON, or decoded JSON."""
    if isinstance(source, str):
        source = source.encode("utf-8", "surrogatepass")  # a lone surrogate then fails as not UTF-8
    return parse_request(decode_json(source) if isinstance(source, bytes) else source)


def parse_request(data: object) -> CouncilRequest:
    """A ``CouncilRequest`` from decoded JSON; field-level errors as a validation ``CouncilError``, JSON nested too
    deeply (``too_deep``) or holding a lone surrogate (``lone_surrogate``) refused before the model sees it."""
    if not isinstance(data, dict):
        raise validation_error("a council request must be a JSON object", fields={"(root)": "must be an object"})
    _check_tree(data)
    try:
        return CouncilRequest.model_validate(data)
    except ValidationError as exc:
        raise from_pydantic(exc, "council request") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # whatever else a validator meets
        raise validation_error(f"invalid council request: {type(exc).__name__}: {exc}"[:500],
                               reason="invalid") from None


def decode_json(raw: bytes) -> object:
    """Decoded JSON from a file's bytes; unreadable input is a validation ``CouncilError`` saying where and why
    (``details.reason``: ``too_large``, ``not_utf8``, ``not_json``, ``too_deep``)."""
    if len(raw) > MAX_FILE_BYTES:
        raise validation_error(f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB",
                               reason="too_large", size=len(raw), limit=MAX_FILE_BYTES)
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise validation_error(f"the file is not UTF-8 text: {exc.reason} at byte {exc.start}",
                               reason="not_utf8") from None
    except json.JSONDecodeError as exc:
        raise validation_error(f"the file is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
                               reason="not_json", line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise validation_error(f"the JSON is nested deeper than {MAX_DEPTH} levels", reason="too_deep",
                               limit=MAX_DEPTH) from None
    except ValueError as exc:  # a number of more digits than Python converts, NaN/Infinity
        raise validation_error(f"the file is not valid JSON: {exc}"[:300], reason="not_json") from None


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON value")


def _check_tree(data: object) -> None:
    """Refuse JSON nested deeper than ``MAX_DEPTH`` or holding a lone surrogate (``"\\ud800"``: valid JSON, but no
    UTF-8 file, prompt or decision can carry it). Iterative, so no depth can exhaust the stack."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and _SURROGATE.search(value):
                raise validation_error("the JSON holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff "
                                       "escape), which is not text", reason="lone_surrogate")
            continue
        if not isinstance(value, (dict, list)):
            continue
        if depth > MAX_DEPTH:
            raise validation_error(f"the JSON is nested deeper than {MAX_DEPTH} levels", reason="too_deep")
        items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
        stack.extend((item, depth + 1) for item in items)
