"""The sidecar's façade: one method per protocol request, independent of the transport.

It owns the session store, the provider hub, the engine and the narrator, and enforces what concerns requests rather
than the domain: idempotency keys, one running turn per session, stopping (``council/stop`` or ``$/cancelRequest`` on a
running turn: the session pauses; on a completed session it stops a running follow-up) and cancelling
(``council/cancel`` only), and provider problems as readable errors that name their root cause. It is also the one place
that decides what a turn means and dispatches it (:meth:`CouncilService._dispatch`), and the one place domain results
become wire results. The consult tools (``council.consult``) run their sessions through the same :meth:`run_turn`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import anyio
from pydantic import ValidationError

from council.archive import Archive
from council.config import CouncilConfig
from council.consult.overrides import PersonaOverrides, info
from council.consult.runner import Asker, Consultant
from council.errors import CouncilError, from_pydantic, internal_error, root_cause, validation_error
from council.evidence import WorkspaceTools
from council.idempotency import KeyedOnce
from council.narrator import EventSink, Narrator, language_of, request_language
from council.personas.loader import PersonaLibrary, load_personas
from council.present import consult as consult_words
from council.present import failures
from council.present import status as words
from council.present.transcript import transcript
from council.present.writer import PresentWriter
from council.protocol.consult import (
    ConsultParams,
    ConsultPlan,
    ConsultPlanParams,
    ConsultRequest,
    ConsultResult,
    DefinePersonasParams,
    DefinePersonasResult,
    PersonaConsultParams,
    PersonaConsultRequest,
)
from council.protocol.methods import (
    AnswerParams,
    Awaiting,
    CancelResult,
    ClientCapabilities,
    PersonasResult,
    ProvidersResult,
    RestoreParams,
    RestoreResult,
    ReviewParams,
    ReviewResult,
    SnapshotParams,
    SnapshotResult,
    StopResult,
    TurnCommand,
    TurnParams,
    TurnResult,
)
from council.provider_hub import ProviderHub
from council.providers.client import ClientBridge
from council.providers.registry import provider_statuses
from council.seat_requests import drop_unoffered, seat_session, session_pick
from council.session.calls.failure import failure_of
from council.session.state import records as r
from council.session.state.entities import SessionSettings, SessionStatus
from council.session.state.language import session_language
from council.session.state.pause import drop_open_cycle, pause
from council.session.state.records import stable_prefix
from council.session.state.runtime import SessionRuntime, can_extend
from council.session.state.store import SessionStore
from council.session.state.transitions import TERMINAL
from council.session.steps.engine import Engine, NewSession
from council.session.steps.intents import Intent, decide_intent
from council.turn_result import turn_result
from council.words import speaking, t

if TYPE_CHECKING:
    from council.review.calls import Progress

log = logging.getLogger(__name__)

REPLIES = {Intent.ANSWER: "answer", Intent.SKIP: "skip", Intent.SKIP_ALL: "skip_all", Intent.DEFER: "defer"}
STOP_WAIT_SECONDS = 10.0  # how long council/stop waits for the running turn to unwind (it does at its next await)


class CouncilService:
    def __init__(self, library: PersonaLibrary, config: CouncilConfig, sink: EventSink, *,
                 bridge: ClientBridge | None = None, settings: SessionSettings | None = None,
                 ranker_factory: Callable[[], object | None] = lambda: None) -> None:
        self.library = library
        self.config = config
        self.narrator = Narrator(sink)
        self.store = SessionStore(self.narrator, ttl=config.session_ttl_seconds, max_sessions=config.max_sessions)
        self.hub = ProviderHub(config, bridge)
        self.archive = Archive(config, ranker_factory)  # decision memory and transcript files (both opt-in)
        tools = WorkspaceTools(config.evidence_root) if config.evidence_root is not None else None
        self.engine = Engine(library, settings or SessionSettings(), PresentWriter(), ranker_factory,
                             evidence=tools, memory=self.archive.memory)
        self.new_turns = KeyedOnce()  # idempotency of turns that name no live session
        self.consultant = Consultant(self)
        self.overrides = PersonaOverrides(config.workspace)

    # --- council/turn ----------------------------------------------------------------------------------------
    async def turn(self, params: TurnParams) -> TurnResult:
        rt = self._live(params.session_id)
        # a refusal is in the session's language (or in the one a session this turn starts gets)
        with speaking(request_language(rt if params.command is not TurnCommand.NEW else None, params)):
            if params.idempotency_key is None:
                return await self._dispatch(params)
            memo = rt.once if rt is not None else self.new_turns  # keys are scoped to their session
            key = f"turn:{params.session_id if rt is None else ''}:{params.idempotency_key}"
            return await memo.run(key, lambda: self._dispatch(params), _repeat)

    def _live(self, session_id: str | None) -> SessionRuntime | None:
        if not session_id:
            return None
        try:
            return self.store.get(session_id)
        except CouncilError:
            return None

    async def _dispatch(self, params: TurnParams) -> TurnResult:
        """What the turn means, and who handles it: the one place intents are dispatched."""
        rt = None
        if params.session_id and params.command is not TurnCommand.NEW:
            rt = self.store.get(params.session_id)
        s = rt.session if rt else None
        extendable = s is not None and can_extend(s)
        intent = decide_intent(params.text, params.command, s.status if s else None, s.active_question if s else None,
                               stopped=s is not None and s.stopped, extendable=extendable)
        if intent is Intent.NEW_PROBLEM:
            return await self._start(params)
        if rt is None:
            if intent is Intent.PERSONAS:
                chat = [p.name for p in self.library.all if p.chats]  # review-only roles are not named in chat
                said = session_language(params.text, params.options.language, params.options.ui_language)
                return TurnResult(intent=intent, awaiting=Awaiting.NOTHING, message=words.library(chat, said),
                                  language=said)
            if params.command is TurnCommand.ANSWER:
                raise validation_error(t("error.no_open_question"), reason="no_open_question")
            raise validation_error(t("error.no_session"), intent=intent.value)
        if intent is Intent.CANCEL:
            await self.cancel(rt.session_id)
            return self._result(rt, intent, words.turn_note("cancelled", rt.session))
        if intent is Intent.STOP:
            running = rt.cancel_scope is not None
            await self.stop(rt.session_id)  # a stop says so in its event; an idle session gets a note
            return self._result(rt, intent, None if running else words.turn_note("nothing_to_stop", rt.session))
        if intent is Intent.STATUS:
            return self._result(rt, intent, words.status(rt.session))
        if intent is Intent.PERSONAS:
            return self._result(rt, intent, words.council_members(rt.session))
        if intent is Intent.HINT:  # a keyword with nothing to act on: say what is possible, run nothing
            return self._result(rt, intent, words.hint(rt.session, params.text, extendable))
        if intent is Intent.CONFIRM_NEW:
            return await self.run_turn(rt, intent, lambda: self._confirm_new(rt, params.text))
        engine, pick = self.engine, await session_pick(self.hub, rt, params)
        added = params.text.strip() if params.command is TurnCommand.EXTEND else ""  # "/extend <text>"
        moves: dict[Intent, Callable[[], Awaitable[str | None]]] = {
            Intent.MORE_QUESTIONS: lambda: engine.more_questions(rt, pick),
            Intent.EXTEND_DEBATE: lambda: engine.reopen(rt, added, pick) if added else engine.extend(rt, pick),
            Intent.RETRY: lambda: self._resume(rt, pick),
            Intent.FOLLOW_UP: lambda: engine.follow_up(rt, params.text, pick),
            Intent.REVISIT: lambda: engine.revisit(rt, params.question_id, params.text, pick),
        }
        if intent in REPLIES:
            return await self.run_turn(rt, intent, lambda: engine.reply(rt, REPLIES[intent], params.text, pick),
                                        client=params.client)
        return await self.run_turn(rt, intent, moves[intent], client=params.client)

    async def _confirm_new(self, rt: SessionRuntime, text: str) -> None:
        """Nothing is recorded: the user is asked whether the text answers the open question or is a new one."""
        question = rt.session.active_question
        assert question is not None  # decide_intent says confirm_new only while a question is open
        self.narrator.confirm_new(rt, question, text)

    async def _start(self, params: TurnParams) -> TurnResult:
        opts = params.options
        req = NewSession(text=params.text, personas=opts.personas, depth=opts.depth, max_cycles=opts.max_cycles,
                         max_personas=opts.max_personas, extended_debate=opts.extended_debate, clarify=opts.clarify,
                         user_name=opts.user_id or "User", max_model_calls=opts.max_model_calls,
                         context=[(ref.name, ref.content) for ref in params.references],
                         uris={ref.name: ref.uri for ref in params.references if ref.uri},
                         language=session_language(params.text, opts.language, opts.ui_language),
                         earlier=params.earlier)
        plan = self.engine.plan(req)  # bad input is refused before a session (or an event) exists
        rt, seating, default = await self.seated(params, plan.selection.names, params.new_session_id, req.language)

        async def start() -> str | None:
            if params.earlier is not None:  # in place of a session a reload lost: said first, in one line
                self.narrator.replaced(rt, params.earlier.reason)
            rt.note("model", model=default.model, provider=default.id)
            return await self.engine.start(rt, plan, rt.pick, seating)

        try:
            result = await self.run_turn(rt, Intent.NEW_PROBLEM, start)
        except BaseException:
            if not rt.created:
                self.store.discard(rt.session_id)
            raise
        note = words.reused(rt.earlier, result.message, language_of(rt)) if rt.earlier else result.message
        return result.model_copy(update={"message": note})

    async def seated(self, params: TurnParams, personas: list[str], session_id: str | None, language: str | None):
        """A new session's runtime (writing in ``language``), its role → provider function, seating and chat model."""
        seating, default = await seat_session(self.hub, self.config, self.engine.library, params, personas)
        rt = self.store.create(session_id)
        rt.language = language
        rt.pick = self.hub.picker_for(lambda: rt.session.seating if rt.created else seating, default)
        return rt, seating, default

    # --- council/answer --------------------------------------------------------------------------------------
    async def answer(self, params: AnswerParams) -> TurnResult:
        rt = self.store.get(params.session_id)
        intent = {"answer": Intent.ANSWER, "skip": Intent.SKIP, "defer": Intent.DEFER}[params.action]

        async def run() -> TurnResult:
            pick = await session_pick(self.hub, rt, TurnParams(client=params.client))
            return await self.run_turn(rt, intent, lambda: self.engine.answer(
                rt, params.question_id, params.action, params.text or "", params.choice, pick), client=params.client)

        with speaking(language_of(rt)):
            return await rt.once.run(f"answer:{params.idempotency_key}", run, _repeat)

    async def _resume(self, rt: SessionRuntime, pick) -> str | None:
        """``retry``: the engine resumes; an open question is shown again (no model call)."""
        note = await self.engine.retry(rt, pick)
        if note == "question_open":
            self.narrator.question_again(rt)
            return None
        return note

    # --- running a turn --------------------------------------------------------------------------------------
    async def run_turn(self, rt: SessionRuntime, intent: Intent, fn: Callable[[], Awaitable[str | None]],
                       client: ClientCapabilities | None = None) -> TurnResult:
        if rt.lock.locked():
            raise validation_error(t("error.busy"), sessionId=rt.session_id,
                                   status=rt.session.status.value if rt.created else None)
        async with rt.lock:
            scope = anyio.CancelScope()
            rt.cancel_scope, rt.stop_requested = scope, False
            rt.gone.clear()  # a new turn (a retry) tries every model again
            try:
                with scope:
                    drop_unoffered(rt, client)  # seats on a model the client no longer offers fall back first
                    note = await fn()
                    await self.archive.turn_done(rt.session)
                    return self._result(rt, intent, words.turn_note(note, rt.session) if note else None)
            except anyio.get_cancelled_exc_class():
                pause(rt, "the client cancelled the request")  # $/cancelRequest stops; only cancel cancels
                raise
            except Exception as exc:
                raise self._failed(rt, exc) from None
            finally:
                rt.cancel_scope = None
                if scope.cancelled_caught:  # by council/stop or a shutdown (council/cancel has cancelled already)
                    pause(rt, "stopped by the user" if rt.stop_requested else "the sidecar shut down")
        # reached only when the scope was cancelled while the turn ran
        note = "cancelled" if rt.session.status in (SessionStatus.CANCELLED, SessionStatus.COMPLETED) else "stopped"
        return self._result(rt, intent, words.turn_note(note, rt.session))

    def _failed(self, rt: SessionRuntime, exc: Exception) -> CouncilError:
        """The error a failed turn answers with: its root cause in plain words, the technical cause in details.
        A cycle the failure cut short is dropped, so ``retry`` can run it again."""
        root = root_cause(exc)
        if rt.created and rt.session.status not in TERMINAL:
            drop_open_cycle(rt, "failed")
        if isinstance(root, CouncilError):  # a refusal (or a broken rule): reported as it is
            return root
        failure = failure_of(root)
        log.error("session %s failed: %s", rt.session_id, failure.detail, exc_info=root)
        return internal_error(failures.turn_failed(failure, language_of(rt)), sessionId=rt.session_id,
                              cause=failure.kind, status=failure.status, technical=failure.detail,
                              retryable=rt.created)

    def _result(self, rt: SessionRuntime, intent: Intent, message: str | None = None) -> TurnResult:
        return turn_result(rt, intent, message)

    def mark_cancelled(self, rt: SessionRuntime, reason: str) -> None:
        if rt.created and rt.session.status not in TERMINAL:
            rt.record(r.StatusSet(at=rt.clock(), status=SessionStatus.CANCELLED, reason=reason))

    # --- other requests --------------------------------------------------------------------------------------
    async def cancel(self, session_id: str, reason: str = "cancelled by the user") -> CancelResult:
        rt = self.store.get(session_id)
        inflight = rt.inflight_calls
        if rt.session.status is SessionStatus.COMPLETED:
            if rt.cancel_scope is None:
                with speaking(language_of(rt)):
                    raise validation_error(t("error.already_completed"), sessionId=session_id)
            rt.cancel_scope.cancel()  # a follow-up runs: stop it; the session stays completed
            return CancelResult(session_id=session_id, status=rt.session.status, cancelled_calls=inflight)
        self.mark_cancelled(rt, reason)
        if rt.cancel_scope is not None:
            rt.cancel_scope.cancel()
        return CancelResult(session_id=session_id, status=rt.session.status, cancelled_calls=inflight)

    async def stop(self, session_id: str) -> StopResult:
        """Pause the session: cancel the running turn's scope (its model calls stop at once) and wait until the
        turn has unwound and recorded the stop."""
        rt = self.store.get(session_id)
        scope, inflight = rt.cancel_scope, rt.inflight_calls
        if scope is not None and rt.session.status not in TERMINAL:
            rt.stop_requested = True
            scope.cancel()
            with anyio.move_on_after(STOP_WAIT_SECONDS):
                async with rt.lock:
                    pass
        else:
            inflight = 0
        s = rt.session
        return StopResult(session_id=session_id, status=s.status, stopped=s.stopped, cancelled_calls=inflight)

    def snapshot(self, params: SnapshotParams) -> SnapshotResult:
        rt = self.store.get(params.session_id)
        journal = [rec.to_wire() for rec in rt.journal] if params.include_journal else None
        return SnapshotResult(session=rt.session, journal=journal, transcript_markdown=transcript(rt.session))

    def restore(self, params: RestoreParams) -> RestoreResult:
        if self._live(params.session_id) is not None:
            raise validation_error("that session is live in this sidecar already", sessionId=params.session_id)
        try:
            journal = r.journal_adapter.validate_python(params.journal)
        except ValidationError as exc:
            raise from_pydantic(exc, "journal", prefix="journal") from None
        journal = stable_prefix(journal)
        if not journal or not isinstance(journal[0], r.SessionCreated) \
                or journal[0].session_id != params.session_id:
            raise validation_error("the journal does not start by creating this session",
                                   fields={"journal": "must start with the session_created record of sessionId"})
        rt = self.store.create(params.session_id)
        try:
            rt.load(journal, params.last_seq)
        except BaseException:
            self.store.discard(params.session_id)
            raise
        s = rt.session
        question = s.active_question if s.status is SessionStatus.CLARIFYING else None
        return RestoreResult(session_id=s.session_id, status=s.status, question=question,
                             awaiting=Awaiting.ANSWER if question else Awaiting.NOTHING, records=len(journal),
                             stopped=s.stopped)

    # --- the consult tools (council.consult) ------------------------------------------------------------------
    async def consult(self, params: ConsultParams | PersonaConsultParams, ask: Asker | None = None,
                      session_id: str | None = None, client_model: str | None = None,
                      client_models=None) -> ConsultResult:
        return await self.consultant.consult(params, ask, session_id, client_model, client_models)

    async def consult_request(self, params: ConsultRequest | PersonaConsultRequest) -> ConsultResult:
        """``council/consult`` and ``council/personaConsult`` over JSON-RPC."""
        return await self.consult(params, None, params.session_id, params.client_model, params.client_models)

    def consult_plan(self, params: ConsultPlanParams) -> ConsultPlan:
        return self.consultant.plan(params.consult_params())

    def define_personas(self, params: DefinePersonasParams) -> DefinePersonasResult:
        result, written = self.overrides.define(params, self.library)
        if written:
            self.use_library(load_personas(self.config.persona_layers()))
        if result.applied:
            result.personas = [info(p, self.library.source(p.id)) for p in self.library]
        result.markdown = consult_words.define_text(result.to_wire())
        return result

    def use_library(self, library: PersonaLibrary) -> None:
        """Use ``library`` from now on (persona overrides were written): new sessions, and a running session's
        next step, read their contracts from it."""
        self.library = library
        self.engine.library = library

    def personas(self) -> PersonasResult:
        return PersonasResult(personas=self.library.infos(), councils=self.library.councils)

    async def review(self, params: ReviewParams, on_progress: Progress | None = None) -> ReviewResult:
        """Review mode: one request, with this sidecar's personas and providers; failures raise ``ReviewFailed``.
        Progress goes to ``on_progress`` (the MCP server's notifications), else as ``progress`` events. Review
        mode's modules load on its first request, not with the sidecar."""
        from council.present.review import decision_markdown, decision_text
        from council.review.api import Reviewer

        request = params.request
        decision = await Reviewer(self.library, self.hub).review(
            request, provider=params.provider, model=params.model, client=params.client,
            on_progress=on_progress or self.narrator.review_progress(f"review:{request.request_id}"),
            timeout=params.timeout_seconds)
        return ReviewResult(decision=decision, markdown=decision_markdown(decision),
                            compact_markdown=decision_text(decision))

    async def providers(self) -> ProvidersResult:
        statuses = await provider_statuses(self.config)
        return ProvidersResult(default=self.config.default or "automatic", providers=statuses)

    async def aclose(self) -> None:
        for rt in self.store.all():
            if rt.cancel_scope is not None:
                rt.cancel_scope.cancel()
        await self.hub.aclose()


def _repeat(result: TurnResult) -> TurnResult:
    return result.model_copy(update={"duplicate": True})
