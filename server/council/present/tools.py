"""The consult tools' titles and descriptions, as MCP clients and agents list them (``council mcp``); the VS Code
extension's ``languageModelTools`` contribution carries the same words."""

from __future__ import annotations

CONSULT = (
    "Consult the Council",
    "Ask a council of expert personas (architect, security, finance, Devil's Advocate, …) about a hard decision. "
    "Routing picks the relevant personas (or pass selected_personas); each answers independently, they vote, "
    "debate only while they disagree, and a chair writes one synthesis: agreements, conflicts, risks and "
    "trade-offs, ordered next steps. Returns one response per persona (summary, advice, assumptions, questions, "
    "next_steps, confidence) and the synthesis. depth: brief (2–3 bullets), standard (5–7), deep (10+). Takes "
    "from seconds to minutes depending on the model; progress is reported per stage. Clarifying questions are "
    "asked through the client when it supports elicitation, otherwise listed with the assumptions made.",
)
PERSONA_CONSULT = (
    "Consult one Council persona",
    "Ask one council persona (persona_name: e.g. Security Expert, Devil's Advocate, Financial Officer) for its "
    "view: summary, advice, assumptions, questions, ordered next_steps and confidence, plus a short synthesis. "
    "Same inputs and depth as council_consult.",
)
DEFINE_PERSONAS = (
    "Define Council personas",
    "List the council's persona contracts, or override a persona's soul, focus or constraints for this "
    "workspace. Draft-gated: a call with overrides writes nothing and returns the merged contracts and a draft "
    "(id and what would be written where); show the preview to the user, then call again with confirm set to "
    "the draft id to write it to <workspace>/.council/personas. Applying the same draft twice changes nothing.",
)
DECISIONS = (
    "Search past Council decisions",
    "Search this workspace's decision memory: the council's past decisions (question, options, outcome and tally, "
    "key arguments, assumptions, dissent, date). Pass query to find decisions about a similar question (most "
    "similar first), decision_id for one decision in full, or neither for the newest. Read-only; the memory is "
    "local to the workspace (.council/decisions.sqlite3) and only kept when the council runs with memory on.",
)
