"""Fake model servers for the agent CLIs: real HTTP on 127.0.0.1 speaking each vendor's streaming wire format
(Anthropic Messages SSE for Claude Code, OpenAI Responses SSE for Codex, Gemini ``streamGenerateContent`` SSE for
Gemini CLI, OpenAI Chat Completions SSE for Copilot CLI's BYOK provider).

Each request is recorded (path and JSON body). What the fake answers is scripted: ``text`` (the reply, streamed in a
few chunks) or ``answer`` (a function of the request's body that writes the reply: a scripted model), and
``tool_calls`` — the first that many requests are answered with a call to a tool that would run a
shell command writing ``marker`` and another that would write it as a file, so a test can check that nothing ran.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

USAGE_IN, USAGE_OUT = 17, 5


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]


@dataclass
class FakeModels:
    text: str = "Hello from the fake model."
    answer: Callable[[dict[str, Any]], str] | None = None  # the reply to a request's body (else ``text``)
    marker: Path | None = None  # what a tool call would create
    tool_calls: int = 0  # the first N model requests answer with tool calls
    status: int = 200  # a failing endpoint answers every model request with this status
    error: str = "fake failure"
    stall: float = 0.0  # seconds every model request waits before its answer (a hung model)
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def model_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.body]

    def _take_tool_turn(self) -> bool:
        with self.lock:
            if self.tool_calls > 0:
                self.tool_calls -= 1
                return True
            return False

    def command(self) -> str:
        return f"touch {self.marker}"

    def reply(self, body: dict[str, Any]) -> str:
        return self.text if self.answer is None else self.answer(body)

    @staticmethod
    def chunks(text: str) -> list[str]:
        third = max(1, len(text) // 3)
        return [text[i:i + third] for i in range(0, len(text), third)]

    # --- Anthropic Messages (Claude Code) ---
    def anthropic(self, body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        model = body.get("model", "claude")
        yield "message_start", {"type": "message_start", "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": USAGE_IN, "output_tokens": 1}}}
        if self._take_tool_turn():
            calls = [("Bash", {"command": self.command(), "description": "make a file"}),
                     ("Write", {"file_path": str(self.marker), "content": "written"})]
            for i, (name, args) in enumerate(calls):
                yield "content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                    "type": "tool_use", "id": f"toolu_fake{i}", "name": name, "input": {}}}
                yield "content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(args)}}
                yield "content_block_stop", {"type": "content_block_stop", "index": i}
            stop = "tool_use"
        else:
            yield "content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": {"type": "text", "text": ""}}
            for piece in self.chunks(self.reply(body)):
                yield "content_block_delta", {"type": "content_block_delta", "index": 0,
                                              "delta": {"type": "text_delta", "text": piece}}
            yield "content_block_stop", {"type": "content_block_stop", "index": 0}
            stop = "end_turn"
        yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": USAGE_OUT}}
        yield "message_stop", {"type": "message_stop"}

    # --- OpenAI Responses (Codex) ---
    def responses(self, body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        resp = {"id": "resp_fake", "object": "response", "status": "in_progress", "model": body.get("model"),
                "output": []}
        yield "response.created", {"type": "response.created", "response": resp}
        output: list[dict[str, Any]] = []
        if self._take_tool_turn():
            calls = [("shell", {"command": ["bash", "-lc", self.command()]}),
                     ("exec_command", {"cmd": self.command()})]
            for i, (name, args) in enumerate(calls):
                item = {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": name,
                        "arguments": json.dumps(args), "status": "completed"}
                yield "response.output_item.done", {"type": "response.output_item.done", "output_index": i,
                                                    "item": item}
                output.append(item)
            patch = f"*** Begin Patch\n*** Add File: {self.marker}\n+written\n*** End Patch\n"
            item = {"type": "custom_tool_call", "id": "ctc_0", "call_id": "call_patch", "name": "apply_patch",
                    "input": patch, "status": "completed"}
            yield "response.output_item.done", {"type": "response.output_item.done", "output_index": len(calls),
                                                "item": item}
            output.append(item)
        else:
            item_id, text = "msg_fake", self.reply(body)
            yield "response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": {
                "type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}}
            for piece in self.chunks(text):
                yield "response.output_text.delta", {"type": "response.output_text.delta", "item_id": item_id,
                                                     "output_index": 0, "content_index": 0, "delta": piece}
            item = {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}
            yield "response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                                "item": item}
            output.append(item)
        done = {**resp, "status": "completed", "output": output, "usage": {
            "input_tokens": USAGE_IN, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": USAGE_OUT,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": USAGE_IN + USAGE_OUT}}
        yield "response.completed", {"type": "response.completed", "response": done}

    # --- Gemini streamGenerateContent (Gemini CLI) ---
    def gemini(self, body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        usage = {"promptTokenCount": USAGE_IN, "candidatesTokenCount": USAGE_OUT,
                 "totalTokenCount": USAGE_IN + USAGE_OUT}
        if self._take_tool_turn():
            parts = [{"functionCall": {"name": "run_shell_command", "args": {"command": self.command()}}},
                     {"functionCall": {"name": "write_file", "args": {"file_path": str(self.marker),
                                                                      "content": "written"}}}]
            yield "", {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                       "index": 0}], "usageMetadata": usage}
            return
        pieces = self.chunks(self.reply(body))
        for i, piece in enumerate(pieces):
            chunk: dict[str, Any] = {"candidates": [{"content": {"role": "model", "parts": [{"text": piece}]},
                                                     "index": 0}]}
            if i == len(pieces) - 1:
                chunk["candidates"][0]["finishReason"] = "STOP"
                chunk["usageMetadata"] = usage
            yield "", chunk

    # --- OpenAI Chat Completions (Copilot CLI's BYOK provider) ---
    def chat(self, body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": body.get("model")}
        if self._take_tool_turn():
            calls = [("bash", {"command": self.command(), "description": "make a file"}),
                     ("create", {"path": str(self.marker), "file_text": "written"})]
            for i, (name, args) in enumerate(calls):
                yield "", {**base, "choices": [{"index": 0, "delta": {"tool_calls": [{
                    "index": i, "id": f"call_{i}", "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)}}]}, "finish_reason": None}]}
            finish = "tool_calls"
        else:
            yield "", {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                            "finish_reason": None}]}
            for piece in self.chunks(self.reply(body)):
                yield "", {**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            finish = "stop"
        yield "", {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                   "usage": {"prompt_tokens": USAGE_IN, "completion_tokens": USAGE_OUT,
                             "total_tokens": USAGE_IN + USAGE_OUT}}

    def events_for(self, path: str, body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]] | None:
        if "/messages" in path and "count_tokens" not in path:
            return self.anthropic(body)
        if path.rstrip("/").endswith("/responses"):
            return self.responses(body)
        if ":streamGenerateContent" in path:
            return self.gemini(body)
        if path.rstrip("/").endswith("/chat/completions"):
            return self.chat(body)
        return None


@contextmanager
def serving(fake: FakeModels) -> Iterator[str]:
    """Serve ``fake`` on a free loopback port; yields its base URL (``http://127.0.0.1:PORT``)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _reply(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", 0) or 0))
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {"_raw": raw.decode("utf-8", "replace")[:2000]}
            path = self.path.split("?")[0]
            with fake.lock:
                fake.requests.append(Recorded(self.path, body if isinstance(body, dict) else {},
                                              {k.lower(): v for k, v in self.headers.items()}))
            if "count_tokens" in path:
                return self._reply(200, {"input_tokens": USAGE_IN})
            events = fake.events_for(path, body if isinstance(body, dict) else {})
            if events is None:
                return self._reply(404, {"error": {"message": f"no such path {path}"}})
            if fake.stall:
                time.sleep(fake.stall)
            if fake.status != 200:
                return self._reply(fake.status, {"error": {"type": "error", "code": fake.status,
                                                           "message": fake.error, "status": "FAILED"}})
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for name, data in events:
                head = f"event: {name}\n" if name else ""
                self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()
            if path.rstrip("/").endswith("/chat/completions"):
                self.wfile.write(b"data: [DONE]\n\n")
            self.close_connection = True

        def do_GET(self) -> None:
            with fake.lock:
                fake.requests.append(Recorded(self.path, {}, {k.lower(): v for k, v in self.headers.items()}))
            self._reply(200, {"object": "list", "data": [], "models": []})

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
