"""Ollama's native ``/api/chat`` with NDJSON streaming; ``format`` carries the JSON schema for structure.

``check()`` asks ``/api/tags`` whether the configured model is pulled; :func:`list_models` is what automatic
provider selection uses to find a running Ollama quickly.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
from pydantic import BaseModel, ConfigDict, Field

from council.config import ProviderConfig
from council.providers.base import CompletionRequest, ProviderError, ProviderStatus, grammar_schema
from council.providers.http_common import HttpProvider, Sleep, iter_ndjson, make_client

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "http://127.0.0.1:11434"


class OllamaOptions(BaseModel):
    """``ProviderConfig.options`` for kind ``ollama``."""

    model_config = ConfigDict(extra="forbid")

    keep_alive: str | None = Field(None, description="How long Ollama keeps the model loaded, e.g. '10m'.")
    num_ctx: int | None = Field(None, ge=256, description="Context window; Ollama's default is small.")
    model_options: dict[str, Any] = Field({}, description="Extra Ollama `options` (top_p, seed, …).")


async def list_models(base_url: str = DEFAULT_BASE_URL, *, timeout: float = 0.3,
                      transport: httpx.AsyncBaseTransport | None = None) -> list[str] | None:
    """Names of the pulled models, or None when no Ollama answers within ``timeout`` seconds."""
    try:
        with anyio.fail_after(timeout * 2):  # hard cap over connect + read
            async with make_client(timeout, transport=transport, base_url=base_url) as client:
                response = await client.get(base_url.rstrip("/") + "/api/tags")
                response.raise_for_status()
                return [m["name"] for m in response.json().get("models", []) if m.get("name")]
    except (httpx.HTTPError, ValueError, KeyError, TypeError, AttributeError, TimeoutError) as exc:
        log.debug("no ollama at %s (%s)", base_url, type(exc).__name__)
        return None


def has_model(pulled: list[str], model: str) -> bool:
    """Whether ``model`` is among ``pulled`` (``llama3`` matches ``llama3:latest``)."""
    wanted = model if ":" in model else f"{model}:latest"
    return model in pulled or wanted in pulled


class OllamaProvider(HttpProvider):
    id = "ollama"
    constrains_json = True
    grammar = True  # ``format`` takes the schema as a grammar

    def __init__(self, cfg: ProviderConfig, *, transport: httpx.AsyncBaseTransport | None = None,
                 sleep: Sleep | None = None) -> None:
        if not cfg.model:
            raise ProviderError("the ollama provider needs a model: set `model` (see `ollama list`)", kind="config")
        super().__init__(cfg, cfg.model, (cfg.base_url or DEFAULT_BASE_URL).rstrip("/"), transport=transport,
                         sleep=sleep)
        self.options = OllamaOptions.model_validate(cfg.options)
        self.url = self.base_url + "/api/chat"

    def body(self, request: CompletionRequest) -> dict[str, Any]:
        options: dict[str, Any] = {
            "temperature": request.temperature,
            "num_predict": request.max_tokens,
            **self.options.model_options,
        }
        if self.options.num_ctx:
            options["num_ctx"] = self.options.num_ctx
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "stream": True,
            "options": options,
        }
        if request.json_schema is not None:
            body["format"] = grammar_schema(request.json_schema)
        if self.options.keep_alive:
            body["keep_alive"] = self.options.keep_alive
        return body

    async def stream(self, request: CompletionRequest) -> AsyncIterator[str]:
        try:
            async with self.post("ollama", self.body(request)) as response:
                async for payload in iter_ndjson(response, "ollama"):
                    text = (payload.get("message") or {}).get("content")
                    if text:
                        yield text
                    if payload.get("done"):
                        return
        except ProviderError as err:
            if err.status == 404:
                err.message += f" — pull it with `ollama pull {self.model}`"
                err.args = (err.message,)
            raise

    async def check(self) -> ProviderStatus:
        pulled = await list_models(self.base_url, timeout=2.0, transport=self._transport)
        if pulled is None:
            return ProviderStatus(available=False, detail=f"no Ollama answers at {self.base_url}; start `ollama serve`")
        if has_model(pulled, self.model):
            return ProviderStatus(available=True, detail=f"{self.model} is pulled at {self.base_url}")
        return ProviderStatus(available=False,
                              detail=f"{self.model} is not pulled at {self.base_url}; run `ollama pull {self.model}`")
