"""Questions that change the answer (issue 20): the clarifier plans what hangs on each question, and only questions
whose likely answers favour different courses are asked, the most decisive first; when none would change the
recommendation the council goes straight to the debate and says why in one line."""

from __future__ import annotations

import pytest
from unit_helpers import rule

from council.cli.render import choices
from council.protocol.methods import Awaiting, SessionOptions, TurnParams
from council.session.state.entities import SessionStatus as S
from council.session.steps.clarifier import decisiveness

PROBLEM = "Should we split our monolith into services this quarter?"
CANDIDATES = ["Split now", "Extract one service first", "Keep the monolith"]


def question(text: str, *favours: str, ambiguity: str = "scope") -> dict:
    return {"question": text, "target_ambiguity": ambiguity, "default_assumption": f"Assumed for: {text}",
            "choices": [{"answer": f"{text[:20]} answer {i}", "favours": f} for i, f in enumerate(favours, 1)]}


def plan(*questions: dict, candidates: list[str] | None = None) -> dict:
    return rule("ClarifierReply", {"needs_clarification": True, "reason": "it depends",
                                   "candidates": CANDIDATES if candidates is None else candidates,
                                   "questions": list(questions)})


SPLITS = question("How large is the team that owns it?", "A", "B", "C")  # every answer favours another course
HALF = question("Is there a launch this quarter?", "A", "B", "B", ambiguity="timeline")  # two of three agree
SAME = question("Which cloud do you use today?", "B", "B", "B", ambiguity="context")  # all favour B: no matter
NO_LEAN = question("What do you call the service?", "none", "none", ambiguity="context")


async def start(h, **opts):
    return await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(**opts)))


def test_decisiveness_is_the_share_of_answer_pairs_that_favour_different_courses():
    assert decisiveness(["A", "B"]) == 1.0 and decisiveness(["A", "B", "C"]) == 1.0
    assert decisiveness(["A", "B", "B"]) == pytest.approx(2 / 3, abs=1e-3)
    assert decisiveness(["B", "B", "B"]) == 0.0 and decisiveness([None, None]) == 0.0
    assert decisiveness(["A", None]) == 0.0 and decisiveness(["A"]) == 0.0


async def test_a_question_whose_answers_split_the_options_is_asked_one_whose_answers_agree_is_not(make_service):
    h = make_service({"rules": [plan(SAME, SPLITS)]})
    res = await start(h)
    s = h.runtime(res.session_id).session
    assert res.awaiting is Awaiting.ANSWER and res.question.question == SPLITS["question"]
    assert [q.question for q in s.questions + s.planned_questions] == [SPLITS["question"]]
    stakes = res.question.stakes
    assert stakes is not None and stakes.candidates == CANDIDATES and stakes.decisiveness == 1.0
    assert [(x.choice, x.favours) for x in stakes.leans] == [
        (c["answer"], name) for c, name in zip(SPLITS["choices"], CANDIDATES, strict=True)]
    assert [q.question for q in s.unasked_questions] == [SAME["question"]]
    assert s.unasked_questions[0].stakes.decisiveness == 0.0
    dropped = h.of(res.session_id, "questions.dropped")
    assert len(dropped) == 1 and dropped[0]["asked"] == 1 and dropped[0]["reason"] == "not_decisive"
    assert SAME["question"] in dropped[0]["markdown"] and "“Extract one service first”" in dropped[0]["markdown"]
    asked = h.of(res.session_id, "question.asked")[0]
    assert "favours" not in asked["markdown"]  # the choices show once, in each client's layout, from the data
    listed = choices(asked)  # council ask's numbered list
    assert "— _favours Split now_" in listed and "— _favours Keep the monolith_" in listed


async def test_the_most_decisive_question_is_asked_first(make_service):
    h = make_service({"rules": [plan(HALF, SAME, SPLITS)]})
    res = await start(h)
    s = h.runtime(res.session_id).session
    assert [q.question for q in s.questions + s.planned_questions] == [SPLITS["question"], HALF["question"]]
    assert [q.sequence_in_round for q in s.questions + s.planned_questions] == [1, 2]
    assert s.questions[0].stakes.decisiveness > s.planned_questions[0].stakes.decisiveness > 0


async def test_when_no_question_would_change_the_answer_the_council_debates_at_once_and_says_why(make_service):
    h = make_service({"rules": [plan(SAME, NO_LEAN)]})
    res = await start(h, clarify=True)
    s = h.runtime(res.session_id).session
    assert res.status is S.COMPLETED and not s.questions and not s.planned_questions
    assert s.clarification_rounds == 0 and [q.question for q in s.unasked_questions] == [SAME["question"],
                                                                                          NO_LEAN["question"]]
    dropped = h.of(res.session_id, "questions.dropped")
    assert len(dropped) == 1 and dropped[0]["asked"] == 0
    line = dropped[0]["markdown"]
    assert line.count("\n") == 2 and line.startswith("_No clarifying questions:")  # one line (and a blank)
    assert "straight to the debate" in line and SAME["question"] in line
    to_debate = next(e for e in h.of(res.session_id, "status.changed") if e["status"] == "debating")
    assert to_debate["reason"] == "no question would change the recommendation"
    kinds = [e["type"] for e in h.of(res.session_id)]
    assert kinds.index("questions.dropped") < kinds.index("cycle.started")  # said before the debate begins


async def test_a_clear_request_says_so_in_one_line(make_service):
    h = make_service({"rules": [rule("ClarifierReply", {"needs_clarification": False, "reason": "clear",
                                                        "questions": []})]})
    res = await start(h)
    dropped = h.of(res.session_id, "questions.dropped")
    assert res.status is S.COMPLETED and len(dropped) == 1 and dropped[0]["reason"] == "clear"
    assert dropped[0]["markdown"].startswith("_No clarifying questions:")


async def test_a_choice_favouring_a_letter_past_the_plans_candidates_has_no_lean_and_costs_no_repair(make_service):
    """Issue 34: a small model under a grammar that allows A-D wrote C with two candidates in 1 of 10 real plans,
    which cost a second clarifier call; that choice now shows without a lean (its course was never named)."""
    past = question("How large is the team that owns it?", "A", "B", "C")
    h = make_service({"rules": [plan(past, candidates=CANDIDATES[:2])]})
    res = await start(h)
    s = h.runtime(res.session_id).session
    assert res.question.question == past["question"]
    assert [x.favours for x in res.question.stakes.leans] == [*CANDIDATES[:2], None]
    assert res.question.stakes.decisiveness == pytest.approx(1 / 3, abs=1e-3)  # only A against B counts
    assert s.metadata.models["clarifier"].calls == 1


async def test_a_plan_whose_choice_favours_something_else_is_repaired_once(make_service):
    bad = plan(question("How large is the team that owns it?", "A", "the cloud"), candidates=CANDIDATES[:2])
    h = make_service({"rules": [{**bad, "times": 1}, plan(SPLITS)]})
    res = await start(h)
    s = h.runtime(res.session_id).session
    assert res.question.question == SPLITS["question"]
    assert s.metadata.models["clarifier"].calls == 2  # the plan and its one repair


async def test_a_choice_that_names_its_candidate_instead_of_the_letter_is_understood(make_service):
    named = question("How large is the team that owns it?", "split now", "Keep the monolith")
    h = make_service({"rules": [plan(named)]})
    res = await start(h)
    assert [x.favours for x in res.question.stakes.leans] == ["Split now", "Keep the monolith"]
    assert h.runtime(res.session_id).session.metadata.models["clarifier"].calls == 1


async def test_a_plan_without_candidates_is_repaired_once_then_the_council_goes_ahead(make_service):
    h = make_service({"rules": [plan(SPLITS, candidates=[])]})
    res = await start(h)
    s = h.runtime(res.session_id).session
    assert res.status is S.COMPLETED and not s.questions
    assert s.metadata.models["clarifier"].calls == 2
    notes = [e["message"] for e in h.of(res.session_id, "progress")]
    assert any("could not prepare questions" in n for n in notes)


async def test_more_questions_asks_only_decisive_ones(make_service):
    h = make_service({"rules": [rule("ClarifierReply", plan(SAME)["reply"], contains="clarification round 2"),
                                plan(SPLITS)]})
    res = await start(h)
    more = await h.service.turn(TurnParams(session_id=res.session_id, text="more questions"))
    s = h.runtime(res.session_id).session
    assert "no further questions" in (more.message or "") and s.planned_rounds == 1
    assert [q.question for q in s.unasked_questions] == [SAME["question"]]


async def test_a_question_planned_twice_in_other_case_or_spacing_is_asked_once(make_service):
    """A plan's questions are kept each once by the key every list shares (``word_match.item_key``): the same
    question in other case or spacing was asked twice, and its assumption written down twice when skipped."""
    again = {**SPLITS, "question": "how large is  the TEAM that owns it?"}
    h = make_service({"rules": [plan(SPLITS, again)]})
    res = await start(h)
    s = h.runtime(res.session_id).session
    assert [q.question for q in s.questions + s.planned_questions] == [SPLITS["question"]]
    res = await h.service.turn(TurnParams(session_id=res.session_id, command="skip"))
    assert res.status is S.COMPLETED
    assert [a.assumption for a in h.runtime(res.session_id).session.assumption_log] == [SPLITS["default_assumption"]]


async def test_a_choice_written_twice_is_one_button_with_its_first_lean(make_service):
    """A plan whose question lists the same answer twice (other case, spacing or a full stop) showed two equal
    buttons and counted them as answers favouring different courses; each is kept once (the first one's lean), and
    a blank choice does not take the place of a later one."""
    twice = {"question": "How large is the team that owns it?", "target_ambiguity": "scope",
             "default_assumption": "A small team.",
             "choices": [{"answer": "Small", "favours": "A"}, {"answer": "  ", "favours": "B"},
                         {"answer": "small.", "favours": "B"}, {"answer": "Large", "favours": "C"}]}
    same = {**twice, "question": "Is a launch due this quarter?", "target_ambiguity": "timeline",
            "choices": [{"answer": "Yes", "favours": "A"}, {"answer": "yes", "favours": "B"}]}
    h = make_service({"rules": [plan(same, twice)]})
    res = await start(h)
    s = h.runtime(res.session_id).session
    assert [c.label for c in res.question.choices] == ["Small", "Large"]
    assert [x.favours for x in res.question.stakes.leans] == [CANDIDATES[0], CANDIDATES[2]]
    assert [q.question for q in s.unasked_questions] == [same["question"]]  # one answer: nothing hangs on it
    assert [c.label for c in s.unasked_questions[0].choices] == ["Yes"]
    assert s.metadata.models["clarifier"].calls == 1


async def test_a_lean_written_around_its_letter_is_that_letter_and_costs_no_repair(make_service):
    """A model not held to the schema's enum (a client's model, a server without a grammar) writes "Option B",
    "(C)" or "a." for a letter, as the votes' option ids are read (``persona_reply.option_of``); each cost a second
    clarifier call. A word that only starts with a letter ("a small team") is still no candidate: repaired."""
    worded = question("How large is the team that owns it?", "Option B", "(C)", "a.")
    h = make_service({"rules": [plan(worded)]})
    res = await start(h)
    assert [x.favours for x in res.question.stakes.leans] == [CANDIDATES[1], CANDIDATES[2], CANDIDATES[0]]
    assert h.runtime(res.session_id).session.metadata.models["clarifier"].calls == 1
    bad = plan(question("How large is the team that owns it?", "A", "a small team"), candidates=CANDIDATES[:2])
    h = make_service({"rules": [{**bad, "times": 1}, plan(SPLITS)]})
    res = await start(h)
    assert h.runtime(res.session_id).session.metadata.models["clarifier"].calls == 2


async def test_a_choice_naming_its_candidate_in_other_spacing_or_with_a_full_stop_costs_no_repair(make_service):
    """A candidate's name as a lean is read by the key every list shares (``word_match.item_key``), as the plan's
    questions and choices are kept once: "Keep the monolith." or "extract one  service first" cost a second call."""
    named = question("How large is the team that owns it?", "Keep the monolith.", "extract one  service first")
    h = make_service({"rules": [plan(named)]})
    res = await start(h)
    assert [x.favours for x in res.question.stakes.leans] == [CANDIDATES[2], CANDIDATES[1]]
    assert h.runtime(res.session_id).session.metadata.models["clarifier"].calls == 1


@pytest.mark.parametrize("blank", ["question", "default_assumption"])
async def test_a_planned_question_or_assumption_of_white_space_is_repaired_not_a_failed_session(make_service, blank):
    """A model wrote a question (or the assumption for a skipped one) of spaces: it passed the plan's length check
    and failed the session with an internal error once stripped (the question asked, or the assumption written
    down). Blank, it is what an empty one is: the plan is repaired once."""
    bad = plan({**SPLITS, blank: " " * 12})
    h = make_service({"rules": [{**bad, "times": 1}, plan(SPLITS)]})
    res = await start(h)
    assert res.question.question == SPLITS["question"]
    res = await h.service.turn(TurnParams(session_id=res.session_id, command="skip"))
    s = h.runtime(res.session_id).session
    assert res.status is S.COMPLETED and s.metadata.models["clarifier"].calls == 2
    assert [a.assumption for a in s.assumption_log] == [SPLITS["default_assumption"]]


async def test_a_candidate_named_twice_is_one_course_and_makes_no_question_decisive(make_service):
    """A small model repeats itself: candidates "Keep the monolith" and "keep the monolith." are one course, so a
    question whose answers favour A and B changes nothing and is not asked (it was, as if A and B differed)."""
    h = make_service({"rules": [plan(question("How large is the team that owns it?", "A", "B"),
                                     candidates=["Keep the monolith", "keep the  monolith."])]})
    res = await start(h)
    s = h.runtime(res.session_id).session
    assert res.status is S.COMPLETED and not s.questions
    (weighed,) = s.unasked_questions
    assert weighed.stakes.candidates == ["Keep the monolith"] and weighed.stakes.decisiveness == 0.0
    assert [x.favours for x in weighed.stakes.leans] == ["Keep the monolith", "Keep the monolith"]
    assert s.metadata.models["clarifier"].calls == 1


async def test_a_choice_favouring_null_has_no_lean_and_costs_no_repair(make_service):
    """A model not held to the schema's enum writes ``null`` for "none": the same no lean, not a second call."""
    nulled = question("How large is the team that owns it?", "A", "B", "none")
    nulled["choices"][2]["favours"] = None
    h = make_service({"rules": [plan(nulled)]})
    res = await start(h)
    assert [x.favours for x in res.question.stakes.leans] == [*CANDIDATES[:2], None]
    assert h.runtime(res.session_id).session.metadata.models["clarifier"].calls == 1


async def test_a_clear_plan_with_null_lists_is_clear_and_costs_no_repair(make_service):
    """``{"needs_clarification": false, "candidates": null, "questions": null}`` (a model not held to the schema)
    says the request is clear: it cost a repair call and then went ahead without saying so."""
    h = make_service({"rules": [rule("ClarifierReply", {"needs_clarification": False, "candidates": None,
                                                        "questions": None})]})
    res = await start(h)
    dropped = h.of(res.session_id, "questions.dropped")
    assert res.status is S.COMPLETED and len(dropped) == 1 and dropped[0]["reason"] == "clear"
    assert h.runtime(res.session_id).session.metadata.models["clarifier"].calls == 1
