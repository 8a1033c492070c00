"""Start-up of the sidecar and of ``council ask`` (issue 24): spawn → ``initialize`` answered, spawn → first question.

Run: ``.venv/bin/python bench/startup.py [-n 15] [--vs DIR]`` — about a minute. Each figure is timed from outside,
as a client sees it: the parent spawns ``python -m council …`` with a fresh interpreter (no shared import cache),
writes an LSP-framed ``initialize`` and waits for its answer; for ``council ask`` it waits until the first
clarifying question is printed (the scripted model, so no model time is in the figure). ``--vs DIR`` times a
second source tree the same way, run for run in turn (A B A B …), e.g. the previous commit's
``git archive HEAD~1 server personas | tar -x -C DIR``: its ``server`` folder goes first on ``PYTHONPATH``. The
machine is shared, so every figure is printed as min and median of the runs. Prints ``name: value`` lines.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTION = "Should we split our billing monolith into services this quarter?"
FIRST_QUESTION = b"What is the main goal"  # the scripted model's first clarifying question


def env_for(src: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if src:
        env["PYTHONPATH"] = str(Path(src, "server").resolve())
    return env


def framed(payload: dict) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def read_message(stream) -> dict:
    length = 0
    while True:
        line = stream.readline()
        if not line:
            raise RuntimeError("the sidecar closed its stdout before answering")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))


TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far (``/proc/PID/stat``, in clock ticks)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def initialize_once(src: str, args: list[str], cwd: str, cpu: list[float] | None = None) -> float:
    """Seconds from spawning ``council serve ARGS`` to reading its answer to ``initialize`` (``cpu`` gets the CPU
    seconds the sidecar had used by then: on a loaded machine the steadier figure)."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "council", "serve", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd, env=env_for(src))
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(framed({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                 "params": {"processId": os.getpid(), "rootUri": None, "capabilities": {}}}))
        proc.stdin.flush()
        while True:
            msg = read_message(proc.stdout)
            if msg.get("id") == 1:
                break
        took = time.perf_counter() - started
        if cpu is not None:
            cpu.append(cpu_s(proc.pid))
        if "result" not in msg:
            raise RuntimeError(f"initialize failed: {msg}")
        proc.stdin.write(framed({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.write(framed({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        proc.wait(timeout=20)
        return took
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def first_question_once(src: str, cwd: str) -> float:
    """Seconds from spawning ``council ask`` (scripted model) to its first clarifying question on stdout."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "council", "ask", "--provider", "scripted", "--no-embeddings",
                             QUESTION], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            cwd=cwd, env=env_for(src))
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if FIRST_QUESTION in line:
                return time.perf_counter() - started
        raise RuntimeError("council ask ended without asking a question")
    finally:
        proc.kill()
        proc.wait()


def line(name: str, runs: dict[str, list[float]], note: str, cpu: dict[str, list[float]] | None = None) -> str:
    parts = []
    for label, values in runs.items():
        used = (f", cpu min {min(cpu[label]):.2f} median {statistics.median(cpu[label]):.2f}"
                if cpu and cpu[label] else "")
        parts.append(f"{label} min {min(values):.3f} median {statistics.median(values):.3f}{used}")
    if len(runs) == 2:
        (_, a), (_, b) = runs.items()
        ratios = [x / y for x, y in zip(a, b, strict=True)]
        parts.append(f"ratio median {statistics.median(ratios):.2f}x")
    return f"{name}: " + " | ".join(parts) + f" ({note})"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("-n", type=int, default=15, help="counted runs of each figure (after one warm-up)")
    p.add_argument("--vs", default="", help="a second source tree (holding server/ and personas/) to time too")
    ns = p.parse_args()
    sources = {"this": ""} | ({"vs": ns.vs} if ns.vs else {})
    print(f"python: {sys.version.split()[0]}; cpus: {os.cpu_count()}; load: {os.getloadavg()[0]:.2f}; runs: {ns.n}"
          + (f"; vs: {ns.vs}" if ns.vs else ""))
    with tempfile.TemporaryDirectory() as cwd:
        workspace = Path(cwd, "ws")
        workspace.mkdir()
        cpu: dict[str, list[float]] = {label: [] for label in sources}
        figures = {
            "sidecar_initialize_s": (
                lambda src, cpu: initialize_once(src, ["--workspace", str(workspace)], cwd, cpu),
                "spawn council serve --workspace DIR -> initialize answered: the extension's default launch, "
                "embeddings on; cpu: the sidecar's CPU seconds by then; goal <= 0.3"),
            "sidecar_initialize_no_embeddings_s": (
                lambda src, cpu: initialize_once(src, ["--workspace", str(workspace), "--no-embeddings"], cwd, cpu),
                "the same with council.routing.embeddings off"),
            "ask_first_question_s": (lambda src, cpu: first_question_once(src, cwd),
                                     "spawn council ask (scripted model) -> its first question printed"),
        }
        for name, (run, note) in figures.items():
            runs: dict[str, list[float]] = {label: [] for label in sources}
            cpu = {label: [] for label in sources}
            for _label, src in sources.items():  # warm-up: the OS file cache, .pyc files
                run(src, None)
            for _ in range(ns.n):
                for label, src in sources.items():
                    runs[label].append(run(src, cpu[label]))
            print(line(name, runs, note, cpu), flush=True)


if __name__ == "__main__":
    main()
