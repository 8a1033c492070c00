"""The consult and review tools' titles and descriptions, as MCP clients and agents list them (``council mcp``);
the VS Code extension's ``languageModelTools`` contribution carries the same words."""

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
REVIEW = (
    "Council review of a change",
    "Submit a proposed change to the review council (seed 004 CouncilRequest: request_id, timestamp, proposer, "
    "change_type DECLARE_PASS | FREEZE_SPEC | UPDATE_CONFIG | CODE_REFACTOR, context with summary, files_changed "
    "and key_metrics, artifacts such as diff_content, spec_content, validation_report, monte_carlo_stats). The "
    "roles that sit for the change type (e.g. Code Reviewer, Quant Researcher, Risk Officer, Devil's Advocate) "
    "answer their checklists concurrently, debate one round if they disagree, and the outcome follows written "
    "rules: any blocking issue means REJECT, a missing artifact a role needs means NEEDS_MORE_INFO. Returns the "
    "CouncilDecision (final_outcome APPROVE | REJECT | NEEDS_MORE_INFO, axis_scores 0-10, summary_reasoning, "
    "blocking_issues, next_steps, notes) with every role's verdict and an audit of how it was reached. Large "
    "artifacts are cut to a budget and the notes say so. A review that cannot be done is an error, never a "
    "verdict. Takes from seconds to minutes; progress is reported per stage.",
)
DECISIONS = (
    "Search past Council decisions",
    "Search this workspace's decision memory: the council's past decisions (question, options, outcome and tally, "
    "key arguments, assumptions, dissent, date). Pass query to find decisions about a similar question (most "
    "similar first), decision_id for one decision in full, or neither for the newest. Read-only; the memory is "
    "local to the workspace (.council/decisions.sqlite3) and only kept when the council runs with memory on.",
)


def kept(memory: bool, transcripts: bool) -> str:
    """What a completed consult leaves behind on a server that keeps decisions (``memory``) or transcripts."""
    parts = (["its decision is kept in this workspace's decision memory (.council/decisions.sqlite3, searched by "
              "council_decisions)"] if memory else []) + \
        (["its transcript is written to the server's transcript folder"] if transcripts else [])
    return f"A completed consult is remembered: {' and '.join(parts)}."


ROOTS_WORKSPACE = ("The workspace is your first filesystem root (MCP roots; asked again when they change), else the "
                   "folder the server was started in: its .council/personas holds the persona overrides, and the "
                   "advisors may read a root's files as evidence.")
NO_WORKSPACE = "This server has no workspace: it lists the personas but cannot override them."
