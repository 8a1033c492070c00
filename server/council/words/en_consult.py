"""The English catalog, the consult tools: the notes a consult adds to its synthesis, its progress lines, the
clarifying questions it asks through the client, why it has no answer, its plan and the compact text of its result
(``council.present.consult``; see ``council.words``)."""

from __future__ import annotations

WORDS: dict[str, str | tuple[str, ...]] = {
    "consult.item": ("{n} item", "{n} items"),
    "consult.item_upto": ("{n} item", "{n} items"),  # "cut to 3 items" (Russian: genitive)
    "consult.next_step": ("{n} next step", "{n} next steps"),
    "consult.persona": ("{n} persona", "{n} personas"),
    "consult.option": ("{n} option", "{n} options"),
    "consult.shortfall": "{persona} gave {items} in {field}; {depth} depth asks for {lo}–{hi}. Nothing was added to "
                         "make up the number.",
    "consult.trimmed": "{persona}: {fields} cut to {items} ({depth} depth).",
    "consult.steps_completed": "{steps} taken from the advisors' own next steps (the chair gave too few).",
    "consult.silent_one": "{names} gave no usable answer and is not listed.",
    "consult.silent_many": "{names} gave no usable answer and are not listed.",
    # --- progress ---------------------------------------------------------------------------------------------------
    "consult.stage.council": "Council: {names}.",
    "consult.stage.clarifying": "Clarifying: {question}",
    "consult.stage.options": "The moderator put {options} to the vote.",
    "consult.stage.cycle": "Cycle {cycle} done.",
    "consult.stage.tallied": "Votes tallied.",
    "consult.stage.answer_so_far": "The council's answer so far: {text}",
    "consult.stage.answer": "The chair wrote the synthesis.",
    "consult.stage.answered": "{persona} answered (cycle {cycle}).",
    "consult.stage.failed": "{persona} could not answer (cycle {cycle}): {cause}.",
    # --- no answer ----------------------------------------------------------------------------------------------------
    "consult.the_model": "the model",
    "consult.not_json": "not the JSON object asked for",
    "consult.unusable": "the council could not answer: every advisor's reply from {who} was unusable, also after one "
                        "repair ({said}). The council asks each model for one JSON object with the reply's fields; "
                        "{who} did not give one — ask with a model that follows such instructions",
    "consult.unreachable": "the council could not answer: no model could be reached (could not reach {hosts}); {fix}",
    "consult.all_failed": "the council could not answer: every advisor's model failed{why}; check the model "
                          "configuration (see `council doctor`)",
    # --- clarifying questions through the client (MCP elicitation) ----------------------------------------------------
    "consult.asks": "The council asks: {question}\n\nPick a choice or answer in your own words. Decline, and the "
                    "council assumes: {assumption}",
    "consult.choice": "Choice",
    "consult.your_answer": "Your answer",
    "consult.answer_hint": "Free text (leave empty to use the choice)",
    # --- the compact text of a result, and the plan -------------------------------------------------------------------
    "consult.recommendation": "**Recommendation:** {text}",
    "consult.vote": "Vote: {label} ({consensus}).",
    "consult.next_steps": "Next steps:",
    "consult.risks": "Risks:",
    "consult.open_questions": "Open questions:",
    "consult.assumed": "Assumed:",
    "consult.hinges": "Hinges on:",
    "consult.footer": "_{personas}, {cycles}, {calls}, {depth} depth; session {session}._",
    "consult.plan": "{names} ({depth} depth, {how}): {calls} model calls{retries}. {reason}",
    "consult.plan_cycles": "up to {cycles}",
    "consult.plan_alone": "no debate",
    "consult.positions": "Positions:",
    "consult.the_chat_model": "the chat's model",
    "consult.not_allowed_one": (
        "the council could not answer: Council has no permission to use {names}, so no "
        "advisor could answer; allow it under Manage Language Model Access (the Accounts "
        "menu), or pick a model Council may use in the chat's model picker, then call the "
        "tool again"
    ),
    "consult.not_allowed_many": (
        "the council could not answer: Council has no permission to use {names}, so no "
        "advisor could answer; allow them under Manage Language Model Access (the "
        "Accounts menu), or pick a model Council may use in the chat's model picker, then "
        "call the tool again"
    ),
    "consult.plan_retries": " (at most {bound} with retries)",
}
