"""A hostile client: the real ``council serve`` subprocess driven with raw bytes, its stdout parsed strictly.

No lenient client sits in between: tests write exactly the bytes they mean (bad headers, wrong lengths, junk), and
every byte the sidecar writes must be part of a ``Content-Length: N\\r\\n\\r\\n`` frame holding strict JSON (no NaN or
Infinity: a client's JSON.parse refuses them), or the test fails.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from typing import Any

_FRAME = re.compile(rb"Content-Length: (\d+)\r\n\r\n")
_EOF = object()
SERVE = [sys.executable, "-m", "council", "serve", "--provider", "scripted", "--no-embeddings"]


def frame(message: Any, *, length: int | None = None, header: bytes = b"Content-Length: %d\r\n\r\n") -> bytes:
    """A frame of ``message`` (a JSON-able value or raw bytes), optionally with a lying length or odd header."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return header % (len(body) if length is None else length) + body


def request(msg_id: Any, method: Any, params: Any = None, **extra: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method, **extra}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}


def assert_error(message: dict[str, Any], code: int, msg_id: Any = None, kind: str = "validation") -> dict:
    """``message`` is an error response with ``code`` and the contract's data; returns the data."""
    assert message.get("id", "absent") == msg_id, message
    error = message["error"]
    assert error["code"] == code, message
    data = error["data"]
    assert set(data) == {"code", "message", "details", "text"} and data["code"] == kind, message
    assert data["text"].startswith("The council ") and data["message"].rstrip(".") in data["text"], message
    assert isinstance(data["message"], str) and data["message"] and isinstance(data["details"], dict), message
    assert "Traceback" not in error["message"] and "Traceback" not in data["message"], message
    return data


class RawSidecar:
    """``council serve`` on pipes; ``send`` raw bytes, ``until`` a response arrives."""

    def __init__(self, argv: list[str] | None = None, extra_args: list[str] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(argv or [*SERVE, *(extra_args or [])], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**os.environ, "COUNCIL_LOG_LEVEL": "INFO", **(env or {})})
        self.inbox: queue.Queue[Any] = queue.Queue()
        self.stray: bytes | None = None
        self.stderr = bytearray()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def __enter__(self) -> RawSidecar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)

    # --- io -------------------------------------------------------------------------------------------------
    def send(self, *parts: bytes | dict[str, Any]) -> None:
        data = b"".join(p if isinstance(p, bytes) else frame(p) for p in parts)
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        fd, buf = self.proc.stdout.fileno(), b""
        while True:
            chunk = os.read(fd, 1 << 16)
            buf += chunk
            while (match := _FRAME.match(buf)) and len(buf) >= match.end() + int(match[1]):
                end = match.end() + int(match[1])
                try:
                    self.inbox.put(json.loads(buf[match.end():end], parse_constant=_not_json))
                except ValueError:  # not strict JSON (NaN, Infinity, bad UTF-8): what a client cannot read
                    self.stray = buf[match.end():end]
                    self.inbox.put(self.stray)
                buf = buf[end:]
            if buf and not _FRAME.match(buf) and not _could_become_header(buf):
                self.stray = buf
            if not chunk:
                self.inbox.put(_EOF)
                return

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr += line

    # --- expectations ---------------------------------------------------------------------------------------
    def next(self, timeout: float = 20) -> dict[str, Any]:
        item = self.inbox.get(timeout=timeout)
        assert item is not _EOF, f"the sidecar closed stdout; stderr:\n{self.stderr.decode()[-3000:]}"
        assert self.stray is None, f"stray bytes on stdout: {self.stray[:200]!r}"
        return item

    def until(self, msg_id: Any, timeout: float = 20) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The response to ``msg_id`` and every message that came before it (in order)."""
        before: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(max(0.1, deadline - time.monotonic()))
            if "method" not in message and message.get("id") == msg_id:
                return message, before
            before.append(message)

    def quiet(self, seconds: float = 0.3) -> list[dict[str, Any]]:
        """Whatever arrives within ``seconds`` or before stdout closes (expected: nothing)."""
        got: list[dict[str, Any]] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                item = self.inbox.get(timeout=left)
            except queue.Empty:
                break
            if item is _EOF:
                break
            got.append(item)
        assert self.stray is None, f"stray bytes on stdout: {self.stray[:200]!r}"
        return got

    def initialize(self, msg_id: Any = "init") -> dict[str, Any]:
        self.send(request(msg_id, "initialize", {"processId": None, "capabilities": {}}), notification("initialized"))
        response, before = self.until(msg_id)
        assert before == [] and "result" in response, (response, before)
        return response["result"]

    def exit_code(self, timeout: float = 20) -> int:
        return self.proc.wait(timeout=timeout)


def initialized_sidecar():
    """One initialized sidecar for a whole module of hostile messages; it must still shut down cleanly (exit 0)."""
    with RawSidecar() as sc:
        sc.initialize()
        yield sc
        sc.send(request("bye", "shutdown"), notification("exit"))
        assert sc.until("bye")[0]["result"] is None
        assert sc.exit_code() == 0


def _not_json(name: str) -> Any:
    raise ValueError(f"the sidecar wrote {name}, which is not JSON (JSON.parse in a client fails on it)")


def _could_become_header(buf: bytes) -> bool:
    head = b"Content-Length: "
    if len(buf) <= len(head):
        return head.startswith(buf)
    return buf.startswith(head) and re.fullmatch(rb"\d*(\r(\n(\r)?)?)?", buf[len(head):]) is not None
