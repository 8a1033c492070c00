"""After the council's answer (README, "After the answer"): revisiting a skipped or deferred question, follow-up
questions the moderator answers from the completed session, and re-opening the debate.

A revisit re-runs only what the new answer changes: answered, one more round of votes and a new answer; skipped
again, nothing runs. A follow-up is one streamed call on the chair's provider; the session stays completed.
"""

from __future__ import annotations

from council.errors import validation_error
from council.session.calls.prompts import FOLLOW_UP_TOKENS, follow_up_messages
from council.session.calls.structured import CallSpec, ProviderPicker, call_structured
from council.session.state import entities as e
from council.session.state import records as r
from council.session.state.convergence import describe_tally
from council.session.state.entities import SessionStatus as S
from council.session.state.outputs import FollowUpReply, reply_schema
from council.session.state.runtime import Turn
from council.words import n, t

REVISABLE = (e.QuestionStatus.SKIPPED, e.QuestionStatus.DEFERRED)
ROLE = "moderator"  # who answers a follow-up (its calls are recorded under this role)
PROVIDER_ROLE = "synthesizer"  # whose provider answers: the one that wrote the council's answer


def _completed(s: e.ConversationSession, not_yet: str) -> None:
    """What this module does comes after the answer; before it, the refusal (catalog key) says so."""
    if s.status is not S.COMPLETED:
        raise validation_error(t(not_yet), status=s.status.value)


def revisable_questions(s: e.ConversationSession) -> list[e.ClarificationQuestion]:
    return [q for q in s.questions if q.status in REVISABLE]


def revisable(s: e.ConversationSession, question_id: str) -> e.ClarificationQuestion:
    """The question ``question_id`` if it can be revisited now; else a validation error saying why."""
    _completed(s, "error.revisit_not_yet")
    q = s.question(question_id)
    choices = [{"questionId": x.question_id, "question": x.question} for x in revisable_questions(s)]
    if q is None:
        raise validation_error(t("error.unknown_question"), questionId=question_id, revisable=choices)
    if q.status not in REVISABLE:
        raise validation_error(t("error.revisit_not_skipped", state=t(f"question.{q.status.value}")),
                               questionId=question_id, status=q.status.value, revisable=choices)
    if s.debate_cycles >= e.MAX_TOTAL_CYCLES:
        cap = e.MAX_TOTAL_CYCLES
        raise validation_error(t("error.max_cycles", cycles=n(cap, "cycle_upto")), cap=cap)
    return q


def choose(s: e.ConversationSession, question_id: str | None, text: str) -> str | None:
    """The id of the question a ``revisit`` turn means: ``question_id``, else the text (an id, or a number among
    the questions that can be revisited), else the only such question; None when that does not name one."""
    _completed(s, "error.revisit_not_yet")
    if question_id:
        return question_id
    options = revisable_questions(s)
    said = text.strip()
    if said:
        if s.question(said) is not None:
            return said
        if said.isascii() and said.isdigit() and 1 <= int(said) <= len(options):
            return options[int(said) - 1].question_id
        return None
    return options[0].question_id if len(options) == 1 else None


def start_revisit(rt: Turn, q: e.ClarificationQuestion) -> None:
    s = rt.session
    assumed = next((a.assumption for a in s.assumption_log if a.related_question_id == q.question_id), None)
    rt.record(r.RevisitStarted(at=rt.clock(), revisit=e.Revisit(
        session_id=s.session_id, question_id=q.question_id, question=q.question, assumed=assumed,
        after_cycle=s.debate_cycles, recommendation_before=s.synthesis.recommendation if s.synthesis else "",
        winner_before=s.tally.winner if s.tally else None,
        votes_before={v.persona: v.option_id for v in s.votes_in(s.final_round)}, started_at=rt.clock())))
    rt.record(r.StatusSet(at=rt.clock(), status=S.CLARIFYING, reason="the user revisits a question"))
    turn = rt.turn(s.moderator, e.MessageType.QUESTION, q.question,
                   cycle=e.CycleRef(cycle_type="clarification", number=q.round_number),
                   metadata={"questionId": q.question_id, "revisit": True})
    rt.record(r.QuestionAsked(at=rt.clock(), question_id=q.question_id, turn=turn, revisit=True))


def after_revisit(rt: Turn) -> str | None:
    """The revisited question is resolved: debate one round on its answer, or keep the answer
    (``"revisit_kept"``)."""
    s = rt.session
    revisit = s.open_revisit
    assert revisit is not None
    if revisit.answer:
        rt.record(r.StatusSet(at=rt.clock(), status=S.DEBATING, reason="the revisited question was answered"))
        return None
    rt.record(r.StatusSet(at=rt.clock(), status=S.FINAL, reason="the revisited question was skipped again"))
    rt.record(r.StatusSet(at=rt.clock(), status=S.COMPLETED, reason="the answer stands"))
    return "revisit_kept"


async def answer_follow_up(rt: Turn, pick: ProviderPicker, question: str) -> str | None:
    """The moderator answers ``question`` from the session, streaming; ``"follow_up_failed"`` when the model gave
    no usable answer (nothing is recorded then)."""
    text = question.strip()
    if not text:
        raise validation_error(t("error.follow_up_empty"), fields={"text": "required"})
    _completed(rt.session, "error.follow_up_not_yet")
    s = rt.session
    follow_up_id, asked = e.new_id(), rt.clock()
    schema = reply_schema(FollowUpReply)
    outcome_line = describe_tally(s.tally) if s.tally else None

    async def on_delta(chunk: str) -> None:
        rt.follow_up_text(follow_up_id, chunk)

    rt.note("follow_up")
    outcome = await call_structured(rt, lambda _role: pick(PROVIDER_ROLE), CallSpec(
        role=ROLE, messages=follow_up_messages(s, schema, s.latest_responses(), outcome_line, text),
        reply_model=FollowUpReply, schema=schema, max_tokens=FOLLOW_UP_TOKENS, temperature=0.3,
        cycle=s.debate_cycles), on_delta)
    if outcome.reply is None:
        return "follow_up_failed"
    rt.record(r.FollowUpAnswered(at=rt.clock(), follow_up=e.FollowUp(
        follow_up_id=follow_up_id, session_id=s.session_id, question=text, answer=outcome.reply.answer.strip(),
        after_cycle=s.debate_cycles, asked_at=asked, answered_at=rt.clock())))
    return None


def reopen_debate(rt: Turn, text: str) -> None:
    """Record what the user adds and set the completed session debating again (for a few more cycles)."""
    text = text.strip()
    if not text:
        raise validation_error(t("error.reopen_empty"), fields={"text": "required"})
    _completed(rt.session, "error.reopen_not_yet")
    s = rt.session
    rt.record(r.DebateReopened(at=rt.clock(), input=e.UserInput(
        session_id=s.session_id, text=text, after_cycle=s.debate_cycles, added_at=rt.clock())))
    rt.record(r.StatusSet(at=rt.clock(), status=S.DEBATING, reason="the user re-opened the debate"))
