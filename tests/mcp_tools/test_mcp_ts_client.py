"""``council mcp`` driven by the TypeScript MCP SDK client (``Client.callTool``, pinned in package.json; it checks
``structuredContent`` against the tool's ``outputSchema`` even on errors) and the MCP Inspector CLI: failed calls
reach them readably, an unknown tool is a protocol error, a request nested too deep is answered with -32700, and
elicitation with a malformed answer or none at all still ends the call.

The client is ``tests/mcp_tools/ts/client.mjs`` run by ``node``; without node_modules (``npm ci``) these tests fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import PROBLEM

ROOT = Path(__file__).resolve().parents[2]
CLIENT = Path(__file__).with_name("ts") / "client.mjs"
INSPECTOR = ROOT / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build"
INSPECTOR = INSPECTOR / "index.js"
REVIEW_BAD = {"request_id": "r-1", "change_type": "SHIP_IT"}


def server_args(tmp_path: Path, *extra: str) -> list[str]:
    (tmp_path / "ws").mkdir(exist_ok=True)
    return ["-m", "council", "mcp", "--provider", "scripted", "--no-embeddings", "--workspace", str(tmp_path / "ws"),
            *extra]


def ts_client(tmp_path: Path, steps: list[dict[str, Any]], *, elicit: str | None = None,
              extra: tuple[str, ...] = (), roots: list[Path] | None = None) -> dict[str, Any]:
    """Run the TypeScript client's plan against a fresh ``council mcp``; its report (steps, elicitations seen,
    cancellations received, roots/list requests answered). With ``roots`` the server gets no ``--workspace``."""
    args = server_args(tmp_path, *extra)
    if roots is not None:
        args = [a for a in args if a not in ("--workspace", str(tmp_path / "ws"))]
    plan = {"command": sys.executable, "args": args, "cwd": str(tmp_path), "elicit": elicit, "steps": steps,
            "roots": None if roots is None else [str(r) for r in roots]}
    done = subprocess.run(["node", str(CLIENT)], input=json.dumps(plan), capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def readable_error(step: dict[str, Any]) -> dict[str, Any]:
    """The TS client got an error result (not an exception): a readable line and the contract's JSON."""
    assert "result" in step, step  # before the fix: thrown -32602 "Structured content does not match …"
    r = step["result"]
    assert r["isError"] is True and "structuredContent" not in r
    line, data = (c["text"] for c in r["content"])
    error = json.loads(data)["error"]
    assert line == f"Council {error['code']} error: {error['message']}"
    return error


def call(name: str, arguments: Any, timeout: int = 60000) -> dict[str, Any]:
    return {"op": "call", "name": name, "arguments": arguments, "timeout": timeout}


def test_failed_calls_are_readable_error_results_in_the_typescript_client(tmp_path: Path):
    report = ts_client(tmp_path, [
        {"op": "list"},  # the client caches each tool's outputSchema and checks every result against it
        call("council_consult", {}),
        call("council_consult", {"user_problem": PROBLEM, "depth": "epic"}),
        call("persona_consult", {"user_problem": PROBLEM, "persona_name": "Chef"}),
        call("council_review", REVIEW_BAD),
        call("council_consult", {"user_problem": PROBLEM, "depth": "brief"}),
    ])
    _, missing, depth, persona, review, ok = report["steps"]
    for step, field in ((missing, "user_problem"), (depth, "depth"), (persona, "persona_name"),
                        (review, "change_type")):
        error = readable_error(step)
        assert error["code"] == "validation" and field in error["details"]["fields"], error
    assert "valid" in readable_error(persona)["details"]  # the persona names to pick from
    assert ok["result"]["isError"] is False and ok["result"]["structuredContent"]["responses"]


def test_an_unknown_tool_is_a_protocol_error_in_the_typescript_client(tmp_path: Path):
    report = ts_client(tmp_path, [{"op": "list"}, call("council_summon", {}), {"op": "list"}])
    listed, unknown, again = report["steps"]
    names = [t["name"] for t in listed["result"]["tools"]]
    assert unknown["thrown"]["code"] == -32602 and "Unknown tool: council_summon" in unknown["thrown"]["message"]
    data = unknown["thrown"]["data"]
    assert data["code"] == "validation" and data["details"]["valid"] == names
    assert [t["name"] for t in again["result"]["tools"]] == names


def test_a_request_nested_too_deep_is_answered_with_a_parse_error(tmp_path: Path):
    deep: Any = "x"
    for _ in range(300):
        deep = [deep]
    report = ts_client(tmp_path, [call("council_consult", {"user_problem": PROBLEM, "context": deep}, timeout=15000),
                                  call("council_consult", {"user_problem": PROBLEM, "depth": "epic"})])
    nested, after = report["steps"]
    assert nested["thrown"]["code"] == -32700, nested  # before the fix: -32001 timed out, no answer ever came
    assert nested["thrown"]["data"]["details"]["reason"] == "too_deep"
    assert readable_error(after)["code"] == "validation"  # the server carries on


@pytest.mark.parametrize("elicit, field", [("not-object", "elicitation"), ("unknown-action", "elicitation.action")])
def test_a_malformed_elicitation_answer_ends_the_call_with_a_validation_error(tmp_path: Path, elicit, field):
    report = ts_client(tmp_path, [call("council_consult", {"user_problem": PROBLEM, "depth": "brief"}, 30000),
                                  {"op": "list"}], elicit=elicit)
    consult, listed = report["steps"]
    assert len(report["elicitations"]) == 1
    error = readable_error(consult)  # before the fix: a hang (not-object) or an internal error with a pydantic dump
    assert error["code"] == "validation" and field in error["details"]["fields"], error
    assert "pydantic" not in error["message"] and "errors.pydantic.dev" not in error["message"]
    assert listed["result"]["tools"]


def test_an_elicitation_nobody_answers_becomes_an_assumption_at_the_deadline(tmp_path: Path):
    report = ts_client(tmp_path, [call("council_consult", {"user_problem": PROBLEM, "depth": "brief"}, 30000)],
                       elicit="silent", extra=("--elicitation-timeout", "1"))
    (consult,) = report["steps"]
    assert "result" in consult, consult  # before the fix: the call waited forever (the client timed out)
    data = consult["result"]["structuredContent"]
    assert [c["status"] for c in data["clarifications"]] == ["assumed", "assumed"]
    assert len(data["assumptions"]) == 2
    [asked] = report["elicitations"]
    assert [c["requestId"] for c in report["cancelled"]] == [asked["id"]]  # the client may close its form


def test_the_inspector_cli_shows_a_failed_call_with_its_reason(tmp_path: Path):
    command = [sys.executable, *server_args(tmp_path)]
    done = subprocess.run(["node", str(INSPECTOR), "--cli", *command, "--method", "tools/call",
                           "--tool-name", "council_consult", "--tool-arg", f"user_problem={PROBLEM}",
                           "--tool-arg", "depth=epic"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env={**os.environ, "CI": "1"})
    # 5 is the Inspector's exit code for a tool result with isError (before the fix: 1, -32602 "Structured content
    # does not match the tool's output schema", and no result printed)
    assert done.returncode == 5 and "tool_is_error" in done.stderr, done.stdout[-2000:] + done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["isError"] is True and result["content"][0]["text"].startswith("Council validation error:")
    assert "depth" in json.loads(result["content"][1]["text"])["error"]["details"]["fields"]


def test_the_typescript_clients_root_is_the_workspace(tmp_path: Path):
    root = tmp_path / "project"
    root.mkdir()
    override = {"overrides": {"Devil's Advocate": {"focus": ["Cost of delay"]}}}
    drafted = ts_client(tmp_path, [call("council_define_personas", override)], roots=[root])
    draft = drafted["steps"][0]["result"]["structuredContent"]["draft"]
    assert drafted["rootsAsked"] == 1
    assert draft["directory"] == str(root.resolve() / ".council" / "personas"), draft


def test_a_consult_longer_than_the_typescript_clients_timeout_runs_as_a_task(tmp_path: Path):
    """The TypeScript SDK's own task client (``experimental.tasks.callToolStream``): with a 1 s timeout per request,
    the consult cut as one call completes as a task, polled to its result."""
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"rules": [{"when": {"schema": "PersonaReply"}, "delay": 0.25}]}), encoding="utf-8")
    consult = {"user_problem": PROBLEM, "depth": "brief"}
    report = ts_client(tmp_path, [call("council_consult", consult, timeout=1000),
                                  {"op": "task", "name": "council_consult", "arguments": consult, "timeout": 1000}],
                       extra=("--script", str(script)))
    cut, task = report["steps"]
    assert cut["thrown"]["code"] == -32001  # "Request timed out"
    kinds = [m["type"] for m in task["messages"]]
    assert kinds[0] == "taskCreated" and kinds[-1] == "result", kinds
    result = task["messages"][-1]["result"]
    assert not result.get("isError") and result["structuredContent"]["responses"]


def test_the_typescript_clients_task_asks_its_questions_and_is_cancelled_by_tasks_cancel(tmp_path: Path):
    """The TypeScript SDK 1.32's task API at 2025-11-25: a task's clarifying questions reach the client as
    elicitation requests; ``tasks/cancel`` ends a running task ``cancelled`` and stops its model calls."""
    trace = tmp_path / "trace.jsonl"
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"trace": str(trace), "rules": [{"when": {"schema": "PersonaReply"}, "delay": 5.0}]}),
                      encoding="utf-8")
    consult = {"user_problem": PROBLEM, "depth": "brief"}
    report = ts_client(tmp_path, [{"op": "task", "name": "council_consult", "arguments": consult, "timeout": 2000,
                                   "cancelWhen": "thinking"}], elicit="decline", extra=("--script", str(script)))
    [task] = report["steps"]
    assert report["elicitations"], report  # the questions came during the task
    assert task["cancel"]["status"] == "cancelled", task
    statuses = [m["task"]["status"] for m in task["messages"] if m["type"] == "taskStatus"]
    assert statuses[-1] == "cancelled", statuses
    assert task["messages"][-1]["type"] == "error", task["messages"][-1]  # the stream ends: no result
    lines = [json.loads(x) for x in trace.read_text().splitlines()]
    advisors = [x for x in lines if x["purpose"] != "clarifier"]
    assert [x for x in advisors if x["event"] == "start"] and not [x for x in advisors if x["event"] == "end"], lines
