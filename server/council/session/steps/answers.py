"""Resolving the active clarification question: an answer (free text, a choice value, label or number), a skip
(which logs an assumption), a deferral, or skipping everything that is left.

:class:`Earlier`: the replies the user gave a session a reload lost (sent by the client from the chat history),
applied at once to the same question or one close enough (:data:`SAME_QUESTION`), each once (:func:`reuse`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from council.errors import validation_error
from council.personas.tfidf import TfidfRanker
from council.session.state import entities as e
from council.session.state import records as r
from council.session.state.runtime import Turn
from council.word_match import words
from council.words import known, speaking, t

MAX_CHOICE_DIGITS = 3  # "2" picks the second choice; longer digit strings are free text
SAME_QUESTION = 0.5  # TF-IDF cosine from which two questions are the same (identical words always are)


@dataclass(frozen=True)
class EarlierReply:
    question: str
    action: str  # answer | skip | skip_all
    answer: str | None = None


@dataclass
class Earlier:
    """The earlier replies still unused, and what the new session took from them."""

    replies: list[EarlierReply]
    again: bool = False  # the session took up the earlier question (a bare "continue")
    answered: int = 0
    skipped: int = 0
    unused: list[EarlierReply] = field(init=False)

    @classmethod
    def of(cls, earlier: Any, text: str) -> Earlier | None:
        """From council/turn's ``EarlierSession`` (None: no earlier session) and the new session's question."""
        if earlier is None:
            return None
        again = bool(earlier.problem) and words(earlier.problem) == words(text)
        return cls([EarlierReply(a.question, a.action, a.answer) for a in earlier.answers], again=again)

    def __post_init__(self) -> None:
        self.unused = [x for x in self.replies if x.action != "answer" or (x.answer or "").strip()]

    @property
    def reused(self) -> int:
        return self.answered + self.skipped

    def match(self, question: e.ClarificationQuestion) -> EarlierReply | None:
        """The unused earlier reply to ``question`` (the same question, or one close enough), else an unused
        "skip all" (the user skipped everything left), else None."""
        if not self.unused:
            return None
        same = [x for x in self.unused if words(x.question) == words(question.question)]
        if same:
            return same[0]
        scores = TfidfRanker().score(question.question, [x.question for x in self.unused])
        best = max(range(len(scores)), key=lambda i: scores[i])
        if scores[best] >= SAME_QUESTION:
            return self.unused[best]
        return next((x for x in self.unused if x.action == "skip_all"), None)


def reuse(rt: Turn, earlier: Earlier) -> bool:
    """Apply the earlier reply to the open question, if there is one; whether it was applied."""
    question = rt.session.active_question
    reply = earlier.match(question) if question is not None else None
    if question is None or reply is None:
        return False
    earlier.unused.remove(reply)
    before = len(rt.session.planned_questions)
    resolve(rt, question.question_id, reply.action, text=reply.answer or "", choice=None)
    if reply.action == "answer":
        earlier.answered += 1
    else:
        earlier.skipped += 1 + (before if reply.action == "skip_all" else 0)
    return True


def resolve(rt: Turn, question_id: str, action: str, *, text: str, choice: str | None) -> None:
    s = rt.session
    q = s.question(question_id)
    if q is None:
        raise validation_error(t("error.unknown_question"), questionId=question_id)
    if action == "answer":
        value = choice_value(q, choice, text)
        if not value:
            raise validation_error(t("error.answer_empty"), fields={"text": "must not be empty"})
        answer = e.ClarificationAnswer(question_id=q.question_id, session_id=s.session_id, answer=value,
                                     created_at=rt.clock())
        turn = rt.turn(s.user, e.MessageType.ANSWER, value, cycle=_round(q.round_number))
        rt.record(r.QuestionAnswered(at=rt.clock(), answer=answer, turn=turn))
    elif action == "defer":
        if q.revisited:  # deferred once already: now it is a skip
            _skip(rt, q, "deferred twice")
        else:
            rt.record(r.QuestionDeferred(at=rt.clock(), question_id=q.question_id))
    elif action == "skip":
        _skip(rt, q, "skipped")
    else:  # skip_all: the active question, the rest of the round and any deferred ones
        _skip(rt, q, "skipped (skip all)")
        for other in [*s.planned_questions, *[x for x in s.questions if x.status is e.QuestionStatus.DEFERRED]]:
            _skip(rt, other, "skipped (skip all)")


HOW = {"skipped": "assumption.skipped", "deferred twice": "assumption.deferred_twice",
       "skipped (skip all)": "assumption.skip_all"}  # how a question was skipped → its words


def _skip(rt: Turn, q: e.ClarificationQuestion, how: str) -> None:
    s = rt.session
    answer = e.ClarificationAnswer(question_id=q.question_id, session_id=s.session_id, answer=f"skip ({how})",
                                 skip_command=True, created_at=rt.clock())
    with speaking(s.settings.language):  # the rationale is shown (the transcript): in the session's language
        topic = f"ambiguity.{q.target_ambiguity}"
        rationale = t("assumption.rationale", how=t(HOW[how]), question=q.question,
                      topic=t(topic) if known(topic) else q.target_ambiguity)
    assumption = e.Assumption(session_id=s.session_id, related_question_id=q.question_id,
                            assumption=q.default_assumption, rationale=rationale, added_at=rt.clock())
    turn = rt.turn(s.moderator, e.MessageType.ASSUMPTION_STATEMENT, q.default_assumption,
                   cycle=_round(q.round_number), metadata={"questionId": q.question_id})
    rt.record(r.QuestionSkipped(at=rt.clock(), answer=answer, assumption=assumption, turn=turn))


def choice_value(q: e.ClarificationQuestion, choice: str | None, text: str) -> str:
    """Map a choice value, a choice number ("2") or a label to the choice's value; else the free text."""
    if choice:
        match = next((c for c in q.choices if c.value == choice or c.label == choice), None)
        if match is None:
            raise validation_error(t("error.unknown_choice"), choice=choice, choices=[c.value for c in q.choices])
        return match.value
    typed = text.strip()
    if typed.isascii() and typed.isdigit() and len(typed) <= MAX_CHOICE_DIGITS and 1 <= int(typed) <= len(q.choices):
        return q.choices[int(typed) - 1].value
    match = next((c for c in q.choices if c.label.lower() == typed.lower() or c.value.lower() == typed.lower()), None)
    return match.value if match else typed


def _round(n: int) -> e.CycleRef:
    return e.CycleRef(cycle_type="clarification", number=n)
