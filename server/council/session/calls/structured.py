"""One structured model call for a session role: stream, parse, one repair retry, else abstain with a note.

The schema and token budget asked are the provider's profile's (``profiles``: every model is asked capped texts with
a budget that fits them, a small one fewer and shorter fields, with room for its grammar to close the object); an
unusable reply keeps what could be read of it.

Never raises for a model's failure: the caller gets ``reply=None``, a note and the classified ``ModelFailure``,
reported once (by the caller when ``report=False``); cancellation propagates. Every call is recorded in the session
metadata; the log gets the technical cause, never a prompt or a reply. A model a turn found unusable (unreachable
host, ``model_unavailable``/``no_consent``) is not called again in that turn: its seats fall back to the chat's
model, and with no seat left the turn stops (:func:`stranded`); transient failures are not remembered.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import anyio

from council.errors import root_cause
from council.providers.base import (
    ChatMessage,
    CompletionRequest,
    Provider,
    ProviderError,
    Usage,
    complete,
    grammar_schema,
    retry_gate,
    usage_sink,
)
from council.session.calls.failure import failure_of, fallback_reason, host_of
from council.session.calls.formats import swaps_of
from council.session.calls.parsing import ParseFailure, parse_reply, readable_parts
from council.session.calls.profiles import fitted, profile_of
from council.session.calls.prompts import repair_messages
from council.session.state import entities as e
from council.session.state import records as r
from council.session.state.budget import allows
from council.session.state.outputs import CUT_OFF_NOTE, UNUSABLE_NOTE, ModelFailure, ModelReply
from council.session.state.runtime import Turn
from council.session.state.seating import CHAIR_ROLES

log = logging.getLogger(__name__)
T = TypeVar("T", bound=ModelReply)

ProviderPicker = Callable[[str], Provider]
KEPT = "kept as given: "  # a reply's note after a soft shortfall its repair did not mend (then the shortfall)


@dataclass
class CallOutcome(Generic[T]):
    reply: T | None
    note: str | None = None
    repaired: bool = False
    failure: ModelFailure | None = None
    readable: dict[str, Any] | None = None  # an unusable reply: what could be read of it (its complete members)


@dataclass
class CallSpec(Generic[T]):
    role: str
    messages: list[ChatMessage]
    reply_model: type[T]
    schema: dict[str, Any]
    max_tokens: int = 1024
    schema_json: str | None = None  # ``schema`` as :func:`schema_text` writes it, by a caller whose calls all ask
    # the same schema (a debate cycle: once for its six personas); None: the call writes it
    temperature: float = 0.7
    cycle: int = 0
    check: Callable[[T], None] | None = None  # extra checks after parsing; raises ParseFailure
    soft_check: Callable[[T], str | None] | None = None  # a shortfall worth one repair, not an abstention
    report: bool | Callable[[ModelFailure], bool] = True  # report a provider failure as a problem at once (False,
    # or a function that says False for it: the caller reports it)


async def call_structured(rt: Turn, pick: ProviderPicker, spec: CallSpec[T],
                          on_delta: Callable[[str], Awaitable[None]] | None = None) -> CallOutcome[T]:
    schema_json = spec.schema_json or schema_text(spec.schema)  # the key of ``fitted`` and ``swaps_of``
    provider = pick(spec.role)
    asked_json, max_tokens = fitted(schema_json, profile_of(provider), spec.max_tokens)  # the reply budget
    asked = spec.schema if asked_json is None else json.loads(asked_json)  # (``profiles``); the call's own copy
    if provider.grammar:  # the texts as long as the grammar lets them be: the prompt says what holds
        asked, asked_json = grammar_schema(asked), None
    messages = spec.messages
    if provider.constrains_json or asked is not spec.schema:  # the backend enforces the schema: the keys and
        pairs = swaps_of(schema_json, asked_json or json.dumps(asked), provider.constrains_json)  # hints, no
        messages = _compact(messages, pairs)  # types to copy
    spec = replace(spec, schema=asked, schema_json=None, max_tokens=max_tokens)
    request = CompletionRequest(purpose=spec.role, messages=messages, json_schema=spec.schema,
                                max_tokens=spec.max_tokens, temperature=spec.temperature,
                                session_id=rt.session_id, cycle=spec.cycle)
    failed: list[ModelFailure] = []

    async def ask(repair: tuple[str, str] | None = None,
                  report: bool | Callable[[ModelFailure], bool] = spec.report) -> str | None:
        """The call, or (``repair``: the bad reply and what was wrong with it) its one repair attempt."""
        nonlocal provider
        retry = repair is not None
        req = request.model_copy(update={"messages": repair_messages(messages, *repair)}) if repair else request
        reply, provider = await _attempt(rt, pick, provider, req, spec.role, None if retry else on_delta, retry)
        if isinstance(reply, ModelFailure):
            failed.append(reply)
            if (report(reply) if callable(report) else report) \
                    and not (retry and reply.kind == "over_budget"):  # a repair the bound has no room for
                rt.problem("model_failed", persona=spec.role, role=spec.role, failure=reply)  # the session goes on
            return None
        return reply

    text = await ask()
    if text is None:
        return CallOutcome(None, f"the model call failed ({failed[0].kind})", failure=failed[0])
    try:
        reply = _parse(text, spec)
    except ParseFailure as first:
        log.info("reply for %s did not parse; asking once for a repair", spec.role)
        text2 = await ask((text, first.reason))
        if text2 is None:
            return CallOutcome(None, f"unusable reply ({first.reason}); the repair attempt failed",
                               failure=failed[0], readable=readable_parts(text))
        try:
            return CallOutcome(_parse(text2, spec), repaired=True)
        except ParseFailure as second:
            for candidate in (text2, text):  # last resort: the complete parts of a reply that was cut off
                try:
                    return CallOutcome(_parse(candidate, spec, salvage=True), note=CUT_OFF_NOTE, repaired=True)
                except ParseFailure:
                    continue
            return CallOutcome(None, f"{UNUSABLE_NOTE}{second.reason}",
                               readable=max((readable_parts(t) for t in (text2, text)), key=len))
    shortfall = spec.soft_check(reply) if spec.soft_check else None
    if shortfall is None:
        return CallOutcome(reply)
    text2 = await ask((text, shortfall), report=False)  # the reply is kept whatever happens to the repair
    if text2 is not None:
        try:
            better = _parse(text2, spec)
            if spec.soft_check is None or spec.soft_check(better) is None:
                return CallOutcome(better, repaired=True)
        except ParseFailure:
            pass
    return CallOutcome(reply, note=KEPT + shortfall)


def schema_text(schema: dict[str, Any]) -> str:
    """``schema`` as a call writes it as JSON: the key of the fitted schema and of the reply-format swaps. A caller
    whose calls all ask the same schema writes it once and passes it along (``CallSpec.schema_json``)."""
    return json.dumps(schema)


def _compact(messages: list[ChatMessage], pairs: tuple[tuple[str, str], ...]) -> list[ChatMessage]:
    """``messages`` with every block of ``pairs`` swapped for its other form (a message without one: as it was)."""
    out = []
    for m in messages:
        content = m.content
        for full, short in pairs:
            content = content.replace(full, short)
        out.append(m if content == m.content else m.model_copy(update={"content": content}))
    return out


def _parse(text: str, spec: CallSpec[T], *, salvage: bool = False) -> T:
    reply = parse_reply(text, spec.reply_model, spec.schema, salvage=salvage)
    if spec.check is not None:
        spec.check(reply)
    return reply


async def _attempt(rt: Turn, pick: ProviderPicker, provider: Provider, request: CompletionRequest,
                   role: str, on_delta: Callable[[str], Awaitable[None]] | None,
                   retry: bool) -> tuple[str | ModelFailure, Provider]:
    """One call; when the seat's own model failed it, the seat leaves that model for the chat's (recorded by the
    first call that noticed: once per model per session) and the same call runs once more there. The reply or
    failure, and the provider that gave it."""
    seating = rt.session.seating if rt.created else None
    seat_id = None if seating is None else seating.model_of(role).id
    reply = await _run(rt, provider, request, role, on_delta, retry=retry)
    seating = rt.session.seating if rt.created else None
    if (not isinstance(reply, ModelFailure) or reply.kind == "over_budget" or seating is None
            or seat_id in (None, seating.chair.id)):
        return reply, provider
    if seating.model_of(role).id == seat_id:
        log.warning("%s's model failed (%s): its seats move to the chat's model", role, reply.kind)
        rt.record(r.SeatFellBack(at=rt.clock(), model_id=seat_id, reason=fallback_reason(reply), detail=reply.detail))
    if rt.session.seating is not None and rt.session.seating.model_of(role).id != seat_id:
        provider = pick(role)
        reply = await _run(rt, provider, request, role, on_delta, retry=True)
    return reply, provider


async def _run(rt: Turn, provider: Provider, request: CompletionRequest, role: str,
               on_delta: Callable[[str], Awaitable[None]] | None, retry: bool = False) -> str | ModelFailure:
    """The model's whole text, or why the call failed (a provider error, or a provider bug: neither sinks the
    session). A call on a model this turn found it cannot use is not made (:func:`known`: it fails at once with
    that cause), nor one the session's stated bound does not allow (``over_budget``); a provider's own
    retries of a failed request (HTTP 429/5xx) are calls too: each is journaled and made only while it fits, and
    none is made once another call found the model unusable."""
    gone = known(rt, provider)
    if gone is not None:
        log.info("no model call for %s: %s cannot be used in this turn (%s)", role, provider.describe(), gone.kind)
        return gone.model_copy(update={"provider": provider.id, "model": provider.model})
    if not _fits(rt, retry):
        log.info("no model call for %s: the stated bound of calls is reached", role)
        return ModelFailure(kind="over_budget", provider=provider.id, model=provider.model)
    started = time.perf_counter()
    failed, cancelled = True, False
    spent: list[Usage] = []  # what the backend said the call used (an agent CLI says)
    rt.inflight_calls += 1
    rt.pending_calls += 1
    rt.pending_first += int(not retry)

    def record(failed: bool, cancelled: bool = False) -> None:
        if rt.created:
            try:
                rt.record(r.ModelUsed(at=rt.clock(), role=role, provider=provider.id, model=provider.model,
                                      failed=failed and not cancelled, cancelled=cancelled,
                                      latency_ms=(time.perf_counter() - started) * 1000, retry=retry,
                                      spent=_spend(spent)))
            except Exception:  # the session may have been cancelled meanwhile; metadata is best effort
                log.debug("could not record model use for %s", role, exc_info=True)

    def again() -> bool:
        """The provider's own retry of the attempt that just failed: it fits the bound, or it is not made."""
        nonlocal retry, started
        if known(rt, provider) is not None or not _fits(rt, retry=True):  # the model found unusable meanwhile
            return False
        record(failed=True)  # the failed attempt is a call made; the next one is a retry, pending
        rt.pending_first -= int(not retry)
        retry, started = True, time.perf_counter()
        return True

    try:
        with retry_gate(again), usage_sink(spent.append):
            text = await complete(provider, request, on_delta)
        failed = False
        return text
    except Exception as exc:  # also an ExceptionGroup a provider's task group wrapped around the real cause
        failure = failure_of(exc, provider)
        learn(rt, provider, exc, failure)
        if failure.kind == "crashed":
            log.error("provider %s crashed for %s", provider.describe(), role, exc_info=exc)
        else:
            log.warning("%s failed for %s: %s (%s)", provider.describe(), role, failure.kind, failure.detail)
        return failure
    except anyio.get_cancelled_exc_class():  # sent, then not needed (or stopped): a call made, not a failure
        cancelled = True
        raise
    finally:
        rt.inflight_calls -= 1
        rt.pending_calls -= 1
        rt.pending_first -= int(not retry)
        record(failed, cancelled)


def _spend(usage: list[Usage]) -> e.Spend | None:
    """What the backend reported the call used, for its record (None: it said nothing)."""
    if not usage:
        return None
    u = usage[-1]
    return e.Spend(input_tokens=u.input_tokens, output_tokens=u.output_tokens, cost_usd=u.cost_usd,
                   premium_requests=u.premium_requests)


def _fits(rt: Turn, retry: bool) -> bool:
    """Whether one more call fits the session's stated bound (a review, with no session, has none)."""
    s = rt.session if rt.created else None
    return s is None or allows(s.call_plans, s.metadata.calls, s.metadata.first_calls, rt.pending_calls,
                               rt.pending_first, retry)


GONE = frozenset({"unreachable", "model_unavailable", "no_consent"})  # ProviderError kinds that rule a model out


def _model_key(provider: Provider) -> str:
    return f"{provider.id}:{getattr(provider, 'model_id', None) or provider.model}"


def known(rt: Turn, provider: Provider) -> ModelFailure | None:
    """Why ``provider``'s model is out for this turn (None: it may work)."""
    host = host_of(provider)
    found = rt.gone.get(f"host:{host}") if host else None
    return found or rt.gone.get(_model_key(provider))


def learn(rt: Turn, provider: Provider, exc: BaseException, failure: ModelFailure) -> None:
    """Remember ``provider``'s model as out for the turn when ``exc`` says it cannot be used at all."""
    root = root_cause(exc)
    if not isinstance(root, ProviderError) or root.kind not in GONE:
        return
    host = host_of(provider)
    rt.gone[f"host:{host}" if root.kind == "unreachable" and host else _model_key(provider)] = failure


def stranded(rt: Turn, pick: Callable[[str], Provider]) -> dict[str, ModelFailure] | None:
    """The chat's model and every persona's seat are out for this turn: persona → why (None: some seat may still
    work, on its own model or on the chat's after a fallback)."""
    if known(rt, pick(CHAIR_ROLES[0])) is None:
        return None
    seating = rt.session.seating
    roles = [s.persona for s in seating.seats] if seating else [p.name for p in rt.session.personas]
    out: dict[str, ModelFailure] = {}
    for role in roles:
        why = known(rt, pick(role))
        if why is None:
            return None
        out[role] = why
    return out or None
