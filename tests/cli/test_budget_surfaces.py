"""The budget's one rule on the real surfaces: ``council mcp``'s ``max_model_calls``, the sidecar's ``maxModelCalls``
and its consult's ``max_model_calls`` (raw bytes on real processes: no client library could even write ``1e999``),
and ``council ask --max-calls``. ``1e999`` is refused as out of range naming the field, like ``"5"``, ``true`` and
``5.5`` (it used to reach the MCP tools as ``null``: a consult with no budget)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.headless.raw import RawSidecar, assert_error
from tests.mcp_tools.test_mcp_wire import INIT, INITIALIZED, RawServer

from .conftest import PROBLEM, run_council

REFUSED = ((b"1e999", "less than or equal to 1000"), (b"-1e999", "greater than or equal to 3"),
           (b'"5"', "not a string"), (b"true", "not a boolean"), (b"5.5", "not 5.5"),
           (b"2", "greater than or equal to 3"))


def consult_line(msg_id: int, budget: bytes) -> bytes:
    return (b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"council_consult","arguments":'
            b'{"user_problem":"Should we split our monolith?","depth":"brief","max_model_calls":%s}}}'
            % (msg_id, budget))


def framed(msg_id: int, method: bytes, params: bytes) -> bytes:
    body = b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}' % (msg_id, method, params)
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_council_mcp_refuses_every_budget_but_a_whole_number_in_range(tmp_path: Path):
    server = RawServer(tmp_path)
    try:
        server.send(INIT)
        server.answer(0, 60)
        server.send(INITIALIZED)
        for msg_id, (value, says) in enumerate(REFUSED, 1):
            server.send(consult_line(msg_id, value))
            result = server.answer(msg_id, 30)["result"]
            assert result["isError"] is True, (value, result)
            error = json.loads(result["content"][1]["text"])["error"]
            assert error["code"] == "validation" and says in error["details"]["fields"]["max_model_calls"], error
        server.send(consult_line(99, b"5.0"))  # JSON Schema's integer: 5.0 is 5
        result = server.answer(99, 120)["result"]
        assert not result.get("isError"), result
        assert result["structuredContent"]["model_calls"] <= result["structuredContent"]["max_model_calls"] <= 5
    finally:
        assert server.close() == 0


def test_the_sidecar_refuses_the_same_budgets_naming_the_field():
    problem = json.dumps(PROBLEM).encode()
    with RawSidecar() as sc:
        sc.initialize()
        for msg_id, (value, says) in enumerate(REFUSED, 1):
            sc.send(framed(msg_id, b"council/turn", b'{"text":%s,"options":{"maxModelCalls":%s}}' % (problem, value)))
            data = assert_error(sc.until(msg_id)[0], -32602, msg_id)
            assert says in data["details"]["fields"]["options.maxModelCalls"], (value, data)
            sc.send(framed(100 + msg_id, b"council/consult", b'{"user_problem":%s,"max_model_calls":%s}'
                           % (problem, value)))  # the VS Code tools' input goes this way
            data = assert_error(sc.until(100 + msg_id)[0], -32602, 100 + msg_id)
            assert says in data["details"]["fields"]["max_model_calls"], (value, data)


@pytest.mark.parametrize("given", ["٣", "３", "5.0", "1e3", "true"])
def test_council_ask_takes_max_calls_in_ascii_digits_only(given: str):
    r = run_council("ask", "--provider", "scripted", "--no-embeddings", "--yes", "--max-calls", given, PROBLEM,
                    timeout=30)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"argument --max-calls: not a whole number in digits 0-9: {given!r}" in r.stderr
