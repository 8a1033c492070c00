"""The provider contract: one async streaming call, JSON-schema output where the backend can, cancellable (cancelling
the caller's anyio scope closes its stream or thread at once); failures are :class:`ProviderError`s a user can act on.
Also the schema forms grammar converters take (:func:`inline_refs`, :func:`grammar_schema`).

Every retry an HTTP provider makes reaches the model and may be paid for, so a session asks a gate (:func:`retry_gate`,
a context variable: concurrent seats each ask their own) whether one more attempt fits its bound and budget, and books
it; without one (``council doctor``) the policy alone decides. It lives here so that a session loads no httpx. What a
call used (tokens, cost, premium requests), when the backend says, goes the same way to the session that made it
(:func:`usage_sink`, :func:`report_usage`): a provider shared by concurrent seats keeps no per-call state.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from council.camel import CamelModel


class ChatMessage(CamelModel):
    """One chat message of a prompt (also what ``council/complete`` carries to a client's model)."""

    role: Literal["system", "user", "assistant"]
    content: str


class CompletionRequest(BaseModel):
    """One model call. ``purpose`` names the caller (a persona, ``clarifier``, ``moderator``, ``synthesizer``)."""

    purpose: str
    messages: list[ChatMessage]
    json_schema: dict[str, Any] | None = None
    max_tokens: int = Field(1024, ge=1, le=32_768)
    temperature: float = Field(0.7, ge=0.0, le=2.0)
    session_id: str = ""
    cycle: int = 0


class ProviderError(Exception):
    """A model call failed. ``retryable`` says whether trying again may help; ``message`` is for the user."""

    def __init__(self, message: str, *, kind: str = "internal", retryable: bool = False,
                 status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind  # rate_limit | server | client | timeout | connection (dropped) | unreachable (refused,
        # no such host) | model_unavailable | no_consent (a client's model) | config | cancelled | internal
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


class ProviderStatus(BaseModel):
    available: bool
    detail: str = ""


class Provider(ABC):
    #: Short id used in settings and metadata (``openai``, ``ollama``, ``embedded``, ``client``, ``scripted``).
    id: str = "provider"
    #: Whether the backend constrains output to ``json_schema`` itself (grammar / structured outputs).
    constrains_json: bool = False
    #: How much a reply may ask of the model: ``full``, or ``small`` (fewer, shorter fields within a token budget the
    #: longest reply fits: ``council.session.calls.profiles``).
    reply_profile: str = "full"
    #: Whether the schema goes to the backend as a grammar (``grammar_schema``: llama.cpp, Ollama), whose string caps
    #: (:data:`GRAMMAR_MAX_STRING`) the prompt's words must not promise more than.
    grammar: bool = False

    def __init__(self, model: str) -> None:
        self.model = model

    @abstractmethod
    def stream(self, request: CompletionRequest) -> AsyncIterator[str]:
        """Yield the reply's text in chunks as the model produces it."""

    async def check(self) -> ProviderStatus:
        """Whether this provider can answer right now (used by ``council doctor`` and selection)."""
        return ProviderStatus(available=True)

    async def parallel_calls(self) -> int | None:
        """How many calls :meth:`backend` runs at once (None: no limit of its own). Under ``speculate: auto`` the
        second cycle starts beside the options call only where they can run side by side
        (:func:`council.session.steps.costing.speculating`). 1 unless the provider knows better; bounded and cheap,
        it never fails."""
        return 1

    def backend(self) -> str:
        """What runs this provider's calls: providers with the same backend share its :meth:`parallel_calls`."""
        return f"{self.id}@{id(self):x}"

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most providers hold nothing
        """Release connections, threads or model memory."""

    def describe(self) -> str:
        return f"{self.id}:{self.model}"


DeltaSink = Callable[[str], Awaitable[None]]


class PushProvider(Provider):
    """A provider whose backend calls back with each delta: ``push`` forwards them as they come."""

    @abstractmethod
    async def push(self, request: CompletionRequest, on_delta: DeltaSink | None) -> str:
        """Complete ``request``, awaiting ``on_delta`` for each non-empty delta in order; return the whole text."""


async def complete(provider: Provider, request: CompletionRequest, on_delta: DeltaSink | None = None) -> str:
    """Run the provider to the end, forwarding each chunk to ``on_delta``; return the whole text. A
    :class:`PushProvider` (the client bridge) is pushed directly, without a queue behind an async iterator."""
    if isinstance(provider, PushProvider):
        return await provider.push(request, on_delta)
    parts: list[str] = []
    stream = provider.stream(request)
    try:
        async for chunk in stream:
            if not chunk:
                continue
            parts.append(chunk)
            if on_delta is not None:
                await on_delta(chunk)
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
    return "".join(parts)


@dataclass
class Usage:
    """What one call used, as its backend reported it (a figure it did not report stays None)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    premium_requests: float | None = None  # GitHub Copilot bills requests, not tokens

    @classmethod
    def read(cls, *, input_tokens: Any = None, output_tokens: Any = None, cost_usd: Any = None,
             premium_requests: Any = None) -> Usage:
        """From a backend's JSON: a figure that is no finite number of at least 0 is left out."""
        def number(value: Any) -> float | None:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return None
            return float(value) if value == value and 0 <= value < 1e15 else None

        tokens_in, tokens_out = number(input_tokens), number(output_tokens)
        return cls(input_tokens=None if tokens_in is None else int(tokens_in),
                   output_tokens=None if tokens_out is None else int(tokens_out),
                   cost_usd=number(cost_usd), premium_requests=number(premium_requests))


UsageSink = Callable[[Usage], None]

_usage: ContextVar[UsageSink | None] = ContextVar("council_usage_sink", default=None)


def report_usage(usage: Usage) -> None:
    """Tell the caller what the call now ending used (nothing listens outside a session's call)."""
    sink = _usage.get()
    if sink is not None:
        sink(usage)


@contextmanager
def usage_sink(sink: UsageSink) -> Iterator[None]:
    """Within the block, what a provider reports (:func:`report_usage`) goes to ``sink``."""
    token = _usage.set(sink)
    try:
        yield
    finally:
        _usage.reset(token)


RetryGate = Callable[[], bool]

_gate: ContextVar[RetryGate | None] = ContextVar("council_retry_gate", default=None)


def may_retry() -> bool:
    """Whether the caller lets the provider send the failed request once more (and counts it if so)."""
    gate = _gate.get()
    return True if gate is None else gate()


@contextmanager
def retry_gate(gate: RetryGate) -> Iterator[None]:
    """Within the block, a provider's own retries ask ``gate`` first."""
    token = _gate.set(gate)
    try:
        yield
    finally:
        _gate.reset(token)


# Pydantic's ``model_json_schema()`` puts nested models under ``$defs`` and points at them with ``$ref``; llama.cpp's
# and some hosted grammar converters handle refs poorly, so providers send the inlined form.
MAX_DEPTH = 32


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` with local ``#/$defs/…`` (and ``#/definitions/…``) refs replaced by their targets.

    Recursive schemas are cut at :data:`MAX_DEPTH` levels (the deepest ref becomes ``{}``, i.e. any value).
    Non-local refs are left as they are.
    """
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        for name, target in (schema.get(key) or {}).items():
            defs[f"#/{key}/{name}"] = target

    def walk(node: Any, depth: int) -> Any:
        if isinstance(node, list):
            return [walk(item, depth) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref in defs:
            if depth >= MAX_DEPTH:
                return {}
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            resolved = walk(copy.deepcopy(defs[ref]), depth + 1)
            if siblings and isinstance(resolved, dict):
                resolved = {**resolved, **walk(siblings, depth)}
            return resolved
        return {k: walk(v, depth) for k, v in node.items()}

    root = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    return walk(root, 0)


#: Longest string a grammar may allow. llama.cpp expands ``maxLength: N`` into N nested optional rules; at 1200
#: the grammar crashed llama-cpp-python 0.3.36 (SIGSEGV) and long bounds make sampling crawl. Short bounds also
#: keep a small model from rambling until its token budget cuts the JSON off.
GRAMMAR_MAX_STRING = 240
GRAMMAR_MAX_ITEM = 160


def grammar_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema for a grammar-constrained backend (llama.cpp, Ollama): refs inlined, string lengths capped (list
    items shorter still). The caller's parser enforces the original bounds afterwards."""

    def strip(node: Any, in_items: bool = False) -> Any:
        if isinstance(node, list):
            return [strip(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {k: (strip(v, in_items=(k == "items")) if isinstance(v, (dict, list)) else v)
               for k, v in node.items()}
        if out.get("type") == "string" and "enum" not in out:
            cap = GRAMMAR_MAX_ITEM if in_items else GRAMMAR_MAX_STRING
            out["maxLength"] = min(out.get("maxLength", cap), cap)
        return out

    return strip(inline_refs(schema))
