"""A fake OpenAI-compatible server for headless tests: real HTTP on 127.0.0.1, replies the scripted model would
give (streamed as SSE), and a scripted list of HTTP failures served first (e.g. a 401 that echoes the key). Its
``GET /props`` answers as llama.cpp's server does (``total_slots``), fails, or hangs, as a test sets it."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from council.providers.base import ChatMessage, CompletionRequest
from council.providers.scripted import auto_reply

PERSONA = re.compile(r"You are (.+?), an advisor on a council")  # a persona's contract (prompts._contract)


class FakeOpenAI:
    """``failures``: (schema title, status) pairs, each answered once, in order, to the first matching request;
    ``always``: a status every request gets (a failing endpoint); ``personas``: a persona's reply is the scripted
    model's for that persona (its name after the mark: the Devil's Advocate disagrees), not the same for all."""

    def __init__(self, mark: str, failures: list[tuple[str, int]] | None = None, always: int | None = None,
                 props: dict[str, Any] | int | None = None, props_hang: int = 0,
                 slow: dict[str, float] | None = None, personas: bool = False) -> None:
        self.mark = mark  # every reply's text contains it (the persona "name" in the scripted replies)
        self.personas = personas
        self.failures = list(failures or [])
        self.always = always
        self.props = props  # GET /props: this JSON, an HTTP status to answer with, or None (404, no such page)
        self.props_hang = props_hang  # the first so many GET /props never answer (until the server stops)
        self.props_asked = 0
        self.slow = dict(slow or {})  # a reply whose schema has this property waits so many seconds (a slow call)
        self.stopped = threading.Event()
        self.requests: list[dict[str, Any]] = []
        self.keys: list[str] = []  # the API key each request carried
        self.lock = threading.Lock()

    def answer(self, body: dict[str, Any], auth: str) -> tuple[int, bytes, str]:
        form = body["response_format"]  # OpenAI's json_schema, or llama.cpp's json_object with a schema (loopback)
        schema = form["json_schema"]["schema"] if "json_schema" in form else form["schema"]
        title = schema.get("title", "")
        with self.lock:
            self.requests.append(body)
            self.keys.append(auth.removeprefix("Bearer "))
            failure = next((f for f in self.failures if f[0] == title), None)
            if failure is not None:
                self.failures.remove(failure)
            elif self.always is not None:
                failure = (title, self.always)
        if failure is not None:  # like OpenAI: the error quotes the key it was given
            said = {"error": {"message": f"Incorrect API key provided: {auth.removeprefix('Bearer ')}"}}
            return failure[1], json.dumps(said).encode(), "application/json"
        wait = max((self.slow.get(key, 0.0) for key in schema.get("properties", {})), default=0.0)
        if wait:
            self.stopped.wait(wait)
        cycle = 2 if "option_id" in schema.get("properties", {}) else 1
        prompt = body["messages"][-1]["content"]
        who = PERSONA.search("\n".join(m["content"] for m in body["messages"])) if self.personas else None
        purpose = f"{self.mark} {who.group(1)}" if who else self.mark
        reply = auto_reply(CompletionRequest(purpose=purpose, json_schema=schema, cycle=cycle,
                                             messages=[ChatMessage(role="user", content=prompt)]))
        text = json.dumps(reply)
        chunks = [text[i:i + 40] for i in range(0, len(text), 40)]
        events = "".join(f"data: {json.dumps({'choices': [{'delta': {'content': c}}]})}\n\n" for c in chunks)
        return 200, (events + "data: [DONE]\n\n").encode(), "text/event-stream"


@contextmanager
def fake_openai(server: FakeOpenAI) -> Iterator[str]:
    """Serve ``server`` on a free loopback port; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            status, payload, ctype = server.answer(body, self.headers.get("authorization", ""))
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            try:
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client cancelled the call
                pass

        def do_GET(self) -> None:  # /models, the providers' health check; /props, llama.cpp's server's
            status = 200
            if self.path.rstrip("/").endswith("/props"):
                with server.lock:
                    server.props_asked += 1
                    hang = server.props_asked <= server.props_hang
                if hang:
                    server.stopped.wait(60)
                    return
                status = 404 if server.props is None else server.props if isinstance(server.props, int) else 200
                payload = json.dumps(server.props if status == 200 else {"error": "no"}).encode()
            else:
                payload = json.dumps({"object": "list", "data": [{"id": server.mark, "object": "model"}]}).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        server.stopped.set()
        httpd.shutdown()
        httpd.server_close()
