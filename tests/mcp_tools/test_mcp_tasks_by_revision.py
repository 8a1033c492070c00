"""MCP tasks only at the revision that has them (issue 33, found by an audit with hostile clients): a client of MCP
2025-06-18 or 2025-03-26 — offered no ``tasks`` capability, and tools with no ``execution.taskSupport`` — that sends
``tools/call`` with a ``task`` field gets the plain result its revision defines (an unknown field is ignored), never
a ``CreateTaskResult`` it cannot read, and its ``tasks/*`` requests are "method not found" (-32601) with the
contract's data; a 2025-11-25 client still gets its task.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import PROBLEM
from .test_mcp_wire import INITIALIZED, RawServer

CONSULT = {"name": "council_consult", "arguments": {"user_problem": PROBLEM, "depth": "brief"}, "task": {"ttl": 60000}}
PERSONAS = {"name": "council_define_personas", "arguments": {}, "task": {"ttl": 60000}}


def handshake(tmp_path: Path, version: str) -> RawServer:
    server = RawServer(tmp_path)
    server.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}, INITIALIZED)
    assert server.answer(0)["result"]["protocolVersion"] == version
    return server


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26"])
def test_a_revision_without_tasks_gets_plain_results_and_no_task_methods(tmp_path: Path, version: str):
    server = handshake(tmp_path, version)
    try:
        server.send({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}})
        tools = server.answer(9)["result"]["tools"]
        assert not [t["name"] for t in tools if "execution" in t], tools  # before: taskSupport "optional"
        server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": CONSULT},
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": PERSONAS})
        consult, personas = server.answer(1, timeout=60), server.answer(2, timeout=20)
        assert "task" not in consult.get("result", {}), consult  # before: {"task": {…}} from a server offering none
        assert consult["result"]["isError"] is False and consult["result"]["structuredContent"]["responses"]
        assert personas["result"]["isError"] is False, personas  # before: -32601 "does not run as a task"
        for msg_id, method in enumerate(("tasks/list", "tasks/get", "tasks/result", "tasks/cancel"), start=3):
            params = {} if method == "tasks/list" else {"taskId": "x"}
            server.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
            error = server.answer(msg_id)["error"]
            assert error["code"] == -32601, (method, error)
            assert error["data"]["code"] == "validation" and error["data"]["details"]["method"] == method
    finally:
        assert server.close() == 0


def test_a_2025_11_25_client_still_gets_its_task(tmp_path: Path):
    server = handshake(tmp_path, "2025-11-25")
    try:
        server.send({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}})
        tools = {t["name"]: t for t in server.answer(9)["result"]["tools"]}
        assert tools["council_consult"]["execution"] == {"taskSupport": "optional"}
        server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": CONSULT})
        task = server.answer(1, timeout=20)["result"]["task"]
        server.send({"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": task["taskId"]}})
        assert server.answer(2, timeout=60)["result"]["structuredContent"]["responses"]
    finally:
        assert server.close() == 0
