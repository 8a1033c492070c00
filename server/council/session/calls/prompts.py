"""Prompt texts for every model call of a session, built from the session's state (no I/O, no model calls).

Stable parts come first for backends' prefix caches (llama.cpp, Ollama and cloud caches reuse the longest prefix a
request shares with an earlier one): the system message opens with the reply format (``formats``), then the role;
the user message with the problem brief, then what changes per call (a debate cycle's persona prompts, which share
all but their last part: :mod:`~council.session.calls.debate_prompts`). Every part is bounded. The moderator numbers
the advisors ("Advisor 1/2/…") so it can say which recommendation each option stands for.
"""

from __future__ import annotations

from typing import Any

from council.providers.base import ChatMessage
from council.session.calls.formats import format_block
from council.session.state.entities import ConversationSession, Depth, QuestionStatus
from council.session.state.grounds import EvidenceUse
from council.session.state.language import detect_language, session_language  # noqa: F401  (re-exported)
from council.session.state.outputs import PersonaResponse, VoteOption

CONTEXT_BUDGET = 6000  # characters of attached context carried into prompts
SOUL_BUDGET, FOCUS_BUDGET, RULES_BUDGET = 600, 450, 600  # a persona contract in the prompt
POSITION_BUDGET, POINT_BUDGET = 240, 160  # one peer's position, and each argument or risk quoted with it
OPTION_BUDGET = 120  # an option's label where the options are listed for a vote (its description is not repeated)
DIGEST_BUDGET = 1500  # all peers' lines together (more peers, shorter lines)
INPUT_BUDGET = 1000  # what the user added when re-opening the debate, each time
FOLLOW_UPS_SHOWN = 3  # earlier follow-up exchanges a follow-up prompt repeats (the latest ones)
FOLLOW_UP_TOKENS = 900  # reply budget of the moderator's answer to a follow-up
EVIDENCE_BUDGET = 6000  # characters of workspace evidence in one prompt (the newest results get room first)
EVIDENCE_MIN = 400  # the least room an evidence result gets before older ones are named only
OVERVIEW_ENTRIES = 40  # top-level workspace entries shown to the advisors
PRECEDENT_BUDGET = 1200  # all recalled past decisions together

#: Reply budget (tokens) of one persona contribution at each depth.
DEPTH_TOKENS: dict[Depth, int] = {Depth.BRIEF: 1000, Depth.STANDARD: 1600, Depth.DEEP: 2600}

DEPTH_BULLETS: dict[Depth, tuple[int, int]] = {Depth.BRIEF: (2, 3), Depth.STANDARD: (5, 7), Depth.DEEP: (10, 14)}

LANGUAGE_NAMES = {"ru": "Russian", "en": "English"}


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at a word boundary, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def items_text(items: list[str], limit: int) -> str:
    """Items joined with "; " (each without its own final period) until ``limit``; one period at the end."""
    out: list[str] = []
    size = 0
    for item in items:
        item = " ".join(item.split()).rstrip(". ")
        if out and size + len(item) + 2 > limit:
            break
        out.append(clip(item, limit))
        size += len(item) + 2
    return "; ".join(out) + "." if out else ""


def _join(items: list[str], limit: int) -> str:
    """A few quoted points, each clipped, joined with "; " (no ".;" where a point ends with a period)."""
    return "; ".join(clip(x, limit).rstrip(". ") for x in items)


def language_line(session: ConversationSession) -> str:
    name = LANGUAGE_NAMES.get(session.settings.language, "English")
    return f"Write every text value in {name}, the user's language."


def paragraphs(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


def _system(schema: dict[str, Any], role: str) -> ChatMessage:
    return ChatMessage(role="system", content=format_block(schema) + "\n\n" + role)


def problem_brief(session: ConversationSession) -> str:
    """The request, attached context, clarifications and assumptions, as every participant sees them."""
    parts = [f"The user's request:\n{session.request_text.strip()}"]
    if session.context_text:
        parts.append("Attached context (may be truncated):\n" + session.context_text[:CONTEXT_BUDGET])
    again = {v.question_id for v in session.revisits if v.answer}
    answered = [q for q in session.questions if q.status is QuestionStatus.ANSWERED and q.user_answer
                and q.question_id not in again]
    if answered:
        parts.append("Clarifications from the user:\n" + "\n".join(
            f"- Q: {q.question}\n  A: {q.user_answer.answer}" for q in answered if q.user_answer))
    if session.assumption_log:
        parts.append("Assumptions the council made (the user skipped these questions):\n" + "\n".join(
            f"- {a.assumption}" for a in session.assumption_log))
    revisited = [v for v in session.revisits if v.answer]
    if revisited:
        parts.append("After the council's answer the user answered questions it had skipped (the council had "
                     "assumed otherwise; weigh what this changes):\n" + "\n".join(
                         f"- Q: {v.question}\n  Assumed before: {v.assumed or 'nothing'}\n  Now: {v.answer}"
                         for v in revisited))
    if session.user_inputs:
        parts.append("The user re-opened the debate after the council's answer, adding:\n" + "\n".join(
            f"- {clip(x.text, INPUT_BUDGET)}" for x in session.user_inputs))
    if session.precedents:
        parts.append(precedents_text(session))
    return "\n\n".join(parts)


def precedents_text(session: ConversationSession) -> str:
    """Similar past decisions of this council, for context (the situation may have changed since)."""
    budget = max(200, PRECEDENT_BUDGET // len(session.precedents))
    lines = []
    for p in session.precedents:
        said = f" Key argument: {clip(p.arguments[0], POINT_BUDGET)}" if p.arguments else ""
        dissent = f" Dissent: {clip(p.dissent[0], POINT_BUDGET)}" if p.dissent else ""
        lines.append(clip(f"- {p.decided_at:%Y-%m-%d}, \"{clip(p.question, POINT_BUDGET)}\": decided "
                          f"\"{clip(p.outcome, POINT_BUDGET)}\" ({p.consensus}).{said}{dissent}", budget))
    return ("Similar past decisions of this council in this workspace (context only: the situation may have "
            "changed; say so if one applies):\n" + "\n".join(lines))


REFUSALS_FOR_MODELS = {
    "outside_workspace": "outside the workspace", "not_found": "no such file", "not_a_file": "a folder, not a file",
    "gitignored": "ignored by .gitignore", "secret": "a secrets file (never shown)",
    "hard_link": "a file with other names (hard links), never shown", "binary": "a binary file",
    "too_large": "over 1 MB", "bad_pattern": "the pattern does not compile", "unknown_tool": "no such tool",
    "timeout": "took too long", "no_workspace": "no workspace is open", "limit": "too many requests this cycle",
    "unreadable": "unreadable", "error": "the tool failed",
}


def _evidence_entry(u: EvidenceUse, room: int) -> str:
    what = f"{u.tool} {u.query!r}" + (" (regex)" if u.regex else "")
    if not u.ok:
        return f"[{u.use_id}] {what}: refused, {REFUSALS_FOR_MODELS.get(u.refusal or 'error', 'refused')}."
    head = f"[{u.use_id}] {what}" + (" (cut)" if u.truncated else "") + ":"
    if room <= 0:
        return f"{head} not repeated here (over the evidence budget; see earlier cycles)."
    body = u.text if len(u.text) <= room else u.text[: max(0, room - 1)] + "…"
    return f"{head}\n{body}"


def evidence_block(session: ConversationSession) -> str:
    """The evidence the advisors asked for ('' when there is none). The newest results get room first, each at
    most a fair share of the budget; older ones that do not fit are named, not repeated."""
    uses = session.tool_uses
    if not uses:
        return ""
    newest = [u for u in uses if u.cycle == uses[-1].cycle and u.ok]
    cap = max(EVIDENCE_MIN, EVIDENCE_BUDGET // max(1, len(newest)))
    room: dict[str, int] = {}
    left = EVIDENCE_BUDGET
    for u in reversed(uses):
        give = min(len(u.text), cap, left) if u.ok else 0
        room[u.use_id] = give if give >= min(EVIDENCE_MIN, len(u.text)) else 0
        left -= room[u.use_id]
    entries = "\n".join(_evidence_entry(u, room[u.use_id]) for u in uses)
    return ("Evidence from the user's workspace that the advisors asked for (cite it as [E1], [E2] …):\n"
            + entries)


def tools_text(session: ConversationSession) -> str:
    """How a persona asks for evidence, and where it can start ('' when the session has no evidence tools)."""
    if not session.settings.evidence:
        return ""
    shown = session.workspace_overview[:OVERVIEW_ENTRIES]
    more = " …" if len(session.workspace_overview) > len(shown) else ""
    top = f" Its top level: {', '.join(shown)}{more}." if shown else ""
    return ("You may look at the user's workspace: put up to 3 requests in evidence_requests (read_file a path, "
            "search_code some text or a regex, list_files a glob such as src/**/*.py). Every advisor reads the "
            f"results in the next cycle; ask only for what would change your advice.{top}")


def clarifier_messages(session: ConversationSession, schema: dict[str, Any], round_number: int,
                       asked: list[str]) -> list[ChatMessage]:
    # what each field holds (candidates, choices and what they favour, the default assumed) the schema's words say
    role = (
        "You are the moderator of an advisory council. Before the council debates, decide whether its answer "
        "would change with facts only the user knows (scope, timeline, priority, constraints, budget, audience, "
        "risk tolerance, goal). If so, plan at most 3 short, targeted questions, most decision-relevant first. A "
        "question is worth asking only if its answers favour different candidates: leave out any question whose "
        "every answer leads to the same recommendation. If the request is clear and specific, set "
        "needs_clarification to false and ask nothing. " + language_line(session)
    )
    user = problem_brief(session)
    if asked:
        user += "\n\nAlready asked (do not repeat):\n" + "\n".join(f"- {q}" for q in asked)
    user += f"\n\nThis is clarification round {round_number} of at most 3."
    return [_system(schema, role), ChatMessage(role="user", content=user)]


def options_messages(session: ConversationSession, schema: dict[str, Any],
                     latest: list[PersonaResponse]) -> list[ChatMessage]:
    """The moderator turns the independent recommendations into options and says who recommends which."""
    role = (
        "You moderate an advisory council. From the advisors' recommendations, extract 2 to 4 concrete, mutually "
        "exclusive options the council can vote on (each a course of action, not a topic). List under each option "
        "the numbers of the advisors who recommend it; leave out an advisor whose recommendation fits no option "
        "or more than one. " + language_line(session)
    )
    budget = max(200, DIGEST_BUDGET // max(1, len(latest)))
    lines = [clip(f"- Advisor {i} [{r.confidence}, {r.vote_confidence:.1f}]: {clip(r.position, POSITION_BUDGET)}"
                  + (f" Argument: {clip(r.advice[0], POINT_BUDGET)}" if r.advice else ""), budget)
             for i, r in enumerate(latest, start=1)]
    user = problem_brief(session) + "\n\nThe advisors' recommendations:\n" + "\n".join(lines)
    return [_system(schema, role), ChatMessage(role="user", content=user)]


def choice_messages(session: ConversationSession, schema: dict[str, Any], persona: str, identity: str,
                    own: PersonaResponse, options: list[VoteOption]) -> list[ChatMessage]:
    """An advisor the moderator could not place under one option is asked which option is its own: who it is, the
    question, its own first recommendation and the options — not its peers' (the first vote stays independent)."""
    who = f"You are {persona}, an advisor on a council" + (f": {clip(identity, POSITION_BUDGET)}" if identity else ".")
    role = (who + " The moderator turned the advisors' recommendations into options for a vote. Say which option is "
            "your own recommendation: its letter. " + language_line(session))
    listed = "\n".join(f"- {o.id}: {clip(o.label, OPTION_BUDGET)} — {clip(o.description, POSITION_BUDGET)}"
                       for o in options)
    user = paragraphs(problem_brief(session), f"Your recommendation: {clip(own.position, POSITION_BUDGET)}",
                      f"The options:\n{listed}")
    return [_system(schema, role), ChatMessage(role="user", content=user)]


def synthesis_messages(session: ConversationSession, schema: dict[str, Any], outcome: str,
                       latest: list[PersonaResponse]) -> list[ChatMessage]:
    budget = max(300, DIGEST_BUDGET // max(1, len(latest)))
    positions = "\n".join(
        clip(f"- {r.persona} [{r.confidence}]: {clip(r.position, POSITION_BUDGET)} Advice: "
             + _join(r.own_advice[:2], POINT_BUDGET) + "."  # its counterpoints are its risks, named next
             + (f" Risks: {_join(r.risks[:2], POINT_BUDGET)}." if r.risks else ""), budget)
        for r in latest if not r.abstained
    )
    role = (
        "You chair an advisory council and write its single consolidated answer for the user: a clear "
        "recommendation, where the advisors agree, where they conflict, the risks and trade-offs, and one ordered "
        "list of next steps (first step first). Do not invent facts the advisors did not raise. "
        + language_line(session)
    )
    user = paragraphs(problem_brief(session), evidence_block(session),
                       f"Advisors' final positions:\n{positions}\n\nVote outcome: {outcome}")
    if session.assumption_log:
        user += ("\n\nThe assumptions, numbered. In hinges, for each: would your recommendation change if it were "
                 "false, how critical it is, and what the council would recommend then:\n" + "\n".join(
                     f"{i}. {clip(a.assumption, POINT_BUDGET)}" for i, a in enumerate(session.assumption_log, 1)))
    return [_system(schema, role), ChatMessage(role="user", content=user)]


FOLLOW_UP_ROLE = (
    "You moderated an advisory council that has finished its debate and given its answer. The user now asks a "
    "follow-up question. Answer it from what the council said: the request, the clarifications and "
    "assumptions, each advisor's final position and vote, and the council's answer. Name the advisors when the "
    "question is about them. If the council did not discuss something, say so plainly; never invent what an "
    "advisor said. Keep it short: a few sentences or short paragraphs."
)


def _final_positions(session: ConversationSession, latest: list[PersonaResponse]) -> str:
    """Each advisor's final position, its vote (with the option's label) and its main argument and risk."""
    votes = {v.persona: v for v in session.votes_in(session.final_round)}
    labels = {o.id: o.label for o in session.options}
    budget = max(300, DIGEST_BUDGET // max(1, len(latest)))
    lines = []
    for r in latest:
        vote = votes.get(r.persona)
        voted = (f" Voted {vote.option_id} ({clip(labels.get(vote.option_id, ''), OPTION_BUDGET)}), "
                 f"confidence {vote.confidence:.1f}." if vote else " No vote.")
        said = "abstained." if r.abstained else clip(r.position, POSITION_BUDGET)
        extra = "" if r.abstained else (f" Argument: {_join(r.advice[:1], POINT_BUDGET)}." if r.advice else "") + (
            f" Risks: {_join(r.risks[:2], POINT_BUDGET)}." if r.risks else "")
        lines.append(clip(f"- {r.persona}: {said}{voted}{extra}", budget))
    return "\n".join(lines)


def follow_up_messages(session: ConversationSession, schema: dict[str, Any], latest: list[PersonaResponse],
                       outcome: str | None, question: str) -> list[ChatMessage]:
    """The moderator answers a follow-up from the session: problem, positions and votes, the answer, earlier
    follow-ups, then the question."""
    user = paragraphs(problem_brief(session), evidence_block(session),
                       f"Advisors' final positions and votes:\n{_final_positions(session, latest)}")
    user += f"\n\nVote outcome: {outcome}" if outcome else ""
    syn = session.synthesis
    if syn is not None:
        user += (f"\n\nThe council's answer: {clip(syn.recommendation, POSITION_BUDGET * 2)}"
                 + (f"\nNext steps: {_join(syn.next_steps[:5], POINT_BUDGET)}." if syn.next_steps else "")
                 + (f"\nConflicts: {_join(syn.conflicts[:3], POINT_BUDGET)}." if syn.conflicts else "")
                 + (f"\nDissent: {_join(syn.dissent[:3], POSITION_BUDGET)}." if syn.dissent else ""))
    earlier = session.follow_ups[-FOLLOW_UPS_SHOWN:]
    if earlier:
        user += "\n\nEarlier follow-up questions:\n" + "\n".join(
            f"- Q: {clip(f.question, POINT_BUDGET)}\n  A: {clip(f.answer, POSITION_BUDGET)}" for f in earlier)
    user += f"\n\nThe user's follow-up question:\n{clip(question, INPUT_BUDGET)}"
    return [_system(schema, FOLLOW_UP_ROLE + " " + language_line(session)), ChatMessage(role="user", content=user)]


REPAIR_ECHO = 1200  # characters of the bad reply a repair repeats (its start: what was written, not all of it)


def repair_messages(messages: list[ChatMessage], bad_reply: str, reason: str) -> list[ChatMessage]:
    """The original conversation plus the start of the bad reply (whitespace collapsed) and what was wrong with it,
    for one repair attempt."""
    echo = " ".join(bad_reply.split())
    echo = echo if len(echo) <= REPAIR_ECHO else echo[: REPAIR_ECHO - 1] + "…"
    return [*messages, ChatMessage(role="assistant", content=echo), ChatMessage(
        role="user",
        content=f"That reply could not be used: {reason}. Reply again with only the corrected JSON object.",
    )]
