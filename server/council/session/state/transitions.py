"""The session's status rules: the state machine as an explicit transition table (seed 002, plus one documented
extension), and the rules every journal record that writes a message turn keeps (``check_turn``).

A stop (``council/stop``) is not a transition: the session keeps its status and gets the ``stopped`` marker
(the reducer's ``SessionStopped``); ``retry`` clears it and continues in the same status. Only cancel leaves for
``cancelled``.

A message turn keeps seed 002's MessageTurn validation: strictly increasing sequence numbers, message types aligned
with the session status, answers from the user and discussion from personas.
"""

from __future__ import annotations

from council.errors import validation_error
from council.session.state.entities import ConversationSession, MessageTurn, MessageType, ParticipantType
from council.session.state.entities import SessionStatus as S

TRANSITIONS: dict[S, frozenset[S]] = {
    S.CREATED: frozenset({S.CLARIFYING, S.DEBATING, S.CANCELLED}),
    S.CLARIFYING: frozenset({S.CLARIFYING, S.DEBATING, S.FINAL, S.CANCELLED}),  # again: more questions, a deferred one
    S.DEBATING: frozenset({S.DEBATING, S.FINAL, S.CANCELLED}),  # again: the next cycle
    S.FINAL: frozenset({S.COMPLETED, S.CANCELLED}),
    # debating: the extension, "extend debate" after the debate stopped at its cycle limit; clarifying: seed 002,
    # revisiting a skipped or deferred question after the answer
    S.COMPLETED: frozenset({S.DEBATING, S.CLARIFYING}),
    S.CANCELLED: frozenset(),
}

TERMINAL: frozenset[S] = frozenset({S.COMPLETED, S.CANCELLED})


def can_transition(current: S, target: S) -> bool:
    return target in TRANSITIONS[current]


def check_transition(current: S, target: S) -> None:
    if not can_transition(current, target):
        raise validation_error(
            f"illegal status transition {current.value} → {target.value}",
            current=current.value,
            target=target.value,
            allowed=sorted(s.value for s in TRANSITIONS[current]),
        )


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

