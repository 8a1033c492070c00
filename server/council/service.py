"""The sidecar's façade: one method per protocol request, independent of the transport.

Sessions start and run in :class:`~council.sessions.Sessions`, shared with the consult tools. The service adds what
concerns requests rather than the domain: idempotency keys, the one place that decides what a turn means and
dispatches it (:meth:`CouncilService._dispatch`), and the one place domain results become wire results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import ValidationError

from council.config import CouncilConfig
from council.consult.overrides import PersonaOverrides, info
from council.consult.runner import Consultant
from council.errors import CouncilError, from_pydantic, validation_error
from council.narrator import EventSink, Narrator, language_of
from council.personas.loader import PersonaLibrary, load_personas
from council.present import consult as consult_words
from council.present import status as words
from council.present.transcript import transcript
from council.protocol import consult, methods
from council.protocol.methods import Awaiting, TurnCommand, TurnParams, TurnResult
from council.providers.client import ClientBridge
from council.providers.registry import provider_statuses
from council.session.state import records as r
from council.session.state.entities import ConversationSession, SessionSettings, SessionStatus
from council.session.state.language import session_language
from council.session.state.runtime import Turn, can_extend
from council.session.state.store import KeyedOnce, Live
from council.session.steps.engine import NewSession
from council.session.steps.intents import Intent, decide_intent
from council.sessions import Sessions, Step, turn_result
from council.words import speaking, t

if TYPE_CHECKING:
    from council.review.calls import Progress

REPLIES = (Intent.ANSWER, Intent.SKIP, Intent.SKIP_ALL, Intent.DEFER)  # their values are engine.reply's actions


class CouncilService:
    def __init__(self, library: PersonaLibrary, config: CouncilConfig, sink: EventSink, *,
                 bridge: ClientBridge | None = None, settings: SessionSettings | None = None,
                 ranker_factory: Callable[[], object | None] = lambda: None) -> None:
        self.library = library
        self.config = config
        self.narrator = Narrator(sink)
        self.sessions = s = Sessions(library, config, self.narrator, bridge=bridge, settings=settings,
                                     ranker_factory=ranker_factory)
        self.store, self.hub, self.archive, self.engine = s.store, s.hub, s.archive, s.engine
        self.new_turns = KeyedOnce()  # idempotency of turns that name no live session
        self.consultant = Consultant(s)
        self.consult = self.consultant.consult  # the consult tools' entry point (MCP, tests)
        self.overrides = PersonaOverrides(config.workspace)

    # --- council/turn ----------------------------------------------------------------------------------------
    async def turn(self, params: TurnParams) -> TurnResult:
        live = self._live(params.session_id)
        # a refusal is in the session's language (or in the one a session this turn starts gets)
        if live and params.command is not TurnCommand.NEW:
            said = language_of(live.rt)
        else:
            said = session_language(params.text, params.options.language, params.options.ui_language)
        with speaking(said):
            if params.idempotency_key is None:
                return await self._dispatch(params)
            memo = live.once if live is not None else self.new_turns  # keys are scoped to their session
            key = f"turn:{params.session_id if live is None else ''}:{params.idempotency_key}"
            return await memo.run(key, lambda: self._dispatch(params), _repeat)

    def _live(self, session_id: str | None) -> Live | None:
        if not session_id:
            return None
        try:
            return self.store.get(session_id)
        except CouncilError:
            return None

    async def _dispatch(self, params: TurnParams) -> TurnResult:
        """What the turn means, and who handles it: the one place intents are dispatched."""
        live = self.store.get(params.session_id) if params.session_id and params.command is not TurnCommand.NEW \
            else None
        s = live.rt.session if live else None
        extendable = s is not None and can_extend(s)
        intent = decide_intent(params.text, params.command, s.status if s else None, s.active_question if s else None,
                               stopped=s is not None and s.stopped, extendable=extendable)
        if intent is Intent.NEW_PROBLEM:
            return await self._start(_budget_kept(params, s))
        if live is None:
            if intent is Intent.PERSONAS:
                chat = [p.name for p in self.library.all if p.chats]  # review-only roles are not named in chat
                said = session_language(params.text, params.options.language, params.options.ui_language)
                return TurnResult(intent=intent, awaiting=Awaiting.NOTHING, message=words.library(chat, said),
                                  language=said)
            if params.command is TurnCommand.ANSWER:
                raise validation_error(t("error.no_open_question"), reason="no_open_question")
            raise validation_error(t("error.no_session"), intent=intent.value)
        rt = live.rt
        if intent is Intent.CANCEL:
            self.sessions.cancel(live, "cancelled by the user")
            return turn_result(rt, intent, words.turn_note("cancelled", rt.session))
        if intent is Intent.STOP:
            running = live.running is not None
            await self.sessions.stop(live)  # a stop says so in its event; an idle session gets a note
            return turn_result(rt, intent, None if running else words.turn_note("nothing_to_stop", rt.session))
        if intent is Intent.STATUS:
            return turn_result(rt, intent, words.status(rt.session))
        if intent is Intent.PERSONAS:
            return turn_result(rt, intent, words.council_members(rt.session))
        if intent is Intent.HINT:  # a keyword with nothing to act on: say what is possible, run nothing
            return turn_result(rt, intent, words.hint(rt.session, params.text, extendable))
        if intent is Intent.CONFIRM_NEW:
            return await self.sessions.run_turn(live, intent, lambda _: self._confirm_new(live, params.text))
        engine, pick = self.engine, await self.sessions.pick(live, params)
        added = params.text.strip() if params.command is TurnCommand.EXTEND else ""  # "/extend <text>"
        moves: dict[Intent, Step] = {
            Intent.MORE_QUESTIONS: lambda turn: engine.more_questions(turn, pick),
            Intent.EXTEND_DEBATE: lambda turn: engine.reopen(turn, added, pick) if added else engine.extend(turn, pick),
            Intent.RETRY: lambda turn: self._resume(turn, pick),
            Intent.FOLLOW_UP: lambda turn: engine.follow_up(turn, params.text, pick),
            Intent.REVISIT: lambda turn: engine.revisit(turn, params.question_id, params.text, pick),
        }
        if intent in REPLIES:
            moves[intent] = lambda turn: engine.reply(turn, intent.value, params.text, pick)
        return await self.sessions.run_turn(live, intent, moves[intent], client=params.client)

    async def _confirm_new(self, live: Live, text: str) -> None:
        """Nothing is recorded: the user is asked whether the text answers the open question or is a new one."""
        question = live.rt.session.active_question
        assert question is not None  # decide_intent says confirm_new only while a question is open
        self.narrator.confirm_new(live.rt, question, text)

    async def _start(self, params: TurnParams) -> TurnResult:
        opts = params.options
        req = NewSession(text=params.text, personas=opts.personas, depth=opts.depth, max_cycles=opts.max_cycles,
                         max_personas=opts.max_personas, extended_debate=opts.extended_debate, clarify=opts.clarify,
                         user_name=opts.user_id or "User", max_model_calls=opts.max_model_calls,
                         speculate=opts.speculate,
                         context=[(ref.name, ref.content) for ref in params.references],
                         uris={ref.name: ref.uri for ref in params.references if ref.uri},
                         language=session_language(params.text, opts.language, opts.ui_language),
                         earlier=params.earlier)
        plan = self.engine.plan(req)  # bad input is refused before a session (or an event) exists
        live, result = await self.sessions.start(params, plan, params.new_session_id)
        rt = live.rt
        note = words.reused(rt.earlier, result.message, language_of(rt)) if rt.earlier else result.message
        return result.model_copy(update={"message": note})

    # --- council/answer --------------------------------------------------------------------------------------
    async def answer(self, params: methods.AnswerParams) -> TurnResult:
        live = self.store.get(params.session_id)
        intent = Intent(params.action)

        async def run() -> TurnResult:
            pick = await self.sessions.pick(live, TurnParams(client=params.client))
            return await self.sessions.run_turn(live, intent, lambda turn: self.engine.answer(
                turn, params.question_id, params.action, params.text or "", params.choice, pick), client=params.client)

        with speaking(language_of(live.rt)):
            return await live.once.run(f"answer:{params.idempotency_key}", run, _repeat)

    async def _resume(self, turn: Turn, pick) -> str | None:
        """``retry``: the engine resumes; an open question is shown again (no model call)."""
        note = await self.engine.retry(turn, pick)
        if note == "question_open":
            self.narrator.question_again(turn.live)
            return None
        return note

    # --- other requests --------------------------------------------------------------------------------------
    async def cancel(self, session_id: str) -> methods.CancelResult:
        return self.sessions.cancel(self.store.get(session_id), "cancelled by the user")

    async def stop(self, session_id: str) -> methods.StopResult:
        return await self.sessions.stop(self.store.get(session_id))

    def snapshot(self, params: methods.SnapshotParams) -> methods.SnapshotResult:
        rt = self.store.get(params.session_id).rt
        journal = [rec.to_wire() for rec in rt.journal] if params.include_journal else None
        return methods.SnapshotResult(session=rt.session, journal=journal, transcript_markdown=transcript(rt.session))

    def restore(self, params: methods.RestoreParams) -> methods.RestoreResult:
        if self._live(params.session_id) is not None:
            raise validation_error("that session is live in this sidecar already", sessionId=params.session_id)
        try:
            journal = r.journal_adapter.validate_python(params.journal)
        except ValidationError as exc:
            raise from_pydantic(exc, "journal", prefix="journal") from None
        journal = r.stable_prefix(journal)
        if not journal or not isinstance(journal[0], r.SessionCreated) \
                or journal[0].session_id != params.session_id:
            raise validation_error("the journal does not start by creating this session",
                                   fields={"journal": "must start with the session_created record of sessionId"})
        rt = self.store.create(params.session_id).rt
        try:
            rt.load(journal, params.last_seq)
        except BaseException:
            self.store.discard(params.session_id)
            raise
        s = rt.session
        question = s.active_question if s.status is SessionStatus.CLARIFYING else None
        return methods.RestoreResult(session_id=s.session_id, status=s.status, question=question,
                                     awaiting=Awaiting.ANSWER if question else Awaiting.NOTHING,
                                     records=len(journal), stopped=s.stopped)

    # --- the consult tools (council.consult) ------------------------------------------------------------------
    async def consult_request(self, params: consult.ConsultRequest | consult.PersonaConsultRequest
                              ) -> consult.ConsultResult:
        return await self.consult(params, None, params.session_id, params.client_model, params.client_models)

    async def consult_plan(self, params: consult.ConsultPlanParams) -> consult.ConsultPlan:
        return await self.consultant.plan(params.consult_params(), params.client_model)

    def define_personas(self, params: consult.DefinePersonasParams) -> consult.DefinePersonasResult:
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

    def personas(self) -> methods.PersonasResult:
        return methods.PersonasResult(personas=self.library.infos(), councils=self.library.councils)

    def review_plan(self, params: methods.ReviewPlanParams) -> methods.ReviewPlan:
        """Review mode's modules load on its first request, not with the sidecar."""
        from council.reviewer import Reviewer

        return Reviewer(self.library, self.hub).plan(params.change_type)

    async def review(self, params: methods.ReviewParams, on_progress: Progress | None = None) -> methods.ReviewResult:
        """Review mode: one request, with this sidecar's personas and providers; failures raise ``ReviewFailed``.
        Progress goes to ``on_progress`` (the MCP server's notifications), else as ``progress`` events."""
        from council.present.review import decision_markdown, decision_text
        from council.reviewer import Reviewer

        request = params.request
        decision = await Reviewer(self.library, self.hub).review(
            request, provider=params.provider, model=params.model, client=params.client,
            on_progress=on_progress or self.narrator.review_progress(f"review:{request.request_id}"),
            timeout=params.timeout_seconds)
        return methods.ReviewResult(decision=decision, markdown=decision_markdown(decision),
                                    compact_markdown=decision_text(decision))

    async def providers(self, params: methods.ProvidersParams) -> methods.ProvidersResult:
        statuses = await provider_statuses(self.config, ask_clis=params.ask_clis)
        return methods.ProvidersResult(default=self.config.default or "automatic", providers=statuses)

    async def aclose(self) -> None:
        await self.sessions.aclose()


def _budget_kept(params: TurnParams, replaced: ConversationSession | None) -> TurnParams:
    """A text turn that starts a new session in place of ``replaced`` (stalled, stopped or cancelled) keeps its
    budget of model calls unless the turn sets one itself: a budget is the conversation's, not one session's."""
    budget = replaced.settings.max_model_calls if replaced is not None else None
    if budget is None or params.options.max_model_calls is not None:
        return params
    return params.model_copy(update={"options": params.options.model_copy(update={"max_model_calls": budget})})


def _repeat(result: TurnResult) -> TurnResult:
    return result.model_copy(update={"duplicate": True})
