"""What people read of the consult tools: bullet text, the notes a consult adds, progress lines, elicitation
prompts, the draft preview of persona overrides, and the compact text rendering of every tool result (the MCP
``content`` text and VS Code's tool result).

Structured results carry the data; this module only words it.
"""

from __future__ import annotations

from typing import Any

from council.present import outcome
from council.present.cost import by_model as by_model_text
from council.present.failures import cause, unreachable
from council.present.text import bullets, join_names, numbered, one_line, plural
from council.session.failure import ModelFailure
from council.session.outputs import DebateEffect, Hinge, VoteOption
from council.words import speaking, t

TEXT_ITEMS = 3  # items per list in the compact rendering (the structured result has them all)


def bullet_text(items: list[str]) -> str:
    """Markdown bullets, one per item, no trailing newline."""
    return bullets(items).rstrip("\n")


# --- notes a consult adds to the synthesis ---------------------------------------------------------------------
def shortfall_note(persona: str, field: str, count: int, depth: str, lo: int, hi: int) -> str:
    return (f"{persona} gave {plural(count, 'item')} in {field}; {depth} depth asks for {lo}–{hi}. Nothing was "
            "added to make up the number.")


def trimmed_note(persona: str, fields: list[str], hi: int, depth: str) -> str:
    return f"{persona}: {', '.join(fields)} cut to {hi} items ({depth} depth)."


def steps_completed_note(count: int) -> str:
    return f"{plural(count, 'next step')} taken from the advisors' own next steps (the chair gave too few)."


def silent_note(personas: list[str]) -> str:
    return f"{join_names(personas)} gave no usable answer and {'is' if len(personas) == 1 else 'are'} not listed."


COUNTERPOINTS = "Counterpoints:"


def with_counterpoints(advice: str, counterpoints: list[str]) -> str:
    """The Devil's Advocate's advice with its counterpoints (seed 000): a labelled list of its own after the
    advice's bullets, so the depth's bullet count stays the advice's."""
    return f"{advice}\n\n{COUNTERPOINTS}\n" + "\n".join(f"* {one_line(x)}" for x in counterpoints)


# --- progress -------------------------------------------------------------------------------------------------
def stage(event: dict[str, Any]) -> str | None:
    """A one-line progress message for a session event (None: not a stage worth reporting)."""
    kind = event.get("type")
    if kind == "progress":
        return str(event.get("message", "")) or None
    if kind in ("cost.estimated", "seat.fellBack", "seating.decided"):  # the cost before it is spent, the seats
        return one_line(str(event.get("markdown", "")).strip().strip("_").strip()) or None  # underscores in names stay
    if kind == "personas.selected":
        names = [p["name"] for p in event.get("selection", {}).get("selectedPersonas", [])]
        return f"Council: {join_names(names)}."
    if kind == "question.asked":
        return f"Clarifying: {one_line(event.get('question', {}).get('question', ''))}"
    if kind == "persona.completed":
        return persona_stage(event)
    if kind == "options.proposed":
        return f"The moderator put {plural(len(event.get('options', [])), 'option')} to the vote."
    if kind == "cycle.completed":
        return f"Cycle {event.get('cycle')} done."
    if kind == "votes.tallied":
        return "Votes tallied."
    if kind == "answer.delta":  # the answer as it comes: each report holds all of it so far
        return f"The council's answer so far: {one_line(str(event.get('text', '')))}" if event.get("text") else None
    if kind == "final.answer":
        return "The chair wrote the synthesis."
    return None


REPAIRED = "unusable reply after one repair attempt: "


def could_not_answer(causes: dict[str, ModelFailure], client_model: str | None) -> str:
    """Why a consult has no answer: every advisor failed. Replies that stayed unusable say what was wrong with them
    and whose model wrote them (the MCP client's model, over sampling); other failures give their cause."""
    who = client_model or "the model"
    if causes and all(f.kind == "malformed" for f in causes.values()):
        groups: dict[str, list[str]] = {}
        for persona, f in causes.items():
            reason = one_line(f.detail).removeprefix(REPAIRED) or "not the JSON object asked for"
            groups.setdefault(reason, []).append(persona)
        said = "; ".join(f"{join_names(names)}: {reason}" for reason, names in groups.items())
        return (f"the council could not answer: every advisor's reply from {who} was unusable, also after one "
                f"repair ({said}). The council asks each model for one JSON object with the reply's fields; "
                f"{who} did not give one — ask with a model that follows such instructions")
    hosts = unreachable(causes)
    if hosts is not None:
        with speaking("en"):  # the consult tools' texts are English; the fix is the chat's sentence
            fix = t("unreachable.fix")
        return f"the council could not answer: no model could be reached (could not reach {hosts}); {fix}"
    why = "; ".join(dict.fromkeys(cause(f) for f in causes.values()))
    return (f"the council could not answer: every advisor's model failed{f' ({why})' if why else ''}; check the "
            "model configuration (see `council doctor`)")


def persona_stage(event: dict[str, Any]) -> str:
    """A persona's reply came in, or it could not answer: why, in the words of a failed model call (a reply that
    stayed unusable after its repair attempt has no failure of its own: its output was malformed)."""
    persona, cycle = event.get("persona"), event.get("cycle")
    response = event.get("response") or {}
    if not response.get("abstained"):
        return f"{persona} answered (cycle {cycle})."
    failure = ModelFailure.model_validate(response.get("failure") or {"kind": "malformed"})
    return f"{persona} could not answer (cycle {cycle}): {cause(failure)}."


# --- clarifying questions through the client (MCP elicitation) -------------------------------------------------
def elicit_message(question: str, assumption: str) -> str:
    return (f"The council asks: {one_line(question)}\n\nPick a choice or answer in your own words. Decline, and "
            f"the council assumes: {one_line(assumption)}")


CHOICE_TITLE = "Choice"
ANSWER_TITLE = "Your answer"
ANSWER_HINT = "Free text (leave empty to use the choice)"
ELICITATION_EXPIRED = "no answer in time: the council assumes and goes on"


# --- define_personas ----------------------------------------------------------------------------------------------
ACTION_WORDS = {"create": "create", "update": "update", "unchanged": "leave unchanged (already applied)"}


def draft_preview(draft_id: str, directory: str, files: list[dict[str, Any]]) -> str:
    lines = [f"**Draft `{draft_id}`**: persona overrides for `{directory}`. Nothing is written until you call "
             f"again with `confirm: \"{draft_id}\"`.", ""]
    for f in files:
        lines.append(f"- {ACTION_WORDS[f['action']]} `{f['path']}` ({f['persona']}: {', '.join(f['fields'])})")
    return "\n".join(lines)


def define_text(result: dict[str, Any]) -> str:
    if result.get("applied"):
        written, unchanged = result.get("written", []), result.get("unchanged", [])
        parts = [f"Applied: wrote {plural(len(written), 'file')}" + (f" ({', '.join(written)})" if written else "")]
        if unchanged:
            parts.append(f"{plural(len(unchanged), 'file')} already held these overrides")
        return "; ".join(parts) + ". The next consult uses them."
    draft = result.get("draft")
    names = [p["name"] for p in result.get("personas", [])]
    head = f"{plural(len(names), 'persona')}: {join_names(names)}."
    return f"{draft['preview']}\n\n{head}" if draft else head


# --- the compact text of a consult ------------------------------------------------------------------------------
def consult_text(result: dict[str, Any]) -> str:
    """A few lines a person or an agent can read at a glance; the structured result has everything."""
    syn = result["synthesis"]
    lines = [f"**Recommendation:** {one_line(syn['recommendation'])}", ""]
    vote = result.get("vote")
    if vote and vote.get("winner"):
        label = vote["options"].get(vote["winner"], vote["winner"])
        lines += [f"Vote: {label} ({vote['consensus']}).", ""]
    lines += outcome_lines(result)
    if syn.get("next_steps"):
        lines += ["Next steps:", numbered(syn["next_steps"][:TEXT_ITEMS]).rstrip("\n"), ""]
    if syn.get("risks_tradeoffs"):
        lines += ["Risks:", bullet_text(syn["risks_tradeoffs"][:TEXT_ITEMS]), ""]
    for resp in result["responses"]:
        lines.append(f"- **{resp['persona']}** ({resp['confidence']}): {one_line(resp['position'])}")
    if result.get("open_questions"):
        lines += ["", "Open questions:", bullet_text(result["open_questions"][:TEXT_ITEMS])]
    if result.get("assumptions"):
        lines += ["", "Assumed:", bullet_text(result["assumptions"][:TEXT_ITEMS])]
    council = result["council"]
    by_model = result.get("calls_by_model") or {}
    calls = plural(result["model_calls"], "model call") + (f" ({by_model_text(by_model)})" if by_model else "")
    lines += ["", f"_{plural(len(council['personas']), 'persona')}, {plural(result['cycles'], 'cycle')}, "
                  f"{calls}, {result['depth']} depth; session {result['session_id']}._"]
    return "\n".join(lines).strip() + "\n"


def outcome_lines(result: dict[str, Any]) -> list[str]:
    """What the debate changed and what the answer hinges on, in a few lines (none when there is neither)."""
    lines: list[str] = []
    if result.get("debate") and result.get("vote"):
        options = [VoteOption(id=k, label=v, description=v) for k, v in result["vote"]["options"].items()]
        effect = DebateEffect.model_validate(result["debate"])
        lines += [outcome.debate_line(effect, options)] + [f"- {outcome.move_line(m)}." for m in effect.moves]
        lines.append("")
    hinges = [Hinge.model_validate({**h, "assumption_id": ""}) for h in result.get("hinges", [])]
    if hinges:
        lines += ["Hinges on:"] + [f"- {outcome.hinge_line(h)}" for h in hinges[:TEXT_ITEMS]] + [""]
    return lines


def plan_text(plan: dict[str, Any]) -> str:
    """What a consult is about to do (a confirmation prompt)."""
    names = plan["council"]["personas"]
    calls = plan["model_calls_min"] if plan["model_calls_min"] == plan["model_calls_max"] else \
        f"{plan['model_calls_min']}–{plan['model_calls_max']}"
    bound = plan.get("max_model_calls") or 0
    retries = f" (at most {bound} with retries)" if bound > plan["model_calls_max"] else ""
    return (f"{join_names(names)} ({plan['depth']} depth, up to {plural(plan['max_cycles'], 'debate cycle')}): "
            f"{calls} model calls{retries}. {plan['council']['reason']}")


def error_text(code: str, message: str) -> str:
    return f"Council {code} error: {message}"
