"""``council mcp`` driven by clients we did not write, at MCP 2026-07-28: the TypeScript SDK 2.x ``Client``
(``@modelcontextprotocol/client``, pinned to 2026-07-28), the official Tasks extension's requester
(``@modelcontextprotocol/ext-tasks``, ``createTaskSessionFromClient`` with the raw request path it needs for a
2026-07-28 server) and the MCP Inspector CLI (``--protocol-era modern``). A consult's questions reach the SDK's
elicitation handler as input requests; a consult longer than the client's clock for one request runs as a task of
the extension, its questions answered through ``tasks/get``/``tasks/update``; progress resets the SDK's clock when
asked to; ``tasks/cancel`` stops the task.

The client is ``tests/mcp_tools/ts/modern.mjs`` run by ``node``; without node_modules (``npm ci``) these tests fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import PROBLEM
from .test_mcp_tasks import advisors
from .test_mcp_ts_client import INSPECTOR, ROOT, server_args

CLIENT = Path(__file__).with_name("ts") / "modern.mjs"
CONSULT = {"user_problem": PROBLEM, "depth": "brief"}
SLOW = {"when": {"schema": "PersonaReply"}, "delay": 0.25}  # each advisor's reply streams for a few seconds
EXTENSION = "io.modelcontextprotocol/tasks"
CLOCK = 2000  # the client's timeout for one request, in ms (a loaded machine may take over 1 s to answer one)


def ts_modern(tmp_path: Path, steps: list[dict[str, Any]], script: dict[str, Any] | None = None,
              env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run the TypeScript 2.x client's plan against a fresh ``council mcp`` (scripted provider); its report."""
    extra: tuple[str, ...] = ()
    if script is not None:
        path = tmp_path / "script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        extra = ("--script", str(path))
    plan = {"command": sys.executable, "args": server_args(tmp_path, *extra), "cwd": str(tmp_path),
            "env": env or {}, "steps": steps}
    done = subprocess.run(["node", str(CLIENT)], input=json.dumps(plan), capture_output=True, text=True,
                          timeout=150, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_the_typescript_sdk_2_client_at_2026_07_28_gets_its_questions_as_input_requests(tmp_path: Path):
    # The chair streams as a real one does: the answer's pieces go out while it writes, not in the same read as the
    # result (the SDK hands notifications to a microtask but settles a response at once, so progress written just
    # before a result is dropped on a loaded machine: modelcontextprotocol/typescript-sdk#2580).
    report = ts_modern(tmp_path, [{"op": "call", "name": "council_consult", "arguments": CONSULT}],
                       script={"rules": [{"when": {"schema": "SynthesisReply"}, "delay": 0.05}]})
    assert report["era"] == "modern" and report["serverExtensions"] == {EXTENSION: {}}
    [step] = report["steps"]
    assert step["elicitations"] >= 1, step  # the SDK's own handler answered the elicitation input requests
    result = step["result"]
    assert not result.get("isError"), result
    answered = [c for c in result["structuredContent"]["clarifications"] if c.get("answer")]
    assert answered and all(c["answer"] == "By the end of next month" for c in answered), answered
    pieces = [m for m in step["progress"] if m.startswith("The council's answer")]
    assert pieces and "".join(pieces).count("Take the staged approach") == 1, pieces  # deltas, never it all again


def test_a_consult_longer_than_the_clients_clock_runs_as_an_ext_tasks_task(tmp_path: Path):
    """The extension's requester with a 2 s clock per request: the same consult called plainly is cut, as a task it
    is polled to its end, its questions answered through tasks/update."""
    report = ts_modern(tmp_path, [
        {"op": "call", "name": "council_consult", "arguments": CONSULT, "timeout": CLOCK},
        {"op": "task", "name": "council_consult", "arguments": CONSULT, "timeout": CLOCK}], script={"rules": [SLOW]})
    assert report["taskCapabilities"]["execution"] and report["taskCapabilities"]["inputResponses"]
    cut, task = report["steps"]
    assert cut["thrown"]["code"] == "REQUEST_TIMEOUT", cut  # the SDK 2.x's SdkErrorCode.RequestTimeout
    assert task["kind"] == "task" and task["outcome"]["status"] == "completed", task
    result = task["outcome"]["result"]
    assert not result.get("isError") and result["structuredContent"]["responses"], result
    asked = task["elicitations"]
    assert asked and all(e["delivery"] == "task-update" and e["scope"] == "task" for e in asked), asked
    assert "input_required" in [status for status, _ in task["events"]]
    assert {"tools/call", "tasks/get", "tasks/update"} <= set(report["methods"])
    assert "tasks/result" not in report["methods"] and "tasks/list" not in report["methods"]


def test_progress_resets_the_typescript_clients_clock_at_2026_07_28(tmp_path: Path):
    """A 2 s clock that progress resets (``resetTimeoutOnProgress``): the long consult, a plain call, completes."""
    report = ts_modern(tmp_path, [{"op": "call", "name": "council_consult", "arguments": CONSULT, "timeout": CLOCK,
                                   "resetTimeoutOnProgress": True}],
                       script={"rules": [{**SLOW, "delay": 0.4}]}, env={"COUNCIL_MCP_HEARTBEAT": "0.3"})
    [step] = report["steps"]
    assert "result" in step and not step["result"].get("isError"), step
    assert any("still at work" in m for m in step["progress"]), step["progress"]


def test_ext_tasks_cancel_stops_the_tasks_model_calls(tmp_path: Path):
    trace = tmp_path / "trace.jsonl"
    report = ts_modern(tmp_path, [{"op": "task", "name": "council_consult", "arguments": CONSULT,
                                   "cancelWhen": "thinking"}],
                       script={"trace": str(trace), "rules": [{**SLOW, "delay": 5.0}]})
    [task] = report["steps"]
    assert task["outcome"]["status"] == "cancelled", task
    assert "tasks/cancel" in report["methods"]
    calls = advisors(trace)
    assert [x for x in calls if x["event"] == "start"] and not [x for x in calls if x["event"] == "end"], calls


def test_the_inspector_cli_at_2026_07_28_runs_a_consult_as_an_extension_task(tmp_path: Path):
    """The MCP Inspector CLI with ``--protocol-era modern`` (its 2026-07-28 client declares the Tasks extension):
    a consult runs as a task, polled to its result; a failed call still shows its reason (exit 5)."""
    command = [sys.executable, *server_args(tmp_path)]

    def inspector(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["node", str(INSPECTOR), "--cli", *command, "--protocol-era", "modern",
                               "--method", "tools/call", "--tool-name", "council_consult", *arguments],
                              capture_output=True, text=True, timeout=120, cwd=ROOT, env={**os.environ, "CI": "1"})

    done = inspector("--tool-args-json", json.dumps(CONSULT))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "runs as task" in done.stderr and "(Tasks extension)" in done.stderr  # the server's log, inherited
    assert json.loads(done.stdout)["structuredContent"]["responses"]
    failed = inspector("--tool-arg", f"user_problem={PROBLEM}", "--tool-arg", "depth=epic")
    assert failed.returncode == 5 and "tool_is_error" in failed.stderr, failed.stdout[-2000:] + failed.stderr[-2000:]
    error = json.loads(json.loads(failed.stdout)["content"][1]["text"])["error"]
    assert error["code"] == "validation" and "depth" in error["details"]["fields"]
