"""The rules every journal record that writes a message turn keeps (seed 002, MessageTurn validation): strictly
increasing sequence numbers, message types aligned with the session status, answers from the user and discussion
from personas; and ``touch``, which appends the turn and stamps the session. Shared by ``reducer`` and
``reduce_questions``."""

from __future__ import annotations

from council.errors import validation_error
from council.session.state import records as r
from council.session.state.entities import ConversationSession, MessageTurn, MessageType, ParticipantType
from council.session.state.entities import SessionStatus as S

# Which statuses each message type may be written in (seed 002, MessageTurn validation).
TURN_STATUSES: dict[MessageType, frozenset[S]] = {
    MessageType.QUESTION: frozenset({S.CLARIFYING}),
    MessageType.ANSWER: frozenset({S.CLARIFYING}),
    MessageType.ASSUMPTION_STATEMENT: frozenset({S.CLARIFYING}),
    MessageType.DISCUSSION: frozenset({S.DEBATING}),
    MessageType.CONCLUSION: frozenset({S.DEBATING}),
}


def check_turn(session: ConversationSession, turn: MessageTurn, kind: MessageType | None = None) -> None:
    if kind is not None and turn.message_type is not kind:
        raise validation_error(f"this record needs a {kind.value} turn", got=turn.message_type.value)
    last = session.message_turns[-1].sequence_number if session.message_turns else 0
    if turn.sequence_number != last + 1:
        raise validation_error("message turn out of sequence", expected=last + 1, got=turn.sequence_number)
    if session.status not in TURN_STATUSES[turn.message_type]:
        raise validation_error(
            f"a {turn.message_type.value} turn is not allowed while the session is {session.status.value}",
            messageType=turn.message_type.value, status=session.status.value,
        )
    if turn.message_type is MessageType.ANSWER and turn.sender.type is not ParticipantType.USER:
        raise validation_error("answers come from the user")
    if turn.message_type is MessageType.DISCUSSION and turn.sender.type is not ParticipantType.PERSONA:
        raise validation_error("discussion turns come from personas")


def touch(session: ConversationSession, rec: r.RecordBase, turn: MessageTurn | None = None) -> None:
    if turn is not None:
        session.message_turns.append(turn)
    session.updated_at = rec.at
