"""A thin counting proxy on 127.0.0.1 in front of an OpenAI-compatible server (issue 34's real-generation bench).

Both engines are pointed at the proxy instead of the server, so every model call of either is seen and counted the
same way, at the server side: its start, the first streamed content, its end, whether the client went away before
the end (a cancelled call: sent, so a metered model bills its prompt), and the tokens from the server's ``usage``.

Where the server reports no ``usage`` — llama-cpp-python's server sends none in a stream — the tokens are counted
with the served model's own tokenizer and chat template (``Tokenizer``: the GGUF loaded vocabulary-only, the prompt
built as llama-cpp-python builds it), and the record says so (``usage_source``). ``bench/realgen.py`` checks that
count against the server's ``usage`` on the calls that carry one and prints the difference.

Two rewrites, the same for both engines, printed by the bench: ``model`` becomes the served model when one is
given (AI Counsel names its participants and its summarizer by model), and a request that sets no ``max_tokens``
gets ``default_max_tokens`` (a server default; llama-cpp-python's own is unbounded).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route


@dataclass
class Call:
    """One model call as the proxy saw it."""

    label: str  # the run it belongs to (set by the bench between runs)
    kind: str  # the reply schema's title (Council), else "summary" or "round" (AI Counsel, by model name)
    model: str  # the model the client asked for
    stream: bool
    started: float
    first_content: float | None = None
    ended: float | None = None
    status: int = 0
    cancelled: bool = False  # the client went away before the server finished (or the server cut it: ``cut``)
    cut: bool = False  # the server closed the stream without finishing it
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    usage_source: str = "none"  # server | tokenizer | none
    finish_reason: str | None = None
    counted_prompt: int | None = None  # the tokenizer's count, kept beside the server's to check it
    counted_completion: int | None = None
    text: list[str] = field(default_factory=list)


class Tokenizer:
    """The served GGUF's tokenizer and chat template, as llama-cpp-python's server applies them."""

    def __init__(self, gguf: str) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.llama = Llama(gguf, vocab_only=True, verbose=False)
        model = self.llama._model
        eos, bos = self.llama.token_eos(), self.llama.token_bos()
        self.formatter = Jinja2ChatFormatter(template=self.llama.metadata["tokenizer.chat_template"],
                                             eos_token=model.token_get_text(eos) if eos != -1 else "",
                                             bos_token=model.token_get_text(bos) if bos != -1 else "")

    def prompt(self, messages: list[dict[str, Any]]) -> int:
        result = self.formatter(messages=messages)
        return len(self.llama.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True))

    def completion(self, text: str) -> int:
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)) if text else 0


def kind_of(body: dict[str, Any], participants: set[str]) -> str:
    fmt = body.get("response_format") or {}
    schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema") or {}
    title = schema.get("title") or (fmt.get("json_schema") or {}).get("name")
    if title:
        return str(title)
    model = str(body.get("model", ""))
    return "round" if model in participants else "summary"


class CountingProxy:
    """The proxy's state and its Starlette app (``app``); ``calls`` holds every call seen."""

    def __init__(self, upstream: str, *, model: str | None, api_key: str | None, default_max_tokens: int,
                 tokenizer: Tokenizer | None, stream_usage: bool) -> None:
        self.upstream = upstream.rstrip("/")  # …/v1
        self.model = model
        self.api_key = api_key
        self.default_max_tokens = default_max_tokens
        self.tokenizer = tokenizer
        self.stream_usage = stream_usage  # ask for usage in streams (OpenAI, Ollama, vLLM honour it)
        self.label = ""
        self.participants: set[str] = set()  # AI Counsel's participant model names (its round calls)
        self.calls: list[Call] = []
        self.client = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0))
        self.app = Starlette(routes=[Route("/v1/chat/completions", self.chat, methods=["POST"]),
                                     Route("/v1/{rest:path}", self.passthrough, methods=["GET"])])

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    async def passthrough(self, request: Request) -> Response:
        r = await self.client.get(f"{self.upstream}/{request.path_params['rest']}", headers=self.headers())
        return Response(r.content, status_code=r.status_code, media_type=r.headers.get("content-type"))

    async def chat(self, request: Request) -> Response:
        body = json.loads(await request.body())
        call = Call(self.label, kind_of(body, self.participants), str(body.get("model", "")),
                    bool(body.get("stream")), time.perf_counter())
        self.calls.append(call)
        if self.model:
            body["model"] = self.model
        if body.get("max_tokens") is None and body.get("max_completion_tokens") is None:
            body["max_tokens"] = self.default_max_tokens
        if call.stream and self.stream_usage:
            body["stream_options"] = {"include_usage": True}
        if self.tokenizer is not None:
            call.counted_prompt = self.tokenizer.prompt(body.get("messages", []))
        url = f"{self.upstream}/chat/completions"
        if not call.stream:
            try:
                r = await self.client.post(url, json=body, headers=self.headers())
                call.status = r.status_code
                if r.status_code == 200:
                    data = r.json()
                    choice = (data.get("choices") or [{}])[0]
                    call.text.append((choice.get("message") or {}).get("content") or "")
                    call.finish_reason = choice.get("finish_reason")
                    self._usage(call, data.get("usage"))
                return Response(r.content, status_code=r.status_code, media_type=r.headers.get("content-type"))
            except BaseException:
                call.cancelled = True
                raise
            finally:
                call.ended = time.perf_counter()
                call.first_content = call.first_content or call.ended
                self._count(call)
        req = self.client.build_request("POST", url, json=body, headers=self.headers())
        upstream = await self.client.send(req, stream=True)
        call.status = upstream.status_code
        return StreamingResponse(self._relay(call, upstream), status_code=upstream.status_code,
                                 media_type=upstream.headers.get("content-type", "text/event-stream"))

    async def _relay(self, call: Call, upstream: httpx.Response):
        buf = b""
        finished = False
        try:
            async for chunk in upstream.aiter_raw():
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    self._event(call, line.strip())
                yield chunk
            finished = True
        except httpx.HTTPError:  # the server closed the stream mid-way: the client gets a stream that just ends
            call.cut = True
        finally:
            # a client may close as soon as the reply's last chunk (finish_reason) is in, before ``[DONE]``
            call.cancelled = not finished and not call.cut and call.finish_reason is None
            call.ended = time.perf_counter()
            await upstream.aclose()
            self._count(call)

    def _event(self, call: Call, line: bytes) -> None:
        if not line.startswith(b"data:"):
            return
        data = line[5:].strip()
        if not data or data == b"[DONE]":
            return
        try:
            event = json.loads(data)
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        for choice in event.get("choices") or []:
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                if call.first_content is None:
                    call.first_content = time.perf_counter()
                call.text.append(piece)
            if choice.get("finish_reason"):
                call.finish_reason = choice["finish_reason"]
        self._usage(call, event.get("usage"))

    @staticmethod
    def _usage(call: Call, usage: Any) -> None:
        if isinstance(usage, dict) and usage.get("prompt_tokens") is not None:
            call.prompt_tokens = int(usage["prompt_tokens"])
            call.completion_tokens = int(usage.get("completion_tokens") or 0)
            call.usage_source = "server"

    def _count(self, call: Call) -> None:
        if self.tokenizer is not None:
            call.counted_completion = self.tokenizer.completion("".join(call.text))
        if call.usage_source == "server" or self.tokenizer is None:
            return
        call.prompt_tokens, call.completion_tokens = call.counted_prompt, call.counted_completion
        call.usage_source = "tokenizer"
