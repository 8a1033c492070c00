"""The answer when no advisor's reply could be used: pieced together from what could be read of them, marked so.

The models answered, but every reply of the debate's first cycle stayed malformed after its repair
(``debate.report_failures`` says ``"unusable"``): rather than stop, the council answers as it does when the chair
fails (``synthesis.consolidate``), from the texts it has — each abstention's readable position and lists
(``persona_reply.readable``) — with no chair call on the model that just failed, and a note that says so. In a one-shot
session (a consult) a later cycle whose every model call failed is dropped the same way, and the answer from the
cycles before it says so (:func:`with_dropped_note`).
"""

from __future__ import annotations

from council.session.calls.prompts import DEPTH_BULLETS
from council.session.state.entities import ConversationSession
from council.session.state.outputs import CouncilSynthesis
from council.session.state.runtime import Turn
from council.session.steps.persona_reply import ABSTAINED
from council.words import speaking, t


def nothing_usable(session: ConversationSession) -> bool:
    """Whether the debate ended with every advisor's last reply unusable (only a kept first cycle can)."""
    latest = session.latest_responses()
    return bool(latest) and all(x.abstained for x in latest)


def _distinct(items: list[str], limit: int) -> list[str]:
    out: list[str] = []
    for item in (" ".join(x.split()) for x in items):
        if item and item.lower().rstrip(".") not in (o.lower().rstrip(".") for o in out) and len(out) < limit:
            out.append(item)
    return out


def salvaged_answer(session: ConversationSession) -> CouncilSynthesis:
    """The council's answer from what could be read of its advisors' unusable replies."""
    _, hi = DEPTH_BULLETS[session.settings.depth]
    read = [x for x in session.latest_responses() if x.position != ABSTAINED]
    with speaking(session.settings.language):
        positions = _distinct([x.position for x in read], 5)
        return CouncilSynthesis(
            recommendation=positions[0] if positions else t("synthesis.no_recommendation"),
            agreements=positions,
            risks_tradeoffs=_distinct([risk for x in read for risk in x.risks], 8),
            next_steps=_distinct([step for x in read for step in x.next_steps], hi) or [t("synthesis.revisit")],
            notes=[t("synthesis.salvaged", names=", ".join(x.persona for x in session.latest_responses()))],
            assumptions=[a.assumption for a in session.assumption_log],
            source="consolidated",
        )


def with_dropped_note(rt: Turn, synthesis: CouncilSynthesis) -> CouncilSynthesis:
    """The answer, with a note when this turn dropped a later cycle whose every model call failed (``rt.dropped``)."""
    if rt.dropped is None:
        return synthesis
    with speaking(rt.session.settings.language):
        note = t("synthesis.later_failed", cycle=rt.dropped[0])
    return synthesis.model_copy(update={"notes": [*synthesis.notes, note]})
