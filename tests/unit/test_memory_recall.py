"""Recall without embeddings: paraphrases of a kept question are recalled (a word's other form or its compound
counts: "monolithic" ~ "monolith", "microservices" ~ "services"), questions on other subjects are not, with one
kept decision and with several."""

from __future__ import annotations

import pytest
from evidence_helpers import NO_QUESTIONS

from council.memory.store import THRESHOLDS, QuestionRanker, related
from council.protocol.methods import SessionOptions, TurnParams
from council.session.state.entities import SessionSettings

SPLIT = "Should we split our monolith into services this quarter?"
OTHERS = ["Should we adopt Kafka for our event bus?", "Is Rust a good choice for our CLI?",
          "Should we migrate our CI from Jenkins to GitHub Actions?",
          "Do we hire two more SREs or buy a managed database?", "Should we rewrite the billing system in Go?"]
PARAPHRASES = ["Should we break our monolith into microservices?",
               "Is it time to split the monolith into separate services?",
               "Should we decompose our monolithic app into microservices this quarter?",
               "Would moving from a monolith to microservices make sense now?",
               "Should we carve services out of our monolith?"]
UNRELATED = ["Should we adopt GraphQL for our public API?", "Is it worth moving our frontend from React to Svelte?",
             "Should we switch our database from MySQL to PostgreSQL?",
             "Should we run a four-day work week this quarter?", "Should we split the team into two squads?",
             "Should we move our servers to the cloud this quarter?", "Should we add a service mesh?",
             "Should we split the monorepo into several repositories?"]
FLOOR = THRESHOLDS["tfidf"]


@pytest.mark.parametrize("kept", [[SPLIT], [SPLIT, *OTHERS]], ids=["one kept", "six kept"])
@pytest.mark.parametrize("question", PARAPHRASES)
def test_paraphrases_are_recalled(kept: list[str], question: str):
    scores = QuestionRanker().score(question, kept)
    assert scores[0] >= FLOOR and scores[0] == max(scores), scores


@pytest.mark.parametrize("kept", [[SPLIT], [SPLIT, *OTHERS]], ids=["one kept", "six kept"])
@pytest.mark.parametrize("question", UNRELATED)
def test_other_subjects_are_not(kept: list[str], question: str):
    assert QuestionRanker().score(question, kept)[0] < FLOOR


@pytest.mark.parametrize("a, b, same", [
    ("servic", "microservic", True), ("monolith", "monolithic", True), ("split", "split", True),
    ("cloud", "cloudflar", True), ("app", "apps", False), ("team", "steam", False), ("servic", "server", False),
])
def test_words_that_count_as_one(a: str, b: str, same: bool):
    assert related(a, b) is same and related(b, a) is same


async def test_the_audit_paraphrase_is_recalled_through_the_service(make_service, tmp_path):
    h = make_service({"rules": [NO_QUESTIONS]}, settings=SessionSettings(min_cycles=1, max_cycles=1),
                     workspace=tmp_path, memory=True)
    options = SessionOptions(personas=["Software Architect", "Senior Developer"])
    first = await h.service.turn(TurnParams(text=SPLIT, options=options))
    second = await h.service.turn(TurnParams(text=PARAPHRASES[0], options=options))
    [p] = h.runtime(second.session_id).session.precedents
    assert p.decision_id == first.session_id and p.similarity >= FLOOR
    [event] = h.of(second.session_id, "memory.recalled")
    assert event["method"] == "tfidf"
