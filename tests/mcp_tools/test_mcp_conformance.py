"""The official MCP conformance suite (``@modelcontextprotocol/conformance``, pinned in ``scripts/conformance``, run on
the Node 22 it needs) against a real ``council mcp``: its server scenarios speak Streamable HTTP only, so the server
is reached through ``supergateway``, a transport-only bridge (a 2025-11-25 session is one ``council mcp`` process;
a 2026-07-28 request, which carries its own envelope, one process each). Each applicable scenario runs by name at
each revision it has, and every check must pass — except the checks listed in :data:`NOT_APPLICABLE`, each with why.

Not run at all (not applicable to Council): the scenarios that call the suite's reference server's fixtures —
``tools-call-*``, ``elicitation-sep1034-defaults``, ``elicitation-sep1330-enums``, ``json-schema-2020-12``,
``input-required-result-*`` but two (``test_simple_text``, ``test_input_required_result_elicitation`` … tools Council
has not), the Tasks extension's ``tasks-*`` but two (``slow_compute``, ``greet``, ``confirm_delete`` …; of
``tasks-request-headers`` only the bridge's header check is left), and
``http-custom-header-server-validation`` (a tool with ``x-mcp-header``); the ``resources-*``, ``prompts-*``,
``completion-complete`` and ``logging-set-level`` scenarios (Council offers none of those capabilities: it declares
none, and answers -32601); ``dns-rebinding-protection`` and ``http-header-validation`` (the bridge's HTTP server, not
Council's: ``council mcp`` has no HTTP); ``server-sse-polling`` (the bridge's SSE resumption)."""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OLD, MODERN = "2025-11-25", "2026-07-28"

SCENARIOS = [
    (OLD, "server-initialize"), (OLD, "server-session-lifecycle"), (OLD, "ping"), (OLD, "tools-list"),
    (OLD, "server-sse-multiple-streams"),
    (MODERN, "server-stateless"), (MODERN, "tools-list"), (MODERN, "server-sse-multiple-streams"),
    (MODERN, "caching"), (MODERN, "sep-2164-resource-not-found"),
    (MODERN, "input-required-result-unsupported-methods"), (MODERN, "input-required-result-validate-input"),
    (MODERN, "tasks-capability-negotiation"), (MODERN, "tasks-dispatch-and-envelope"),
]
EXTENSIONS = {"tasks-capability-negotiation", "tasks-dispatch-and-envelope"}  # on no revision's timeline: --force

REFERENCE_TOOL = "calls a diagnostic tool of the suite's reference server ({}), which Council has not"
SLOW_BRIDGE = ("reads a 2026-07-28 stream for 800 ms, and the bridge starts a process per request (~1 s): Council "
               "answers subscriptions/listen -32601 with no subscription capability (test_mcp_removed_methods)")
NO_CAPABILITY = "Council offers no {} (it declares none, and answers -32601)"
NOT_APPLICABLE = {
    ("server-stateless", "sep-2575-server-rejects-undeclared-capability"): REFERENCE_TOOL.format(
        "test_missing_capability"),
    ("server-stateless", "sep-2575-missing-capability-http-400"): REFERENCE_TOOL.format("test_missing_capability"),
    ("server-stateless", "sep-2575-http-server-no-independent-requests-on-stream"): REFERENCE_TOOL.format(
        "test_streaming_elicitation"),
    ("server-stateless", "sep-2575-server-no-log-without-loglevel"): REFERENCE_TOOL.format("test_logging_tool"),
    ("server-stateless", "sep-2575-server-sends-subscription-ack"): SLOW_BRIDGE,
    ("server-stateless", "sep-2575-server-tags-subscription-id"): SLOW_BRIDGE,
    ("tasks-capability-negotiation", "sep-2663-server-rejects-undeclared-client"): REFERENCE_TOOL.format(
        "slow_compute"),
    ("tasks-capability-negotiation", "tasks-per-request-meta-opt-in"): REFERENCE_TOOL.format("slow_compute"),
    ("tasks-dispatch-and-envelope", "tasks-server-directed-creation-no-hint"): REFERENCE_TOOL.format("failing_job"),
    ("tasks-dispatch-and-envelope", "sep-2663-legacy-task-param-ignored"): REFERENCE_TOOL.format("greet"),
    ("tasks-dispatch-and-envelope", "tasks-immediate-result-shortcut"): REFERENCE_TOOL.format("slow_compute"),
    ("tasks-dispatch-and-envelope", "tasks-result-type-complete-on-non-task-responses"): REFERENCE_TOOL.format(
        "greet"),
    ("tasks-dispatch-and-envelope", "sep-2663-durable-create-strong-consistency"): REFERENCE_TOOL.format(
        "slow_compute"),
    ("caching", "sep-2549-prompts-list-caching-hints"): NO_CAPABILITY.format("prompts"),
    ("caching", "sep-2549-resources-list-caching-hints"): NO_CAPABILITY.format("resources"),
    ("caching", "sep-2549-resources-templates-list-caching-hints"): NO_CAPABILITY.format("resources"),
}


@pytest.fixture(scope="module")
def suite_bin() -> str:
    """The folder holding the pinned ``node`` 22, ``conformance`` and ``supergateway`` (installed on first use)."""
    try:
        done = subprocess.run([str(ROOT / "scripts" / "conformance")], capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        pytest.fail("installing the MCP conformance suite took over 10 minutes")
    assert done.returncode == 0, f"scripts/conformance failed: {done.stderr[-2000:]}"
    return done.stdout.strip().splitlines()[-1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def bridge(suite_bin: str, tmp_path_factory: pytest.TempPathFactory):
    """``(url, env, log)``: ``supergateway`` on a free 127.0.0.1 port over ``council mcp --provider scripted``."""
    tmp = tmp_path_factory.mktemp("conformance")
    (tmp / "ws").mkdir()
    council = [sys.executable, "-m", "council", "mcp", "--provider", "scripted", "--no-embeddings",
               "--workspace", str(tmp / "ws")]
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_")},
           "PATH": f"{suite_bin}{os.pathsep}{os.environ['PATH']}", "COUNCIL_OLLAMA_URL": "http://127.0.0.1:9"}
    port = free_port()
    log = tmp / "bridge.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [f"{suite_bin}/supergateway", "--stdio", shlex.join(council), "--outputTransport", "streamableHttp",
             "--stateful", "--port", str(port), "--logLevel", "info"], env=env, cwd=tmp, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", env, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(("version", "scenario"), SCENARIOS, ids=[f"{v}-{s}" for v, s in SCENARIOS])
def test_mcp_conformance_scenario(bridge, suite_bin: str, tmp_path: Path, version: str, scenario: str):
    url, env, log = bridge
    force = ["--force"] if scenario in EXTENSIONS else []
    done = subprocess.run(
        [f"{suite_bin}/conformance", "server", "--url", url, "--scenario", scenario, "--spec-version", version,
         "-o", str(tmp_path), "--timeout", "60000", *force], env=env, capture_output=True, text=True, timeout=240)
    found = list(tmp_path.glob("*/checks.json"))
    assert len(found) == 1, f"the suite ran no scenario (rc {done.returncode}): {done.stdout[-3000:]}"
    checks = json.loads(found[0].read_text())
    assert checks, done.stdout[-3000:]
    failed = [(c["id"], c.get("errorMessage")) for c in checks
              if c["status"] == "FAILURE" and (scenario, c["id"]) not in NOT_APPLICABLE]
    assert not failed, f"{scenario} at {version}: {failed}\n{done.stdout[-3000:]}\nbridge: {log.read_text()[-3000:]}"
    assert any(c["status"] == "SUCCESS" for c in checks), checks
