"""Generates ``docs/protocol.md`` from the protocol models: ``python -m tools.docgen [--check]``.

The document is derived, never edited by hand; ``--check`` exits 1 when it is out of date (a test runs it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from council.protocol.completion import CompleteDelta, CompleteErrorDetails, CompleteParams, CompleteResult
from council.protocol.constants import COMPLETE_DELTA_METHOD, COMPLETE_METHOD, EVENT_METHOD
from council.protocol.errors import JSONRPC_CODES, TRANSPORT_ERRORS, ErrorData
from council.protocol.events import EVENT_TYPES, EventBase
from council.protocol.methods import METHODS
from council.transport.framing import ID_SCAN_BYTES, MAX_HEADER_BYTES, MAX_MESSAGE_BYTES
from council.transport.stdio import STALL_SECONDS
from tools import write_or_check

DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"

INTRO = (Path(__file__).parent / "protocol_intro.md").read_text(encoding="utf-8")  # a str.format template

CODE_MEANING = {
    "validation": "bad input: unknown session, wrong state, malformed params, oversized text, caps reached",
    "permission": "refused: too many sessions running a turn at once, and similar limits",
    "internal": "a fault of the sidecar; the session keeps its state",
}


def _type(spec: dict[str, Any]) -> str:
    if "$ref" in spec:
        return f"`{spec['$ref'].rsplit('/', 1)[-1]}`"
    if "anyOf" in spec:
        return " \\| ".join(_type(s) for s in spec["anyOf"])
    if "enum" in spec:
        return " \\| ".join(f"`{v}`" for v in spec["enum"])
    if "const" in spec:
        return f"`{spec['const']}`"
    kind = spec.get("type", "any")
    if kind == "array":
        return f"{_type(spec.get('items', {}))}[]"
    if kind == "object" and "additionalProperties" in spec:
        return f"map of {_type(spec['additionalProperties'])}" if isinstance(spec["additionalProperties"], dict) \
            else "object"
    return kind


def _limits(spec: dict[str, Any]) -> str:
    labels = (("minLength", "min length"), ("maxLength", "max length"), ("minItems", "min items"),
              ("maxItems", "max items"), ("minimum", "≥"), ("maximum", "≤"))
    return ", ".join(f"{label} {spec[key]}" for key, label in labels if key in spec)


def table(schema: dict[str, Any]) -> str:
    props = schema.get("properties", {})
    if not props:
        return "_(no fields)_\n"
    required = set(schema.get("required", []))
    rows = ["| field | type | required | notes |", "|---|---|---|---|"]
    for name, spec in props.items():
        note = spec.get("description", "")
        extra = _limits(spec)
        if "default" in spec and name not in required and spec["default"] not in (None, [], {}):
            extra = ", ".join(x for x in (extra, f"default `{spec['default']}`") if x)
        rows.append(f"| `{name}` | {_type(spec)} | {'yes' if name in required else ''} | "
                    f"{'; '.join(x for x in (note, extra) if x)} |")
    return "\n".join(rows) + "\n"


def render() -> str:
    defs: dict[str, dict[str, Any]] = {}

    def model_table(model: type[BaseModel], skip: tuple[str, ...] = ()) -> str:
        schema = model.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        for key in skip:
            schema.get("properties", {}).pop(key, None)
        return table(schema)

    out = [INTRO.format(
        error_table=model_table(ErrorData).strip(),
        codes="\n".join(f"| `{code.value}` | {num} | {CODE_MEANING[code.value]} |"
                        for code, num in JSONRPC_CODES.items()),
        transport_codes="\n".join(f"| {num} | {meaning} |" for num, meaning in TRANSPORT_ERRORS.items()),
        max_mib=MAX_MESSAGE_BYTES // (1024 * 1024), max_bytes=MAX_MESSAGE_BYTES,
        max_header_kib=MAX_HEADER_BYTES // 1024, stall_seconds=STALL_SECONDS, id_scan_kib=ID_SCAN_BYTES // 1024)]
    out.append("\n## Requests (client → sidecar)\n")
    for m in METHODS:
        out.append(f"\n### `{m.name}`\n\n{m.doc}\n\n**Params** (`{m.params.__name__}`)\n\n{model_table(m.params)}"
                   f"\n**Result** (`{m.result.__name__}`)\n\n{model_table(m.result)}")
    out.append(f"\n## Events (sidecar → client): `{EVENT_METHOD}` notifications\n\n"
               "Every event has these fields; `type` selects the rest. `seq` starts at 1 and increases by one per "
               "session, so a client can detect gaps and render in order. Unknown types should be ignored.\n\n"
               + model_table(EventBase))
    for cls in EVENT_TYPES:
        type_name = cls.model_fields["type"].default
        doc = (cls.__doc__ or "").strip()
        out.append(f"\n### `{type_name}`\n\n{doc + chr(10) + chr(10) if doc else ''}"
                   f"{model_table(cls, skip=('sessionId', 'seq', 'at', 'type'))}")
    out.append(f"\n## Completion requests (sidecar → client)\n\n### `{COMPLETE_METHOD}`\n\n"
               "The sidecar asks the client to complete a prompt with the client's own model (how VS Code lends the "
               f"chat's model). While it is pending the client may send `{COMPLETE_DELTA_METHOD}` notifications; "
               "the result holds the whole text. On session cancel the sidecar sends `$/cancelRequest` with this "
               "request's id. Each request ends once: with the client's reply, with an error when the reply is "
               "malformed (not JSON, too large, neither `result` nor `error`, not JSON-RPC 2.0: the model call fails "
               "wherever the reply's id can be read, and the reply is refused with id null), with a cancel, or after "
               "600 s with neither a reply nor a delta (`COUNCIL_COMPLETE_TIMEOUT` seconds: the sidecar withdraws it "
               "with `$/cancelRequest`; each delta starts the wait again, so a live stream is never cut). A reply to "
               "a request that has ended is ignored. Once a turn is cancelled or stopped, no new request is sent for "
               f"it.\n\n**Params**\n\n{model_table(CompleteParams)}\n**Result**\n\n"
               f"{model_table(CompleteResult)}\n**Error** — a client that cannot use the model it was asked for "
               "answers with a JSON-RPC error whose `data` is `{code, message, details}` and `details` is:\n\n"
               f"{model_table(CompleteErrorDetails)}\n### `{COMPLETE_DELTA_METHOD}` (client → sidecar notification)\n\n"
               f"{model_table(CompleteDelta)}")
    out.append("\n## Types\n")
    seen: set[str] = set()
    while pending := sorted(set(defs) - seen):  # a table may bring new definitions
        for name in pending:
            seen.add(name)
            spec = defs[name]
            if "enum" in spec:
                out.append(f"\n### `{name}`\n\nOne of {', '.join(f'`{v}`' for v in spec['enum'])}.\n")
            else:
                desc = spec.get("description", "")
                out.append(f"\n### `{name}`\n\n{desc + chr(10) + chr(10) if desc else ''}{table(spec)}")
    return "".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--check", action="store_true", help="exit 1 if docs/protocol.md is out of date")
    args = p.parse_args(argv)
    return write_or_check(DOC, render(), args.check, "docs/protocol.md is out of date: run python -m tools.docgen")


if __name__ == "__main__":
    sys.exit(main())
