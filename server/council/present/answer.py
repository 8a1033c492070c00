"""The council's final answer (one heading, each section once; after a revisit it opens with what changed), and
:class:`PresentWriter`, the texts the session stores as data (the seed's resolutionSummary and finalAnswer).

:class:`AnswerStream` shows the heading and the recommendation while the chair writes (``answer.delta``); what
streams is exactly how :func:`final_answer` begins, so ``final.answer`` adds only the rest — or, when they differ (a
repaired reply, an answer consolidated after the chair failed), the draft is withdrawn (``answer.withdrawn``, with
:func:`withdrawn`'s line for a chat, which cannot take back what it showed) and ``final.answer`` has the whole answer.
"""

from __future__ import annotations

from council.personas.names import shown
from council.present.debate import cycle_lines, cycles_run, option_name, tally_words
from council.present.evidence import precedents_section
from council.present.live_render import Fields, LiveRenderer
from council.present.outcome import debate_section, hinges_section
from council.present.text import clipped, join_names, one_line, section
from council.providers.kinds import BY_KIND, KINDS
from council.session.state.convergence import Convergence
from council.session.state.entities import ConversationSession, Revisit
from council.session.state.outputs import CouncilSynthesis, UserAnswer
from council.words import n, speaking, t

PROVIDERS = KINDS  # the kinds the catalog names (the provider table's words keys, provider.<kind>)
RECOMMENDATION_CHARS = 200  # of the recommendation a revisit replaced
FIELDS: Fields = (("recommendation", None),)  # what of the chair's SynthesisReply streams


def provider_name(kind: str) -> str:
    """A provider kind in plain words ("your chat model"); an unknown kind as it is."""
    return t(BY_KIND[kind].words) if kind in BY_KIND else kind


def models_used(session: ConversationSession) -> str:
    """"council-test-model (your chat model)" — plain words, one entry per model."""
    seen: dict[str, str] = {}
    chair = session.seating.chair.model if session.seating is not None else None
    for use in session.metadata.models.values():
        kind = use.provider.split(":")[0]
        where = provider_name(kind) if kind in PROVIDERS else use.provider
        if kind == "client" and chair is not None and use.model != chair:
            where = t("provider.client_other")  # a seat on a model the user offers, not the chat's own
        seen.setdefault(f"{use.model} ({where})", "")
    return join_names(sorted(seen))


def final_answer(session: ConversationSession, syn: CouncilSynthesis) -> str:
    out = [f"{t('answer.heading')}\n\n", what_changed(session, syn), syn.recommendation.strip(), "\n\n"]
    if session.tally:
        out.append(t("answer.vote", words=tally_words(session.tally)) + "\n\n")
    out += [
        debate_section(syn.debate, session.options),
        hinges_section(syn.hinges, session.options),
        section(t("answer.agreements"), syn.agreements),
        section(t("answer.conflicts"), syn.conflicts),
        section(t("answer.risks"), syn.risks_tradeoffs),
        section(t("answer.next_steps"), syn.next_steps, ordered=True),
        section(t("answer.dissent"), syn.dissent),
        section(t("answer.user_answers"), told(syn.user_answers)),
        section(t("answer.assumptions"), syn.assumptions),
        section(t("answer.notes"), syn.notes),
        precedents_section(session),
    ]
    models = models_used(session)
    if not session.discussions and len(session.personas) == 1:
        cycles = t("answer.one_advisor")
    else:  # the first vote is cycle 1, not a debate cycle: "after the first vote and 1 debate cycle"
        cycles = cycles_run(session.debate_cycles, after=True, unusable=len(session.unusable_cycles))
    out.append((t("answer.answered_with", models=models, cycles=cycles) if models else t("answer.after", cycles=cycles))
               + "\n")
    return "".join(out).strip() + "\n"


def told(answers: list[UserAnswer]) -> list[str]:
    """What the user told the council, one item per question: the question and their answer."""
    return [t("answer.told", question=one_line(a.question), answer=one_line(a.answer)) for a in answers]


def what_changed(s: ConversationSession, syn: CouncilSynthesis) -> str:
    """The block for the answer written after a revisit ('' when the answer is not one): the question, the answer
    that replaced the assumption, and whether the recommendation moved (the winning option before and after, and
    which advisors changed their vote)."""
    v: Revisit | None = s.open_revisit
    if v is None or not v.answer:
        return ""
    # the sentence's own full stop follows the bracket: "(… assumed: no deadline)." never "(… deadline.)."
    assumed = t("revisit.had_assumed", assumption=one_line(v.assumed).rstrip(" .")) if v.assumed else ""
    out = [t("revisit.revisited", question=one_line(v.question), answer=one_line(v.answer), assumed=assumed)
           + "\n\n"]
    winner = s.tally.winner if s.tally else None
    if v.winner_before or winner:
        before, after = option_name(s.options, v.winner_before), option_name(s.options, winner)
        if v.winner_before is None:  # no option won before (a tie, or no votes): never "moved from None"
            out.append(t("revisit.decided", after=after))
        elif winner is None:
            out.append(t("revisit.undecided", before=before))
        elif winner != v.winner_before:
            out.append(t("revisit.moved", before=before, after=after))
        else:
            out.append(t("revisit.stands", after=after))
        votes = {x.persona: x.option_id for x in s.votes if x.cycle == s.final_round}
        moved = [f"{shown(p)} ({v.votes_before[p]} → {o})" for p, o in votes.items()
                 if p in v.votes_before and v.votes_before[p] != o]
        out.append(t("revisit.votes_changed", advisors=n(len(moved), "advisor"), names=join_names(moved)) + "\n\n"
                   if moved else t("revisit.no_vote_changed") + "\n\n")
    else:  # a council of one: no vote to compare, the recommendation itself
        same = one_line(v.recommendation_before).lower() == one_line(syn.recommendation).lower()
        before = clipped(v.recommendation_before, RECOMMENDATION_CHARS)
        out.append(t("revisit.same") + "\n\n" if same else t("revisit.before", recommendation=before) + "\n\n")
    return "".join(out)


def streams(session: ConversationSession) -> bool:
    """Whether the answer begins with its recommendation (not after a revisit's what-changed block)."""
    v = session.open_revisit
    return v is None or not v.answer


class AnswerStream:
    """The streamed head of one answer: each piece appended once."""

    def __init__(self) -> None:
        self.live = LiveRenderer(None, FIELDS)
        self.sent = ""

    def feed(self, chunk: str) -> str:
        text = self.live.feed(chunk)
        if not text.strip() and not self.sent:
            return ""
        if not self.sent:
            text = f"{t('answer.heading')}\n\n" + text
        self.sent += text
        return text

    @property
    def text(self) -> str:
        """The recommendation shown so far, as plain text."""
        return self.live.sent.strip()

    def withdrawn(self, final_markdown: str) -> bool:
        """Whether what streamed is a draft the final answer does not begin with (it is withdrawn)."""
        return bool(self.sent) and not final_markdown.startswith(self.sent)

    def rest(self, final_markdown: str) -> str:
        """What ``final.answer`` shows: the final answer past what streamed, or all of it when the draft was
        withdrawn (after the withdrawal's line)."""
        if final_markdown.startswith(self.sent):
            return final_markdown[len(self.sent):]
        return final_markdown


def withdrawn() -> str:
    """The line under a withdrawn draft, for a client that cannot take back what it showed (``answer.withdrawn``)."""
    return f"\n\n{t('answer.withdrawn')}\n\n"


class PresentWriter:
    """Implements the engine's ``Writer`` contract with this package's wording."""

    def resolution_summary(self, session: ConversationSession, cycle: int, conv: Convergence | None,
                           stop: str | None) -> str:
        with speaking(session.settings.language):
            return " ".join(cycle_lines(session, cycle, conv, stop)).replace("**", "")

    def final_answer(self, session: ConversationSession, synthesis: CouncilSynthesis) -> str:
        with speaking(session.settings.language):
            return final_answer(session, synthesis)
