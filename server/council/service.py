"""The sidecar's façade: one method per protocol request, independent of pygls.

It owns the session store, the provider hub and the engine, and enforces what concerns requests rather than the
domain: idempotency keys, one running turn per session, cancellation (explicit or by ``$/cancelRequest``),
and turning provider configuration problems into readable validation errors.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import anyio

from council.config import CouncilConfig
from council.errors import CouncilError, internal_error, validation_error
from council.personas.loader import PersonaLibrary
from council.protocol.methods import (
    AnswerParams,
    Awaiting,
    CancelResult,
    Intent,
    PersonasResult,
    ProvidersResult,
    SnapshotParams,
    SnapshotResult,
    TurnCommand,
    TurnParams,
    TurnResult,
)
from council.provider_hub import ProviderHub
from council.providers.base import ProviderError
from council.providers.client import ClientBridge
from council.providers.registry import provider_statuses
from council.session import records as r
from council.session.engine import Defaults, Engine, status_message
from council.session.entities import SessionSettings, SessionStatus
from council.session.intents import decide_intent
from council.session.render import transcript_markdown
from council.session.runtime import EventSink, SessionRuntime
from council.session.store import SessionStore
from council.session.transitions import TERMINAL

log = logging.getLogger(__name__)

NEW_TURN_KEYS = 512  # turn keys remembered outside a live session (new or unknown ones; older are forgotten)


class CouncilService:
    def __init__(self, library: PersonaLibrary, config: CouncilConfig, sink: EventSink, *,
                 bridge: ClientBridge | None = None, settings: SessionSettings | None = None,
                 ranker_factory: Callable[[], object | None] = lambda: None) -> None:
        self.library = library
        self.config = config
        self.store = SessionStore(sink, ttl=config.session_ttl_seconds, max_sessions=config.max_sessions)
        self.hub = ProviderHub(config, bridge)
        self.engine = Engine(library, Defaults(settings or SessionSettings(), ranker_factory))
        self._turn_results: dict[str, TurnResult] = {}
        self._turn_pending: dict[str, anyio.Event] = {}
        self._turn_failures: dict[str, Exception] = {}

    # --- council/turn ----------------------------------------------------------------------------------------
    async def turn(self, params: TurnParams) -> TurnResult:
        if params.idempotency_key is None:
            return await self._turn(params)
        key = f"turn:{params.idempotency_key}"
        rt = self._live(params.session_id)
        if rt is not None:  # keys are scoped to their session and evicted with it
            return await _once(key, rt.results, rt.pending, rt.failures, lambda: self._turn(params))
        key = f"{params.session_id or 'new'}:{key}"
        if len(self._turn_pending) > NEW_TURN_KEYS:  # keys without a live session: keep the recent ones
            for old in [k for k, e in self._turn_pending.items() if e.is_set()][: NEW_TURN_KEYS // 2]:
                for memo in (self._turn_pending, self._turn_results, self._turn_failures):
                    memo.pop(old, None)
        return await _once(key, self._turn_results, self._turn_pending, self._turn_failures,
                           lambda: self._turn(params))

    def _live(self, session_id: str | None) -> SessionRuntime | None:
        if not session_id:
            return None
        try:
            return self.store.get(session_id)
        except CouncilError:
            return None

    async def _turn(self, params: TurnParams) -> TurnResult:
        rt = None
        if params.session_id and params.command is not TurnCommand.NEW:
            rt = self.store.get(params.session_id)
        status = rt.session.status if rt else None
        intent = decide_intent(params.text, params.command, status)
        if intent is Intent.NEW_PROBLEM:
            return await self._start(params)
        if rt is None:
            if intent is Intent.PERSONAS:
                names = ", ".join(self.library.names)
                return TurnResult(intent=intent, awaiting=Awaiting.NOTHING, message=f"Personas: {names}.")
            raise validation_error("there is no session yet: ask the council a question first",
                                   intent=intent.value)
        if intent is Intent.CANCEL:
            await self.cancel(rt.session_id, "cancelled by the user")
            return self.engine.result(rt, intent, "The session was cancelled.")
        if intent is Intent.STATUS:
            return self.engine.result(rt, intent, status_message(rt))
        if rt.lock.locked():
            raise validation_error("the council is still working on this session; wait for it or cancel it",
                                   sessionId=rt.session_id, status=rt.session.status.value)
        pick = await self._pick(rt, params)
        return await self._run(rt, intent, lambda: self.engine.handle(rt, intent, params.text, pick))

    async def _start(self, params: TurnParams) -> TurnResult:
        pick, reason = await self._picker(params)
        rt = self.store.create(params.new_session_id)
        rt.pick = pick

        async def start() -> TurnResult:
            rt.progress(f"Models: {reason}.")
            return await self.engine.start(rt, params, pick)

        try:
            return await self._run(rt, Intent.NEW_PROBLEM, start)
        except BaseException:
            if not rt.created:
                self.store.discard(rt.session_id)
            raise

    async def _picker(self, params: TurnParams):
        try:
            return await self.hub.picker(params.options, params.client)
        except ProviderError as exc:
            raise validation_error(f"model provider problem: {exc.message}", kind=exc.kind) from None

    async def _pick(self, rt: SessionRuntime, params: TurnParams):
        if rt.pick is None:
            rt.pick, _ = await self._picker(params)
        return rt.pick

    # --- council/answer --------------------------------------------------------------------------------------
    async def answer(self, params: AnswerParams) -> TurnResult:
        rt = self.store.get(params.session_id)

        async def run() -> TurnResult:
            if rt.lock.locked():
                raise validation_error("the council is still working on this session", sessionId=rt.session_id)
            pick = await self._pick(rt, TurnParams(client=params.client))
            intent = {"answer": Intent.ANSWER, "skip": Intent.SKIP, "defer": Intent.DEFER}[params.action]
            return await self._run(rt, intent, lambda: self.engine.answer(rt, params, pick))

        return await _once(params.idempotency_key, rt.results, rt.pending, rt.failures, run)

    # --- running a turn --------------------------------------------------------------------------------------
    async def _run(self, rt: SessionRuntime, intent: Intent, fn: Callable[[], Awaitable[TurnResult]]) -> TurnResult:
        async with rt.lock:
            scope = anyio.CancelScope()
            rt.cancel_scope = scope
            try:
                with scope:
                    return await fn()
            except CouncilError:
                raise
            except anyio.get_cancelled_exc_class():
                self._mark_cancelled(rt, "the client cancelled the request")
                raise
            except Exception as exc:
                log.exception("session %s failed", rt.session_id)
                rt.error(f"internal error: {type(exc).__name__}: {exc}")
                raise internal_error(f"the council failed: {type(exc).__name__}: {exc}",
                                     sessionId=rt.session_id) from exc
            finally:
                rt.cancel_scope = None
                if scope.cancelled_caught:
                    self._mark_cancelled(rt, "cancelled")
        # reached only when the scope was cancelled (cancel() called while the turn ran)
        return self.engine.result(rt, intent, "The session was cancelled.")

    def _mark_cancelled(self, rt: SessionRuntime, reason: str) -> None:
        if rt.created and rt.session.status not in TERMINAL:
            rt.record(r.StatusSet(at=rt.clock(), status=SessionStatus.CANCELLED, reason=reason))

    # --- other requests --------------------------------------------------------------------------------------
    async def cancel(self, session_id: str, reason: str = "cancelled by the user") -> CancelResult:
        rt = self.store.get(session_id)
        if rt.session.status is SessionStatus.COMPLETED:
            raise validation_error("the session is already completed", sessionId=session_id)
        inflight = rt.inflight_calls
        self._mark_cancelled(rt, reason)
        if rt.cancel_scope is not None:
            rt.cancel_scope.cancel()
        return CancelResult(session_id=session_id, status=rt.session.status, cancelled_calls=inflight)

    def snapshot(self, params: SnapshotParams) -> SnapshotResult:
        rt = self.store.get(params.session_id)
        journal = [rec.to_wire() for rec in rt.journal] if params.include_journal else None
        return SnapshotResult(session=rt.session, journal=journal, transcript_markdown=transcript_markdown(rt.session))

    def personas(self) -> PersonasResult:
        return PersonasResult(personas=self.library.infos(), councils=self.library.councils)

    async def providers(self) -> ProvidersResult:
        statuses = await provider_statuses(self.config)
        return ProvidersResult(default=self.config.default or "automatic", providers=statuses)

    async def aclose(self) -> None:
        for rt in self.store.all():
            if rt.cancel_scope is not None:
                rt.cancel_scope.cancel()
        await self.hub.aclose()


async def _once(key: str, results: dict, pending: dict, failures: dict,
                fn: Callable[[], Awaitable[TurnResult]]) -> TurnResult:
    """Run ``fn`` once per idempotency key; repeats (even concurrent ones) get the first outcome."""
    if key in pending:
        await pending[key].wait()
        if key in failures:
            raise failures[key]
        if key not in results:
            raise validation_error("the first request with this idempotency key did not finish", key=key)
        return results[key].model_copy(update={"duplicate": True})
    event = pending[key] = anyio.Event()
    try:
        result = await fn()
        results[key] = result
        return result
    except CouncilError as exc:
        failures[key] = exc
        raise
    except BaseException:
        del pending[key]  # cancelled or crashed: a retry with the same key may run again
        raise
    finally:
        event.set()
