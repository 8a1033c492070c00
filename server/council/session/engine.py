"""The conductor: drives one session from a turn to the point where it needs the user again.

``start`` creates a session (selection, clarification plan); ``handle`` applies an intent (answer, skip, skip all,
defer, more questions, extend, retry); ``advance`` runs whatever the status calls for — ask the next question,
run debate cycles, vote, synthesise — and returns a TurnResult. All state changes go through ``rt.record``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from council.errors import validation_error
from council.personas.contract import PersonaContract
from council.personas.loader import PersonaLibrary, UnknownPersonaError
from council.personas.routing import Selection, select_personas
from council.protocol.methods import (
    AnswerParams,
    Awaiting,
    Intent,
    SessionOptions,
    TurnParams,
    TurnResult,
)
from council.session import records as r
from council.session.calls import ProviderPicker
from council.session.clarifier import plan_round
from council.session.convergence import Convergence, assess, position_similarity, should_stop
from council.session.debate import run_cycle, summarize_cycle, votes_of
from council.session.entities import (
    MAX_CLARIFICATION_ROUNDS,
    Assumption,
    ClarificationAnswer,
    CycleRef,
    DiscussionStatus,
    MessageType,
    Participant,
    ParticipantType,
    PersonaSelection,
    QuestionStatus,
    SessionSettings,
    new_id,
)
from council.session.entities import SessionStatus as S
from council.session.prompts import CONTEXT_BUDGET, detect_language
from council.session.render import final_answer_markdown
from council.session.runtime import SessionRuntime, can_extend
from council.session.synthesis import synthesize
from council.session.vote_round import conclude, propose_options

log = logging.getLogger(__name__)


@dataclass
class Defaults:
    """Server-wide defaults for new sessions (overridden per session by SessionOptions)."""

    settings: SessionSettings
    ranker_factory: Callable[[], object | None] = lambda: None


class Engine:
    def __init__(self, library: PersonaLibrary, defaults: Defaults) -> None:
        self.library = library
        self.defaults = defaults

    # --- helpers -----------------------------------------------------------------------------------------
    def contracts(self, rt: SessionRuntime) -> dict[str, PersonaContract]:
        out = {}
        for p in rt.session.personas:
            contract = self.library.get(p.name)
            if contract is None:
                raise validation_error(f"persona '{p.name}' is no longer loaded")
            out[p.name] = contract
        return out

    def _settings(self, opts: SessionOptions, text: str) -> SessionSettings:
        base = self.defaults.settings
        max_cycles = opts.max_cycles or base.max_cycles
        return base.model_copy(update={
            "max_cycles": max_cycles,
            "min_cycles": min(base.min_cycles, max_cycles),
            "extended_max_cycles": max(base.extended_max_cycles, max_cycles),
            "depth": opts.depth or base.depth,
            "max_personas": opts.max_personas or base.max_personas,
            "clarify": opts.clarify and base.clarify,
            "language": detect_language(text),
        })

    def result(self, rt: SessionRuntime, intent: Intent, message: str | None = None) -> TurnResult:
        s = rt.session
        question = s.active_question
        return TurnResult(session_id=s.session_id, intent=intent, status=s.status,
                          awaiting=Awaiting.ANSWER if question else Awaiting.NOTHING, question=question,
                          final_answer=s.final_answer if s.status is S.COMPLETED else None,
                          can_extend=s.status is S.COMPLETED and can_extend(s), message=message,
                          limit_reached=bool(s.discussions)
                          and s.discussions[-1].status is DiscussionStatus.LIMIT_REACHED)

    # --- start ---------------------------------------------------------------------------------------------
    async def start(self, rt: SessionRuntime, params: TurnParams, pick: ProviderPicker) -> TurnResult:
        text = params.text.strip()
        if not text:
            raise validation_error("a new session needs the problem to discuss", field="text")
        opts = params.options
        settings = self._settings(opts, text)
        selection = self._choose(text, opts, settings.max_personas)
        context = "\n\n".join(f"## {ref.name}\n{ref.content}" for ref in params.references if ref.content)
        user = Participant(type=ParticipantType.USER, name=opts.user_id or "User", role="asker")
        moderator = Participant(type=ParticipantType.SYSTEM, name="Moderator", role="questioner")
        rt.record(r.SessionCreated(
            at=rt.clock(), session_id=rt.session_id, user=user, moderator=moderator, request_text=text,
            settings=settings, context_text=context[: CONTEXT_BUDGET * 2],
            context_names=[ref.name for ref in params.references], correlation_id=new_id(),
            extended_debate=opts.extended_debate))
        self._record_selection(rt, selection)
        s = rt.session
        if s.settings.clarify:
            rt.progress("The moderator reads your question.")
            questions = await plan_round(rt, pick, 1)
            if questions:
                rt.record(r.StatusSet(at=rt.clock(), status=S.CLARIFYING, reason="the request needs clarifying"))
                rt.record(r.QuestionsPlanned(at=rt.clock(), round=1, questions=questions))
                return await self.advance(rt, pick, Intent.NEW_PROBLEM)
        rt.record(r.StatusSet(at=rt.clock(), status=S.DEBATING, reason="the request is clear; no questions"))
        return await self.advance(rt, pick, Intent.NEW_PROBLEM)

    def _choose(self, text: str, opts: SessionOptions, max_personas: int) -> Selection:
        try:  # personas named in the text are an override too; routing handles that and says so
            return select_personas(self.library, text, override=opts.personas or None, max_personas=max_personas,
                                   ranker=self.defaults.ranker_factory())
        except UnknownPersonaError as exc:
            raise validation_error(str(exc), fields={"options.personas": str(exc)},
                                   valid=self.library.names) from None

    def _record_selection(self, rt: SessionRuntime, sel: Selection) -> None:
        s = rt.session
        participants = [Participant(type=ParticipantType.PERSONA, name=p.name, role="debater") for p in sel.personas]
        rt.record(r.PersonasSelected(at=rt.clock(), selection=PersonaSelection(
            session_id=s.session_id, request_classification=sel.classification, selected_personas=participants,
            reason=sel.reason, user_override=sel.user_override, overridden_personas=sel.overridden,
            method=sel.method, created_at=rt.clock())))

    # --- intents -------------------------------------------------------------------------------------------
    async def handle(self, rt: SessionRuntime, intent: Intent, text: str, pick: ProviderPicker) -> TurnResult:
        s = rt.session
        if intent is Intent.STATUS:
            return self.result(rt, intent, status_message(rt))
        if intent is Intent.PERSONAS:
            sel = s.persona_selection
            names = ", ".join(p.name for p in s.personas)
            return self.result(rt, intent, f"On this council: {names}. {sel.reason if sel else ''}".strip())
        if intent is Intent.MORE_QUESTIONS:
            return await self.more_questions(rt, pick)
        if intent is Intent.EXTEND_DEBATE:
            return await self.extend(rt, pick)
        if intent is Intent.RETRY:
            if s.status not in (S.DEBATING, S.FINAL):
                raise validation_error("there is nothing to retry", status=s.status.value)
            return await self.advance(rt, pick, intent)
        if intent in (Intent.ANSWER, Intent.SKIP, Intent.SKIP_ALL, Intent.DEFER):
            question = s.active_question
            if s.status is not S.CLARIFYING or question is None:
                raise validation_error("no question is waiting for an answer", status=s.status.value)
            action = {Intent.ANSWER: "answer", Intent.SKIP: "skip", Intent.DEFER: "defer"}.get(intent, "skip_all")
            self.resolve_question(rt, question.question_id, action, text=text, choice=None)
            return await self.advance(rt, pick, intent)
        raise validation_error(f"'{intent.value}' is not possible now", status=s.status.value)

    async def answer(self, rt: SessionRuntime, params: AnswerParams, pick: ProviderPicker) -> TurnResult:
        s = rt.session
        active = s.active_question
        if s.status is not S.CLARIFYING or active is None:
            raise validation_error("no question is waiting for an answer", status=s.status.value)
        if active.question_id != params.question_id:
            raise validation_error("that question is not the active one", questionId=params.question_id,
                                   activeQuestionId=active.question_id)
        if params.action == "answer" and not (params.text or params.choice):
            raise validation_error("an answer needs text or a choice", fields={"text": "required"})
        self.resolve_question(rt, params.question_id, params.action, text=params.text or "", choice=params.choice)
        intent = {"answer": Intent.ANSWER, "skip": Intent.SKIP, "defer": Intent.DEFER}[params.action]
        return await self.advance(rt, pick, intent)

    def resolve_question(self, rt: SessionRuntime, question_id: str, action: str, *, text: str,
                         choice: str | None) -> None:
        s = rt.session
        q = s.question(question_id)
        assert q is not None
        if action == "answer":
            value = _choice_value(q, choice, text)
            if not value:
                raise validation_error("the answer is empty", fields={"text": "must not be empty"})
            answer = ClarificationAnswer(question_id=q.question_id, session_id=s.session_id, answer=value,
                                         created_at=rt.clock())
            turn = rt.turn(s.user, MessageType.ANSWER, value, cycle=_round(q.round_number))
            rt.record(r.QuestionAnswered(at=rt.clock(), answer=answer, turn=turn))
        elif action == "defer":
            if q.revisited:  # deferred once already: now it is a skip
                self._skip(rt, q.question_id, "deferred twice")
            else:
                rt.record(r.QuestionDeferred(at=rt.clock(), question_id=q.question_id))
        elif action == "skip":
            self._skip(rt, q.question_id, "skipped")
        else:  # skip_all: the active question, the rest of the round and any deferred ones
            self._skip(rt, q.question_id, "skipped (skip all)")
            for other in [*s.planned_questions, *[x for x in s.questions if x.status is QuestionStatus.DEFERRED]]:
                self._skip(rt, other.question_id, "skipped (skip all)")

    def _skip(self, rt: SessionRuntime, question_id: str, how: str) -> None:
        s = rt.session
        q = s.question(question_id) or next(p for p in s.planned_questions if p.question_id == question_id)
        answer = ClarificationAnswer(question_id=q.question_id, session_id=s.session_id, answer=f"skip ({how})",
                                     skip_command=True, created_at=rt.clock())
        assumption = Assumption(
            session_id=s.session_id, related_question_id=q.question_id, assumption=q.default_assumption,
            rationale=f"The user {how} “{q.question}”; the council assumed the most likely case for "
                      f"{q.target_ambiguity}.", added_at=rt.clock())
        turn = rt.turn(s.moderator, MessageType.ASSUMPTION_STATEMENT, f"Assuming: {q.default_assumption}",
                       cycle=_round(q.round_number), metadata={"questionId": q.question_id})
        rt.record(r.QuestionSkipped(at=rt.clock(), answer=answer, assumption=assumption, turn=turn))

    async def more_questions(self, rt: SessionRuntime, pick: ProviderPicker) -> TurnResult:
        s = rt.session
        if s.status is not S.CLARIFYING:
            raise validation_error("more questions can be asked only while the council is clarifying",
                                   status=s.status.value)
        if s.clarification_rounds >= MAX_CLARIFICATION_ROUNDS:
            raise validation_error(f"clarification is capped at {MAX_CLARIFICATION_ROUNDS} rounds",
                                   rounds=s.clarification_rounds, cap=MAX_CLARIFICATION_ROUNDS)
        round_number = s.clarification_rounds + 1
        questions = await plan_round(rt, pick, round_number)
        if not questions:
            return self.result(rt, Intent.MORE_QUESTIONS, "The moderator has no further questions.")
        rt.record(r.StatusSet(at=rt.clock(), status=S.CLARIFYING, reason=f"clarification round {round_number}"))
        rt.record(r.QuestionsPlanned(at=rt.clock(), round=round_number, questions=questions))
        return await self.advance(rt, pick, Intent.MORE_QUESTIONS)

    async def extend(self, rt: SessionRuntime, pick: ProviderPicker) -> TurnResult:
        s = rt.session
        if s.extended_debate_requested:
            raise validation_error(f"the debate is already extended to its maximum of {s.cycle_limit} cycles",
                                   limit=s.cycle_limit)
        if not can_extend(s):
            raise validation_error("the debate cannot be extended", status=s.status.value)
        rt.record(r.DebateExtended(at=rt.clock()))
        if s.status is S.COMPLETED:
            rt.record(r.StatusSet(at=rt.clock(), status=S.DEBATING, reason="extended debate"))
            return await self.advance(rt, pick, Intent.EXTEND_DEBATE)
        return self.result(rt, Intent.EXTEND_DEBATE,
                           f"Extended debate: up to {rt.session.cycle_limit} cycles.")

    # --- the loop ------------------------------------------------------------------------------------------
    async def advance(self, rt: SessionRuntime, pick: ProviderPicker, intent: Intent) -> TurnResult:
        while True:
            s = rt.session
            if s.status is S.CLARIFYING:
                if s.active_question is not None:
                    return self.result(rt, intent)
                nxt = s.planned_questions[0] if s.planned_questions else next(
                    (q for q in s.questions if q.status is QuestionStatus.DEFERRED), None)
                if nxt is not None:
                    turn = rt.turn(s.moderator, MessageType.QUESTION, nxt.question, cycle=_round(nxt.round_number),
                                   metadata={"questionId": nxt.question_id})
                    rt.record(r.QuestionAsked(at=rt.clock(), question_id=nxt.question_id, turn=turn))
                    return self.result(rt, intent)
                rt.record(r.StatusSet(at=rt.clock(), status=S.DEBATING, reason="clarification finished"))
            elif s.status is S.DEBATING:
                outcome = await self.debate(rt, pick)
                if outcome is not None:
                    return self.result(rt, intent, outcome)
            elif s.status is S.FINAL:
                contracts = self.contracts(rt)
                synthesis = await synthesize(rt, pick, contracts)
                rt.record(r.SynthesisSet(at=rt.clock(), synthesis=synthesis,
                                         final_answer=final_answer_markdown(rt.session, synthesis)))
                rt.record(r.StatusSet(at=rt.clock(), status=S.COMPLETED, reason="final answer delivered"))
            else:
                return self.result(rt, intent)

    async def debate(self, rt: SessionRuntime, pick: ProviderPicker) -> str | None:
        """Vote-first deliberation until a stop; then conclusions, tally and the final status.

        Cycle 1 is independent; the moderator then extracts options and places each recommendation under one,
        which is that persona's first vote (one unplaced abstains). Strong agreement goes
        straight to the answer; otherwise each further cycle shows anonymised peers' positions and votes, and
        every reply carries a new vote. Convergence is judged from the votes after every round. Returns a
        message when the debate is stuck (every advisor failed) and waits for a retry.
        """
        contracts = self.contracts(rt)
        previous: Convergence | None = _last_convergence(rt.session)
        while rt.session.debate_cycles < rt.session.cycle_limit:
            cycle = rt.session.debate_cycles + 1
            rt.progress(f"Debate cycle {cycle} of at most {rt.session.cycle_limit}.")
            responses = await run_cycle(rt, pick, contracts, cycle)
            if all(x.abstained for x in responses):
                rt.record(r.CycleConcluded(at=rt.clock(), cycle=cycle, status=DiscussionStatus.CONCLUDED,
                                           resolution_summary=summarize_cycle(rt.session, cycle, None)))
                rt.error("Every advisor failed in this cycle. Check the model provider, then send 'retry'.",
                         retryable=True)
                return "Every advisor failed; the session waits. Send 'retry' once the model works again."
            if not votes_of(rt.session, cycle):  # the independent first cycle: options carry the first votes
                await propose_options(rt, pick)
            s = rt.session
            conv = assess(cycle, votes_of(s, cycle), votes_of(s, cycle - 1), previous,
                          similarity=self._similarity(s, cycle))
            stop = should_stop(conv, round_no=cycle, min_rounds=s.settings.min_cycles)
            at_limit = stop is None and cycle >= s.cycle_limit
            rt.record(r.CycleConcluded(at=rt.clock(), cycle=cycle, convergence=conv,
                                       resolution_summary=summarize_cycle(s, cycle, conv),
                                       status=DiscussionStatus.LIMIT_REACHED if at_limit
                                       else DiscussionStatus.CONCLUDED))
            previous = conv
            if stop is not None:
                rt.progress(f"The debate stops: {stop}.")
                break
        conclude(rt)
        rt.record(r.StatusSet(at=rt.clock(), status=S.FINAL, reason="votes tallied"))
        return None


    def _similarity(self, session, cycle: int) -> float | None:
        before = {x.persona: x.position for x in session.responses if x.cycle == cycle - 1 and not x.abstained}
        pairs = [(before[x.persona], x.position) for x in session.responses
                 if x.cycle == cycle and not x.abstained and x.persona in before]
        return position_similarity(pairs, self.defaults.ranker_factory())


def _last_convergence(session) -> Convergence | None:
    done = [d for d in session.discussions if d.convergence is not None]
    return done[-1].convergence if done else None


def _round(n: int) -> CycleRef:
    return CycleRef(cycle_type="clarification", number=n)


def _choice_value(q, choice: str | None, text: str) -> str:
    """Map a choice value, a choice number ("2") or a label to the choice's value; else the free text."""
    if choice:
        match = next((c for c in q.choices if c.value == choice or c.label == choice), None)
        if match is None:
            raise validation_error("unknown choice", choice=choice, choices=[c.value for c in q.choices])
        return match.value
    t = text.strip()
    if t.isdigit() and 1 <= int(t) <= len(q.choices):
        return q.choices[int(t) - 1].value
    match = next((c for c in q.choices if c.label.lower() == t.lower() or c.value.lower() == t.lower()), None)
    return match.value if match else t


def status_message(rt: SessionRuntime) -> str:
    s = rt.session
    parts = [f"Status: {s.status.value}", f"clarification rounds {s.clarification_rounds}/3",
             f"debate cycles {s.debate_cycles}/{s.cycle_limit}", f"assumptions {len(s.assumption_log)}"]
    if s.active_question:
        parts.append(f"waiting for an answer to “{s.active_question.question}”")
    return "; ".join(parts) + "."
