"""Clarification: decide whether the request is ambiguous enough to ask at all, and plan one round of questions.

The moderator model reads the request (and what was already asked) and returns at most three targeted questions,
each with choices and the assumption to make if the user skips it. A clear request gets no questions. A failed
clarifier never blocks the council: the session proceeds without questions and says so.
"""

from __future__ import annotations

from council.session.calls import CallSpec, ProviderPicker, call_structured
from council.session.entities import Choice, ClarificationQuestion
from council.session.outputs import ClarifierReply, reply_schema
from council.session.prompts import clarifier_messages
from council.session.runtime import SessionRuntime

MAX_QUESTIONS_PER_ROUND = 3


async def plan_round(rt: SessionRuntime, pick: ProviderPicker, round_number: int) -> list[ClarificationQuestion]:
    """The questions for ``round_number`` (possibly none)."""
    s = rt.session
    asked = [q.question for q in s.questions] + [q.question for q in s.planned_questions]
    schema = reply_schema(ClarifierReply)
    spec = CallSpec(role="clarifier", messages=clarifier_messages(s, schema, round_number, asked),
                    reply_model=ClarifierReply, schema=schema, max_tokens=500, temperature=0.3)
    outcome = await call_structured(rt, pick, spec)
    if outcome.reply is None:
        if outcome.failure is None:  # a failed call was reported as a problem already
            rt.note("no_questions", why=outcome.note)
        return []
    reply = outcome.reply
    if not reply.needs_clarification:
        return []
    seen = {q.strip().lower() for q in asked}
    questions: list[ClarificationQuestion] = []
    for planned in reply.questions:
        if planned.question.strip().lower() in seen or len(questions) >= MAX_QUESTIONS_PER_ROUND:
            continue
        seen.add(planned.question.strip().lower())
        choices = [Choice(label=c.strip()[:120], value=c.strip()[:120]) for c in planned.choices if c.strip()]
        questions.append(ClarificationQuestion(
            session_id=s.session_id, round_number=round_number, sequence_in_round=len(questions) + 1,
            question=planned.question.strip(), target_ambiguity=planned.target_ambiguity,
            asked_by=s.moderator, choices=choices, free_text_allowed=True,
            default_assumption=planned.default_assumption.strip(), created_at=rt.clock(),
        ))
    return questions
