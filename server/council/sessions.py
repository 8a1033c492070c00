"""Starts and runs sessions: the one place a session is created, seated on its models, started and run turn by turn.

The JSON-RPC service, the consult tools and MCP all use it: one running turn per session, each a fresh
:class:`~council.session.state.runtime.Turn` with its cancel scope, a session never created forgotten, a failed turn
answered with its root cause in plain words. What stop and cancel do is docs/protocol.md's (``council/stop``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import anyio

from council.archive import Archive
from council.config import CouncilConfig
from council.errors import CouncilError, internal_error, root_cause, validation_error
from council.evidence.tools import workspace_tools
from council.narrator import Narrator, language_of
from council.personas.loader import PersonaLibrary
from council.present import cost, failures, outcome
from council.present import status as words
from council.present.answer import PresentWriter
from council.protocol.language import ChatLabels
from council.protocol.methods import Awaiting, CancelResult, ClientCapabilities, StopResult, TurnParams, TurnResult
from council.protocol.seating import CallUsage
from council.provider_hub import ProviderHub, drop_unoffered
from council.providers.base import ProviderError
from council.providers.client import ClientBridge
from council.session.calls.failure import failure_of
from council.session.calls.structured import ProviderPicker
from council.session.state import records as r
from council.session.state.entities import TERMINAL, DiscussionStatus, SessionSettings, SessionStatus
from council.session.state.runtime import SessionRuntime, Turn, can_extend
from council.session.state.store import Live, SessionStore
from council.session.steps.engine import Engine, Plan
from council.session.steps.intents import Intent
from council.words import speaking, t

log = logging.getLogger(__name__)

STOP_WAIT_SECONDS = 10.0  # how long council/stop waits for the running turn to unwind (it does at its next await)
Step = Callable[[Turn], Awaitable[str | None]]  # one turn's work; returns the kind of note to show, if any


class Sessions:
    def __init__(self, library: PersonaLibrary, config: CouncilConfig, narrator: Narrator, *,
                 bridge: ClientBridge | None, settings: SessionSettings | None,
                 ranker_factory: Callable[[], object | None]) -> None:
        self.narrator = narrator
        self.store = SessionStore(narrator, ttl=config.session_ttl_seconds, max_sessions=config.max_sessions)
        self.hub = ProviderHub(config, bridge)
        self.archive = Archive(config, ranker_factory)  # decision memory and transcript files (both opt-in)
        tools, self.evidence_refused = workspace_tools(config.evidence_root, any_root=config.evidence_any_root)
        self.engine = Engine(library, settings or SessionSettings(), PresentWriter(), ranker_factory,
                             evidence=tools, memory=self.archive.memory)

    async def start(self, params: TurnParams, plan: Plan, session_id: str | None, *,
                    then: Callable[[Live], Awaitable[None]] | None = None,
                    cancelled: str | None = None, one_shot: bool = False) -> tuple[Live, TurnResult]:
        """Create the session ``plan`` describes, seat it (``params``' options and client), run its first turn and
        ``then``; a session that was not created by then is forgotten. ``cancelled``: the session is cancelled (with
        this reason) when the caller cancels, where a chat's is stopped. ``one_shot``: no retry will come (a consult),
        so a later cycle whose every model call failed is dropped and the council answers from the cycles before it
        (``debate.report_failures``), where a chat's waits for a retry."""
        seating, default = await self.hub.seat(self.engine.library, params, plan.selection.names)
        live = self.store.create(session_id, plan.settings.language)
        rt = live.rt
        rt.one_shot = one_shot
        live.pick = pick = self.hub.picker_for(lambda: rt.session.seating if rt.created else seating, default)

        async def start(turn: Turn) -> str | None:
            if params.earlier is not None:  # in place of a session a reload lost: said first, in one line
                self.narrator.replaced(rt, params.earlier.reason)
            turn.note("model", model=default.model, provider=default.id)
            if self.evidence_refused is not None:  # a home or system folder: said once per session, in one line
                turn.note("evidence_refused", folder=self.evidence_refused.folder, why=self.evidence_refused.why)
            return await self.engine.start(turn, plan, pick, seating)

        try:
            result = await self.run_turn(live, Intent.NEW_PROBLEM, start)
            if then is not None:
                await then(live)
            return live, result
        except BaseException as exc:
            if cancelled and isinstance(exc, anyio.get_cancelled_exc_class()):
                self.mark_cancelled(rt, cancelled)
            if not rt.created:
                self.store.discard(rt.session_id)
            raise

    async def pick(self, live: Live, params: TurnParams) -> ProviderPicker:
        """An existing session's role → provider function (kept on ``live``): a restored session keeps its journaled
        seats (one journaled before seating existed has its models chosen again)."""
        rt = live.rt
        if live.pick is None and rt.session.seating is not None:
            try:
                default = self.hub.provider_of(rt.session.seating.chair)
            except (ProviderError, CouncilError) as exc:  # a chat's model this sidecar cannot serve: the caller's
                raise validation_error(f"model provider problem: {exc.message}") from None
            live.pick = self.hub.picker_for(lambda: rt.session.seating, default)
        elif live.pick is None:
            try:
                live.pick, _ = await self.hub.picker(params.options, params.client)
            except ProviderError as exc:
                raise validation_error(f"model provider problem: {exc.message}", kind=exc.kind) from None
        return live.pick

    async def run_turn(self, live: Live, intent: Intent, step: Step,
                       client: ClientCapabilities | None = None) -> TurnResult:
        rt = live.rt
        if live.lock.locked():
            raise validation_error(t("error.busy"), sessionId=rt.session_id,
                                   status=rt.session.status.value if rt.created else None)
        scope = anyio.CancelScope()  # may be cancelled before it is entered: the turn then stops at its first await
        turn = Turn(rt.session_id, rt.observer, rt.clock, rt, scope)  # a retry tries every model again
        turn.follow_up = intent is Intent.FOLLOW_UP and rt.created and rt.session.status is SessionStatus.COMPLETED
        live.turn = turn  # the running turn from the moment it holds the lock (taking it yields once)
        async with live.lock:
            try:
                with scope:
                    drop_unoffered(rt, client)  # seats on a model the client no longer offers fall back first
                    note = await step(turn)
                    await self.archive.turn_done(rt.session)
                    return turn_result(rt, intent, words.turn_note(note, rt.session) if note else None)
            except anyio.get_cancelled_exc_class():
                rt.pause("the client cancelled the request")  # $/cancelRequest stops; only cancel cancels
                raise
            except Exception as exc:
                raise self._failed(rt, exc) from None
            finally:
                if scope.cancelled_caught:  # by council/stop or a shutdown (council/cancel has cancelled already)
                    rt.pause("stopped by the user" if turn.stop_requested else "the sidecar shut down")
        # reached only when the scope was cancelled while the turn ran
        note = "cancelled" if rt.session.status in (SessionStatus.CANCELLED, SessionStatus.COMPLETED) else "stopped"
        return turn_result(rt, intent, words.turn_note(note, rt.session))

    def _failed(self, rt: SessionRuntime, exc: Exception) -> CouncilError:
        """The error a failed turn answers with: its root cause in plain words, the technical cause in details.
        A cycle the failure cut short is dropped, so ``retry`` can run it again."""
        root = root_cause(exc)
        if rt.created and rt.session.status not in TERMINAL:
            rt.drop_open_cycle("failed")
        if isinstance(root, CouncilError):  # a refusal (or a broken rule): reported as it is
            return root
        failure = failure_of(root)
        log.error("session %s failed: %s", rt.session_id, failure.detail, exc_info=root)
        return internal_error(failures.turn_failed(failure, language_of(rt)), sessionId=rt.session_id,
                              cause=failure.kind, status=failure.status, technical=failure.detail,
                              retryable=rt.created)

    @staticmethod
    def mark_cancelled(rt: SessionRuntime, reason: str) -> None:
        if rt.created and rt.session.status not in TERMINAL:
            rt.record(r.StatusSet(at=rt.clock(), status=SessionStatus.CANCELLED, reason=reason))

    def cancel(self, live: Live, reason: str) -> CancelResult:
        """Cancel the session and its running turn; on a completed session, stop a running follow-up (refused
        otherwise, even while the turn that completed it is still unwinding)."""
        rt, running = live.rt, live.running
        inflight = running.inflight_calls if running else 0
        if rt.session.status is SessionStatus.COMPLETED and (running is None or not running.follow_up):
            with speaking(language_of(rt)):
                raise validation_error(t("error.already_completed"), sessionId=rt.session_id)
        self.mark_cancelled(rt, reason)  # a completed session stays completed
        if running is not None:
            running.scope.cancel()
        return CancelResult(session_id=rt.session_id, status=rt.session.status, cancelled_calls=inflight)

    async def stop(self, live: Live) -> StopResult:
        """Pause the session: cancel the running turn's scope (its model calls stop at once) and wait until the
        turn has unwound and recorded the stop."""
        rt, running, inflight = live.rt, live.running, 0
        if running is not None and rt.session.status not in TERMINAL:
            inflight, running.stop_requested = running.inflight_calls, True
            running.scope.cancel()
            with anyio.move_on_after(STOP_WAIT_SECONDS):
                async with live.lock:
                    pass
        s = rt.session
        return StopResult(session_id=rt.session_id, status=s.status, stopped=s.stopped, cancelled_calls=inflight)

    async def aclose(self) -> None:
        for live in self.store.all():
            if live.running is not None:
                live.running.scope.cancel()
        await self.hub.aclose()


def turn_result(rt: SessionRuntime, intent: Intent, message: str | None = None) -> TurnResult:
    """``rt``'s session as a turn's wire result, with ``message`` (a note already written in its language) and the
    words a client shows for it (buttons, followups, the usage line, revisit offers) in the session's language."""
    s = rt.session
    question = s.active_question if s.status is SessionStatus.CLARIFYING else None  # never after a cancel
    last = s.discussions[-1] if s.discussions else None
    with speaking(s.settings.language):
        usage = CallUsage.of(s).model_copy(update={"markdown": cost.usage(s)})
        revisit = outcome.revisits(s)
    return TurnResult(session_id=s.session_id, intent=intent, status=s.status,
                      awaiting=Awaiting.ANSWER if question else Awaiting.NOTHING, question=question,
                      final_answer=s.final_answer if s.status is SessionStatus.COMPLETED else None,
                      can_extend=s.status is SessionStatus.COMPLETED and can_extend(s), message=message,
                      limit_reached=last is not None and last.status is DiscussionStatus.LIMIT_REACHED,
                      stopped=s.stopped, usage=usage, revisit=revisit, language=s.settings.language,
                      labels=ChatLabels.of(s.settings.language))
