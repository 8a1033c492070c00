"""Seed 004's objects as models: the seed's example validates, every enum value and bound is enforced, unknown
enums and fields are refused field by field in the contract's error shape, extra context is tolerated."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError
from review_helpers import SEED_REQUEST, request

from council.errors import CouncilError, ErrorCode
from council.review.models import (
    AXES,
    AxisScores,
    ChangeType,
    CouncilDecision,
    CouncilRequest,
    RoleVerdict,
    Verdict,
)
from council.review.requests import decode_json, parse_request

SEED_VERDICT = {
    "role": "Risk Officer", "verdict": "APPROVE", "confidence_score": 0.9,
    "checklist_results": [{"question": "Does it hold over weekend?", "answer": "No", "pass": True},
                          {"question": "Max DD < limit?", "answer": "Yes, 4.5% vs 10%", "pass": True}],
    "concerns": ["Leverage seems high for this volatility regime."],
    "required_actions": ["Run stress test with 2x volatility."],
}
SEED_DECISION = {
    "request_id": "req_123456789", "final_outcome": "REJECT",
    "axis_scores": {"assumptions": 8.0, "applicability": 10.0, "code_correctness": 9.0, "realistic_newness": 4.0,
                    "overfitting": 2.0, "implications": 7.0},
    "summary_reasoning": "The council REJECTS this proposal.",
    "blocking_issues": ["In-Sample data leakage detected by Quant Researcher.", "OOS win rate is only 39%."],
    "next_steps": ["Refactor validation script to enforce strict Train/Test split.", "Re-run backtest."],
}


def fields_of(err: CouncilError) -> dict[str, str]:
    assert err.code is ErrorCode.VALIDATION
    return err.details["fields"]


def test_the_seed_examples_validate_and_round_trip():
    req = CouncilRequest.model_validate(SEED_REQUEST)
    assert req.change_type is ChangeType.DECLARE_PASS and req.context.key_metrics["sharpe"] == 1.2
    assert req.timestamp.year == 2025 and req.timestamp.utcoffset().total_seconds() == 0
    assert set(req.artifacts.provided()) == {"spec_content", "diff_content", "validation_report",
                                              "monte_carlo_stats"}
    verdict = RoleVerdict.model_validate(SEED_VERDICT)
    assert verdict.checklist_results[1].passed is True
    wire = verdict.to_wire()
    assert wire["checklist_results"][0] == {"question": "Does it hold over weekend?", "answer": "No", "pass": True}
    assert {k: wire[k] for k in SEED_VERDICT} == SEED_VERDICT
    decision = CouncilDecision.model_validate(SEED_DECISION)
    assert {k: decision.to_wire()[k] for k in SEED_DECISION} == SEED_DECISION
    assert decision.notes == []


@pytest.mark.parametrize("change_type", [c.value for c in ChangeType])
def test_every_change_type_is_accepted(change_type):
    assert parse_request(request(change_type=change_type)).change_type.value == change_type
    assert {c.value for c in ChangeType} == {"DECLARE_PASS", "FREEZE_SPEC", "UPDATE_CONFIG", "CODE_REFACTOR"}


@pytest.mark.parametrize("verdict", ["APPROVE", "REJECT", "NEEDS_MORE_INFO"])
def test_every_verdict_is_accepted_for_roles_and_the_decision(verdict):
    assert RoleVerdict.model_validate({**SEED_VERDICT, "verdict": verdict}).verdict is Verdict(verdict)
    assert CouncilDecision.model_validate({**SEED_DECISION, "final_outcome": verdict}).final_outcome.value == verdict


@pytest.mark.parametrize("bad", ["declare_pass", "PASS", "", 3, None])
def test_unknown_change_types_are_refused_on_that_field(bad):
    with pytest.raises(CouncilError) as err:
        parse_request(request(change_type=bad))
    assert list(fields_of(err.value)) == ["change_type"]
    assert "DECLARE_PASS" in err.value.message or "Input should be" in err.value.message


@pytest.mark.parametrize(("model", "data", "field"), [
    (RoleVerdict, {**SEED_VERDICT, "verdict": "MAYBE"}, ("verdict",)),
    (CouncilDecision, {**SEED_DECISION, "final_outcome": "approve"}, ("final_outcome",)),
])
def test_unknown_verdicts_are_refused_on_that_field(model, data, field):
    with pytest.raises(ValidationError) as err:
        model.model_validate(data)
    assert [e["loc"] for e in err.value.errors()] == [field]


@pytest.mark.parametrize(("value", "ok"), [(0, True), (1, True), (0.5, True), (-0.01, False), (1.01, False),
                                           (math.nan, False), ("high", False)])
def test_confidence_score_is_bounded_0_to_1(value, ok):
    data = {**SEED_VERDICT, "confidence_score": value}
    if ok:
        assert RoleVerdict.model_validate(data).confidence_score == value
    else:
        with pytest.raises(ValidationError) as err:
            RoleVerdict.model_validate(data)
        assert err.value.errors()[0]["loc"] == ("confidence_score",)


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize(("value", "ok"), [(0, True), (10, True), (-0.1, False), (10.1, False), (math.inf, False)])
def test_every_axis_score_is_bounded_0_to_10(axis, value, ok):
    scores = {**SEED_DECISION["axis_scores"], axis: value}
    if ok:
        assert getattr(AxisScores.model_validate(scores), axis) == value
    else:
        with pytest.raises(ValidationError) as err:
            CouncilDecision.model_validate({**SEED_DECISION, "axis_scores": scores})
        assert err.value.errors()[0]["loc"] == ("axis_scores", axis)


def test_axis_scores_need_all_six_axes_and_no_others():
    with pytest.raises(ValidationError) as err:
        AxisScores.model_validate({k: v for k, v in SEED_DECISION["axis_scores"].items() if k != "overfitting"})
    assert err.value.errors()[0]["loc"] == ("overfitting",)
    with pytest.raises(ValidationError):
        AxisScores.model_validate({**SEED_DECISION["axis_scores"], "vibes": 5})


@pytest.mark.parametrize(("request_id", "ok"), [("req_123456789", True), ("a.b-c_d", True), ("x" * 128, True),
                                                ("x" * 129, False), ("../etc/passwd", False), (".hidden", False),
                                                ("a/b", False), ("", False)])
def test_request_ids_are_safe_file_names(request_id, ok):
    if ok:
        assert parse_request(request(request_id=request_id)).request_id == request_id
    else:
        with pytest.raises(CouncilError) as err:
            parse_request(request(request_id=request_id))
        assert list(fields_of(err.value)) == ["request_id"]


@pytest.mark.parametrize(("change", "field"), [
    ({"timestamp": "yesterday"}, "timestamp"),
    ({"proposer": ""}, "proposer"),
    ({"proposer": "p" * 201}, "proposer"),
    ({"context": {"summary": ""}}, "context.summary"),
    ({"context": {"summary": "ok", "key_metrics": {"sharpe": "high"}}}, "context.key_metrics.sharpe"),
    ({"context": {"summary": "ok", "files_changed": "notes.md"}}, "context.files_changed"),
    ({"artifacts": {"diff_content": 42}}, "artifacts.diff_content"),
    ({"change-type": "DECLARE_PASS"}, "change-type"),
])
def test_bad_fields_are_reported_one_by_one(change, field):
    with pytest.raises(CouncilError) as err:
        parse_request(request(**change))
    assert field in fields_of(err.value), err.value.details


def test_missing_fields_are_listed_together():
    with pytest.raises(CouncilError) as err:
        parse_request({"request_id": "r1"})
    assert set(fields_of(err.value)) == {"timestamp", "proposer", "change_type", "context"}
    assert err.value.message.startswith("invalid council request: ")


def test_extra_context_is_tolerated_and_kept():
    req = parse_request(request(context={**SEED_REQUEST["context"], "strategy": "v2.1", "owner": {"team": "q"}}))
    assert req.context.model_extra == {"strategy": "v2.1", "owner": {"team": "q"}}
    assert req.to_wire()["context"]["strategy"] == "v2.1"


def test_extra_artifacts_must_be_text_and_count_as_provided():
    req = parse_request(request(artifacts={"diff_content": "d", "backtest_log": "log", "spec_content": "  "}))
    assert req.artifacts.provided() == {"diff_content": "d", "backtest_log": "log"}  # blank counts as missing
    with pytest.raises(CouncilError) as err:
        parse_request(request(artifacts={"backtest_log": {"a": 1}}))
    assert "backtest_log" in err.value.message


def test_artifacts_may_be_left_out():
    data = request()
    del data["artifacts"]
    assert parse_request(data).artifacts.provided() == {}


@pytest.mark.parametrize(("raw", "reason"), [(b"{bad", "not_json"), (b"\xff\xfe", "not_utf8"),
                                             (b"[1, 2]", None)])
def test_unreadable_files_are_validation_errors(raw, reason):
    with pytest.raises(CouncilError) as err:
        parse_request(decode_json(raw))
    assert err.value.code is ErrorCode.VALIDATION
    if reason:
        assert err.value.details["reason"] == reason
    else:
        assert err.value.details["fields"] == {"(root)": "must be an object"}


@pytest.mark.parametrize("field", ["concerns", "required_actions", "blocking_issues"])
def test_verdict_lists_are_bounded(field):
    with pytest.raises(ValidationError):
        RoleVerdict.model_validate({**SEED_VERDICT, field: ["x"] * 51})
    with pytest.raises(ValidationError):
        RoleVerdict.model_validate({**SEED_VERDICT, field: ["x" * 2001]})


@pytest.mark.parametrize("form", ["text", "bytes", "dict"])
def test_a_request_may_arrive_as_a_context_string_bytes_or_decoded_json(form):
    import json

    from council.review.requests import load_request

    text = json.dumps(SEED_REQUEST)
    source = {"text": text, "bytes": text.encode(), "dict": SEED_REQUEST}[form]
    assert load_request(source) == CouncilRequest.model_validate(SEED_REQUEST)
    with pytest.raises(CouncilError):
        load_request("{" if form != "dict" else {"request_id": "x"})
