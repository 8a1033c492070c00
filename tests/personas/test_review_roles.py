"""The review council's contracts: checklists, seats per change type with their reasons, the artifacts each role
needs; and chat routing, which never seats a review-only role unless the user asks for it explicitly."""

from __future__ import annotations

import pytest
from persona_helpers import VALID
from pydantic import ValidationError

from council.personas.contract import PersonaContract
from council.personas.routing import select_personas
from council.review.models import Artifacts, ChangeType
from council.review.panel import missing_artifacts, seat_panel

REVIEW_ONLY = {"Risk Officer", "Quant Researcher", "Realism Checker", "Code Reviewer", "Overfitting Auditor"}
PANELS = {
    ChangeType.DECLARE_PASS: ["Overfitting Auditor", "Quant Researcher", "Realism Checker", "Risk Officer",
                              "Devil's Advocate"],
    ChangeType.FREEZE_SPEC: ["Quant Researcher", "Realism Checker", "Risk Officer", "Devil's Advocate"],
    ChangeType.UPDATE_CONFIG: ["Code Reviewer", "Overfitting Auditor", "Risk Officer", "Devil's Advocate"],
    ChangeType.CODE_REFACTOR: ["Code Reviewer", "Quant Researcher", "Devil's Advocate"],
}
REVIEW = {
    "sits_for": {"CODE_REFACTOR": "Refactors need a tester."},
    "needs": {"CODE_REFACTOR": ["diff_content"]},
    "axes": ["code_correctness"],
    "checklist": [{"question": "Do the tests still pass?", "blocking": True}, {"question": "Is coverage kept?"}],
}


def test_every_review_role_has_a_checklist_with_a_blocking_item_and_scores_its_axes(library):
    for persona in library.council("review"):
        review = persona.review
        assert review is not None and 3 <= len(review.checklist) <= 6, persona.name
        assert review.axes and review.sits_for
        if persona.name != "Devil's Advocate":
            assert any(item.blocking for item in review.checklist), persona.name
    assert {p.name for p in library.council("review")} == REVIEW_ONLY | {"Devil's Advocate"}


@pytest.mark.parametrize("change_type", list(ChangeType))
def test_who_sits_depends_on_the_change_type_and_the_reason_is_the_contracts(library, change_type):
    panel = seat_panel(library, change_type)
    assert [s.name for s in panel] == PANELS[change_type]
    for seated in panel:
        assert seated.reason == seated.contract.review.sits_for[change_type]
        assert seated.seat().reason == seated.reason and len(seated.reason) > 20


def test_missing_artifacts_are_per_role_and_blank_counts_as_missing(library):
    panel = seat_panel(library, ChangeType.UPDATE_CONFIG)
    assert missing_artifacts(panel, Artifacts(diff_content="d")) == {}
    assert missing_artifacts(panel, Artifacts(diff_content="  ")) == {
        "Code Reviewer": ["diff_content"], "Overfitting Auditor": ["diff_content"], "Risk Officer": ["diff_content"]}


@pytest.mark.parametrize(("review", "message"), [
    ({**REVIEW, "sits_for": {"SHIP_IT": "x"}}, "Input should be"),
    ({**REVIEW, "sits_for": {"CODE_REFACTOR": "  "}}, "needs the reason"),
    ({**REVIEW, "needs": {"FREEZE_SPEC": ["spec_content"]}}, "does not sit for: FREEZE_SPEC"),
    ({**REVIEW, "needs": {"CODE_REFACTOR": ["backtest"]}}, "Input should be"),
    ({**REVIEW, "axes": ["vibes"]}, "Input should be"),
    ({**REVIEW, "axes": ["overfitting", "overfitting"]}, "must not repeat"),
    ({**REVIEW, "checklist": [{"question": "Only one?"}]}, "at least 2"),
])
def test_review_tables_are_validated(review, message):
    with pytest.raises(ValidationError) as err:
        PersonaContract.model_validate({**VALID, "councils": ["review"], "review": review})
    assert message in str(err.value)


def test_the_review_council_needs_a_review_table():
    with pytest.raises(ValidationError, match="needs a \\[review\\] table"):
        PersonaContract.model_validate({**VALID, "councils": ["review"]})
    persona = PersonaContract.model_validate({**VALID, "councils": ["review"], "review": REVIEW})
    assert not persona.chats and persona.review.sits_for[ChangeType.CODE_REFACTOR] == "Refactors need a tester."


@pytest.mark.parametrize("question", [
    "Should we raise prices for the enterprise tier?",
    "Our JWT tokens leak in logs, how do we rotate secrets?",
    "What is our risk appetite for a new market launch, and how much drawdown can the budget take?",
    "Is our trading strategy backtest overfitting the historical data?",
    "Please review this code refactor of the billing module before we merge it.",
    "Is a Sharpe ratio of 5 realistic for a retail quant strategy?",
    "How do I keep my team motivated after layoffs?",
    "What should we do next year?",
])
def test_chat_routing_never_seats_a_review_only_role(library, question):
    sel = select_personas(library, question)
    assert not REVIEW_ONLY & set(sel.names), (question, sel.names)
    assert "Devil's Advocate" in sel.names
    assert "review council" not in sel.reason  # the question's own word "review" may be named


def test_naming_a_review_role_in_a_question_does_not_hijack_routing(library):
    sel = select_personas(library, "Ask the Risk Officer and the Code Reviewer whether we should split the monolith")
    assert not sel.user_override and not REVIEW_ONLY & set(sel.names)


def test_an_explicit_override_may_seat_a_review_role(library):
    sel = select_personas(library, "Is this backtest sound?", override=["Quant Researcher", "Devil's Advocate"])
    assert sel.names == ["Quant Researcher", "Devil's Advocate"] and sel.user_override
