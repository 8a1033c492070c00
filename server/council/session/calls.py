"""One structured model call for a session role: stream, parse, one repair retry, else abstain with a note.

Never raises for a model's failure (provider error, garbage, truncated JSON): the caller gets ``reply=None`` and a
note to show the user. Cancellation propagates. Every call is recorded in the session metadata (provider, model,
latency, failure).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from council.providers.base import ChatMessage, CompletionRequest, Provider, ProviderError, complete
from council.session import records as r
from council.session.formats import swaps
from council.session.outputs import ModelReply
from council.session.parsing import ParseFailure, parse_reply
from council.session.prompts import repair_messages
from council.session.runtime import SessionRuntime

log = logging.getLogger(__name__)
T = TypeVar("T", bound=ModelReply)

ProviderPicker = Callable[[str], Provider]


@dataclass
class CallOutcome(Generic[T]):
    reply: T | None
    note: str | None = None
    repaired: bool = False


@dataclass
class CallSpec(Generic[T]):
    role: str
    messages: list[ChatMessage]
    reply_model: type[T]
    schema: dict[str, Any]
    max_tokens: int = 1024
    temperature: float = 0.7
    cycle: int = 0
    check: Callable[[T], None] | None = None  # extra checks after parsing; raises ParseFailure
    soft_check: Callable[[T], str | None] | None = None  # a shortfall worth one repair, not an abstention


async def call_structured(rt: SessionRuntime, pick: ProviderPicker, spec: CallSpec[T],
                          on_delta: Callable[[str], Awaitable[None]] | None = None) -> CallOutcome[T]:
    provider = pick(spec.role)
    messages = spec.messages
    if provider.constrains_json:  # the backend enforces the schema: the keys and hints, no types to copy
        messages = _compact(messages, spec.schema)
    request = CompletionRequest(purpose=spec.role, messages=messages, json_schema=spec.schema,
                                max_tokens=spec.max_tokens, temperature=spec.temperature,
                                session_id=rt.session_id, cycle=spec.cycle)
    async def ask_again(bad_reply: str, reason: str) -> str | None:
        """One repair attempt: the conversation, the bad reply and what was wrong with it."""
        repair = request.model_copy(update={"messages": repair_messages(messages, bad_reply, reason)})
        return await _run(rt, provider, repair, spec.role, None)

    text = await _run(rt, provider, request, spec.role, on_delta)
    if text is None:
        return CallOutcome(None, f"{provider.describe()} failed; see the error above")
    try:
        reply = _parse(text, spec)
    except ParseFailure as first:
        log.info("reply for %s did not parse (%s); asking once for a repair", spec.role, first.reason)
        text2 = await ask_again(text, first.reason)
        if text2 is None:
            return CallOutcome(None, f"unusable reply ({first.reason}); the repair attempt failed")
        try:
            return CallOutcome(_parse(text2, spec), repaired=True)
        except ParseFailure as second:
            for candidate in (text2, text):  # last resort: the complete parts of a reply that was cut off
                try:
                    return CallOutcome(_parse(candidate, spec, salvage=True), note="the reply was cut off; "
                                       "kept its complete parts", repaired=True)
                except ParseFailure:
                    continue
            return CallOutcome(None, f"unusable reply after one repair attempt: {second.reason}")
    shortfall = spec.soft_check(reply) if spec.soft_check else None
    if shortfall is None:
        return CallOutcome(reply)
    text2 = await ask_again(text, shortfall)
    if text2 is not None:
        try:
            better = _parse(text2, spec)
            if spec.soft_check is None or spec.soft_check(better) is None:
                return CallOutcome(better, repaired=True)
        except ParseFailure:
            pass
    return CallOutcome(reply, note=f"kept as given: {shortfall}")


def _compact(messages: list[ChatMessage], schema: dict[str, Any]) -> list[ChatMessage]:
    pairs = swaps(schema)
    out = []
    for m in messages:
        content = m.content
        for full, short in pairs:
            content = content.replace(full, short)
        out.append(m.model_copy(update={"content": content}))
    return out


def _parse(text: str, spec: CallSpec[T], *, salvage: bool = False) -> T:
    reply = parse_reply(text, spec.reply_model, spec.schema, salvage=salvage)
    if spec.check is not None:
        spec.check(reply)
    return reply


async def _run(rt: SessionRuntime, provider: Provider, request: CompletionRequest, role: str,
               on_delta: Callable[[str], Awaitable[None]] | None) -> str | None:
    started = time.perf_counter()
    failed = True
    rt.inflight_calls += 1
    try:
        text = await complete(provider, request, on_delta)
        failed = False
        return text
    except ProviderError as exc:
        rt.problem("model_failed", persona=role, retryable=exc.retryable, role=role,
                   model=provider.model or provider.id, message=exc.message)
        return None
    except Exception as exc:  # a provider bug must not sink the session
        log.exception("provider %s crashed for %s", provider.describe(), role)
        rt.problem("model_crashed", persona=role, role=role, model=provider.model or provider.id,
                   error=type(exc).__name__)
        return None
    finally:
        rt.inflight_calls -= 1
        if rt.created:
            try:
                rt.record(r.ModelUsed(at=rt.clock(), role=role, provider=provider.id, model=provider.model,
                                      failed=failed, latency_ms=(time.perf_counter() - started) * 1000))
            except Exception:  # the session may have been cancelled meanwhile; metadata is best effort
                log.debug("could not record model use for %s", role, exc_info=True)
