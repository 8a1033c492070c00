"""The wire result of a turn: where the session stands once the turn has run, with the words a client shows for it
(the sidecar's note, the buttons' and followups' labels, the usage line under the answer, the revisit offers), all
in the session's language."""

from __future__ import annotations

from council.present import cost, outcome
from council.protocol.language import ChatLabels
from council.protocol.methods import Awaiting, TurnResult
from council.protocol.seating import CallUsage
from council.session.state.entities import DiscussionStatus, SessionStatus
from council.session.state.runtime import SessionRuntime, can_extend
from council.session.steps.intents import Intent
from council.words import speaking


def turn_result(rt: SessionRuntime, intent: Intent, message: str | None = None) -> TurnResult:
    """``rt``'s session as a turn's result, with ``message`` (a note already written in its language)."""
    s = rt.session
    question = s.active_question if s.status is SessionStatus.CLARIFYING else None  # never after a cancel
    last = s.discussions[-1] if s.discussions else None
    with speaking(s.settings.language):
        usage = CallUsage.of(s).model_copy(update={"markdown": cost.usage(s)})
        revisit = outcome.revisits(s)
    return TurnResult(session_id=s.session_id, intent=intent, status=s.status,
                      awaiting=Awaiting.ANSWER if question else Awaiting.NOTHING, question=question,
                      final_answer=s.final_answer if s.status is SessionStatus.COMPLETED else None,
                      can_extend=s.status is SessionStatus.COMPLETED and can_extend(s), message=message,
                      limit_reached=last is not None and last.status is DiscussionStatus.LIMIT_REACHED,
                      stopped=s.stopped, usage=usage, revisit=revisit, language=s.settings.language,
                      labels=ChatLabels.of(s.settings.language))
