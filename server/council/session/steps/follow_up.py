"""After the answer: follow-up questions the moderator answers from the completed session, and re-opening the
debate with something new the user adds.

A follow-up is one structured model call on the provider that wrote the synthesis (same retries, timeouts and
cancellation as every call); its text streams to the observer as it comes, and the exchange is recorded
(``FollowUpAnswered``) so snapshots, transcripts and restores keep it. The session stays completed. Re-opening
records the user's input (``DebateReopened``, which every later prompt shows) and sets the session debating
again; the engine then runs the cycles, the vote and the synthesis as usual.
"""

from __future__ import annotations

from council.errors import validation_error
from council.session.calls.prompts import FOLLOW_UP_TOKENS, follow_up_messages
from council.session.calls.structured import CallSpec, ProviderPicker, call_structured
from council.session.state import records as r
from council.session.state.convergence import describe_tally
from council.session.state.entities import FollowUp, UserInput, new_id
from council.session.state.entities import SessionStatus as S
from council.session.state.outputs import FollowUpReply, reply_schema
from council.session.state.runtime import Turn
from council.words import t

ROLE = "moderator"  # who answers (its calls are recorded under this role)
PROVIDER_ROLE = "synthesizer"  # whose provider answers: the one that wrote the council's answer


def _completed(rt: Turn, not_yet: str) -> None:
    """A follow-up or a re-opened debate comes after the answer; before it, the refusal (catalog key) says so."""
    if rt.session.status is not S.COMPLETED:
        raise validation_error(t(not_yet), status=rt.session.status.value)


async def answer_follow_up(rt: Turn, pick: ProviderPicker, question: str) -> str | None:
    """The moderator answers ``question`` from the session, streaming; ``"follow_up_failed"`` when the model gave
    no usable answer (nothing is recorded then)."""
    text = question.strip()
    if not text:
        raise validation_error(t("error.follow_up_empty"), fields={"text": "required"})
    _completed(rt, "error.follow_up_not_yet")
    s = rt.session
    follow_up_id, asked = new_id(), rt.clock()
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
    rt.record(r.FollowUpAnswered(at=rt.clock(), follow_up=FollowUp(
        follow_up_id=follow_up_id, session_id=s.session_id, question=text, answer=outcome.reply.answer.strip(),
        after_cycle=s.debate_cycles, asked_at=asked, answered_at=rt.clock())))
    return None


def reopen_debate(rt: Turn, text: str) -> None:
    """Record what the user adds and set the completed session debating again (for a few more cycles)."""
    text = text.strip()
    if not text:
        raise validation_error(t("error.reopen_empty"), fields={"text": "required"})
    _completed(rt, "error.reopen_not_yet")
    s = rt.session
    rt.record(r.DebateReopened(at=rt.clock(), input=UserInput(
        session_id=s.session_id, text=text, after_cycle=s.debate_cycles, added_at=rt.clock())))
    rt.record(r.StatusSet(at=rt.clock(), status=S.DEBATING, reason="the user re-opened the debate"))
