"""The conductor: drives one session from a turn to the point where it needs the user again.

``advance`` runs whatever the status calls for — ask the next question, run debate cycles, vote, synthesise; the
other operations are the turn's intents (the clarifying moves live in ``clarifier``). Every state change goes
through ``rt.record``; every operation returns ``None`` or the kind of note the caller should show. The texts the
session stores come from the injected :class:`Writer`; this module writes no prose.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from council.errors import validation_error
from council.personas.contract import PersonaContract
from council.personas.loader import PersonaLibrary, UnknownPersonaError
from council.personas.routing import Selection, narrowed, select_personas
from council.session.calls.prompts import CONTEXT_BUDGET, session_language
from council.session.calls.structured import ProviderPicker
from council.session.state import entities as e
from council.session.state import records as r
from council.session.state.budget import BudgetCut, Shape, fit
from council.session.state.convergence import Convergence, assess, position_similarity, should_stop
from council.session.state.entities import SessionStatus as S
from council.session.state.outputs import CouncilSynthesis
from council.session.state.runtime import Turn, can_extend
from council.session.state.seating import Seating
from council.session.steps.answers import Earlier
from council.session.steps.clarifier import ClarifyingMoves
from council.session.steps.costing import can_afford_cycle, remaining, speculates, state_plan
from council.session.steps.debate import report_failures, run_cycle
from council.session.steps.evidence import (
    Attachment,
    DecisionMemory,
    EvidenceTools,
    gather_evidence,
    recall_precedents,
    record_attachments,
)
from council.session.steps.intents import is_resume_word
from council.session.steps.revisit import answer_follow_up, reopen_debate
from council.session.steps.salvage import nothing_usable, salvaged_answer, with_dropped_note
from council.session.steps.synthesis import synthesize
from council.session.steps.vote_round import conclude, options_beside_next_cycle, propose_options
from council.words import n, t

log = logging.getLogger(__name__)


class Writer(Protocol):
    """Writes the texts the session keeps as data (``council.present.answer.PresentWriter``)."""

    def resolution_summary(self, session: e.ConversationSession, cycle: int, conv: Convergence | None,
                           stop: str | None) -> str: ...

    def final_answer(self, session: e.ConversationSession, synthesis: CouncilSynthesis) -> str: ...


@dataclass
class NewSession:
    """What starting a session needs, whatever surface asked (chat turn, consult tool, review)."""

    text: str
    personas: list[str] | None = None
    depth: str | None = None
    max_cycles: int | None = None
    max_personas: int | None = None
    extended_debate: bool = False
    clarify: bool = True
    user_name: str = "User"
    context: list[tuple[str, str]] = field(default_factory=list)  # (name, content) of attached references
    uris: dict[str, str] = field(default_factory=dict)  # attached reference name → its URI (chat references)
    max_model_calls: int | None = None  # the session's budget of model calls
    speculate: str | None = None  # auto | always | never (None: the sidecar's setting)
    language: str | None = None  # the session's language (prompts.session_language); None: the question's
    earlier: Any = None  # council/turn's EarlierSession: what the user told a session a reload lost


@dataclass(frozen=True)
class Plan:
    """A checked request with its settings and council (fitted into its budget), ready to start."""

    request: NewSession
    settings: e.SessionSettings
    selection: Selection
    cut: BudgetCut | None = None

    @property
    def shape(self) -> Shape:
        return Shape(len(self.selection.personas), self.settings.cycle_cap(self.request.extended_debate),
                     self.settings.clarify)


def seats_kept(personas: list, seats: int) -> list:
    """The personas a budget keeps: the first ``seats``, except that a persona always included (the Devil's
    Advocate, seed 000) keeps its seat while the council has two or more — the last routed persona gives way."""
    always = [p for p in personas if p.always_include][: max(0, seats - 1)] if seats >= 2 else []
    others = [p for p in personas if p not in always][: seats - len(always)]
    return [p for p in personas if p in always or p in others]


class Engine(ClarifyingMoves):
    def __init__(self, library: PersonaLibrary, settings: e.SessionSettings, writer: Writer,
                 ranker_factory: Callable[[], object | None] = lambda: None, *,
                 evidence: EvidenceTools | None = None, memory: DecisionMemory | None = None) -> None:
        self.library = library
        self.settings = settings  # the sidecar's defaults for new sessions: the one place they live
        self.writer = writer
        self.ranker_factory = ranker_factory
        self.evidence = evidence  # read-only tools on the workspace (None: no workspace, or evidence off)
        self.memory = memory  # the workspace's decision memory (None: off, the default)

    def contracts(self, rt: Turn) -> dict[str, PersonaContract]:
        out = {}
        for p in rt.session.personas:
            contract = self.library.get(p.name)
            if contract is None:
                raise validation_error(t("error.persona_gone", persona=p.name), persona=p.name)
            out[p.name] = contract
        return out

    # --- start ---------------------------------------------------------------------------------------------
    def plan(self, req: NewSession) -> Plan:
        """Check a new session's request and choose its council, before anything is created or said."""
        if req.earlier is not None and req.earlier.problem and is_resume_word(req.text):  # "continue" after a reload
            req = replace(req, text=req.earlier.problem)  # lost the session: its question, not "continue"
        text = req.text.strip()
        if not text:
            raise validation_error(t("error.no_problem"), fields={"text": "required"})
        base, max_cycles = self.settings, req.max_cycles or self.settings.max_cycles
        settings = base.model_copy(update={
            "max_cycles": max_cycles,
            "min_cycles": min(base.min_cycles, max_cycles),
            "extended_max_cycles": max(base.extended_max_cycles, max_cycles),
            "depth": req.depth or base.depth,
            "max_personas": req.max_personas or base.max_personas,
            "clarify": req.clarify and base.clarify,
            "language": req.language or session_language(req.text),
            "max_model_calls": req.max_model_calls,
            "speculate": req.speculate or base.speculate,
        })
        try:  # personas named in the text join the routed council; routing handles that and says so
            selection = select_personas(self.library, text, override=req.personas or None,
                                        max_personas=settings.max_personas, ranker=self.ranker_factory())
        except UnknownPersonaError as exc:
            said = t("error.unknown_personas", names=", ".join(map(repr, exc.unknown)), valid=", ".join(exc.valid))
            raise validation_error(said, fields={"options.personas": said}, valid=self.library.names) from None
        cap = settings.cycle_cap(req.extended_debate)
        shape, cut = fit(Shape(len(selection.personas), cap, settings.clarify), req.max_model_calls)
        if cut is not None:  # fewer cycles, seats or no questions: the plan says what it cut
            extended = shape.cycles if req.extended_debate else settings.extended_max_cycles
            settings = settings.model_copy(update={"max_cycles": min(settings.max_cycles, shape.cycles),
                                                   "clarify": shape.clarifier, "extended_max_cycles": extended,
                                                   "min_cycles": min(settings.min_cycles, shape.cycles)})
            kept = seats_kept(selection.personas, shape.seats)
            cut.dropped_seats = [p.name for p in selection.personas if p not in kept]
            selection = narrowed(selection, kept, f"To fit the budget of {req.max_model_calls} model calls")
        return Plan(req, settings, selection, cut)

    async def start(self, rt: Turn, plan: Plan, pick: ProviderPicker,
                    seating: Seating | None = None) -> str | None:
        """Create the session, seat it (``seating``), state the most it will spend, run until it needs the user."""
        req, settings, selection = plan.request, plan.settings, plan.selection
        text = req.text.strip()
        rt.live.earlier = Earlier.of(req.earlier, text)
        context = "\n\n".join(f"## {name}\n{content}" for name, content in req.context if content)
        user = e.Participant(type=e.ParticipantType.USER, name=req.user_name, role="asker")
        moderator = e.Participant(type=e.ParticipantType.SYSTEM, name="Moderator", role="questioner")
        overview = await self.evidence.overview() if self.evidence is not None else None
        if overview is not None:
            settings = settings.model_copy(update={"evidence": True})
        rt.record(r.SessionCreated(
            at=rt.clock(), session_id=rt.session_id, user=user, moderator=moderator, request_text=text,
            settings=settings, context_text=context[: CONTEXT_BUDGET * 2],
            context_names=[name for name, _ in req.context], correlation_id=e.new_id(),
            extended_debate=req.extended_debate, workspace_overview=overview or []))
        rt.record(r.PersonasSelected(at=rt.clock(), selection=e.PersonaSelection(
            session_id=rt.session_id, request_classification=selection.classification,
            selected_personas=[e.Participant(type=e.ParticipantType.PERSONA, name=p.name, role="advisor")
                               for p in selection.personas],
            reason=selection.reason, user_override=selection.user_override, overridden_personas=selection.overridden,
            method=selection.method, chosen_for=selection.chosen_for, created_at=rt.clock())))
        if seating is not None:
            rt.record(r.SeatingDecided(at=rt.clock(), seating=seating))
        state_plan(rt, "start", plan.shape, plan.cut, speculate=await speculates(rt.session, pick))
        record_attachments(rt, [Attachment(name, content, req.uris.get(name)) for name, content in req.context])
        await recall_precedents(rt, self.memory)
        return await self._begin(rt, pick)

    # --- the user's moves (answering questions: ClarifyingMoves) ----------------------------------------------
    async def extend(self, rt: Turn, pick: ProviderPicker) -> str | None:
        s = rt.session
        if s.extended_debate_requested:
            raise validation_error(t("error.extend_max", cycles=n(s.cycle_limit, "cycle_upto")), limit=s.cycle_limit)
        if s.status is not S.COMPLETED or not can_extend(s):
            raise validation_error(t("error.extend_only_limit"), status=s.status.value)
        if not self._affords_more(rt):
            return "over_budget"
        rt.record(r.DebateExtended(at=rt.clock()))
        rt.record(r.StatusSet(at=rt.clock(), status=S.DEBATING, reason="extended debate"))
        state_plan(rt, "extend", remaining(rt.session, clarifier=False))
        return await self.advance(rt, pick)

    async def reopen(self, rt: Turn, text: str, pick: ProviderPicker) -> str | None:
        """Re-open a completed debate with ``text`` as new input: more cycles, a new vote, a new answer."""
        if rt.session.status is S.COMPLETED and not self._affords_more(rt):
            return "over_budget"
        reopen_debate(rt, text)
        state_plan(rt, "reopen", remaining(rt.session, clarifier=False))
        return await self.advance(rt, pick)

    def _affords_more(self, rt: Turn) -> bool:
        """Whether the budget left pays for one more cycle and a new answer (no budget: always)."""
        s, budget = rt.session, rt.session.settings.max_model_calls
        return budget is None or budget - s.metadata.calls >= len(s.personas) + 1

    async def follow_up(self, rt: Turn, text: str, pick: ProviderPicker) -> str | None:
        """The moderator answers a question about the completed session (it stays completed)."""
        if rt.session.status is S.COMPLETED and state_plan(rt, "follow_up", Shape(0, 0, False), calls=1) is None:
            return "over_budget"
        return await answer_follow_up(rt, pick, text)

    async def retry(self, rt: Turn, pick: ProviderPicker) -> str | None:
        """Resume a stopped or stalled session from where it is: plan the first question it never got, re-show an
        open question (``"question_open"``, no model call), run the next debate cycle, or write the answer."""
        s = rt.session
        if s.status in (S.COMPLETED, S.CANCELLED):
            raise validation_error(t(f"error.resume_{s.status.value}"), status=s.status.value)
        rt.live.resume()
        if s.status is S.CLARIFYING and s.active_question is not None:
            return "question_open"
        if state_plan(rt, "retry", remaining(s, clarifier=s.status is S.CREATED and s.settings.clarify),
                      speculate=await speculates(s, pick)) is None:
            return "over_budget"
        if s.status is S.CREATED:
            return await self._begin(rt, pick)
        return await self.advance(rt, pick)

    # --- the loop ------------------------------------------------------------------------------------------
    async def advance(self, rt: Turn, pick: ProviderPicker) -> str | None:
        rt.live.resume()  # the session moves again: a stop marker no longer holds
        while True:
            s = rt.session
            if s.status is S.CLARIFYING:
                if s.active_question is not None:
                    return None
                note = self._ask_next(rt)
                if note is not None:
                    return note
            elif s.status is S.DEBATING:
                if await self.debate(rt, pick) == "stalled":
                    return "stalled"
            elif s.status is S.FINAL:
                await gather_evidence(rt, s.debate_cycles, self.evidence)  # the last cycle's: for the chair
                synthesis = salvaged_answer(s) if nothing_usable(s) else await synthesize(rt, pick, self.contracts(rt))
                synthesis = with_dropped_note(rt, synthesis)
                rt.record(r.SynthesisSet(at=rt.clock(), synthesis=synthesis,
                                         final_answer=self.writer.final_answer(rt.session, synthesis)))
                rt.record(r.StatusSet(at=rt.clock(), status=S.COMPLETED, reason="final answer delivered"))
            else:
                return None

    async def debate(self, rt: Turn, pick: ProviderPicker) -> str | None:
        """Vote-first deliberation until a stop (README, "votes first" and "debates"); then conclusions, tally and
        the final status. Returns ``"stalled"`` when every advisor failed: that cycle is dropped and the session
        waits for a retry; when the models answered but no reply could be used, the debate ends there instead."""
        contracts = self.contracts(rt)
        if len(rt.session.personas) == 1:  # a council of one answers without debating itself
            return await self._alone(rt, pick, contracts)
        previous = next((d.convergence for d in reversed(rt.session.discussions) if d.convergence is not None), None)
        while rt.session.debate_cycles < rt.session.cycle_limit:
            if rt.session.debate_cycles and not can_afford_cycle(rt.session):  # the stated plan has no more room
                rt.note("budget_stop", cycles=rt.session.debate_cycles)
                break
            cycle = rt.session.debate_cycles + 1
            await gather_evidence(rt, cycle - 1, self.evidence)  # what the last cycle asked for, for this one
            responses = await run_cycle(rt, pick, contracts, cycle)
            verdict = report_failures(rt, responses)
            if verdict == "stalled":  # every advisor failed: the cycle was dropped
                return "stalled"
            if verdict == "unusable":  # no reply could be used: the council answers from what it has
                if rt.session.open_cycle == cycle:  # the first cycle, kept for what could be read of it
                    self._conclude_cycle(rt, cycle, previous)
                break
            if not rt.session.votes_in(cycle):  # the independent first cycle: options carry the first votes
                if await self._next_beside_options(rt, pick):
                    step = await options_beside_next_cycle(
                        rt, pick, contracts, cycle, previous, conclude=self._conclude_cycle,
                        gather=lambda done: gather_evidence(rt, done, self.evidence))
                    if step is None:
                        return "stalled"
                    previous = step
                    if rt.session.discussions[-1].stop_reason is not None or rt.session.debate_cycles == cycle:
                        break  # a stop, or no reply of the next cycle could be used (dropped): answer from this one
                    continue
                await propose_options(rt, pick, contracts)
            previous = self._conclude_cycle(rt, cycle, previous)
            if rt.session.discussions[-1].stop_reason is not None or rt.session.open_revisit is not None:
                break  # a stop, or the one vote round a revisited question gets
        conclude(rt)
        rt.record(r.StatusSet(at=rt.clock(), status=S.FINAL, reason="votes tallied"))
        return None

    async def _next_beside_options(self, rt: Turn, pick: ProviderPicker) -> bool:
        """Whether the next cycle runs beside the options call: there is one (under the cap, in the stated plan),
        the options are still to come, the stated plan counted it (what a server said of its slots may have changed
        since: the plan stays true) and speculating is still allowed (:func:`speculates`: by default not on metered
        models, nor where the calls could not run beside the options call)."""
        s = rt.session
        stated = s.call_plans[-1].speculates if s.call_plans else True
        return (not s.options and s.open_revisit is None and s.debate_cycles + 1 <= s.cycle_limit
                and can_afford_cycle(s) and stated and await speculates(s, pick))

    async def _alone(self, rt: Turn, pick: ProviderPicker,
                     contracts: dict[str, PersonaContract]) -> str | None:
        """The one persona's answer (its conclusion, cycle 0): no cycles, no options, no vote of one."""
        responses = await run_cycle(rt, pick, contracts, 0)
        if report_failures(rt, responses) == "stalled":
            return "stalled"
        rt.record(r.StatusSet(at=rt.clock(), status=S.FINAL, reason="a council of one answers without a debate"))
        return None

    def _conclude_cycle(self, rt: Turn, cycle: int, previous: Convergence | None) -> Convergence:
        s = rt.session
        before = {x.persona: x.position for x in s.responses if x.cycle == cycle - 1 and not x.abstained}
        pairs = [(before[x.persona], x.position) for x in s.responses
                 if x.cycle == cycle and not x.abstained and x.persona in before]
        seats = sum(1 for x in s.responses if x.cycle == cycle and not x.abstained)
        conv = assess(cycle, s.votes_in(cycle), s.votes_in(cycle - 1), previous,
                      similarity=position_similarity(pairs, self.ranker_factory()), seats=seats)
        stop = should_stop(conv, round_no=cycle, min_rounds=s.settings.min_cycles)
        at_limit = stop is None and cycle >= s.cycle_limit and s.open_revisit is None  # a revisit's one round
        rt.record(r.CycleConcluded(
            at=rt.clock(), cycle=cycle, convergence=conv, stop_reason="limit" if at_limit else stop,
            resolution_summary=self.writer.resolution_summary(s, cycle, conv, stop),
            status=e.DiscussionStatus.LIMIT_REACHED if at_limit else e.DiscussionStatus.CONCLUDED))
        return conv
