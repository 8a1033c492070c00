"""The council's final answer: recommendation, vote, what the debate changed, what the answer hinges on,
agreements, conflicts, risks, ordered next steps, dissent, assumptions and notes — one heading, each section
once."""

from __future__ import annotations

from council.present.debate import tally_words
from council.present.evidence import precedents_section
from council.present.outcome import debate_section, hinges_section
from council.present.revisit import what_changed
from council.present.text import join_names, plural, section
from council.session.entities import ConversationSession
from council.session.outputs import CouncilSynthesis

ANSWER_HEADING = "## The council's answer"

PROVIDERS = {
    "client": "your chat model",
    "embedded": "the embedded model",
    "ollama": "Ollama",
    "openai": "an OpenAI-compatible server",
    "scripted": "the scripted test model",
}


def models_used(session: ConversationSession) -> str:
    """"council-test-model (your chat model)" — plain words, one entry per model."""
    seen: dict[str, str] = {}
    chair = session.seating.chair.model if session.seating is not None else None
    for use in session.metadata.models.values():
        where = PROVIDERS.get(use.provider.split(":")[0], use.provider)
        if use.provider == "client" and chair is not None and use.model != chair:
            where = "another of your chat models"  # a seat on a model the user offers, not the chat's own
        seen.setdefault(f"{use.model} ({where})", "")
    return join_names(sorted(seen))


def final_answer(session: ConversationSession, syn: CouncilSynthesis) -> str:
    out = [f"{ANSWER_HEADING}\n\n", what_changed(session, syn), syn.recommendation.strip(), "\n\n"]
    if session.tally:
        out.append(f"**Vote:** {tally_words(session.tally)}.\n\n")
    out += [
        debate_section(syn.debate, session.options),
        hinges_section(syn.hinges),
        section("Where the council agrees", syn.agreements),
        section("Where it disagrees", syn.conflicts),
        section("Risks and trade-offs", syn.risks_tradeoffs),
        section("Next steps", syn.next_steps, ordered=True),
        section("Dissent", syn.dissent),
        section("Assumptions the council made", syn.assumptions),
        section("Notes", syn.notes),
        precedents_section(session),
    ]
    models = models_used(session)
    cycles = plural(session.debate_cycles, "debate cycle") if session.discussions or len(session.personas) != 1 \
        else "one advisor's answer (a council of one does not debate)"
    out.append(f"_Answered with {models} after {cycles}._\n" if models else f"_After {cycles}._\n")
    return "".join(out).strip() + "\n"
