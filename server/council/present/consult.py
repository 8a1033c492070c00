"""What people read of the consult tools: the notes a consult adds, progress lines, elicitation prompts, the draft
preview of persona overrides, and the compact text of every tool result (the MCP ``content`` text and VS Code's tool
result); the structured results carry the data. The words are the catalogs' (``consult.*``) in the consult's
language (its question's); the persona overrides of ``council_define_personas`` have no session and stay English.
"""

from __future__ import annotations

import re
from typing import Any

from council.personas.names import shown
from council.present import outcome
from council.present.cost import by_model as by_model_text
from council.present.debate import cycles_planned, cycles_run, vote_words
from council.present.evidence import consensus
from council.present.failures import cause, unreachable
from council.present.text import bullets, grouped, join_names, numbered, one_line, plural
from council.session.state.outputs import UNUSABLE_NOTE, DebateEffect, Hinge, ModelFailure, VoteOption
from council.words import known, n, t

TEXT_ITEMS = 3  # items per list in the compact rendering (the structured result has them all)


def bullet_text(items: list[str]) -> str:
    return bullets(items).rstrip("\n")


# --- notes a consult adds to the synthesis ---------------------------------------------------------------------
def shortfall_note(persona: str, field: str, count: int, depth: str, lo: int, hi: int) -> str:
    return t("consult.shortfall", persona=shown(persona), items=n(count, "consult.item"), field=field, depth=depth,
             lo=lo, hi=hi)


def trimmed_note(persona: str, fields: list[str], hi: int, depth: str) -> str:
    return t("consult.trimmed", persona=shown(persona), fields=", ".join(fields), items=n(hi, "consult.item_upto"),
             depth=depth)


def steps_completed_note(count: int) -> str:
    return t("consult.steps_completed", steps=n(count, "consult.next_step"))


def silent_note(personas: list[str]) -> str:
    return t("consult.silent_one" if len(personas) == 1 else "consult.silent_many",
             names=join_names([shown(x) for x in personas]))


# --- progress -------------------------------------------------------------------------------------------------
_EMPHASIS = re.compile(r"\*\*|(?<!\w)_+|_+(?!\w)")  # bold, and underscores that open or close emphasis


def plain(markdown: str) -> str:
    """A sidecar's markdown paragraphs as one line of plain text: no emphasis markers (a progress message is not
    rendered), the underscores inside names (``COUNCIL_AGENT_CLIS``, ``claude_code``) kept."""
    return one_line(_EMPHASIS.sub("", markdown))


def stage(event: dict[str, Any]) -> str | None:
    """A one-line progress message for a session event (None: not a stage worth reporting)."""
    kind = event.get("type")
    if kind == "progress":
        return str(event.get("message", "")) or None
    if kind in ("cost.estimated", "seat.fellBack", "seating.decided"):  # the cost before it is spent, the seats
        return plain(str(event.get("markdown", ""))) or None
    if kind == "personas.selected":
        names = [p["name"] for p in event.get("selection", {}).get("selectedPersonas", [])]
        return t("consult.stage.council", names=join_names([shown(x) for x in names]))
    if kind == "question.asked":
        return t("consult.stage.clarifying", question=one_line(event.get("question", {}).get("question", "")))
    if kind == "persona.completed":
        return persona_stage(event)
    if kind == "options.proposed":
        return t("consult.stage.options", options=n(len(event.get("options", [])), "consult.option"))
    if kind == "cycle.completed":
        return t("consult.stage.cycle", cycle=event.get("cycle"))
    if kind == "votes.tallied":
        return t("consult.stage.tallied")
    if kind == "answer.delta":  # the answer as it comes: each report holds all of it so far
        text = one_line(str(event.get("text", "")))
        return t("consult.stage.answer_so_far", text=text) if text else None
    if kind == "answer.withdrawn":  # the answer so far reported above is not the answer
        return t("consult.stage.withdrawn")
    if kind == "final.answer":
        return t("consult.stage.answer")
    return None


def could_not_answer(causes: dict[str, ModelFailure], client_model: str | None) -> str:
    """Why a consult has no answer: every advisor failed. Replies that stayed unusable say what was wrong with them
    and whose model wrote them (the MCP client's model, over sampling); other failures give their cause."""
    who = client_model or t("consult.the_model")
    if causes and all(f.kind == "malformed" for f in causes.values()):
        groups = grouped((one_line(f.detail).removeprefix(UNUSABLE_NOTE) or t("consult.not_json"), shown(persona))
                         for persona, f in causes.items())
        said = "; ".join(f"{join_names(names)}: {reason}" for reason, names in groups.items())
        return t("consult.unusable", who=who, said=said)
    hosts = unreachable(causes)
    if hosts is not None:
        return t("consult.unreachable", hosts=hosts, fix=t("unreachable.fix"))
    why = "; ".join(dict.fromkeys(cause(f) for f in causes.values()))
    return t("consult.all_failed", why=f" ({why})" if why else "")


def not_allowed(models: list[str]) -> str:
    """Why a consult has no answer when the user did not allow the models it sat on (VS Code's consent): which, and
    how to allow them — the chat's line, for a tool that is called again rather than told to continue."""
    names = join_names(models) if models else t("consult.the_chat_model")
    return t("consult.not_allowed_many" if len(models) > 1 else "consult.not_allowed_one", names=names)


def persona_stage(event: dict[str, Any]) -> str:
    """A persona's reply came in, or it could not answer: why, in the words of a failed model call (a reply that
    stayed unusable after its repair attempt has no failure of its own: its output was malformed)."""
    persona, cycle = event.get("persona"), event.get("cycle")
    response = event.get("response") or {}
    if not response.get("abstained"):
        return t("consult.stage.answered", persona=shown(str(persona)), cycle=cycle)
    failure = ModelFailure.model_validate(response.get("failure") or {"kind": "malformed"})
    return t("consult.stage.failed", persona=shown(str(persona)), cycle=cycle, cause=cause(failure))


# --- clarifying questions through the client (MCP elicitation) -------------------------------------------------
def elicit_message(question: str, assumption: str) -> str:
    return t("consult.asks", question=one_line(question), assumption=one_line(assumption))


ELICITATION_EXPIRED = "no answer in time: the council assumes and goes on"  # a cancellation's reason (the log's)


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
def consult_text(result: dict[str, Any], spent: str = "") -> str:
    """A few lines a person or an agent can read at a glance; the structured result has everything. ``spent``: what
    the calls used as the models reported it (tokens, cost, premium requests), worded as the chat says it under the
    answer (``council.present.cost.spent_words``)."""
    syn = result["synthesis"]
    lines = [t("consult.recommendation", text=one_line(syn["recommendation"])), ""]
    vote = result.get("vote")
    if vote and (vote.get("consensus") == "tie" or (vote.get("consensus") == "none" and vote.get("winner"))):
        lines += [undecided_line(vote), ""]  # no winner: "Vote: Wait (tie)" named one side as the vote's choice
    elif vote and vote.get("winner"):
        label = vote["options"].get(vote["winner"], vote["winner"])
        lines += [t("consult.vote", label=label, consensus=consensus(vote["consensus"])), ""]
    lines += outcome_lines(result)
    if syn.get("next_steps"):
        lines += [t("consult.next_steps"), numbered(syn["next_steps"][:TEXT_ITEMS]).rstrip("\n"), ""]
    if syn.get("risks_tradeoffs"):
        lines += [t("consult.risks"), bullet_text(syn["risks_tradeoffs"][:TEXT_ITEMS]), ""]
    if result["responses"]:  # labelled, or Markdown joins the positions to the list above (the risks)
        lines.append(t("consult.positions"))
    for resp in result["responses"]:
        level = resp["confidence"]
        confidence = t(f"level.{level}") if known(f"level.{level}") else level
        lines.append(f"- **{shown(resp['persona'])}** ({confidence}): {one_line(resp['position'])}")
    if result.get("open_questions"):
        lines += ["", t("consult.open_questions"), bullet_text(result["open_questions"][:TEXT_ITEMS])]
    told = [c for c in result.get("clarifications", []) if c.get("status") == "answered" and c.get("answer")]
    if told:
        lines += ["", t("consult.told"), bullet_text([t("answer.told", question=one_line(c["question"]),
                                                        answer=one_line(c["answer"])) for c in told])]
    if result.get("assumptions"):
        lines += ["", t("consult.assumed"), bullet_text(result["assumptions"][:TEXT_ITEMS])]
    council = result["council"]
    by_model = result.get("calls_by_model") or {}
    cancelled = sum((result.get("cancelled_by_model") or {}).values())  # sent: named, never hidden (issue 31)
    where = "; ".join(x for x in (by_model_text(by_model) if by_model else "",
                                  t("calls.cancelled", cancelled=cancelled) if cancelled else "") if x)
    calls = n(result["model_calls"], "model_call") + (f" ({where})" if where else "")
    unusable = (result.get("debate") or {}).get("unusable_cycles", 0)  # cycles that ran, dropped: never "none followed"
    lines += ["", t("consult.footer", personas=n(len(council["personas"]), "consult.persona"),
                    cycles=cycles_run(result["cycles"], unusable=unusable), calls=calls, depth=result["depth"],
                    session=result["session_id"])]
    if spent:
        lines += ["", spent]
    return "\n".join(lines).strip() + "\n"


def undecided_line(vote: dict[str, Any]) -> str:
    """A vote without a winner as the answer's vote line words it (:func:`debate.vote_words`): a head-count tie
    between which options, and which leads on confidence (none when even); else no majority, and which leads."""
    words = vote_words(vote["consensus"], vote["counts"], vote.get("winner"), lambda oid: vote["options"].get(oid, oid))
    return t("consult.vote_words", words=words)


def outcome_lines(result: dict[str, Any]) -> list[str]:
    """What the debate changed and what the answer hinges on, in a few lines (none when there is neither)."""
    lines: list[str] = []
    vote = result.get("vote") or {}
    options = [VoteOption(id=k, label=v, description=v) for k, v in vote.get("options", {}).items()]
    if result.get("debate") and vote:
        effect = DebateEffect.model_validate(result["debate"])
        lines += [outcome.debate_line(effect, options)] + [f"- {outcome.move_line(m)}." for m in effect.moves]
        lines += [outcome.came_back_line(effect)] if effect.returned and not effect.moves else []
        lines += [outcome.dropped_line(effect)] if effect.dropped else []
        lines += [outcome.unusable_later_line()] if effect.unusable_cycles and effect.verdict != "unusable" else []
        lines.append("")
    hinges = [Hinge.model_validate(h) for h in result.get("hinges", [])]
    if hinges:
        lines += [t("consult.hinges")] + [f"- {outcome.hinge_line(h, options)}" for h in hinges[:TEXT_ITEMS]] + [""]
    return lines


def plan_text(plan: dict[str, Any], why: str) -> str:
    """What a consult is about to do (a confirmation prompt); ``why``: why these personas sit."""
    names = plan["council"]["personas"]
    calls = plan["model_calls_min"] if plan["model_calls_min"] == plan["model_calls_max"] else \
        f"{plan['model_calls_min']}–{plan['model_calls_max']}"
    bound = plan.get("max_model_calls") or 0
    retries = t("consult.plan_retries", bound=bound) if bound > plan["model_calls_max"] else ""
    how = t("consult.plan_alone") if len(names) == 1 else cycles_planned(plan["max_cycles"])
    return t("consult.plan", names=join_names([shown(x) for x in names]), depth=plan["depth"], how=how, calls=calls,
             retries=retries, reason=why)
