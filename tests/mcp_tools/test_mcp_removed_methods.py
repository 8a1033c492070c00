"""What a 2026-07-28 client meets for the requests that revision removed, and for a version the server does not speak
(found by the MCP conformance suite's ``server-stateless`` scenario, ``test_mcp_conformance``): a removed method
(``initialize``, ``logging/setLevel``, ``resources/subscribe`` …) is -32601 "Method not found" — not -32602 for
lacking the older revision's params — and an unsupported version's error keeps MCP's ``data.supported`` and
``data.requested`` beside the contract's ``{code, message, details}``; the server keeps serving."""

from __future__ import annotations

VERSION = "io.modelcontextprotocol/protocolVersion"
MODERN = {VERSION: "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1"},
          "io.modelcontextprotocol/clientCapabilities": {}}


def test_a_method_2026_07_28_removed_is_method_not_found(raw):
    removed = ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]
    for msg_id, method in enumerate(removed, start=1):
        raw.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": {"_meta": MODERN}})
        error = raw.answer(msg_id, timeout=20)["error"]
        assert error["code"] == -32601, (method, error)  # before: -32602, "invalid params of initialize: …"
        assert error["data"]["code"] == "validation", (method, error)
    raw.send({"jsonrpc": "2.0", "id": 50, "method": "subscriptions/listen",
              "params": {"_meta": MODERN, "notifications": {"toolsListChanged": True}}})
    assert raw.answer(50, timeout=20)["error"]["code"] == -32601  # no list-changed capability: nothing to listen to
    raw.send({"jsonrpc": "2.0", "id": 99, "method": "tools/list", "params": {"_meta": MODERN}})
    assert raw.answer(99, timeout=20)["result"]["tools"]  # still serving


def test_an_unsupported_version_keeps_mcps_data_fields(raw):
    meta = {**MODERN, VERSION: "v999.0.0"}
    raw.send({"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": {"_meta": meta}})
    error = raw.answer(7, timeout=20)["error"]
    assert error["code"] == -32022, error
    data = error["data"]
    assert data["requested"] == "v999.0.0", error  # before: only under details.data
    assert "2026-07-28" in data["supported"], error
    assert data["code"] == "validation" and data["message"] == error["message"], error
    raw.send({"jsonrpc": "2.0", "id": 8, "method": "server/discover", "params": {"_meta": MODERN}})
    assert "2026-07-28" in raw.answer(8, timeout=20)["result"]["supportedVersions"]
