"""A vote and its confidence as the model meant them, over real JSON-RPC (issue 34, trust): personas are
asked for 0-1, and a model that writes a percentage (SmolLM2 on llama.cpp wrote ``"vote_confidence": 67``; a
grammar bounds no number) means that percentage — read as 0.67, where a clamp made it 1.0, the most weight a
vote can carry in the tally; a vote written as prose ("b because it is safer") is the option it names."""

from __future__ import annotations

import json

from .conftest import PROBLEM, persona_reply

COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
INDEPENDENT = ("changed_position", "change_reason")
WRITTEN = {"Software Architect": ("A", 67), "Senior Developer": ("A", 0.9), "Devil's Advocate": ("B", 0.8)}


def percentages() -> dict:
    return {"rules": [
        {"when": {"schema": "PersonaReply", "purpose": name, "cycle": 1},
         "reply": {k: v for k, v in persona_reply(position=f"{name} prefers option {option}.",
                                                  vote_confidence=confidence, continue_debate=False).items()
                   if k not in INDEPENDENT}}
        for name, (option, confidence) in WRITTEN.items()]}


async def test_a_vote_confidence_written_as_a_percentage_weighs_as_that_percentage(sidecar):
    async with sidecar(script=percentages(), args=["--max-cycles", "1"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL, "clarify": False}})
        assert r["status"] == "completed"
        snap = (await sc.call("council/snapshot", {"sessionId": r["sessionId"]}))["session"]
    votes = {v["persona"]: (v["optionId"], v["confidence"]) for v in snap["votes"]}
    assert votes == {"Software Architect": ("A", 0.67), "Senior Developer": ("A", 0.9), "Devil's Advocate": ("B", 0.8)}
    assert snap["tally"]["weights"] == {"A": 1.57, "B": 0.8}
    architect = next(x for x in snap["responses"] if x["persona"] == "Software Architect")
    assert architect["voteConfidence"] == 0.67 and not architect.get("note")  # read as written: no repair asked


async def second_cycle_votes(sidecar, said: dict) -> dict:
    """The snapshot of a two-cycle consult whose personas recommend as :data:`WRITTEN` says and then vote as ``said``
    (each persona's ``option_id`` in cycle 2, as its model wrote it)."""
    rules = [{"when": {"schema": "PersonaReply", "purpose": who, "cycle": 1},
              "reply": {k: v for k, v in persona_reply(position=f"{who} prefers option {option}.",
                                                       vote_confidence=0.8).items() if k not in INDEPENDENT}}
             for who, (option, _) in WRITTEN.items()]
    rules += [{"when": {"schema": "PersonaReply", "purpose": who, "cycle": 2},
               "reply": persona_reply(option_id=said[who], vote_confidence=0.7, continue_debate=False)}
              for who in COUNCIL]
    async with sidecar(script={"rules": rules}, args=["--min-cycles", "2", "--max-cycles", "2"]) as sc:
        r = await sc.call("council/consult", {"user_problem": PROBLEM, "speculate": "never",
                                              "selected_personas": COUNCIL})
        return (await sc.call("council/snapshot", {"sessionId": r["session_id"]}))["session"]


async def test_a_vote_written_as_a_lowercase_letter_before_words_or_in_markdown_is_that_letter(sidecar):
    """A model without a grammar writes its vote as prose: "b because it is safer" (b is no English word, so no
    article) and "**Option B**" are votes for B, read without a repair call (each named no option: a repair, then
    the persona's vote lost)."""
    said = {"Software Architect": "b because it is safer", "Senior Developer": "**Option B**", "Devil's Advocate": "B"}
    snap = await second_cycle_votes(sidecar, said)
    assert {v["persona"]: v["optionId"] for v in snap["votes"] if v["cycle"] == 2} == dict.fromkeys(COUNCIL, "B")
    assert {who: snap["metadata"]["models"][who]["calls"] for who in COUNCIL} == dict.fromkeys(COUNCIL, 2)


async def test_a_confidence_written_as_a_string_and_no_risks_written_as_null_cost_no_repair(sidecar):
    """A model without a grammar writes ``"vote_confidence": "67%"`` (or ``"0.9"``) and ``"risks": null`` (no risks
    beyond the Devil's Advocate's, which cycle 1 asks for but does not require): its vote weighs what it says, and
    no repair is asked (each was one, and then — a model that wrote it again — the persona's seat lost)."""
    written = {"Software Architect": {"vote_confidence": "67%"},
               "Senior Developer": {"vote_confidence": "0.9", "risks": None}, "Devil's Advocate": {}}
    said = {who: {"position": f"{who} prefers option {option}.", "vote_confidence": 0.8, "continue_debate": False,
                  **written[who]} for who, (option, _) in WRITTEN.items()}
    rules = [{"when": {"schema": "PersonaReply", "purpose": who, "cycle": 1},
              "reply": {k: v for k, v in persona_reply(**said[who]).items() if k not in INDEPENDENT}}
             for who in COUNCIL]
    async with sidecar(script={"rules": rules}, args=["--max-cycles", "1"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL, "clarify": False}})
        assert r["status"] == "completed"
        snap = (await sc.call("council/snapshot", {"sessionId": r["sessionId"]}))["session"]
    votes = {v["persona"]: (v["optionId"], v["confidence"]) for v in snap["votes"]}
    assert votes == {"Software Architect": ("A", 0.67), "Senior Developer": ("A", 0.9), "Devil's Advocate": ("B", 0.8)}
    assert not any(x["abstained"] or x.get("note") for x in snap["responses"])
    assert next(x for x in snap["responses"] if x["persona"] == "Senior Developer")["risks"] == []
    assert {who: snap["metadata"]["models"][who]["calls"] for who in COUNCIL} == dict.fromkeys(COUNCIL, 1)


async def test_a_vote_written_as_a_number_or_null_keeps_the_personas_reply(sidecar):
    """``"option_id": 2`` (the second option's number, as a JSON number) is a vote for B, and ``"option_id": null``
    is no vote (kept without one after the one repair a vote off the list gets); each failed the reply's parse: a
    repair, then the persona abstained."""
    said = {"Software Architect": 2, "Senior Developer": None, "Devil's Advocate": "B"}
    snap = await second_cycle_votes(sidecar, said)
    assert {v["persona"]: v["optionId"] for v in snap["votes"] if v["cycle"] == 2} == {
        "Software Architect": "B", "Devil's Advocate": "B"}
    assert not any(x["abstained"] for x in snap["responses"])
    assert {who: snap["metadata"]["models"][who]["calls"] for who in COUNCIL} == {
        "Software Architect": 2, "Senior Developer": 3, "Devil's Advocate": 2}


async def test_a_confidence_written_with_thousands_of_digits_is_a_huge_number_not_an_internal_error(sidecar):
    """A model that writes its confidence as an integer of 5000 digits (a grammar bounds no number) wrote a number
    past any share: the most, 1.0, read without a repair — Python refuses to read an integer of more than 4300
    digits, and that ValueError failed the whole turn as Council's own fault (``internal``)."""
    first = {k: v for k, v in persona_reply(position="Software Architect prefers option A.", vote_confidence=0.123,
                                            continue_debate=False).items() if k not in INDEPENDENT}
    rules = [{"when": {"schema": "PersonaReply", "purpose": "Software Architect", "cycle": 1},
              "reply": json.dumps(first).replace("0.123", "1" + "0" * 5000)}]
    async with sidecar(script={"rules": rules}, args=["--max-cycles", "1"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL, "clarify": False}})
        assert r["status"] == "completed"
        snap = (await sc.call("council/snapshot", {"sessionId": r["sessionId"]}))["session"]
    assert next(v for v in snap["votes"] if v["persona"] == "Software Architect")["confidence"] == 1.0
    assert snap["metadata"]["models"]["Software Architect"]["calls"] == 1
