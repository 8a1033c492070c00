"""The 2026-07-28 request envelope (``params._meta``: the protocol version, the client's info and capabilities) that a
client gets wrong (issue 33, found by an audit with hostile clients): the refusal names the field and says what is
wrong with it, in the contract's ``{code, message, details}``, where the SDK alone answers a frozen "Invalid request
parameters" with empty details; and the server keeps serving."""

from __future__ import annotations

from typing import Any

import pytest

VERSION = "io.modelcontextprotocol/protocolVersion"
INFO = "io.modelcontextprotocol/clientInfo"
CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
GOOD = {VERSION: "2026-07-28", INFO: {"name": "hostile", "version": "1"}, CAPABILITIES: {}}


@pytest.mark.parametrize(("meta", "field"), [
    ({**GOOD, CAPABILITIES: {"extensions": {"io.modelcontextprotocol/tasks": 5}}}, CAPABILITIES),
    ({**GOOD, CAPABILITIES: []}, CAPABILITIES),
    ({**GOOD, CAPABILITIES: {"elicitation": "yes"}}, CAPABILITIES),
    ({**GOOD, INFO: 5}, INFO),
    ({**GOOD, INFO: {"name": "hostile"}}, INFO),
    ({**GOOD, "io.modelcontextprotocol/logLevel": 7}, "io.modelcontextprotocol/logLevel"),
])
def test_a_malformed_2026_07_28_envelope_is_refused_naming_the_field(raw, meta: dict[str, Any], field: str):
    for msg_id, method, params in ((1, "tools/list", {}),
                                   (2, "tools/call", {"name": "council_define_personas", "arguments": {}})):
        raw.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": {**params, "_meta": meta}})
        error = raw.answer(msg_id, timeout=20)["error"]
        assert error["code"] == -32602, error
        data = error["data"]
        assert data["code"] == "validation" and data["details"]["reason"] == "bad_params", error
        assert any(field in name for name in data["details"]["fields"]), error  # before: details {}
        assert field in error["message"] and data["message"] == error["message"], error
    raw.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": GOOD}})
    assert raw.answer(3, timeout=20)["result"]["tools"]  # still serving
