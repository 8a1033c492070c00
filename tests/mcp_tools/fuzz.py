"""A seeded fuzzer for ``council mcp``: hostile frames of every shape on a real subprocess's stdin, and what must
hold — the server never exits on input, every request with an id is answered exactly once, every line that must
be refused with id null is (exactly as many as expected), a request cancelled on the next line is answered at most
once (never, when the cancel came first: MCP), and a normal ``tools/list`` still works at the end.

Frames: lines that are not JSON (truncated, NaN, invalid UTF-8, binary junk), JSON that is not an object, batches,
requests with ids of every type (valid ones are unique per run, so each answer is counted), every MCP request
method and some that do not exist, notification methods sent with an id, params of the wrong type, tool calls for
every tool with arguments of every wrong shape, lone surrogates, huge integers, deep nesting, lines over the size
limit, client responses nobody asked for (malformed too), cancellations of requests in flight, and notifications
before and after ``initialize``. ``run(seed, frames)`` returns the counts; ``python -m tests.mcp_tools.fuzz``
runs it from a shell.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from council.mcpserver.guard import MAX_DEPTH, MAX_LINE_BYTES, NOTIFICATIONS, REQUESTS
from council.mcpserver.tools import TOOLS_BY_NAME

PROBLEM = "Should we split our monolith into services this quarter?"
NULL = "null"  # an expected answer with id null


@dataclass
class Frame:
    """One line to send and what it must bring back: valid ids answered once each, ``nulls`` answers with id null."""

    line: bytes
    ids: list[Any] = field(default_factory=list)
    nulls: int = 0
    kind: str = ""
    cancelled: list[Any] = field(default_factory=list)  # ids answered at most once


class Fuzzer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.next_id = 1000

    def fresh_id(self) -> Any:
        """A valid id never used before in this run: integers of any size and sign, strings of any content."""
        self.next_id += 1
        n = self.next_id
        return self.rng.choice([n, -n, n * 10**25, f"s{n}", f"ид-{n}-✓", f"{n} with spaces", str(n) + "\u0000"])

    def value(self, depth: int = 0) -> Any:
        """Any JSON value, sometimes hostile."""
        r = self.rng.random()
        if depth > 3 or r < 0.45:
            return self.rng.choice([None, True, False, 0, -1, 2**63, -(2**70), 1.5, 1e308, "", "x", "ü" * 50,
                                    "\u2028", "a" * 5000, PROBLEM, "Devil's Advocate", "brief", "epic"])
        if r < 0.7:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 3))]
        keys = ["user_problem", "depth", "persona_name", "context", "name", "arguments", "overrides", "confirm",
                "query", "decision_id", "request_id", "change_type", "_meta", "progressToken", "x"]
        return {self.rng.choice(keys): self.value(depth + 1) for _ in range(self.rng.randint(0, 4))}

    def params(self, method: str) -> Any:
        shape = self.rng.random()
        if shape < 0.15:
            return self.rng.choice([None, [], "params", 42, True])  # not an object
        if method == "tools/call":
            return {"name": self.rng.choice([*TOOLS_BY_NAME, "council_summon", "", "a.b", 42, None]),
                    "arguments": self.arguments()}
        if method == "initialize":
            return self.rng.choice([{}, {"protocolVersion": 7}, {"protocolVersion": "2025-06-18", "capabilities": {},
                                                                 "clientInfo": {"name": "f", "version": "1"}}])
        return self.value(1) if shape < 0.6 else {}

    def arguments(self) -> Any:
        args = self.value(1)
        if isinstance(args, dict) and "user_problem" in args:
            args["depth"] = "epic"  # never a whole valid consult: the fuzzer tests the wire, not the council
        if isinstance(args, dict) and "confirm" in args:
            args["confirm"] = "draft-that-does-not-exist"
        return args

    def request(self, method: str | None = None, msg_id: Any = None) -> Frame:
        method = method or self.rng.choice([*REQUESTS, *NOTIFICATIONS, "tools/call", "tools/call", "nope", "",
                                            "rpc.discover", "tools/list/"])
        msg_id = self.fresh_id() if msg_id is None else msg_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if self.rng.random() < 0.8:
            message["params"] = self.params(method)
        return Frame(dumps(message), ids=[msg_id], kind=f"request {method}")

    def frame(self) -> Frame:
        kinds = [self.request, self.request, self.request, self.bad_id, self.not_json, self.not_object, self.batch,
                 self.notification, self.response, self.surrogate, self.deep, self.cancel_later, self.ping,
                 self.bad_envelope]
        return self.rng.choice(kinds)()

    def ping(self) -> Frame:
        return self.request("ping")

    def bad_id(self) -> Frame:
        msg_id = self.rng.choice([None, 1.5, True, False, [], {}, [1], {"id": 1}, 1e3])
        return Frame(dumps({"jsonrpc": "2.0", "id": msg_id, "method": self.rng.choice(["ping", "tools/list", "x"])}),
                     nulls=1, kind="bad id")

    def not_json(self) -> Frame:
        line = self.rng.choice([b"{", b"{\"jsonrpc\":", b"[1,2", b"NaN", b"Infinity", b"{\"a\":NaN}", b"nul",
                                b"\xff\xfe\x00", b"{\"id\": 1e}", b"'single'", b"{'a': 1}", bytes(range(1, 9)),
                                b"\xc3\x28", b"\"\xed\xa0\x80\"", b"1" * 5000, b"}{", b"[][]"])
        return Frame(line, nulls=1, kind="not json")

    def not_object(self) -> Frame:
        return Frame(dumps(self.rng.choice([0, -1, 2**80, "str", None, True, 1.5])), nulls=1, kind="not an object")

    def batch(self) -> Frame:
        items: list[Any] = []
        ids: list[Any] = []
        for _ in range(self.rng.randint(0, 4)):
            if self.rng.random() < 0.6:
                msg_id = self.fresh_id()
                ids.append(msg_id)
                items.append({"jsonrpc": "2.0", "id": msg_id, "method": "ping"})
            else:
                items.append(self.rng.choice([1, "x", None, {"jsonrpc": "2.0", "method": "notifications/initialized"}]))
        return Frame(dumps(items), ids=ids, nulls=0 if ids else 1, kind="batch")

    def notification(self) -> Frame:
        method = self.rng.choice([*NOTIFICATIONS, "notifications/nope", "tools/call", "", "ping"])
        message = {"jsonrpc": "2.0", "method": method, "params": self.params(method)}
        if method == "notifications/cancelled" and isinstance(message["params"], dict):
            message["params"] = {"requestId": self.rng.choice([1, "x", None, 10**30])}
        return Frame(dumps(message), kind="notification")

    def response(self) -> Frame:
        message = {"jsonrpc": "2.0", "id": self.rng.choice([0, 1, 2, "x", None, 1.5, 10**30])}
        message.update(self.rng.choice([{"result": {}}, {"result": 42}, {"result": None}, {"error": "bad"},
                                        {"error": {"code": "x"}}, {"result": {}, "error": {}}, {}]))
        return Frame(dumps(message), kind="response")

    def surrogate(self) -> Frame:
        msg_id = self.fresh_id()
        text = self.rng.choice(["\\ud800", "\\udfff", "a\\ud83d", "\\ud83d\\ude00", "\\udc00x"])
        raw_id, expect = json.dumps(msg_id), msg_id
        if isinstance(msg_id, str) and self.rng.random() < 0.5:  # in the id itself: echoed exactly
            raw_id, expect = raw_id[:-1] + '\\ud800"', msg_id + "\ud800"
        name = self.rng.choice(["council_consult", "persona_consult", "council_review", "x"])
        arguments = f'{{"user_problem":"q{text}","depth":"epic","context":"{text}"}}'
        line = f'{{"jsonrpc":"2.0","id":{raw_id},"method":"tools/call","params":{{"name":"{name}","arguments":' \
               f'{arguments}}}}}'
        return Frame(line.encode(), ids=[expect], kind="surrogate")

    def deep(self) -> Frame:
        n = self.rng.choice([MAX_DEPTH + 1, 300, 5000])
        msg_id = self.fresh_id()
        inner = "[" * n + "]" * n
        line = f'{{"jsonrpc":"2.0","id":{json.dumps(msg_id)},"method":"tools/call","params":' \
               f'{{"name":"council_consult","arguments":{{"user_problem":"q","context":{inner}}}}}}}'
        return Frame(line.encode(), ids=[msg_id], kind="deep")

    def cancel_later(self) -> Frame:
        """A request and, on the next line, its cancellation: answered once if it was done before the cancel came,
        else never (MCP: a cancelled request gets no response)."""
        first = self.request("tools/call")
        cancel = dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": first.ids[0], "reason": "fuzz"}})
        return Frame(first.line + b"\n" + cancel, cancelled=first.ids, kind="cancelled request")

    def bad_envelope(self) -> Frame:
        msg_id = self.fresh_id()
        message = self.rng.choice([{"jsonrpc": "1.0", "id": msg_id, "method": "ping"},
                                   {"id": msg_id, "method": "ping"},
                                   {"jsonrpc": "2.0", "id": msg_id, "method": 42},
                                   {"jsonrpc": "2.0", "id": msg_id, "method": "ping", "params": [1]},
                                   {"jsonrpc": "2.0", "id": msg_id, "method": "notifications/initialized"}])
        return Frame(dumps(message), ids=[msg_id], kind="bad envelope")


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


@dataclass
class Report:
    frames: int = 0
    bytes_sent: int = 0
    requests: int = 0
    answered: int = 0
    cancelled: int = 0  # requests cancelled on the next line
    cancelled_answered: int = 0  # of them, answered (done before the cancel came)
    null_answers: int = 0
    kinds: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    exit_code: int | None = None


def run(seed: int, frames: int, workspace: Path, *, timeout: float = 50.0, log: Path | None = None) -> Report:
    """Fuzz a fresh ``council mcp`` (its stderr to ``log``); raises AssertionError when a rule breaks."""
    fuzz = Fuzzer(seed)
    report = Report()
    started = time.monotonic()
    env = {**os.environ, "COUNCIL_LOG_LEVEL": os.environ.get("FUZZ_LOG_LEVEL", "INFO") if log else "WARNING"}
    errlog = log.open("ab") if log else subprocess.DEVNULL
    proc = subprocess.Popen([sys.executable, "-m", "council", "mcp", "--provider", "scripted", "--no-embeddings",
                             "--workspace", str(workspace)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=errlog, env=env, cwd=workspace)
    answers: Counter = Counter()
    nulls = [0]
    lock = threading.Condition()
    stray: list[Any] = []

    def read() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            message = json.loads(raw)
            if "method" in message:  # the server's own notifications (progress, cancelled …)
                continue
            with lock:
                if message.get("id") is None:
                    nulls[0] += 1
                elif key(message["id"]) in cancelled:
                    cancelled[key(message["id"])] += 1
                else:
                    answers[key(message["id"])] += 1
                    if key(message["id"]) not in expected:
                        stray.append(message)
                lock.notify_all()

    expected: Counter = Counter()
    cancelled: Counter = Counter()  # the cancelled requests' ids: each answered at most once
    expected_nulls = 0
    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def send(frame: Frame) -> None:
        nonlocal expected_nulls
        assert proc.stdin is not None and proc.poll() is None, f"the server exited ({proc.returncode})"
        with lock:
            for msg_id in frame.ids:
                expected[key(msg_id)] += 1
            for msg_id in frame.cancelled:
                cancelled[key(msg_id)] += 0
            expected_nulls += frame.nulls
        proc.stdin.write(frame.line + b"\n")
        proc.stdin.flush()
        report.frames += 1
        report.bytes_sent += len(frame.line) + 1
        report.requests += len(frame.ids)
        report.kinds[frame.kind.split(" ")[0] if frame.kind.startswith("request") else frame.kind] += 1

    try:
        for _ in range(20):  # before initialize: requests are refused (-32002) or served (ping), never dropped
            send(fuzz.rng.choice([fuzz.request, fuzz.notification, fuzz.not_json, fuzz.ping])())
        init_id = fuzz.fresh_id()
        send(Frame(dumps({"jsonrpc": "2.0", "id": init_id, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}}),
            ids=[init_id], kind="initialize"))
        send(Frame(dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), kind="notification"))
        big = fuzz.fresh_id()
        send(Frame(b'{"jsonrpc":"2.0","id":%s,"method":"ping","params":{"pad":"' % dumps(big)
                   + b"x" * (MAX_LINE_BYTES + 10) + b'"}}', ids=[big], kind="overlong"))
        for _ in range(frames):
            send(fuzz.frame())
        final = fuzz.fresh_id()
        send(Frame(dumps({"jsonrpc": "2.0", "id": final, "method": "tools/list"}), ids=[final], kind="final"))
        deadline = time.monotonic() + timeout
        with lock:
            while (answers != expected or nulls[0] < expected_nulls) and time.monotonic() < deadline:
                lock.wait(0.2)
            missing = {k: v for k, v in expected.items() if answers[k] != v}
            assert not missing, f"unanswered or answered twice: {list(missing.items())[:10]}"
            assert not stray, f"answers to ids never sent: {stray[:3]}"
            twice = [k for k, n in cancelled.items() if n > 1]
            assert not twice, f"cancelled requests answered twice: {twice[:10]}"
            assert nulls[0] == expected_nulls, f"{nulls[0]} answers with id null, expected {expected_nulls}"
        assert proc.poll() is None, f"the server exited ({proc.returncode})"
        report.answered = sum(answers.values())
        report.cancelled, report.cancelled_answered = len(cancelled), sum(cancelled.values())
        report.null_answers = nulls[0]
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            report.exit_code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        report.seconds = round(time.monotonic() - started, 1)
        if log:
            errlog.close()
    return report


def key(msg_id: Any) -> str:
    return json.dumps(msg_id)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Fuzz `council mcp` with hostile frames.")
    p.add_argument("--seed", type=int, default=18)
    p.add_argument("--frames", type=int, default=1500)
    p.add_argument("--workspace", type=Path, default=Path.cwd())
    p.add_argument("--log", type=Path, help="append the server's stderr (INFO) to this file")
    args = p.parse_args(argv)
    report = run(args.seed, args.frames, args.workspace, log=args.log)
    print(json.dumps({**report.__dict__, "kinds": dict(report.kinds)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
