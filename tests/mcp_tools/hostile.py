"""A hostile MCP client for ``council mcp``: raw newline-delimited JSON on a real subprocess's pipes, declaring
sampling, roots and elicitation, that answers each request the server sends (``sampling/createMessage``,
``roots/list``, ``elicitation/create``) as a test scripts it — a good reply, one of the malformed replies of
:data:`MALFORMED`, two replies, a reply only after the server withdrew the request, or none. It records everything
the server writes, so a test can say how each request ended (answered, withdrawn with ``notifications/cancelled``)
and what the tool call got. ``python -m tests.mcp_tools.hostile`` runs the whole hostile pass and prints the counts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from council.mcpserver.guard import MAX_LINE_BYTES
from council.providers.base import ChatMessage, CompletionRequest
from council.providers.scripted import auto_reply

PROBLEM = "Should we split our monolith into services this quarter?"
SERVER_REQUESTS = ("sampling/createMessage", "roots/list", "elicitation/create")
Reply = Callable[[dict[str, Any]], list[bytes]]  # a server request → the lines the client writes back


def line(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def good_result(request: dict[str, Any], workspace: Path | None = None) -> dict[str, Any]:
    """What a well-behaved client answers: the scripted model's reply, the workspace as the one root, a decline."""
    method, params = request["method"], request.get("params") or {}
    if method == "roots/list":
        return {"roots": [{"uri": (workspace or Path.cwd()).as_uri(), "name": "ws"}]}
    if method == "elicitation/create":
        return {"action": "decline"}
    meta = params.get("metadata") or {}
    messages = [ChatMessage(role="system", content=params["systemPrompt"])] if params.get("systemPrompt") else []
    messages += [ChatMessage(role=m["role"], content=m["content"]["text"]) for m in params["messages"]]
    reply = auto_reply(CompletionRequest(purpose=meta.get("purpose", ""), messages=messages,
                                         json_schema=meta.get("response_schema")))
    return {"role": "assistant", "model": "hostile-model", "stopReason": "endTurn",
            "content": {"type": "text", "text": json.dumps(reply)}}


def envelope(request: dict[str, Any], **body: Any) -> bytes:
    return line({"jsonrpc": "2.0", "id": request["id"], **body})


#: Malformed replies, by name: each turns a server request into the lines the client writes for it.
MALFORMED: dict[str, Reply] = {
    "not_json": lambda r: [b'{"jsonrpc":"2.0","id":' + json.dumps(r["id"]).encode() + b',"result":{"role":'],
    "not_utf8": lambda r: [b'{"jsonrpc":"2.0","id":' + json.dumps(r["id"]).encode() + b',"result":"\xff\xfe"}'],
    "oversize": lambda r: [b'{"jsonrpc":"2.0","id":' + json.dumps(r["id"]).encode() + b',"result":{"text":"'
                           + b"x" * (MAX_LINE_BYTES + 16) + b'"}}'],
    "no_result_no_error": lambda r: [envelope(r)],
    "result_null": lambda r: [envelope(r, result=None)],
    "result_list": lambda r: [envelope(r, result=[])],
    "result_string": lambda r: [envelope(r, result="ok")],
    "result_number": lambda r: [envelope(r, result=42)],
    "result_wrong_shape": lambda r: [envelope(r, result={"unexpected": True})],
    "error_no_message": lambda r: [envelope(r, error={"code": -32000})],
    "error_no_code": lambda r: [envelope(r, error={"message": "nope"})],
    "error_string": lambda r: [envelope(r, error="bad")],
    "result_and_error": lambda r: [envelope(r, result={}, error={"code": 1, "message": "x"})],
    "wrong_jsonrpc": lambda r: [line({"jsonrpc": "1.0", "id": r["id"], "result": good_result(r)})],
    "id_as_float": lambda r: [line({"jsonrpc": "2.0", "id": float(r["id"]) + 0.5, "result": good_result(r)})],
    "id_as_object": lambda r: [line({"jsonrpc": "2.0", "id": {"id": r["id"]}, "result": good_result(r)})],
}
#: Replies to sampling that are well-formed JSON-RPC but not a usable model reply (the client's model failed).
MODEL_FAILURES: dict[str, Reply] = {
    "image_content": lambda r: [envelope(r, result={"role": "assistant", "model": "m", "content": {
        "type": "image", "data": "AA==", "mimeType": "image/png"}})],
    "missing_model": lambda r: [envelope(r, result={"role": "assistant", "content": {"type": "text", "text": "{}"}})],
    "empty_text": lambda r: [envelope(r, result={"role": "assistant", "model": "m", "content": {
        "type": "text", "text": ""}})],
}


@dataclass
class Seen:
    """What the server wrote: its requests (by id), its answers (by id), its notifications."""

    requests: dict[Any, dict[str, Any]] = field(default_factory=dict)
    answers: list[dict[str, Any]] = field(default_factory=list)
    notifications: list[dict[str, Any]] = field(default_factory=list)
    withdrawn: list[Any] = field(default_factory=list)  # ids of the server's requests it cancelled
    not_json: list[bytes] = field(default_factory=list)


class HostileClient:
    """``council mcp`` on raw pipes; ``replies[method]`` answers the server's requests of that method (absent: a good
    reply). ``after_cancel[method]``: the reply written only once the server withdrew that request."""

    def __init__(self, tmp_path: Path, *args: str, capabilities: dict[str, Any] | None = None,
                 replies: dict[str, Reply] | None = None, after_cancel: dict[str, Reply] | None = None,
                 workspace: Path | None = None) -> None:
        self.workspace = workspace or tmp_path / "ws"
        self.workspace.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_")}
        env["COUNCIL_OLLAMA_URL"] = "http://127.0.0.1:9"  # never a local Ollama
        self.proc = subprocess.Popen([sys.executable, "-m", "council", "mcp", "--no-embeddings", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=self.workspace, env=env,
                                     stderr=(tmp_path / "server.log").open("ab"))
        self.capabilities = capabilities if capabilities is not None else {
            "sampling": {}, "roots": {"listChanged": True}, "elicitation": {}}
        self.replies = replies or {}
        self.after_cancel = after_cancel or {}
        self.seen = Seen()
        self.lock = threading.Condition()
        self.write_lock = threading.Lock()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    # --- the wire ----------------------------------------------------------------------------------------------
    def send(self, *lines: bytes | dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        with self.write_lock:
            for item in lines:
                self.proc.stdin.write((item if isinstance(item, bytes) else line(item)) + b"\n")
            self.proc.stdin.flush()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                with self.lock:
                    self.seen.not_json.append(raw)
                continue
            with self.lock:
                if "method" in message and "id" in message:
                    self.seen.requests[message["id"]] = message
                elif "method" in message:
                    self.seen.notifications.append(message)
                    if message["method"] == "notifications/cancelled":
                        self.seen.withdrawn.append(message["params"]["requestId"])
                else:
                    self.seen.answers.append(message)
                self.lock.notify_all()
            if "method" in message and "id" in message:
                self._answer(message)
            elif message.get("method") == "notifications/cancelled":
                request = self.seen.requests.get(message["params"]["requestId"])
                late = self.after_cancel.get(request["method"]) if request else None
                if late is not None:
                    self._write_reply(late(request))

    def _answer(self, request: dict[str, Any]) -> None:
        method = request["method"]
        if method in self.after_cancel:
            return
        reply = self.replies.get(method)
        self._write_reply(reply(request) if reply else [envelope(request, result=good_result(request,
                                                                                              self.workspace))])

    def _write_reply(self, lines: list[bytes]) -> None:
        try:
            self.send(*lines)
        except (BrokenPipeError, ValueError):  # the server is gone; the test says so
            pass

    # --- the client's requests ------------------------------------------------------------------------------------
    def request(self, method: str, params: dict[str, Any] | None = None) -> int:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, **({"params": params} if params else {})})
        return self.next_id

    def initialize(self) -> None:
        msg_id = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": self.capabilities,
                                             "clientInfo": {"name": "hostile", "version": "1"}})
        self.answer(msg_id, timeout=60)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def consult(self, **arguments: Any) -> int:
        return self.request("tools/call", {"name": "council_consult", "arguments": {
            "user_problem": PROBLEM, "depth": "brief", **arguments}})

    def cancel(self, msg_id: int) -> None:
        self.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": msg_id, "reason": "the user stopped it"}})

    def answer(self, msg_id: Any, timeout: float = 30.0) -> dict[str, Any]:
        """The server's answer to the client's request ``msg_id``; AssertionError when none came in time."""
        with self.lock:
            found = self.lock.wait_for(lambda: self.answers_to(msg_id), timeout)
            assert found, f"no answer to {msg_id!r} in {timeout} s; the server's last answers: {self.seen.answers[-3:]}"
            return found[0]

    def answers_to(self, msg_id: Any) -> list[dict[str, Any]]:
        return [a for a in self.seen.answers if a.get("id") == msg_id]

    def wait_for(self, predicate: Callable[[Seen], bool], timeout: float = 30.0) -> bool:
        with self.lock:
            return self.lock.wait_for(lambda: predicate(self.seen), timeout)

    def asked(self, method: str) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.seen.requests.values() if r["method"] == method]

    def close(self) -> int:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
            try:
                return self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise
        return self.proc.returncode


def tool_error(answer: dict[str, Any]) -> dict[str, Any] | None:
    """A tool result's ``{code, message, details}`` when it is an error (else None)."""
    result = answer.get("result") or {}
    if not result.get("isError"):
        return None
    return json.loads(result["content"][-1]["text"])["error"]


@dataclass
class Case:
    """One hostile case and how it ended."""

    request: str
    reply: str
    ended: str = ""  # "answered" | "tool error <code>/<reason>" | "no answer"
    seconds: float = 0.0  # from the tool call to its answer
    asked: int = 0  # requests of that method the server sent during the call
    withdrawn: int = 0  # of them, withdrawn with notifications/cancelled
    still_serving: bool = False  # a tool call with good replies succeeded after it
    stray: int = 0  # answers carrying an id the client never used (the server's own ids)


def deadline_kinds() -> list[str]:
    """The replies after which only the request's deadline can end it (its id cannot be read, or no reply)."""
    return ["id_as_float", "id_as_object", "after_cancel", "never"]


def hostile_replies(kind: str, request: str, workspace: Path) -> tuple[dict[str, Reply], dict[str, Reply]]:
    """``(replies, after_cancel)`` for :class:`HostileClient` answering ``request`` as ``kind`` says: a name of
    :data:`MALFORMED` or :data:`MODEL_FAILURES`, ``duplicate``, ``after_cancel`` or ``never``."""
    good: Reply = lambda r: [envelope(r, result=good_result(r, workspace))]  # noqa: E731
    if kind == "duplicate":
        return {request: lambda r: 2 * good(r)}, {}
    if kind == "after_cancel":
        return {}, {request: good}
    if kind == "never":
        return {}, {request: lambda r: []}
    return {request: {**MALFORMED, **MODEL_FAILURES}[kind]}, {}


def run_cases(tmp_path: Path, request: str, kinds: list[str], *, deadline: float | None = 1.0,
              timeout: float = 60.0) -> list[Case]:
    """One ``council mcp`` (deadlines of ``deadline`` seconds for sampling and elicitation, None: the defaults;
    roots keep theirs); for each kind, one consult whose every ``request`` is answered that way (waiting at most
    ``timeout`` seconds for its answer), then one with good replies that must succeed. ``roots/list`` is asked again
    before each call (``notifications/roots/list_changed``)."""
    args = ["--sampling-hints", "none"]
    if deadline is not None:
        args += ["--sampling-timeout", f"{deadline:g}", "--elicitation-timeout", f"{deadline:g}"]
    if request != "roots/list":
        args += ["--workspace", str(tmp_path / "ws")]
    client = HostileClient(tmp_path, *args)
    results = []
    try:
        client.initialize()
        for kind in kinds:
            case = Case(request, kind)
            client.replies, client.after_cancel = hostile_replies(kind, request, client.workspace)
            before = {i for i, r in client.seen.requests.items() if r["method"] == request}
            if request == "roots/list":
                client.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
            started = time.monotonic()
            call = client.consult()
            try:
                answer = client.answer(call, timeout=timeout)
            except AssertionError:
                case.ended = "no answer"
            else:
                error = tool_error(answer)
                case.ended = "answered" if error is None else \
                    f"tool error {error['code']}/{error['details'].get('reason', '')}"
            case.seconds = round(time.monotonic() - started, 1)
            with client.lock:
                asked = {i for i, r in client.seen.requests.items() if r["method"] == request} - before
                case.asked, case.withdrawn = len(asked), len(asked & set(client.seen.withdrawn))
            results.append(case)
            if case.ended == "no answer":  # the server cannot be asked anything more in this run
                break
            client.replies, client.after_cancel = {}, {}
            if request == "roots/list":
                client.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
            second = client.consult()
            case.still_serving = tool_error(client.answer(second, timeout=timeout)) is None
        with client.lock:
            used = set(range(1, client.next_id + 1))
            stray = len([a for a in client.seen.answers if a.get("id") not in used])
        for case in results:
            case.stray = stray
    finally:
        client.close()
    return results


def cases() -> dict[str, list[str]]:
    """Every reply of the hostile pass, by the request it answers."""
    kinds = [*MALFORMED, "duplicate", "after_cancel", "never"]
    return {"sampling/createMessage": [*kinds, *MODEL_FAILURES], "roots/list": kinds, "elicitation/create": kinds}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Answer every request `council mcp` sends with every malformed reply.")
    p.add_argument("--dir", type=Path, default=Path("/tmp/council-hostile"))
    args = p.parse_args(argv)
    results: list[Case] = []
    for n, (request, kinds) in enumerate(cases().items()):
        where = args.dir / str(n)
        where.mkdir(parents=True, exist_ok=True)
        for case in run_cases(where, request, kinds):
            results.append(case)
            print(json.dumps(case.__dict__), flush=True)
    ended = sum(1 for c in results if c.ended != "no answer" and c.still_serving and not c.stray)
    print(json.dumps({"cases": len(results), "ended_and_serving": ended}))
    return 0 if ended == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
