"""``bench/quality.py --mixed`` as the README runs it: an endpoint that cannot be used fails the run, naming it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from tests.headless.fake_openai import FakeOpenAI, fake_openai

QUALITY = Path(__file__).resolve().parents[2] / "bench" / "quality.py"


def quality(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(QUALITY), "--provider", "scripted", "--arithmetic", "1",
                           "--clarification", "0", "--samples", "1", "--max-cycles", "1", *args],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_endpoint_fails_the_run_with_one_line_naming_it():
    """Issue 19 audit: it exited 0 with "mixed 0/1" when an endpoint of --mixed was unreachable."""
    url = f"http://127.0.0.1:{closed_port()}/v1"
    done = quality("--mixed", f"scripted:one,openai:gpt-x@{url}")
    assert done.returncode == 3, done.stdout + done.stderr
    [line] = [x for x in done.stderr.splitlines() if x.startswith("quality:")]
    assert url in line and "openai:gpt-x" in line
    assert "accuracy" not in done.stdout  # nothing was measured


def test_an_endpoint_that_fails_every_call_fails_the_run():
    down = FakeOpenAI("down", always=503)  # answers its health check, fails every completion
    with fake_openai(down) as url:
        done = quality("--mixed", f"scripted:one,openai:gpt-x@{url}")
    assert down.requests and done.returncode == 3, done.stdout + done.stderr
    [line] = [x for x in done.stderr.splitlines() if x.startswith("quality:")]
    assert url in line and "failed every call" in line


def test_mixed_endpoints_that_work_exit_0():
    up = FakeOpenAI("up")
    with fake_openai(up) as url:
        done = quality("--mixed", f"scripted:one,openai:gpt-x@{url}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "arithmetic_accuracy:" in done.stdout and "mixed" in done.stdout and up.requests
