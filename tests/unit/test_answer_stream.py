"""The council's answer streams (issue 24): the chair's recommendation reaches the user as it is written
(``answer.delta``), and ``final.answer`` adds only what was not shown, so the two read as the recorded answer.

Scripted sessions through CouncilService (the scripted model streams in 24-character pieces; a ``chunk`` of 100000
sends a reply whole, as a provider that cannot stream does), and the pieces on their own.
"""

from __future__ import annotations

from test_revisit import ANSWER, script, skipped_session
from unit_helpers import rule

from council.present.answer import AnswerStream
from council.present.consult import stage
from council.protocol.methods import SessionOptions, TurnCommand, TurnParams
from council.session.state.entities import SessionSettings

PROBLEM = "Should we split our monolith into services this quarter?"
TRIO = ["Software Architect", "Senior Developer", "Devil's Advocate"]
LONG = ("Take the staged approach: extract the billing module behind a facade first, measure the on-call load for "
        "a month, and split the rest only if the numbers hold.")
CHAIR = {"recommendation": LONG, "agreements": ["Start small."], "conflicts": [], "risks_tradeoffs": ["Slower."],
         "next_steps": ["Pick a first slice.", "Measure it."], "notes": []}


async def session(h):
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO)))
    return res, h.runtime(res.session_id).session


def shown(h, sid: str) -> tuple[list[dict], dict]:
    return h.of(sid, "answer.delta"), h.of(sid, "final.answer")[-1]


async def test_the_recommendation_streams_and_the_final_answer_adds_only_the_rest(make_service):
    h = make_service({"rules": [rule("SynthesisReply", CHAIR)]}, SessionSettings(min_cycles=2, max_cycles=2))
    res, s = await session(h)
    deltas, final = shown(h, res.session_id)
    assert len(deltas) > 3  # piece by piece, as the chair writes
    streamed = "".join(e["markdown"] for e in deltas)
    assert streamed.startswith("## The council's answer\n\n") and LONG in streamed
    assert deltas[-1]["text"] == LONG and deltas[0]["text"] == LONG[:len(deltas[0]["text"])]
    assert streamed + final["markdown"] == s.final_answer  # read together: the recorded answer, nothing twice
    assert "The council's answer" not in final["markdown"] and final["markdown"].startswith("**Vote:**")
    order = [e["type"] for e in h.of(res.session_id)]
    assert order.index("answer.delta") < order.index("final.answer")


async def test_a_provider_that_cannot_stream_gives_the_answer_in_one_piece(make_service):
    h = make_service({"chunk": 100_000, "rules": [rule("SynthesisReply", CHAIR)]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    res, s = await session(h)
    deltas, final = shown(h, res.session_id)
    assert len(deltas) == 1 and deltas[0]["text"] == LONG
    assert deltas[0]["markdown"] + final["markdown"] == s.final_answer


async def test_a_repaired_reply_is_given_whole_after_what_streamed(make_service):
    """The first reply streams a recommendation, then turns out unusable; the repaired one says something else:
    the final answer is given whole, so nothing is missing and nothing wrong stands unanswered."""
    bad = '{"recommendation": "Wait for the audit before anything.", "next_steps": []}'
    h = make_service({"rules": [rule("SynthesisReply", bad, times=1), rule("SynthesisReply", CHAIR)]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    res, s = await session(h)
    deltas, final = shown(h, res.session_id)
    assert "Wait for the audit" in "".join(e["markdown"] for e in deltas)
    assert final["markdown"].lstrip("\n") == s.final_answer and LONG in s.final_answer


async def test_an_answer_after_a_revisit_does_not_stream_its_head(make_service):
    """After a revisit the answer opens with what changed, before the recommendation: it comes whole."""
    h = make_service(script())
    sid, s = await skipped_session(h)
    timeline = next(q for q in s.questions if "timeline" in q.question)
    await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.REVISIT, question_id=timeline.question_id))
    before = len(h.of(sid, "answer.delta"))
    done = await h.service.turn(TurnParams(session_id=sid, text=ANSWER))
    assert len(h.of(sid, "answer.delta")) == before
    assert h.of(sid, "final.answer")[-1]["markdown"] == done.final_answer


def test_the_stream_shows_each_piece_once_and_the_rest_is_what_it_did_not_show():
    stream = AnswerStream()
    pieces = [stream.feed(x) for x in ('{"recommend', 'ation": "Split ', 'billing first.", "agreements": [')]
    assert "".join(pieces) == "## The council's answer\n\nSplit billing first.\n\n"
    assert stream.text == "Split billing first."
    final = "## The council's answer\n\nSplit billing first.\n\n**Vote:** unanimous.\n"
    assert stream.rest(final) == "**Vote:** unanimous.\n"
    assert AnswerStream().rest(final) == final


def test_mcp_progress_reports_the_answer_as_it_comes():
    event = {"type": "answer.delta", "markdown": "first", "text": "Split billing\nfirst"}
    assert stage(event) == "The council's answer so far: Split billing first"
    assert stage({"type": "answer.delta", "markdown": "", "text": ""}) is None
