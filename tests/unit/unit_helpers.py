"""Deterministic builders for sessions driven record by record (fixed ids and timestamps)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from council.session.state import records as r
from council.session.state.entities import (
    Assumption,
    ClarificationAnswer,
    ClarificationQuestion,
    ConversationSession,
    CouncilDiscussion,
    CycleRef,
    DiscussionStatus,
    MessageTurn,
    MessageType,
    Participant,
    ParticipantType,
    PersonaSelection,
    SessionSettings,
    SessionStatus,
)
from council.session.state.outputs import CouncilSynthesis, PersonaResponse, Vote, VoteOption
from council.session.state.reducer import apply

T0 = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
SID = "session-1"


def persona_response(name: str, cycle: int, **over: Any) -> PersonaResponse:
    data: dict[str, Any] = dict(
        position=f"{name} position in cycle {cycle}",
        summary=["s"],
        advice=["a"],
        risks=["r"],
        next_steps=["n"],
        confidence="medium",
        confidence_rationale="because",
        persona=name,
        cycle=cycle,
    )
    data.update(over)
    return PersonaResponse(**data)


class Builder:
    """Builds a ConversationSession by applying records by hand; keeps the journal it applied."""

    def __init__(
        self, settings: SessionSettings | None = None, personas: tuple[str, ...] = ("Alpha", "Beta")
    ):
        self.settings = settings or SessionSettings()
        self.tick = 0
        self.user = Participant(participant_id="user", type=ParticipantType.USER, name="User")
        self.moderator = Participant(participant_id="mod", type=ParticipantType.SYSTEM, name="Moderator")
        self.persona_participants = [
            Participant(participant_id=f"p-{n}", type=ParticipantType.PERSONA, name=n) for n in personas
        ]
        self.session: ConversationSession | None = None
        self.journal: list[r.RecordBase] = []
        self.turns = 0

    # --- plumbing ------------------------------------------------------------------------------------------
    def at(self) -> datetime:
        self.tick += 1
        return T0 + timedelta(seconds=self.tick)

    def apply(self, rec: r.RecordBase) -> ConversationSession:
        self.session = apply(self.session, rec)
        self.journal.append(rec)
        return self.session

    @property
    def s(self) -> ConversationSession:
        assert self.session is not None
        return self.session

    def next_seq(self) -> int:
        return (self.s.message_turns[-1].sequence_number if self.s.message_turns else 0) + 1

    def turn(
        self,
        sender: Participant,
        kind: MessageType,
        *,
        seq: int | None = None,
        content: str = "text",
        cycle: CycleRef | None = None,
    ) -> MessageTurn:
        self.turns += 1
        return MessageTurn(
            turn_id=f"t{self.turns}",
            session_id=SID,
            sender=sender,
            message_type=kind,
            content=content,
            timestamp=self.at(),
            sequence_number=seq or self.next_seq(),
            related_cycle_or_round=cycle,
        )

    def persona(self, name: str) -> Participant:
        return next(p for p in self.persona_participants if p.name == name)

    # --- records -------------------------------------------------------------------------------------------
    def create(self, *, extended: bool = False) -> ConversationSession:
        return self.apply(
            r.SessionCreated(
                at=self.at(),
                session_id=SID,
                user=self.user,
                moderator=self.moderator,
                request_text="Split the monolith?",
                settings=self.settings,
                correlation_id="corr",
                extended_debate=extended,
            )
        )

    def select(self) -> ConversationSession:
        return self.apply(
            r.PersonasSelected(
                at=self.at(),
                selection=PersonaSelection(
                    selection_id="sel",
                    session_id=SID,
                    request_classification="architecture",
                    selected_personas=self.persona_participants,
                    reason="fits",
                    created_at=self.at(),
                ),
            )
        )

    def status(self, status: SessionStatus) -> ConversationSession:
        return self.apply(r.StatusSet(at=self.at(), status=status))

    def question(self, round_number: int, n: int) -> ClarificationQuestion:
        return ClarificationQuestion(
            question_id=f"q{round_number}-{n}",
            session_id=SID,
            round_number=round_number,
            sequence_in_round=n,
            question=f"Question {n} of round {round_number}?",
            target_ambiguity="scope",
            asked_by=self.moderator,
            default_assumption=f"assume {round_number}-{n}",
            created_at=self.at(),
        )

    def plan_record(self, round_number: int, count: int = 2) -> r.QuestionsPlanned:
        return r.QuestionsPlanned(
            at=self.at(),
            round=round_number,
            questions=[self.question(round_number, i + 1) for i in range(count)],
        )

    def plan(self, round_number: int, count: int = 2) -> ConversationSession:
        return self.apply(self.plan_record(round_number, count))

    def ask_record(self, qid: str, **turn: Any) -> r.QuestionAsked:
        return r.QuestionAsked(
            at=self.at(), question_id=qid, turn=self.turn(self.moderator, MessageType.QUESTION, **turn)
        )

    def ask(self, qid: str) -> ConversationSession:
        return self.apply(self.ask_record(qid))

    def answer_record(
        self,
        qid: str,
        text: str = "an answer",
        sender: Participant | None = None,
        kind: MessageType = MessageType.ANSWER,
        **turn: Any,
    ) -> r.QuestionAnswered:
        return r.QuestionAnswered(
            at=self.at(),
            answer=ClarificationAnswer(
                answer_id=f"a-{qid}", question_id=qid, session_id=SID, answer=text, created_at=self.at()
            ),
            turn=self.turn(sender or self.user, kind, **turn),
        )

    def answer(self, qid: str, text: str = "an answer") -> ConversationSession:
        return self.apply(self.answer_record(qid, text))

    def skip_record(self, qid: str) -> r.QuestionSkipped:
        return r.QuestionSkipped(
            at=self.at(),
            answer=ClarificationAnswer(
                answer_id=f"a-{qid}",
                question_id=qid,
                session_id=SID,
                answer="skip",
                skip_command=True,
                created_at=self.at(),
            ),
            assumption=Assumption(
                assumption_id=f"as-{qid}",
                session_id=SID,
                related_question_id=qid,
                assumption=f"assumed for {qid}",
                rationale="skipped",
                added_at=self.at(),
            ),
            turn=self.turn(self.moderator, MessageType.ASSUMPTION_STATEMENT, content=f"Assuming for {qid}"),
        )

    def skip(self, qid: str) -> ConversationSession:
        return self.apply(self.skip_record(qid))

    def defer(self, qid: str) -> ConversationSession:
        return self.apply(r.QuestionDeferred(at=self.at(), question_id=qid))

    def cycle_record(self, n: int) -> r.CycleStarted:
        return r.CycleStarted(
            at=self.at(),
            discussion=CouncilDiscussion(
                discussion_id=f"d{n}",
                session_id=SID,
                cycle_number=n,
                participating_personas=self.persona_participants,
                exchange_starts=self.at(),
                topic="topic",
            ),
        )

    def start_cycle(self, n: int) -> ConversationSession:
        return self.apply(self.cycle_record(n))

    def speak_record(
        self,
        name: str,
        cycle: int,
        kind: MessageType = MessageType.DISCUSSION,
        sender: Participant | None = None,
        **over: Any,
    ) -> r.PersonaSpoke:
        turn = self.turn(
            sender or self.persona(name), kind, cycle=CycleRef(cycle_type="debate", number=cycle)
        )
        return r.PersonaSpoke(
            at=self.at(), response=persona_response(name, cycle, turn_id=turn.turn_id, **over), turn=turn
        )

    def speak(self, name: str, cycle: int, **over: Any) -> ConversationSession:
        return self.apply(self.speak_record(name, cycle, **over))

    def conclude(
        self, cycle: int, summary: str = "summary", status: DiscussionStatus = DiscussionStatus.CONCLUDED,
        **over: Any,
    ) -> ConversationSession:
        return self.apply(
            r.CycleConcluded(at=self.at(), cycle=cycle, resolution_summary=summary, status=status, **over)
        )

    def run_cycle(self, n: int, status: DiscussionStatus = DiscussionStatus.CONCLUDED) -> ConversationSession:
        self.start_cycle(n)
        for p in self.persona_participants:
            self.speak(p.name, n)
        return self.conclude(n, f"cycle {n} summary", status)

    def options(self) -> ConversationSession:
        return self.apply(
            r.OptionsSet(
                at=self.at(),
                options=[
                    VoteOption(id="A", label="Do it", description="go"),
                    VoteOption(id="B", label="Wait", description="no"),
                ],
            )
        )

    def vote_record(self, name: str, option: str, cycle: int, **over: Any) -> r.VoteCast:
        data: dict[str, Any] = dict(persona=name, option_id=option, confidence=0.7, rationale="why", cycle=cycle)
        data.update(over)
        return r.VoteCast(at=self.at(), vote=Vote(**data))

    def vote(self, name: str, option: str, cycle: int, **over: Any) -> ConversationSession:
        """A vote of the current round (votes carry no turn since vote-first deliberation)."""
        return self.apply(self.vote_record(name, option, cycle, **over))

    def conclusion_record(
        self, name: str, cycle: int, sender: Participant | None = None, kind: MessageType = MessageType.CONCLUSION
    ) -> r.ConclusionStated:
        turn = self.turn(
            sender or self.persona(name),
            kind,
            content=f"{name} concludes",
            cycle=CycleRef(cycle_type="debate", number=cycle),
        )
        return r.ConclusionStated(at=self.at(), turn=turn)

    def state_conclusion(self, name: str, cycle: int) -> ConversationSession:
        """One persona's conclusion turn, recorded after the last cycle concluded."""
        return self.apply(self.conclusion_record(name, cycle))

    def tally(self, cycle: int | None = None) -> ConversationSession:
        """The tally of ``cycle``'s votes (default: the last round with votes), as the engine records it."""
        from council.session.state.convergence import tally_votes

        last = cycle if cycle is not None else max((v.cycle for v in self.s.votes), default=0)
        votes = [v for v in self.s.votes if v.cycle == last]
        return self.apply(r.TallySet(at=self.at(), tally=tally_votes(self.s.options, votes)))

    def synthesis(self, answer: str = "## Answer") -> ConversationSession:
        return self.apply(
            r.SynthesisSet(
                at=self.at(), synthesis=CouncilSynthesis(recommendation="Do it"), final_answer=answer
            )
        )

    # --- whole phases --------------------------------------------------------------------------------------
    def clarifying(self) -> ConversationSession:
        """Created, personas selected, clarifying with round 1 (two questions) planned, none asked."""
        self.create()
        self.select()
        self.status(SessionStatus.CLARIFYING)
        return self.plan(1)

    def debating(self) -> ConversationSession:
        self.create()
        self.select()
        return self.status(SessionStatus.DEBATING)

    def completed(self, cycles: int = 1) -> ConversationSession:
        self.debating()
        for n in range(1, cycles + 1):
            last = n == cycles and cycles >= self.s.cycle_limit
            self.run_cycle(n, DiscussionStatus.LIMIT_REACHED if last else DiscussionStatus.CONCLUDED)
        self.options()
        for p in self.persona_participants:
            self.vote(p.name, "A", cycles)
        for p in self.persona_participants:
            self.state_conclusion(p.name, cycles)
        self.tally()
        self.status(SessionStatus.FINAL)
        self.synthesis()
        return self.status(SessionStatus.COMPLETED)


# --- scripted-provider scripts ------------------------------------------------------------------------------
DEBATE_KEYS = ("changed_position", "change_reason", "option_id")  # a cycle-1 reply carries none of these


def persona_reply(
    cycle: int,
    *,
    option: str = "A",
    vote_confidence: float = 0.8,
    changed: bool = False,
    change_reason: str = "",
    continue_debate: bool = True,
    position: str | None = None,
    risks: list[str] | None = None,
    bullets: int = 5,
    who: str = "advisor",
) -> dict[str, Any]:
    """A valid PersonaReply for ``cycle``: exactly the fields of ``persona_schema(session, cycle)`` (standard depth
    needs 5 bullets). Cycle 1 is a recommendation (its position says "prefers option X", which the scripted
    moderator reads to place it under option X: the first vote) with its confidence; later cycles carry the vote."""
    reply: dict[str, Any] = {
        "position": position or f"{who} prefers option {option} in cycle {cycle}.",
        "summary": [f"{who} summary {i}" for i in range(1, bullets + 1)],
        "advice": [f"{who} advice {i}" for i in range(1, bullets + 1)],
        "risks": risks if risks is not None else [f"{who} risk"],
        "assumptions": [],
        "questions": [],
        "next_steps": [f"{who} step {i}" for i in range(1, bullets + 1)],
        "confidence": "medium",
        "confidence_rationale": "scripted",
        "vote_confidence": vote_confidence,
        "continue_debate": continue_debate,
    }
    if cycle >= 2:  # a later cycle does not ask for assumptions and questions (the earlier ones stand)
        reply.update(changed_position=changed, change_reason=change_reason, option_id=option)
        del reply["assumptions"], reply["questions"]
    return reply


def first_vote_rules(*, continue_debate: bool = True, **by_persona: tuple[str, float]) -> list[dict[str, Any]]:
    """Cycle-1 replies whose recommendations the moderator places as first votes:
    ``first_vote_rules(**{"Software Architect": ("A", 0.8)})``."""
    return [rule("PersonaReply", persona_reply(1, option=opt, vote_confidence=conf, who=name,
                                               continue_debate=continue_debate), purpose=name, cycle=1)
            for name, (opt, conf) in by_persona.items()]


def everyone_first(option: str, confidence: float = 0.8, **kw: Any) -> dict[str, Any]:
    """One rule: every persona's cycle-1 recommendation prefers ``option``."""
    return rule("PersonaReply", persona_reply(1, option=option, vote_confidence=confidence, **kw), cycle=1)


def rule(schema: str, reply: Any = None, *, purpose: str | None = None, cycle: int | None = None,
         contains: str | None = None, times: int | None = None, **extra: Any) -> dict[str, Any]:
    """One script rule: ``when`` keyed on schema title and optionally persona (purpose), cycle, prompt text."""
    when: dict[str, Any] = {"schema": schema}
    for key, value in (("purpose", purpose), ("cycle", cycle), ("contains", contains)):
        if value is not None:
            when[key] = value
    out: dict[str, Any] = {"when": when, **extra}
    if reply is not None:
        out["reply"] = reply
    if times is not None:
        out["times"] = times
    return out


def persona_rules(name: str, cycles: range | list[int], **kw: Any) -> list[dict[str, Any]]:
    """One PersonaReply rule per cycle for ``name`` (the reply shape differs between cycle 1 and later)."""
    kw.setdefault("who", name)
    return [rule("PersonaReply", persona_reply(c, **kw), purpose=name, cycle=c) for c in cycles]


class SilentObserver:
    """A session observer that ignores everything (for tests of the store and the domain alone)."""

    def recorded(self, rt, rec, previous) -> None: ...

    def note(self, rt, kind, data) -> None: ...

    def problem(self, rt, kind, data, *, code, persona, retryable) -> None: ...

    def persona_started(self, rt, persona, cycle, provider, model) -> None: ...

    def persona_text(self, rt, persona, cycle, chunk) -> None: ...

    def follow_up_text(self, rt, follow_up_id, chunk) -> None: ...

    def answer_text(self, rt, stream_id, chunk) -> None: ...
