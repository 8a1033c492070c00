"""OpenAI-compatible ``/v1/chat/completions`` over SSE: llama.cpp server, vLLM, LM Studio, OpenRouter, OpenAI.

Structured output follows ``options.json_mode``: ``json_schema`` (OpenAI structured outputs),
``json_object_schema`` (llama.cpp server's ``{"type": "json_object", "schema": …}``; its json_schema form
answers HTTP 500) or ``none``.
The default is ``json_object_schema`` for loopback servers and ``json_schema`` otherwise.
How many requests a server on this machine runs at once is what it says in ``GET /props`` (llama.cpp's server:
``total_slots``, its ``--parallel``); a server that has no such page runs one at a time as far as Council knows.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field

from council.config import ConfigError, ProviderConfig
from council.providers.base import CompletionRequest, ProviderError, ProviderStatus, grammar_schema, inline_refs
from council.providers.http_common import (
    SLOTS_PROBE_SECONDS,
    HttpProvider,
    Sleep,
    is_loopback,
    iter_sse,
    provider_errors,
)

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
JsonMode = Literal["json_schema", "json_object_schema", "none"]


class OpenAIOptions(BaseModel):
    """``ProviderConfig.options`` for kind ``openai``."""

    model_config = ConfigDict(extra="forbid")

    json_mode: JsonMode | None = Field(None, description="None = pick from base_url (see module doc).")
    headers: dict[str, str] = Field({}, description="Extra request headers (e.g. OpenRouter's X-Title).")
    extra_body: dict[str, Any] = Field({}, description="Merged into every request body (e.g. top_p, seed).")


def chat_url(base_url: str) -> str:
    """``…/chat/completions`` for a base URL given with or without its ``/v1`` suffix."""
    base = base_url.rstrip("/")
    if base.endswith("/chat/completions"):
        return base
    if re.search(r"/v\d+$", base):
        return base + "/chat/completions"
    return base + "/v1/chat/completions"


def props_url(base_url: str) -> str:
    """llama.cpp's server's ``/props``, at the server's root: ``base_url`` without ``/chat/completions`` and ``/v1``."""
    base = base_url.rstrip("/").removesuffix("/chat/completions")
    return re.sub(r"/v\d+$", "", base) + "/props"


def total_slots(said: Any) -> int | None:
    """``total_slots`` of a ``/props`` answer when it is a whole number of at least 1 (else None)."""
    slots = said.get("total_slots") if isinstance(said, dict) else None
    return slots if isinstance(slots, int) and not isinstance(slots, bool) and slots >= 1 else None


class OpenAICompatProvider(HttpProvider):
    id = "openai"

    def __init__(self, cfg: ProviderConfig, *, transport: httpx.AsyncBaseTransport | None = None,
                 sleep: Sleep | None = None) -> None:
        super().__init__(cfg, cfg.model or "default", cfg.base_url or DEFAULT_BASE_URL, transport=transport,
                         sleep=sleep)
        self.options = OpenAIOptions.model_validate(cfg.options)
        self.url = chat_url(self.base_url)
        loopback = is_loopback(self.base_url)
        self.json_mode: JsonMode = self.options.json_mode or ("json_object_schema" if loopback else "json_schema")
        self.constrains_json = self.json_mode != "none"
        self.grammar = self.json_mode == "json_object_schema"  # llama.cpp's server turns it into a grammar

    def headers(self) -> dict[str, str]:
        try:
            self._key = self.cfg.resolve_api_key()  # the error names the variable, never a value
        except ConfigError as err:
            raise ProviderError(str(err), kind="config") from None
        headers = dict(self.options.headers)
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return headers

    def body(self, request: CompletionRequest) -> dict[str, Any]:
        """The JSON request body for ``request`` (public for tests and ``--dry-run``)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "stream": True,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            **self.options.extra_body,
        }
        if request.json_schema is not None and self.json_mode != "none":
            schema = inline_refs(request.json_schema)
            if self.json_mode == "json_schema":
                title = str(schema.get("title") or request.purpose or "reply")
                name = re.sub(r"[^A-Za-z0-9_-]", "_", title)[:64]
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": schema, "strict": False},
                }
            else:
                body["response_format"] = {"type": "json_object", "schema": grammar_schema(schema)}
        return body

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str]:
        name = f"{self.id} server"
        async with self.post(name, self.body(request)) as response:
            ctype = response.headers.get("content-type", "")
            if "json" in ctype and "event-stream" not in ctype:
                yield _whole_reply(name, (await response.aread()).decode("utf-8", "replace"))
                return
            events = 0
            async for payload in iter_sse(response, name):
                events += 1
                for choice in payload.get("choices") or []:
                    delta = choice.get("delta") or choice.get("message") or {}
                    text = delta.get("content") if isinstance(delta, dict) else None
                    if text:
                        yield text
            if events == 0:
                raise ProviderError(f"{name} at {self.url} sent no completion events; is it an OpenAI-compatible "
                                    "endpoint?", kind="server", retryable=True)

    async def slots_said(self) -> int | None:
        """``total_slots`` from ``GET /props`` of a server on this machine (a remote one is not asked: it is metered,
        and ``speculate: auto`` never starts calls beside the options call there). A page that is not there or says
        nothing of slots: None; a server error or no answer raises (asked again later)."""
        if not is_loopback(self.base_url):
            return None
        client = self._http()
        with provider_errors(self.id, self.url, [self._key]):
            response = await client.get(props_url(self.base_url), timeout=SLOTS_PROBE_SECONDS)
        if response.status_code >= 500:  # llama.cpp's server answers 503 while it loads the model
            raise ProviderError(f"{self.base_url} answered HTTP {response.status_code} on /props", kind="server")
        if response.status_code != 200:
            return None
        try:
            return total_slots(response.json())
        except ValueError:
            return None

    async def check(self) -> ProviderStatus:
        try:
            client = self._http()
            with provider_errors(self.id, self.url, [self._key]):
                response = await client.get(self.url.rsplit("/chat/completions", 1)[0] + "/models", timeout=5.0)
        except ProviderError as err:
            return ProviderStatus(available=False, detail=err.message)
        if response.status_code == 200:
            return ProviderStatus(available=True, detail=f"{self.base_url} answers (model {self.model})")
        hint = " — check the API key variable" if response.status_code in (401, 403) else ""
        return ProviderStatus(available=False,
                              detail=f"{self.base_url} answered HTTP {response.status_code} on /models{hint}")


def _whole_reply(name: str, body: str) -> str:
    """A non-streamed JSON completion (some servers ignore ``stream``)."""
    try:
        data = json.loads(body)
        return data["choices"][0]["message"]["content"] or ""
    except (ValueError, KeyError, IndexError, TypeError):
        raise ProviderError(f"{name} answered with JSON that is not a chat completion: {body[:200]}",
                            kind="server") from None
