"""Who sits on the council, the clarifying questions, their answers and the assumptions made for skipped ones, and
the check when an answer reads like a new question."""

from __future__ import annotations

from council.present.text import join_names, one_line
from council.session.entities import Assumption, ClarificationQuestion, PersonaSelection, QuestionStatus
from council.words import n, t

GENERAL = "general"


def selection(sel: PersonaSelection) -> str:
    names = join_names([f"**{p.name}**" for p in sel.selected_personas])
    if sel.user_override and sel.method == "override":
        why = t("clarify.why.yours")
    elif sel.user_override:  # named in the request: added to the routed council
        about = (t("clarify.why.about", topic=sel.request_classification)
                 if sel.request_classification and sel.request_classification != GENERAL else "")
        why = t("clarify.why.added", about=about, names=join_names(sel.overridden_personas))
    elif sel.request_classification and sel.request_classification != GENERAL:
        why = t("clarify.why.topic", topic=sel.request_classification)
    else:
        why = t("clarify.why.best")
    return t("clarify.council", names=names, why=why) + "\n\n"


def question(q: ClarificationQuestion, remaining: int) -> str:
    after = f" _({t('clarify.remaining', more=n(remaining, 'more_question'))})_" if remaining else ""
    out = [f"{t('clarify.asks')}{after}\n\n{q.question.strip()}\n\n"]
    if q.choices:
        out.append("".join(f"{i}. {one_line(c.label)}\n" for i, c in enumerate(q.choices, 1)) + "\n")
    out.append(t("clarify.if_skipped", assumption=one_line(q.default_assumption)) + "\n\n")
    return "".join(out)


def resolved(q: ClarificationQuestion) -> str:
    """An answered or deferred question (a skipped one is told by its assumption)."""
    if q.status is QuestionStatus.ANSWERED and q.user_answer is not None:
        return f"✓ _{one_line(q.question)}_ — **{one_line(q.user_answer.answer)}**\n\n"
    if q.status is QuestionStatus.DEFERRED:
        return t("clarify.deferred", question=one_line(q.question)) + "\n\n"
    return ""


def assumption(a: Assumption) -> str:
    return t("clarify.assumed", assumption=one_line(a.assumption)) + "\n\n"


def confirm_new(q: ClarificationQuestion, text: str) -> str:
    """Typed text that reads like a new question while ``q`` is open: ask which it is (nothing is recorded)."""
    return t("clarify.confirm_new", question=one_line(q.question)) + f"\n\n> {one_line(text)}\n\n"
