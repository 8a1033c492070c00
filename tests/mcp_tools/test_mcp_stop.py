"""``council mcp`` stops at once when its client stops it: Claude Code sends SIGINT and, if the server is still
there a moment later, SIGTERM ("SIGINT failed, sending SIGTERM"). Either signal ends it cleanly at once — idle, or
in the middle of a consult whose model calls it cancels (each would take 30 s) — with exit status 0 and no
traceback. It takes ~0.15 s here; the bound is 3 s because a loaded 2-core runner once took 1.5 s to schedule the
exit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import PROBLEM

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "stop-test", "version": "1"}}}
CONSULT = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
    "name": "council_consult", "arguments": {"user_problem": PROBLEM}}}


def started(tmp_path: Path) -> subprocess.Popen[bytes]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"delay": 30, "trace": str(tmp_path / "trace.jsonl")}), encoding="utf-8")
    (tmp_path / "ws").mkdir()
    server = subprocess.Popen([sys.executable, "-m", "council", "mcp", "--provider", "scripted", "--no-embeddings",
                               "--workspace", str(tmp_path / "ws"), "--script", str(script)], cwd=tmp_path,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=(tmp_path / "server.log").open("wb"), env=dict(os.environ))
    assert server.stdin is not None and server.stdout is not None
    send(server, INIT)
    assert json.loads(server.stdout.readline())["id"] == 1
    send(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return server


def send(server: subprocess.Popen[bytes], message: dict) -> None:
    assert server.stdin is not None
    server.stdin.write(json.dumps(message).encode() + b"\n")
    server.stdin.flush()


def stopped_within(server: subprocess.Popen[bytes], signum: int) -> tuple[int, float]:
    start = time.monotonic()
    server.send_signal(signum)
    try:
        code = server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        pytest.fail("council mcp was still running 10 s after the signal")
    return code, time.monotonic() - start


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("busy", [False, True], ids=["idle", "mid-consult"])
def test_a_signal_stops_council_mcp_cleanly_at_once(signum, busy, tmp_path: Path):
    server = started(tmp_path)
    trace = tmp_path / "trace.jsonl"
    if busy:
        send(server, CONSULT)
        deadline = time.monotonic() + 60
        while not (trace.exists() and trace.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.1)  # a model call of the consult is running (each takes 30 s)
        assert trace.exists(), "the consult made no model call"
    else:
        time.sleep(0.5)
    code, took = stopped_within(server, signum)
    log = (tmp_path / "server.log").read_bytes().decode("utf-8", "replace")
    assert code == 0 and "Traceback" not in log, (code, log[-2000:])
    assert took < 3.0, f"it took {took:.2f} s"
    if busy:
        assert '"cancelled"' in trace.read_text() or "cancel" in trace.read_text(), trace.read_text()
