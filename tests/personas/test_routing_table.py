"""The routing table (issue 21): on the word-based fallback, every question seats the obvious experts and none of
the personas it must not; the reasons name the words of the question that decided each seat."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from routing_table import CL, RE, SE, TABLE

from council.personas.routing import TfidfRanker, select_personas
from council.present.clarify import selection as selection_line
from council.session.state.entities import Participant, ParticipantType, PersonaSelection

HEROKU = TABLE[0][1]


def test_the_table_covers_the_domains():
    assert len(TABLE) >= 40
    assert {"infra", "security", "data", "finance", "product", "people", "architecture", "legal"} <= \
        {domain for domain, *_ in TABLE}


@pytest.mark.parametrize(("domain", "question", "must", "must_not"), TABLE, ids=[q[:48] for _, q, _, _ in TABLE])
def test_the_word_based_fallback_seats_the_obvious_experts(library, domain, question, must, must_not):
    sel = select_personas(library, question, ranker=TfidfRanker())
    assert set(must) <= set(sel.names), (sel.names, sel.reason)
    assert not set(must_not) & set(sel.names), (sel.names, sel.reason)
    assert sel.names[-1] == "Devil's Advocate" and 3 <= len(sel.names) <= 5


def test_a_kubernetes_migration_seats_security_and_not_the_culture_lead(library):
    sel = select_personas(library, HEROKU, ranker=TfidfRanker())
    assert {RE, SE} <= set(sel.names) and CL not in sel.names
    assert sel.chosen_for[RE][:2] == ["heroku", "kubernetes"]
    assert "kubernetes" in sel.chosen_for[SE]
    assert "Reliability Engineer (0.90: heroku, kubernetes)" in sel.reason


def test_each_seat_names_the_words_that_decided_it(library):
    sel = select_personas(library, "Should we raise prices for the enterprise tier next year?", ranker=TfidfRanker())
    assert sel.chosen_for["Financial Officer"][0] == "prices"
    assert all(sel.chosen_for[p.name] for p in sel.personas if not p.always_include)
    assert "Devil's Advocate" not in sel.chosen_for  # it always sits: no words seated it


def test_a_question_without_domain_words_names_none(library):
    sel = select_personas(library, "What should we do next year?", ranker=TfidfRanker())
    assert not any(sel.chosen_for.values())


def _recorded(sel) -> PersonaSelection:
    return PersonaSelection(
        session_id="s", request_classification=sel.classification, reason=sel.reason, method=sel.method,
        selected_personas=[Participant(type=ParticipantType.PERSONA, name=n, role="advisor") for n in sel.names],
        user_override=sel.user_override, overridden_personas=sel.overridden, chosen_for=sel.chosen_for,
        created_at=datetime.now(timezone.utc))


def test_the_chat_line_says_which_words_chose_the_council(library):
    line = selection_line(_recorded(select_personas(library, HEROKU, ranker=TfidfRanker())))
    assert "_Chosen for: heroku, kubernetes, django, services" in line
    assert "question about" not in line
    vague = selection_line(_recorded(select_personas(library, "What should we do next year?", ranker=TfidfRanker())))
    assert "_Chosen as the best fit for the question._" in vague
