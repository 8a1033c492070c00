"""What the answer hinges on: the answers and assumptions whose alternatives would move the recommendation.

The engine states a hinge itself, from the clarifier's plan: for each question it asked, the plan says which course
of action every likely answer favours (``QuestionStakes``). When the user's answer, or the assumption the council made
for a skipped question, had an alternative that favours another course than the one taken and the one recommended,
that is a hinge ("if instead *a hard deadline this quarter*, the council would lean to B"). The chair's judgement of
the numbered assumptions refines it (its words, its criticality) and adds the assumptions no planned question
covers; it never gates the engine's own hinges.
"""

from __future__ import annotations

from typing import Any

from council.session.state import outputs
from council.session.state.entities import ClarificationQuestion, ConversationSession, QuestionStakes, QuestionStatus
from council.word_match import content_stems, item_key
from council.words import speaking, t

RANK = {"high": 0, "medium": 1, "low": 2}
CONTAINED = 0.5  # the share of a choice's words a free answer must hold to be taken for that choice


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


def closest(text: str, names: list[str]) -> int | None:
    """The index of the name ``text`` is (the same words), else of the one whose meaningful words it holds most of
    (at least :data:`CONTAINED` of them, and no other as many); None: none."""
    exact = [i for i, name in enumerate(names) if item_key(name) == item_key(text)]
    if exact:
        return exact[0]
    said = content_stems(text)
    shares = [len(stems & said) / len(stems) if (stems := content_stems(name)) else 0.0 for name in names]
    best = max(shares, default=0.0)
    return shares.index(best) if best >= CONTAINED and shares.count(best) == 1 else None


def _option_of(session: ConversationSession, course: str | None) -> str | None:
    """The vote's option a course of the plan is (by its label), if any."""
    if course is None or not session.options:
        return None
    found = closest(course, [o.label for o in session.options])
    return session.options[found].id if found is not None else None


def _taken(session: ConversationSession, q: ClarificationQuestion) -> tuple[str, str, str] | None:
    """What the council went on for ``q``: (basis, text, assumption id), or None (not answered nor assumed)."""
    if q.status is QuestionStatus.ANSWERED and q.user_answer is not None:
        return "answered", q.user_answer.answer, ""
    assumed = next((a for a in session.assumption_log if a.related_question_id == q.question_id), None)
    return ("assumed", assumed.assumption, assumed.assumption_id) if assumed is not None else None


def _alternatives(session: ConversationSession, stakes: QuestionStakes, taken: str) -> list[outputs.HingeAlternative]:
    """The likely answers other than ``taken`` that favour a course neither ``taken`` nor the recommendation
    favours (when the plan's lean of ``taken`` is unknown, only the recommendation's course is left out)."""
    leans = stakes.leans
    index = closest(taken, [x.choice for x in leans])
    winner = session.tally.winner if session.tally else None
    settled = {leans[index].favours} if index is not None else set()
    settled |= {c for c in stakes.candidates if winner is not None and _option_of(session, c) == winner}
    return [outputs.HingeAlternative(answer=x.choice, favours=x.favours, option_id=_option_of(session, x.favours))
            for i, x in enumerate(leans) if i != index and x.favours and x.favours not in settled]


def _criticality(stakes: QuestionStakes) -> outputs.Level:
    return "high" if stakes.decisiveness >= 2 / 3 else "medium" if stakes.decisiveness >= 1 / 3 else "low"


def _course(session: ConversationSession, alt: outputs.HingeAlternative) -> str:
    option = next((o for o in session.options if o.id == alt.option_id), None)
    return f"{option.id} · {option.label}" if option is not None else alt.favours


def planned_hinges(session: ConversationSession) -> list[outputs.Hinge]:
    """The engine's hinges: every asked question whose answer or assumption had an alternative favouring another
    course, in the order asked."""
    out = []
    with speaking(session.settings.language):
        for q in session.questions:
            taken = _taken(session, q)
            if q.stakes is None or taken is None:
                continue
            basis, text, assumption_id = taken
            alternatives = _alternatives(session, q.stakes, text)
            if not alternatives:
                continue
            courses = list(dict.fromkeys(_course(session, a) for a in alternatives))
            out.append(outputs.Hinge(
                assumption_id=assumption_id, assumption=text, question_id=q.question_id, question=q.question,
                basis=basis, criticality=_criticality(q.stakes), alternatives=alternatives,
                if_false=t("synthesis.would_lean", courses=t("synthesis.or").join(courses))))
    return out


def hinges_of(session: ConversationSession, drafts: list[outputs.HingeDraft]) -> list[outputs.Hinge]:
    """The chair's hinges that name a real assumption (once each) the recommendation depends on, most critical
    first."""
    log = session.assumption_log
    kept: list[tuple[int, int, outputs.Hinge]] = []
    seen: set[int] = set()
    for order, draft in enumerate(drafts):
        number, alternative = draft.assumption, " ".join(draft.if_false.split())
        if not 1 <= number <= len(log) or number in seen or not draft.recommendation_depends or not alternative:
            continue
        seen.add(number)
        a = log[number - 1]
        q = session.question(a.related_question_id) if a.related_question_id else None
        kept.append((RANK[draft.criticality], order, outputs.Hinge(
            assumption_id=a.assumption_id, assumption=a.assumption, question_id=a.related_question_id,
            question=q.question if q is not None else "", criticality=draft.criticality, if_false=alternative,
            chair=alternative)))
    return [hinge for _, _, hinge in sorted(kept, key=lambda x: (x[0], x[1]))]


def hinges(session: ConversationSession, drafts: list[outputs.HingeDraft]) -> list[outputs.Hinge]:
    """The engine's hinges, each refined by the chair's judgement of the same assumption (its words and
    criticality), then the chair's hinges on assumptions no planned hinge covers; most critical first."""
    chair = {h.assumption_id: h for h in hinges_of(session, drafts)}
    merged = []
    for h in planned_hinges(session):
        said = chair.pop(h.assumption_id, None) if h.assumption_id else None
        merged.append(h if said is None else h.model_copy(update={
            "criticality": said.criticality, "chair": said.chair, "if_false": said.chair}))
    merged += chair.values()
    return sorted(merged, key=lambda h: RANK[h.criticality])  # stable: the order asked, then the chair's
