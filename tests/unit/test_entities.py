"""Single-entity validators of the data model and the camelCase wire form."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from pydantic import ValidationError

from council.errors import ErrorCode, from_pydantic
from council.session.state.entities import (
    MAX_CLARIFICATION_ROUNDS,
    ClarificationAnswer,
    ClarificationQuestion,
    ConversationSession,
    CouncilDiscussion,
    DiscussionStatus,
    MessageTurn,
    MessageType,
    Participant,
    ParticipantType,
    PersonaSelection,
    QuestionStatus,
    SessionSettings,
)

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)
MOD = Participant(participant_id="m", type=ParticipantType.SYSTEM, name="Moderator")
ALPHA = Participant(participant_id="a", type=ParticipantType.PERSONA, name="Alpha")


def question(**over):
    data = dict(
        session_id="s",
        round_number=1,
        sequence_in_round=1,
        question="Which scope?",
        target_ambiguity="scope",
        asked_by=MOD,
        default_assumption="all of it",
        created_at=NOW,
    )
    data.update(over)
    return ClarificationQuestion(**data)


def answer(**over):
    data = dict(question_id="q", session_id="s", answer="only billing", created_at=NOW)
    data.update(over)
    return ClarificationAnswer(**data)


def discussion(**over):
    data = dict(
        session_id="s", cycle_number=1, participating_personas=[ALPHA], exchange_starts=NOW, topic="t"
    )
    data.update(over)
    return CouncilDiscussion(**data)


def selection(**over):
    data = dict(
        session_id="s", request_classification="c", selected_personas=[ALPHA], reason="r", created_at=NOW
    )
    data.update(over)
    return PersonaSelection(**data)


class TestClarificationQuestion:
    def test_answered_question_needs_an_answer(self):
        with pytest.raises(ValidationError, match="answered question needs a ClarificationAnswer"):
            question(status=QuestionStatus.ANSWERED)

    def test_answered_question_with_answer_is_valid(self):
        q = question(status=QuestionStatus.ANSWERED, user_answer=answer())
        assert q.user_answer is not None and q.user_answer.answer == "only billing"

    @pytest.mark.parametrize(
        "status", [QuestionStatus.PENDING, QuestionStatus.SKIPPED, QuestionStatus.DEFERRED]
    )
    def test_other_statuses_need_no_answer(self, status):
        assert question(status=status).status is status

    @pytest.mark.parametrize("round_number", [1, 2, MAX_CLARIFICATION_ROUNDS])
    def test_rounds_one_to_three_allowed(self, round_number):
        assert question(round_number=round_number).round_number == round_number

    @pytest.mark.parametrize("round_number", [0, MAX_CLARIFICATION_ROUNDS + 1])
    def test_round_outside_one_to_three_refused(self, round_number):
        with pytest.raises(ValidationError) as info:
            question(round_number=round_number)
        assert info.value.errors()[0]["loc"] == ("round_number",)

    def test_empty_question_text_refused(self):
        with pytest.raises(ValidationError):
            question(question="")

    def test_empty_answer_text_refused(self):
        with pytest.raises(ValidationError):
            answer(answer="")


class TestDiscussion:
    @pytest.mark.parametrize("status", [DiscussionStatus.CONCLUDED, DiscussionStatus.LIMIT_REACHED])
    def test_concluded_discussion_needs_summary(self, status):
        with pytest.raises(ValidationError, match="resolutionSummary"):
            discussion(status=status)
        with pytest.raises(ValidationError, match="resolutionSummary"):
            discussion(status=status, resolution_summary="")
        assert discussion(status=status, resolution_summary="agreed").status is status

    def test_in_progress_needs_no_summary(self):
        assert discussion().resolution_summary is None

    def test_needs_a_participating_persona(self):
        with pytest.raises(ValidationError):
            discussion(participating_personas=[])

    def test_cycle_number_starts_at_one(self):
        with pytest.raises(ValidationError):
            discussion(cycle_number=0)


class TestPersonaSelection:
    def test_override_needs_overridden_personas(self):
        with pytest.raises(ValidationError, match="overriddenPersonas"):
            selection(user_override=True)

    def test_override_with_names_is_valid(self):
        sel = selection(user_override=True, overridden_personas=["Alpha"])
        assert sel.overridden_personas == ["Alpha"]

    def test_needs_at_least_one_persona(self):
        with pytest.raises(ValidationError):
            selection(selected_personas=[])


class TestSessionAndSettings:
    def test_clarification_rounds_capped_at_three(self):
        base = dict(request_text="x", created_at=NOW, updated_at=NOW)
        assert ConversationSession(**base, clarification_rounds=3).clarification_rounds == 3
        with pytest.raises(ValidationError):
            ConversationSession(**base, clarification_rounds=4)
        with pytest.raises(ValidationError):
            ConversationSession(**base, clarification_rounds=-1)

    def test_request_text_required(self):
        with pytest.raises(ValidationError):
            ConversationSession(request_text="", created_at=NOW, updated_at=NOW)

    def test_default_cycle_limit_is_ten_and_extension_raises_it(self):
        s = ConversationSession(request_text="x", created_at=NOW, updated_at=NOW)
        assert s.cycle_limit == 10
        s.extended_debate_requested = True
        assert s.cycle_limit == 20
        s.settings = SessionSettings(max_cycles=30, extended_max_cycles=5)
        assert s.cycle_limit == 30  # the extension never lowers the limit

    @pytest.mark.parametrize("field", ["max_cycles", "extended_max_cycles", "min_cycles"])
    def test_cycle_settings_bounded(self, field):
        with pytest.raises(ValidationError):
            SessionSettings(**{field: 0})
        with pytest.raises(ValidationError):
            SessionSettings(**{field: 51})

    def test_participant_name_bounds(self):
        with pytest.raises(ValidationError):
            Participant(type=ParticipantType.USER, name="")
        with pytest.raises(ValidationError):
            Participant(type=ParticipantType.USER, name="x" * 81)
        assert Participant(type=ParticipantType.USER, name="U").is_primary_user
        assert not ALPHA.is_primary_user


class TestWire:
    def test_to_wire_is_camel_case_without_nulls(self):
        q = question()
        wire = q.to_wire()
        for key in (
            "questionId",
            "sessionId",
            "roundNumber",
            "sequenceInRound",
            "targetAmbiguity",
            "askedBy",
            "freeTextAllowed",
            "defaultAssumption",
            "createdAt",
        ):
            assert key in wire
        assert "round_number" not in wire
        assert "userAnswer" not in wire and "answeredAt" not in wire  # None dropped
        assert wire["askedBy"]["participantId"] == "m"
        assert wire["status"] == "pending"
        assert wire["createdAt"].startswith("2025-01-01T00:00:00")

    def test_wire_form_round_trips(self):
        q = question(status=QuestionStatus.ANSWERED, user_answer=answer())
        assert ClarificationQuestion.model_validate(q.to_wire()) == q

    def test_snake_case_input_accepted_too(self):
        t = MessageTurn.model_validate(
            {
                "session_id": "s",
                "sender": MOD.to_wire(),
                "message_type": "question",
                "content": "c",
                "timestamp": NOW.isoformat(),
                "sequence_number": 1,
            }
        )
        assert t.message_type is MessageType.QUESTION
        assert t.to_wire()["messageType"] == "question"

    @pytest.mark.parametrize(
        "model,data",
        [
            (Participant, {"type": "user", "name": "U", "nickname": "x"}),
            (SessionSettings, {"maxCycles": 3, "turbo": True}),
            (
                ClarificationAnswer,
                {
                    "questionId": "q",
                    "sessionId": "s",
                    "answer": "a",
                    "createdAt": NOW.isoformat(),
                    "mood": "ok",
                },
            ),
        ],
    )
    def test_extra_fields_forbidden(self, model, data):
        with pytest.raises(ValidationError) as info:
            model.model_validate(data)
        assert info.value.errors()[0]["type"] == "extra_forbidden"

    def test_from_pydantic_names_each_field(self):
        with pytest.raises(ValidationError) as info:
            SessionSettings.model_validate({"maxCycles": 0, "depth": "bottomless"})
        err = from_pydantic(info.value, "settings")
        assert err.code is ErrorCode.VALIDATION
        assert set(err.details["fields"]) == {"maxCycles", "depth"}
        assert err.message.startswith("invalid settings: ")
        assert "maxCycles" in err.message and "depth" in err.message

    def test_sequence_number_one_indexed(self):
        with pytest.raises(ValidationError):
            MessageTurn(
                session_id="s",
                sender=MOD,
                message_type=MessageType.QUESTION,
                content="c",
                timestamp=NOW,
                sequence_number=0,
            )
