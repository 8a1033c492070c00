"""Decision memory (opt-in): a completed session kept in <workspace>/.council/decisions.sqlite3, similar past
decisions offered to a new session (embeddings when warm, else TF-IDF) and named in its answer; off by default, and
off means nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from evidence_helpers import NO_QUESTIONS, asking, make_workspace
from unit_helpers import rule

from council.errors import CouncilError, ErrorCode
from council.memory import MemoryStore
from council.memory.store import FILE
from council.protocol.consult import DecisionsParams
from council.protocol.methods import SessionOptions, TurnCommand, TurnParams
from council.session.state.entities import SessionSettings
from council.session.state.entities import SessionStatus as S

SPLIT = "Should we split our monolith into services this quarter?"
SPLIT_AGAIN = "Should we split the monolith into separate services this year?"
UNRELATED = "Which office snacks should we order for the team party?"
COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
SETTINGS = SessionSettings(min_cycles=2, max_cycles=2)
GOAL_QUESTION = rule("ClarifierReply", {
    "needs_clarification": True, "reason": "the goal matters",
    "candidates": ["Split now", "Wait"],
    "questions": [{"question": "What is the main goal here?", "target_ambiguity": "goal",
                   "choices": [{"answer": "Speed", "favours": "A"}, {"answer": "Safety", "favours": "B"}],
                   "default_assumption": "The goal is to ship faster."}]})


def serve(make_service, workspace: Path, *, memory: bool = True, clarify: dict | None = None, **extra):
    rules = [clarify or NO_QUESTIONS]
    return make_service({"rules": rules}, settings=SETTINGS, workspace=workspace, memory=memory, **extra)


async def decide(h, text: str = SPLIT, skip_questions: bool = False):
    res = await h.service.turn(TurnParams(text=text, options=SessionOptions(personas=COUNCIL)))
    if skip_questions:
        res = await h.service.turn(TurnParams(session_id=res.session_id, text="", command=TurnCommand.SKIP_ALL))
    assert res.status is S.COMPLETED
    return h.runtime(res.session_id)


def files_under(folder: Path) -> dict[str, float]:
    return {str(p.relative_to(folder)): p.stat().st_mtime for p in folder.rglob("*") if not p.is_symlink()}


async def test_a_completed_session_is_kept_with_everything_the_issue_names(make_service, tmp_path):
    h = serve(make_service, tmp_path, clarify=GOAL_QUESTION)
    rt = await decide(h, skip_questions=True)
    [d] = MemoryStore(tmp_path).all()
    s = rt.session
    assert (d.decision_id, d.question) == (s.session_id, SPLIT)
    assert [o.label for o in d.options] == ["Staged approach", "Wait"] and d.winner == "A"
    assert d.outcome == "Staged approach" and d.consensus == "majority" and d.tally == {"A": 2, "B": 1}
    assert d.recommendation == "Take the staged approach and measure each step."
    assert d.arguments[0].startswith("Senior Developer (A): ") and d.arguments[-1].startswith("Devil's Advocate (B)")
    assert d.assumptions == ["The goal is to ship faster."]
    assert d.dissent and d.dissent[0].startswith("Devil's Advocate voted B")
    assert d.decided_at == s.updated_at and d.personas == COUNCIL
    assert (tmp_path / FILE).is_file()


async def test_similar_past_decisions_are_offered_as_context_and_named_in_the_answer(make_service, tmp_path):
    h = serve(make_service, tmp_path)
    first = await decide(h)
    second = await decide(h, SPLIT_AGAIN)
    [p] = second.session.precedents
    assert p.decision_id == first.session.session_id and p.outcome == "Staged approach" and p.tally == "A 2 · B 1"
    [event] = h.of(second.session.session_id, "memory.recalled")
    assert event["method"] == "tfidf" and "recalls 1 similar past decision" in event["markdown"]
    prompts = [c for c in h.service.store.get(second.session_id).pick("Software Architect").calls
               if c.session_id == second.session_id and c.cycle == 1 and c.purpose in COUNCIL]
    assert prompts and all("Similar past decisions of this council" in c.messages[-1].content and SPLIT in
                           c.messages[-1].content for c in prompts)
    assert "### Past decisions considered" in second.session.final_answer and SPLIT in second.session.final_answer
    assert len(MemoryStore(tmp_path).all()) == 2
    unrelated = await decide(h, UNRELATED)
    assert unrelated.session.precedents == [] and not h.of(unrelated.session.session_id, "memory.recalled")


class FakeEmbeddings:
    """A warm embedding ranker: says which stored question is like the query by a fixed table."""

    name = "embeddings"

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores

    def score(self, query: str, docs: list[str]) -> list[float]:
        return [self.scores.get(d, 0.0) for d in docs]


class ColdEmbeddings:
    name = "embeddings"

    def score(self, query: str, docs: list[str]) -> list[float]:
        raise RuntimeError("still warming up")


async def test_embeddings_judge_when_warm_else_tfidf(make_service, tmp_path):
    h = serve(make_service, tmp_path)
    await decide(h)
    store = MemoryStore(tmp_path)
    found, method = store.similar("Carve out microservices?", FakeEmbeddings({SPLIT: 0.83}))
    assert method == "embeddings" and [round(s, 2) for _, s in found] == [0.83]
    assert store.similar("Carve out microservices?", FakeEmbeddings({SPLIT: 0.4}))[0] == []  # under its threshold
    found, method = store.similar(SPLIT_AGAIN, ColdEmbeddings())
    assert method == "tfidf" and len(found) == 1


async def test_memory_off_writes_nothing(make_service, tmp_path):
    root = make_workspace(tmp_path)
    before = files_under(root)
    h = make_service({"rules": [NO_QUESTIONS, asking("Software Architect", ("read_file", "notes/plan.md"),
                                                    ("list_files", "**"))]},
                     settings=SETTINGS, workspace=root, evidence_root=root)
    rt = await decide(h)
    assert rt.session.evidence and rt.session.precedents == []
    assert files_under(root) == before and not (root / ".council").exists()
    with pytest.raises(CouncilError) as err:
        h.service.archive.decisions(DecisionsParams())
    assert err.value.code is ErrorCode.PERMISSION and err.value.details["reason"] == "memory_off"


def test_reading_an_empty_memory_creates_nothing(tmp_path):
    store = MemoryStore(tmp_path)
    assert store.all() == [] and store.get("abc") is None and store.similar("x") == ([], "tfidf")
    assert store.forget("abc") is None and not (tmp_path / ".council").exists()


async def test_forget_and_prefix_lookups(make_service, tmp_path):
    h = serve(make_service, tmp_path)
    rt = await decide(h)
    store = MemoryStore(tmp_path)
    sid = rt.session.session_id
    assert store.get(sid[:8]).decision_id == sid and store.get("%") is None
    assert store.forget(sid[:8]).decision_id == sid and store.all() == []


async def test_a_reopened_debate_updates_its_decision(make_service, tmp_path):
    h = serve(make_service, tmp_path)
    rt = await decide(h)
    res = await h.service.turn(TurnParams(session_id=rt.session_id, text="the budget doubled",
                                          command=TurnCommand.EXTEND))
    assert res.status is S.COMPLETED
    [d] = MemoryStore(tmp_path).all()
    assert d.decided_at == rt.session.updated_at


async def test_the_query_tool_lists_searches_and_shows(make_service, tmp_path):
    h = serve(make_service, tmp_path)
    first = await decide(h)
    await decide(h, UNRELATED)
    archive = h.service.archive
    newest = archive.decisions(DecisionsParams())
    assert [d.question for d in newest.decisions] == [UNRELATED, SPLIT] and newest.similarity is None
    searched = archive.decisions(DecisionsParams(query="split the monolith", limit=1))
    assert [d.question for d in searched.decisions] == [SPLIT] and searched.method == "tfidf"
    assert searched.similarity and searched.similarity[0] > 0
    shown = archive.decisions(DecisionsParams(decision_id=first.session_id[:8]))
    assert "### Key arguments" in shown.markdown and "### Dissent" in shown.markdown
    with pytest.raises(CouncilError):
        archive.decisions(DecisionsParams(decision_id="nonexistent"))


def test_memory_needs_a_workspace(make_service):
    h = make_service(memory=True)
    assert h.service.archive.memory is None and h.service.engine.memory is None
