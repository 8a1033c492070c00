"""After /revisit (issue 31, seen in the e2e): the re-vote runs another cycle with every advisor, so the answer's
"What the debate changed" says what that re-vote did to the vote the answer rested on before the user's answer —
never "No debate cycle followed the first vote". Over real JSON-RPC against ``council serve`` with scripted models:
the answer, the ``final.answer`` event, the snapshot's synthesis and the transcript."""

from __future__ import annotations

from .conftest import PROBLEM, events_of, persona_reply

COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
ANSWER = "This year"  # the scripted clarifier's second choice of its timeline question
FIRST = {k: v for k, v in persona_reply(position="A staged split.", vote_confidence=0.9,
                                         continue_debate=False).items()
         if k not in ("changed_position", "change_reason")}


def script(revote_option: str) -> dict:
    """Cycle 1: everyone recommends the same course (the first vote is unanimous and settles it). The cycle that
    sees the revisited answer votes ``revote_option`` as written ('' or an unknown name: no vote on the options)."""
    return {"rules": [
        {"when": {"schema": "PersonaReply", "cycle": 1}, "reply": FIRST},
        {"when": {"schema": "PersonaReply", "anywhere": ANSWER},
         "reply": persona_reply(option_id=revote_option, changed_position=True, continue_debate=False,
                                change_reason="the deadline is this year, not this quarter")},
    ]}


async def revisited(sc) -> tuple[dict, dict, list[dict]]:
    r = await sc.call("council/turn", {"text": PROBLEM, "options": {"personas": COUNCIL}})
    sid = r["sessionId"]
    r = await sc.call("council/turn", {"sessionId": sid, "command": "skipAll"})
    assert r["status"] == "completed", r
    assert "No debate cycle followed the first vote" in r["finalAnswer"]  # true here: the first vote settled it
    snap = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
    timeline = next(q for q in snap["questions"] if "timeline" in q["question"])
    r = await sc.call("council/turn", {"sessionId": sid, "command": "revisit", "questionId": timeline["questionId"]})
    choice = next(c["value"] for c in r["question"]["choices"] if c["label"] == ANSWER)
    r = await sc.call("council/answer", {"sessionId": sid, "questionId": timeline["questionId"], "choice": choice,
                                         "idempotencyKey": "revisit-1"})
    assert r["status"] == "completed", r
    got = await sc.call("council/snapshot", {"sessionId": sid})
    return r, got, events_of(sc, sid, "final.answer")


def debate_changed(markdown: str) -> str:
    return markdown.split("### What the debate changed", 1)[1].split("###", 1)[0].strip()


async def test_a_revote_in_which_nobody_names_an_option_is_not_called_no_debate_cycle(sidecar):
    async with sidecar(script=script("none of these"), args=["--max-cycles", "2"]) as sc:
        r, got, finals = await revisited(sc)
    snap = got["session"]
    assert snap["debateCycles"] == 2 and [v["cycle"] for v in snap["votes"]] == [1, 1, 1]
    effect = snap["synthesis"]["debate"]
    assert (effect["verdict"], effect["since"], effect["cyclesAfter"]) == ("no_new_vote", "revisit", 1)
    said = debate_changed(r["finalAnswer"])
    assert said == ("The re-vote after your answer ran (1 debate cycle), but no advisor voted on the options in it, "
                    "so the vote before your answer (A 3) stands.")
    for surface in (finals[-1]["markdown"], got["transcriptMarkdown"]):
        assert said in surface and "No debate cycle followed" not in surface.split("**Revisited:**")[-1]


async def test_a_revote_that_moves_every_vote_says_it_overturned_the_vote_before_the_answer(sidecar):
    async with sidecar(script=script("B"), args=["--max-cycles", "2"]) as sc:
        r, got, finals = await revisited(sc)
    effect = got["session"]["synthesis"]["debate"]
    assert (effect["verdict"], effect["since"], effect["firstWinner"], effect["finalWinner"]) == \
        ("overturned", "revisit", "A", "B")
    said = debate_changed(r["finalAnswer"])
    assert said.startswith("The re-vote after your answer overturned the vote before it: **A · ")
    assert "won the re-vote (A 3 → B 3)." in said
    assert "- Software Architect moved from A to B: the deadline is this year, not this quarter." in said
    assert said in finals[-1]["markdown"] and said in got["transcriptMarkdown"]
