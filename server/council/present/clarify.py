"""Who sits on the council, the clarifying questions (with what hangs on each answer), the questions weighed and
not asked, their answers and the assumptions made for skipped ones, a question revisited after the answer, and the
check when an answer reads like a new question."""

from __future__ import annotations

from council.present.text import join_names, one_line, plural
from council.session.entities import Assumption, ClarificationQuestion, PersonaSelection, QuestionStatus

MAX_SHOWN = 3  # questions named in the line that says which were not asked


def _deciding_words(sel: PersonaSelection) -> list[str]:
    """The request's words that seated the council, each once, in the council's order."""
    found: list[str] = []
    for p in sel.selected_personas:
        found += [w for w in sel.chosen_for.get(p.name, []) if w not in found]
    return found[:6]


def selection(sel: PersonaSelection) -> str:
    names = join_names([f"**{p.name}**" for p in sel.selected_personas])
    decided = ", ".join(_deciding_words(sel))
    if sel.user_override and sel.method == "override":
        why = "You chose them."
    elif sel.user_override:  # named in the request: added to the routed council
        about = f" for: {decided}" if decided else ""
        why = f"Chosen{about}, with {join_names(sel.overridden_personas)} as you asked."
    elif decided:
        why = f"Chosen for: {decided}."
    else:
        why = "Chosen as the best fit for the question."
    return f"**The council:** {names}. _{why}_\n\n"


def question(q: ClarificationQuestion, remaining: int, revisit: bool = False) -> str:
    """The question and what skipping it means. Its choices are not listed: each client shows them once, as its
    layout (buttons in VS Code, a numbered list in ``council ask``), with what each favours from the event's data."""
    after = f" · {plural(remaining, 'more question')} after this one" if remaining else ""
    lead = "**The moderator asks again** _(you skipped it; your answer replaces the assumption)_" if revisit \
        else f"**The moderator asks**{f' _({after[3:]})_' if after else ''}"
    out = [f"{lead}\n\n{q.question.strip()}\n\n"]
    out.append(f"_If you skip it, the council assumes: {one_line(q.default_assumption)}_\n\n")
    return "".join(out)


def resolved(q: ClarificationQuestion) -> str:
    """An answered or deferred question (a skipped one is told by its assumption)."""
    if q.status is QuestionStatus.ANSWERED and q.user_answer is not None:
        return f"✓ _{one_line(q.question)}_ — **{one_line(q.user_answer.answer)}**\n\n"
    if q.status is QuestionStatus.DEFERRED:
        return f"_Deferred: “{one_line(q.question)}” — the moderator will come back to it._\n\n"
    return ""


def dropped(questions: list[ClarificationQuestion], reason: str, asked: int) -> str:
    """One line: why the council asks fewer questions than it weighed, or none (then it goes straight to the
    debate)."""
    if reason == "clear":
        return "_No clarifying questions: the moderator found nothing to ask whose answer would change the " \
               "recommendation, so the council goes straight to the debate._\n\n"
    named = "; ".join(f"“{one_line(q.question)}”" for q in questions[:MAX_SHOWN])
    more = f" and {plural(len(questions) - MAX_SHOWN, 'other')}" if len(questions) > MAX_SHOWN else ""
    same = _same_lean(questions)
    why = f"every likely answer favours {same}" if same else "every likely answer to each leads to the same " \
                                                                 "recommendation"
    if asked:
        return f"_Not asked: {named}{more} — {why}._\n\n"
    return (f"_No clarifying questions: the moderator weighed {plural(len(questions), 'question')} ({named}{more}) "
            f"and {why}, so the council goes straight to the debate._\n\n")


def _same_lean(questions: list[ClarificationQuestion]) -> str | None:
    """The one course every likely answer of every question favours, if there is one."""
    leans = {x.favours for q in questions if q.stakes for x in q.stakes.leans if x.favours}
    return f"“{one_line(leans.pop())}”" if len(leans) == 1 else None


def assumption(a: Assumption) -> str:
    return f"> **Assumed:** {one_line(a.assumption)}\n\n"


def confirm_new(q: ClarificationQuestion, text: str) -> str:
    """Typed text that reads like a new question while ``q`` is open: ask which it is (nothing is recorded)."""
    return (f"That reads like a new question. Is it your answer to *“{one_line(q.question)}”*, or a new question?"
            f"\n\n> {one_line(text)}\n\n")

