"""The council's final answer: recommendation, vote, what the debate changed, what the answer hinges on,
agreements, conflicts, risks, ordered next steps, dissent, assumptions and notes — one heading, each section
once."""

from __future__ import annotations

from council.present.debate import tally_words
from council.present.evidence import precedents_section
from council.present.outcome import debate_section, hinges_section
from council.present.revisit import what_changed
from council.present.text import join_names, section
from council.session.state.entities import ConversationSession
from council.session.state.outputs import CouncilSynthesis
from council.words import n, t

PROVIDERS = ("client", "embedded", "ollama", "openai", "scripted")  # the kinds the catalog names (provider.<kind>)


def provider_name(kind: str) -> str:
    """A provider kind in plain words ("your chat model"); an unknown kind as it is."""
    return t(f"provider.{kind}") if kind in PROVIDERS else kind


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
        hinges_section(syn.hinges),
        section(t("answer.agreements"), syn.agreements),
        section(t("answer.conflicts"), syn.conflicts),
        section(t("answer.risks"), syn.risks_tradeoffs),
        section(t("answer.next_steps"), syn.next_steps, ordered=True),
        section(t("answer.dissent"), syn.dissent),
        section(t("answer.assumptions"), syn.assumptions),
        section(t("answer.notes"), syn.notes),
        precedents_section(session),
    ]
    models = models_used(session)
    cycles = n(session.debate_cycles, "debate_cycle_after") if session.discussions or len(session.personas) != 1 \
        else t("answer.one_advisor")
    out.append((t("answer.answered_with", models=models, cycles=cycles) if models else t("answer.after", cycles=cycles))
               + "\n")
    return "".join(out).strip() + "\n"
