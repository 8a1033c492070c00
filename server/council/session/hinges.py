"""What the answer hinges on: the assumptions the recommendation depends on, from the chair's structured reply.

The chair sees the session's assumptions numbered (``1.``, ``2.`` …) and says, per number, whether the
recommendation depends on it, how critical it is and what the council would recommend if it were false. Only
what holds is kept: a number that names a real assumption, once, that the recommendation depends on, with an
alternative; the kept hinges are ordered most critical first (the chair's order within a level), and each carries
the id of the skipped question behind its assumption, so the user can revisit it.
"""

from __future__ import annotations

from typing import Any

from council.session.entities import ConversationSession
from council.session.outputs import Hinge, HingeDraft

RANK = {"high": 0, "medium": 1, "low": 2}


def hinge_schema(schema: dict[str, Any], session: ConversationSession) -> dict[str, Any]:
    """The synthesis schema with ``hinges`` bounded to the session's numbered assumptions (or left out when the
    council assumed nothing)."""
    count = len(session.assumption_log)
    defs = schema.get("$defs", {})
    if not count:
        schema["properties"].pop("hinges", None)
        schema["required"] = [k for k in schema.get("required", []) if k != "hinges"]
        defs.pop("HingeDraft", None)
        if not defs:
            schema.pop("$defs", None)
        return schema
    schema["properties"]["hinges"]["maxItems"] = count
    item = defs["HingeDraft"]
    item.pop("description", None)
    item.pop("title", None)
    item["properties"]["assumption"] = {"type": "integer", "minimum": 1, "maximum": count}
    return schema


def hinges_of(session: ConversationSession, drafts: list[HingeDraft]) -> list[Hinge]:
    """The chair's hinges that name a real assumption (once each) the recommendation depends on, most critical
    first."""
    log = session.assumption_log
    kept: list[tuple[int, int, Hinge]] = []
    seen: set[int] = set()
    for order, draft in enumerate(drafts):
        number, alternative = draft.assumption, " ".join(draft.if_false.split())
        if not 1 <= number <= len(log) or number in seen or not draft.recommendation_depends or not alternative:
            continue
        seen.add(number)
        a = log[number - 1]
        kept.append((RANK[draft.criticality], order, Hinge(
            assumption_id=a.assumption_id, assumption=a.assumption, question_id=a.related_question_id,
            criticality=draft.criticality, if_false=alternative)))
    return [hinge for _, _, hinge in sorted(kept, key=lambda x: (x[0], x[1]))]
