"""What the answer rests on, over real JSON-RPC (issue 20): the Devil's Advocate rule in a chat session (a reply
without counterpoints is repaired once; its counterpoints reach the synthesis's risks, not only the dissent), the
assumptions the answer hinges on with a revisit offer each, and what the debate changed — a debate that confirms
the first vote and one that overturns it — in the answer, the snapshot, the transcript and the consult result."""

from __future__ import annotations

from .conftest import PROBLEM, events_of, persona_reply

COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
DEVIL = "Devil's Advocate"
COUNTERPOINT = "A split doubles the on-call load of a team of four."
INDEPENDENT = ("changed_position", "change_reason")


def first_reply(**over) -> dict:
    return {k: v for k, v in persona_reply(**over).items() if k not in INDEPENDENT}


def devil_needs_a_repair() -> dict:
    """The Devil's Advocate's first reply has no counterpoints; the repair (and every later reply) has one."""
    return {"rules": [
        {"when": {"schema": "PersonaReply", "purpose": DEVIL, "cycle": 1}, "times": 1,
         "reply": first_reply(position="Devil's Advocate prefers option B.", risks=[], vote_confidence=0.9)},
        {"when": {"schema": "PersonaReply", "purpose": DEVIL, "cycle": 1},
         "reply": first_reply(position="Devil's Advocate prefers option B.", risks=[COUNTERPOINT],
                              vote_confidence=0.9)},
        {"when": {"schema": "PersonaReply", "purpose": DEVIL},
         "reply": persona_reply(option_id="B", risks=[COUNTERPOINT], continue_debate=False)},
    ]}


async def test_chat_devils_advocate_without_counterpoints_is_repaired_and_they_reach_the_risks(sidecar):
    async with sidecar(script=devil_needs_a_repair(), args=["--max-cycles", "2", "--min-cycles", "2"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL, "clarify": False}})
        assert r["status"] == "completed"
        got = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
        completed = events_of(sc, r["sessionId"], "persona.completed")
    snap, transcript = got["session"], got["transcriptMarkdown"]
    devil = [x for x in snap["responses"] if x["persona"] == DEVIL]
    # seed 000: its advice carries its counterpoints — composed once by the sidecar, read so by every surface
    advice = [f"advice {i}" for i in range(5)] + [f"Counterpoint: {COUNTERPOINT}"]
    assert [x["advice"] for x in devil] == [advice, advice] and devil[0]["counterpoints"] == [COUNTERPOINT]
    assert [e["response"]["advice"] for e in completed if e["persona"] == DEVIL] == [advice, advice]
    others = [x for x in snap["responses"] if x["persona"] != DEVIL]
    assert others and not any(x["counterpoints"] or "Counterpoint" in " ".join(x["advice"]) for x in others)
    blocks = transcript.split(f"#### {DEVIL}")[1:]
    assert len(blocks) == 2 and all(f"- Counterpoint: {COUNTERPOINT}" in b.split("**Risks**")[0] for b in blocks)
    assert [x["risks"] for x in devil] == [[COUNTERPOINT], [COUNTERPOINT]] and not devil[0]["abstained"]
    assert devil[0]["note"] == "repaired after one retry"
    assert snap["metadata"]["models"][DEVIL]["calls"] == 3  # cycle 1, its repair, cycle 2
    assert COUNTERPOINT in snap["synthesis"]["risksTradeoffs"]
    risks = r["finalAnswer"].split("### Risks and trade-offs", 1)[1].split("###", 1)[0]
    assert f"- {COUNTERPOINT}" in risks  # in the synthesis's risks, not only in "Dissent"


async def test_chat_answer_marks_its_hinges_offers_revisits_and_says_what_the_debate_changed(sidecar):
    async with sidecar(args=["--max-cycles", "2", "--min-cycles", "2"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL}})
        sid, asked = r["sessionId"], r["question"]
        r = await sc.call("council/turn", {"sessionId": sid, "text": "", "command": "skipAll"})
        assert r["status"] == "completed"
        got = await sc.call("council/snapshot", {"sessionId": sid})
    snap, transcript = got["session"], got["transcriptMarkdown"]
    # the first question's assumption ("ship faster") had another likely answer favouring another option ("cut
    # costs": B): the engine states the hinge; the scripted chair, which hinges on the first assumption, refines it
    goal = snap["assumptionLog"][0]
    hinge = snap["synthesis"]["hinges"]
    said = "Wait until more information is available."
    assert hinge == [{"assumptionId": goal["assumptionId"], "assumption": goal["assumption"],
                      "questionId": asked["questionId"], "question": asked["question"], "basis": "assumed",
                      "criticality": "high", "ifFalse": said, "chair": said,
                      "alternatives": [{"answer": "Cut costs", "favours": "Wait", "optionId": "B"}]}]
    assert r["revisit"] == [{"questionId": asked["questionId"], "label": f"Revisit: {goal['assumption']}"}]
    assert (f"1. **{goal['assumption']}** _(assumed: you skipped “{asked['question']}”)_ If instead *Cut costs*, the "
            f"council would lean to **B · Wait**. The chair: {said} _(high)_") in r["finalAnswer"]
    # the scripted council votes A, A, B in both rounds: the debate confirmed the first vote
    debate = snap["synthesis"]["debate"]
    assert debate["verdict"] == "confirmed" and debate["firstWinner"] == debate["finalWinner"] == "A"
    assert debate["moves"] == [] and debate["conformityFlags"] == 0
    line = "The debate confirmed the first vote: **A · Staged approach** won both (A 2 · B 1 → A 2 · B 1)."
    assert line in r["finalAnswer"] and line in transcript and "### What the answer hinges on" in transcript


ARGUMENT = "Advisor C's point that the on-call load doubles, which our team of four cannot carry"


def overturning_debate() -> dict:
    """Cycle 1: the architect and the developer prefer A, the Devil's Advocate B; in cycle 2 the architect moves to B
    naming an argument and the developer follows without one (possible conformity): B wins the final vote."""
    rules = [{"when": {"schema": "PersonaReply", "purpose": name, "cycle": 1},
              "reply": first_reply(position=f"{name} prefers option {option}.", vote_confidence=0.8)}
             for name, option in zip(COUNCIL, "AAB", strict=True)]
    rules += [{"when": {"schema": "PersonaReply", "purpose": name, "cycle": 2},
               "reply": persona_reply(option_id="B", changed_position=name != DEVIL, change_reason=why)}
              for name, why in zip(COUNCIL, (ARGUMENT, "", ""), strict=True)]
    return {"rules": rules}


async def test_a_debate_that_overturns_the_first_vote_says_so_in_the_answer_snapshot_transcript_and_consult(sidecar):
    async with sidecar(script=overturning_debate(), args=["--max-cycles", "2", "--min-cycles", "2"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL, "clarify": False}})
        assert r["status"] == "completed"
        got = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
        consult = await sc.call("council/consult", {"user_problem": PROBLEM, "selected_personas": COUNCIL})
    line = ("The debate overturned the first vote: **A · Staged approach** led it, **B · Wait** won the final one "
            "(A 2 · B 1 → B 3).")
    moved = [f"- Software Architect moved from A to B: {ARGUMENT}.",
             "- Senior Developer moved from A to B without naming an argument ⚠️ possible conformity."]
    for text in (r["finalAnswer"], got["transcriptMarkdown"], consult["markdown"]):
        assert line in text and all(m in text for m in moved)
    chat, tool = got["session"]["synthesis"]["debate"], consult["debate"]
    assert chat["verdict"] == tool["verdict"] == "overturned" and len(chat["moves"]) == len(tool["moves"]) == 2
    assert chat["conformityFlags"] == tool["conformity_flags"] == 1


def devil_agrees() -> dict:
    """The Devil's Advocate recommends and votes A like the others, with its counterpoint: a unanimous vote."""
    return {"rules": [
        {"when": {"schema": "PersonaReply", "purpose": DEVIL, "cycle": 1},
         "reply": first_reply(position="Devil's Advocate prefers option A.", risks=[COUNTERPOINT])},
        {"when": {"schema": "PersonaReply", "purpose": DEVIL},
         "reply": persona_reply(option_id="A", risks=[COUNTERPOINT], continue_debate=False)},
    ]}


async def test_a_unanimous_answer_has_no_dissent_and_lists_the_users_answers_on_every_surface(sidecar):
    """Issue 31: "Vote: unanimous for A" followed by "Dissent" quoting the Devil's Advocate, who voted A; and the
    user's own answers missing from the answer. The chat's answer, the snapshot, the transcript and a consult."""
    async with sidecar(script=devil_agrees(), args=["--max-cycles", "2", "--min-cycles", "2"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL}})
        sid, goal = r["sessionId"], r["question"]
        r = await sc.call("council/answer", {"sessionId": sid, "questionId": goal["questionId"],
                                             "choice": "Reduce risk", "idempotencyKey": "k1"})
        r = await sc.call("council/turn", {"sessionId": sid, "text": "", "command": "skip"})
        assert r["status"] == "completed"
        got = await sc.call("council/snapshot", {"sessionId": sid})
        consult = await sc.call("council/consult", {"user_problem": PROBLEM, "selected_personas": COUNCIL})
    snap, transcript = got["session"], got["transcriptMarkdown"]
    assert snap["tally"]["consensus"] == consult["vote"]["consensus"] == "unanimous"
    assert snap["synthesis"]["dissent"] == consult["synthesis"]["dissent"] == []
    told = f"### What you told the council\n\n- {goal['question']} → **Reduce risk**\n\n"
    assert snap["synthesis"]["userAnswers"] == [{"questionId": goal["questionId"], "question": goal["question"],
                                                 "answer": "Reduce risk"}]
    for text in (r["finalAnswer"], transcript):
        assert "Dissent" not in text and f"- {COUNTERPOINT}" in text.split("### Risks and trade-offs")[1]
        assert told + "### Assumptions the council made\n\n- The timeline is this quarter.\n" in text
        assert f"1. You answered “{goal['question']}”: **Reduce risk**. If instead *Cut costs*" in text
    assert "Dissent" not in consult["markdown"] and COUNTERPOINT in consult["synthesis"]["risks_tradeoffs"]


DRAFT = "Rewrite the billing service in Rust right now."
CUT_OFF_CHAIR = {"rules": [{"when": {"schema": "SynthesisReply"},  # streams a recommendation, then breaks off
                            "reply": '{"recommendation": "' + DRAFT + '", "agreements": ["x"], "risks'}]}


async def test_a_draft_the_chair_could_not_finish_is_withdrawn_before_the_answer_that_replaces_it(sidecar):
    """Issue 31: the chair's streamed draft failed and the answer consolidated from the advisors followed under the
    same heading, the draft left standing above it. The sidecar withdraws the draft (``answer.withdrawn``): a chat,
    which cannot take back what it showed, prints its line — the draft above is withdrawn, the answer below
    replaces it — and ``final.answer`` brings the whole answer."""
    async with sidecar(script=CUT_OFF_CHAIR, args=["--max-cycles", "1"]) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL, "clarify": False}})
        assert r["status"] == "completed"
        events = sorted(sc.session_events(r["sessionId"]), key=lambda e: e["seq"])
    kinds = [e["type"] for e in events if e["type"].startswith(("answer.", "final."))]
    assert kinds[-2:] == ["answer.withdrawn", "final.answer"] and set(kinds[:-2]) == {"answer.delta"}
    withdrawn = next(e for e in events if e["type"] == "answer.withdrawn")
    assert withdrawn["text"] == DRAFT
    final = next(e for e in events if e["type"] == "final.answer")
    assert final["markdown"].startswith("## The council's answer\n\n") and DRAFT not in final["markdown"]
    assert final["synthesis"]["source"] == "consolidated" and r["finalAnswer"] == final["markdown"]
    chat = "".join(e.get("markdown") or "" for e in events)
    draft, notice = chat.index(DRAFT), chat.index("_The chair's draft above could not be used: it is withdrawn")
    assert draft < notice < chat.rindex("## The council's answer") and chat.count("## The council's answer") == 2
