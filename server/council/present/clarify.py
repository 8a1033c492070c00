"""Who sits on the council, the clarifying questions (with what hangs on each answer), the questions weighed and
not asked, their answers and the assumptions made for skipped ones, a question revisited after the answer, and the
check when an answer reads like a new question."""

from __future__ import annotations

from council.personas.names import shown
from council.present.text import join_names, one_line
from council.session.state.entities import Assumption, ClarificationQuestion, PersonaSelection, QuestionStatus
from council.words import n, t

MAX_SHOWN = 3  # questions named in the line that says which were not asked


def deciding_words(names: list[str], chosen_for: dict[str, list[str]]) -> list[str]:
    """The request's words that seated the council (``names``, in its order), each once."""
    found: list[str] = []
    for name in names:
        found += [w for w in chosen_for.get(name, []) if w not in found]
    return found[:6]


def why_chosen(user_override: bool, method: str, overridden: list[str], decided: list[str]) -> str:
    """Why these personas sit: the user chose them, named some of them, or the words of the question seated them."""
    words = ", ".join(decided)
    if user_override and method == "override":
        return t("clarify.why.yours")
    if user_override:  # named in the request: added to the routed council
        about = t("clarify.why.for", words=words) if words else ""
        return t("clarify.why.added", about=about, names=join_names([shown(x) for x in overridden]))
    return t("clarify.why.chosen_for", words=words) if words else t("clarify.why.best")


def selection(sel: PersonaSelection) -> str:
    names = [p.name for p in sel.selected_personas]
    why = why_chosen(sel.user_override, sel.method, sel.overridden_personas, deciding_words(names, sel.chosen_for))
    return t("clarify.council", names=join_names([f"**{shown(name)}**" for name in names]), why=why) + "\n\n"


def question(q: ClarificationQuestion, remaining: int, revisit: bool = False) -> str:
    """The question and what skipping it means. Its choices are not listed: each client shows them once, as its
    layout (buttons in VS Code, a numbered list in ``council ask``), with what each favours from the event's data."""
    after = f" _({t('clarify.remaining', more=n(remaining, 'more_question'))})_" if remaining else ""
    lead = t("clarify.asks_again") if revisit else f"{t('clarify.asks')}{after}"
    skipped = t("clarify.if_skipped", assumption=one_line(q.default_assumption))
    return f"{lead}\n\n{q.question.strip()}\n\n{skipped}\n\n"


def resolved(q: ClarificationQuestion) -> str:
    """An answered or deferred question (a skipped one is told by its assumption)."""
    if q.status is QuestionStatus.ANSWERED and q.user_answer is not None:
        return f"✓ _{one_line(q.question)}_ — **{one_line(q.user_answer.answer)}**\n\n"
    if q.status is QuestionStatus.DEFERRED:
        return t("clarify.deferred", question=one_line(q.question)) + "\n\n"
    return ""


def reused(q: ClarificationQuestion) -> str:
    """A question answered or skipped with the user's reply from before a reload: one line, never the question as
    if it were asked (a skip's assumption follows on its own line)."""
    question = t("quoted", text=one_line(q.question))
    if q.status is QuestionStatus.ANSWERED and q.user_answer is not None:
        return t("reused.answer", question=question, answer=one_line(q.user_answer.answer)) + "\n\n"
    return t("reused.skip", question=question) + "\n\n"


def dropped(questions: list[ClarificationQuestion], reason: str, asked: int) -> str:
    """One line: why the council asks fewer questions than it weighed, or none (then it goes straight to the
    debate)."""
    if reason == "clear":
        return t("dropped.clear") + "\n\n"
    named = "; ".join(t("quoted", text=one_line(q.question)) for q in questions[:MAX_SHOWN])
    more = t("dropped.more", others=n(len(questions) - MAX_SHOWN, "other")) if len(questions) > MAX_SHOWN else ""
    same = _same_lean(questions)
    why = t("dropped.favours", course=same) if same else t("dropped.same")
    if asked:
        return t("dropped.not_asked", named=named, more=more, why=why) + "\n\n"
    return t("dropped.weighed", questions=n(len(questions), "question"), named=named, more=more, why=why) + "\n\n"


def _same_lean(questions: list[ClarificationQuestion]) -> str | None:
    """The one course every likely answer of every question favours, if there is one."""
    leans = {x.favours for q in questions if q.stakes for x in q.stakes.leans if x.favours}
    return t("quoted", text=one_line(leans.pop())) if len(leans) == 1 else None


def assumption(a: Assumption) -> str:
    return t("clarify.assumed", assumption=one_line(a.assumption)) + "\n\n"


def confirm_new(q: ClarificationQuestion, text: str) -> str:
    """Typed text that reads like a new question while ``q`` is open: ask which it is (nothing is recorded)."""
    return t("clarify.confirm_new", question=one_line(q.question)) + f"\n\n> {one_line(text)}\n\n"

