"""Helpers for provider tests: scripted HTTP responses on httpx.MockTransport, SSE builders, a recording
sleep. (A uniquely named module: ``conftest`` is a name every test folder uses.)"""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx

from council.providers.base import ChatMessage, CompletionRequest

SECRET = "sk-test-SECRET-0123456789abcdef"


def sse(*payloads: object, done: bool = True) -> bytes:
    """An SSE body: one ``data:`` event per payload (str payloads sent verbatim)."""
    out = []
    for p in payloads:
        out.append(f"data: {p if isinstance(p, str) else json.dumps(p)}\n\n")
    if done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def chunk(text: str) -> dict:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def request(text: str = "Say hi", **kw) -> CompletionRequest:
    return CompletionRequest(purpose="tester", messages=[ChatMessage(role="user", content=text)], **kw)


class SleepRecorder:
    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


class Script:
    """A MockTransport that answers each request with the next scripted response and records requests."""

    def __init__(self, *responses: httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]):
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def handler(self, req: httpx.Request) -> httpx.Response:
        self.requests.append(req)
        item = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(item, Exception):
            raise item
        if callable(item) and not isinstance(item, httpx.Response):
            return item(req)
        return item

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handler)

    def body(self, i: int = -1) -> dict:
        return json.loads(self.requests[i].content)


def ok_sse(*texts: str) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=sse(*map(chunk, texts)))
