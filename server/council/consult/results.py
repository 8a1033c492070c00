"""A finished session as a consult result: seed 000's ToolResponse per persona and CouncilSynthesis, with the
depth enforced after the fact: every list that counts is cut to the depth's maximum and a shortfall is reported in
the synthesis's notes, never made up; too few next steps from the chair are completed from the advisors' own (real
items, in council order). The Devil's Advocate's advice ends with its counterpoints (seed 000), after those counted.
"""

from __future__ import annotations

from council.consult.request import council_of
from council.present import consult as words
from council.protocol import consult as wire
from council.session.calls.prompts import DEPTH_BULLETS
from council.session.state.entities import ConversationSession, QuestionStatus
from council.session.state.outputs import PersonaResponse, Vote
from council.session.steps.engine import Plan
from council.word_match import unique_items

COUNTED = ("summary", "advice", "next_steps")


def latest_usable(s: ConversationSession, persona: str) -> PersonaResponse | None:
    usable = [r for r in s.responses if r.persona == persona and not r.abstained]
    return max(reversed(usable), key=lambda r: r.cycle) if usable else None  # the latest of its last cycle


def tool_response(resp: PersonaResponse, vote: Vote | None, s: ConversationSession,
                  notes: list[str]) -> wire.ToolResponse:
    depth = s.settings.depth
    lo, hi = DEPTH_BULLETS[depth]
    lists = {f: unique_items(resp.own_advice if f == "advice" else getattr(resp, f)) for f in COUNTED}
    for field, items in lists.items():
        if len(items) < lo:
            notes.append(words.shortfall_note(resp.persona, field, len(items), depth.value, lo, hi))
    cut = [f for f, items in lists.items() if len(items) > hi]
    if cut:
        notes.append(words.trimmed_note(resp.persona, cut, hi, depth.value))
    counterpoints = unique_items(resp.risks)[:hi]
    folded = resp.advice[len(resp.own_advice):][:hi]  # seed 000: the Devil's Advocate's ends with its counterpoints
    return wire.ToolResponse(
        persona=resp.persona, summary=words.bullet_text(lists["summary"][:hi]),
        advice=words.bullet_text(lists["advice"][:hi] + folded), assumptions=resp.assumptions,
        questions=resp.questions,
        next_steps=lists["next_steps"][:hi], confidence=resp.confidence,
        confidence_rationale=resp.confidence_rationale, position=resp.position,
        counterpoints=counterpoints, vote=vote.option_id if vote else None, cycle=resp.cycle)


def synthesis(s: ConversationSession, responses: list[wire.ToolResponse],
              notes: list[str]) -> wire.ConsultSynthesis:
    syn = s.synthesis
    assert syn is not None
    lo, hi = DEPTH_BULLETS[s.settings.depth]
    steps = unique_items(syn.next_steps)[:hi]
    if len(steps) < lo:
        extra = unique_items(steps + [step for r in responses for step in r.next_steps])[len(steps):lo]
        if extra:
            steps += extra
            notes.append(words.steps_completed_note(len(extra)))
    return wire.ConsultSynthesis(
        recommendation=syn.recommendation, agreements=syn.agreements, conflicts=syn.conflicts,
        risks_tradeoffs=unique_items(syn.risks_tradeoffs), next_steps=steps, notes=[*syn.notes, *notes],
        dissent=syn.dissent, source=syn.source)


def clarifications(s: ConversationSession, declined: set[str]) -> list[wire.Clarification]:
    out = []
    for q in s.questions:
        choices = [c.label for c in q.choices]
        if q.status is QuestionStatus.ANSWERED and q.user_answer is not None:
            out.append(wire.Clarification(question=q.question, choices=choices, status="answered",
                                          answer=q.user_answer.answer))
        else:
            out.append(wire.Clarification(question=q.question, choices=choices, assumption=q.default_assumption,
                                          status="declined" if q.question_id in declined else "assumed"))
    return out


def consult_result(s: ConversationSession, plan: Plan, declined: set[str]) -> wire.ConsultResult:
    final = {v.persona: v for v in s.votes_in(s.final_round)} if s.votes else {}
    notes: list[str] = []
    responses, silent = [], []
    for p in s.personas:
        resp = latest_usable(s, p.name)
        if resp is None:
            silent.append(p.name)
        else:
            responses.append(tool_response(resp, final.get(p.name), s, notes))
    if silent:
        notes.append(words.silent_note(silent))
    clar = clarifications(s, declined)
    open_questions = unique_items([c.question for c in clar if c.status != "answered"]
                             + [q for r in responses for q in r.questions])
    tally = s.tally
    vote = wire.VoteOutcome(options={o.id: o.label for o in tally.options}, counts=tally.counts,
                            winner=tally.winner, consensus=tally.consensus) if tally else None
    syn = s.synthesis
    assert syn is not None
    debate = wire.DebateChange.model_validate(syn.debate.model_dump()) if syn.debate else None
    return wire.ConsultResult(
        responses=responses, synthesis=synthesis(s, responses, notes), session_id=s.session_id,
        depth=s.settings.depth, council=council_of(plan), vote=vote, clarifications=clar, debate=debate,
        hinges=[wire.Hinge.model_validate(h.model_dump(exclude={"assumption_id"})) for h in syn.hinges],
        assumptions=[a.assumption for a in s.assumption_log], open_questions=open_questions,
        cycles=s.debate_cycles, model_calls=s.metadata.calls, calls_by_model=dict(s.metadata.calls_by_model),
        cancelled_by_model={k: c for k, c in s.metadata.cancelled_by_model.items() if c},
        max_model_calls=s.call_plans[-1].call_limit if s.call_plans else 0,
        seats={seat.persona: seat.model.label for seat in s.seating.seats} if s.seating else {})
