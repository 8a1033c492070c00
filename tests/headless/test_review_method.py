"""``council/review`` over real JSON-RPC on the real sidecar subprocess: the decision and its markdown, progress
events, field-level validation errors, a failed model as an internal error (never a verdict), the client's own
model serving every role, and cancellation."""

from __future__ import annotations

import copy

import anyio
import pytest

from council.client.rpc import RpcError
from council.review.models import ReviewedDecision
from tests.review.review_helpers import FINAL_REPLIES, SEED_REQUEST, SUMMARY, expected_axes, seed_story_script

from .conftest import client_model_reply, wait_for_event

REVIEW_ID = "review:req_123456789"


async def test_the_seed_request_is_reviewed_over_json_rpc(sidecar):
    async with sidecar(script=seed_story_script()) as sc:
        result = await sc.call("council/review", {"request": SEED_REQUEST})
        assert set(result) == {"decision", "markdown", "compactMarkdown"}
        assert result["compactMarkdown"].startswith("**Council review: REJECT** (request `req_123456789`")
        decision = ReviewedDecision.model_validate(result["decision"])
        assert decision.final_outcome.value == "REJECT" and decision.summary_reasoning == SUMMARY
        assert decision.axis_scores.model_dump() == expected_axes(FINAL_REPLIES)
        assert result["decision"]["verdicts"][1]["checklist_results"][0]["pass"] is False  # the seed's key
        assert result["markdown"].startswith("## Council review: \u274c REJECT")
        events = sc.session_events(REVIEW_ID)
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert {e["type"] for e in events} == {"progress"}
        messages = [e["message"] for e in events]
        assert messages[0].startswith("Review panel for DECLARE_PASS: Overfitting Auditor, Quant Researcher")
        assert "The roles disagree: one debate round, each role sees the others' concerns." in messages
        assert messages[-1] == "By the rules: REJECT (blocking_issues). The chair writes the reasoning\u2026"


async def test_a_bad_request_is_refused_field_by_field(sidecar):
    bad = copy.deepcopy(SEED_REQUEST)
    bad["change_type"] = "SHIP_IT"
    bad["context"]["key_metrics"]["sharpe"] = "high"
    async with sidecar() as sc:
        with pytest.raises(RpcError) as err:
            await sc.call("council/review", {"request": bad, "timeoutSeconds": 0})
        assert err.value.code == -32602
        data = err.value.data
        assert data["code"] == "validation"
        assert set(data["details"]["fields"]) == {"request.change_type", "request.context.key_metrics.sharpe",
                                                  "timeoutSeconds"}
        assert sc.session_events("review:req_123456789") == []  # refused before anything ran


async def test_a_failing_model_is_an_internal_error_not_a_verdict(sidecar):
    script = {"rules": [{"when": {"schema": "RoleReply", "purpose": "Realism Checker"}, "error": "client"}]}
    async with sidecar(script=script) as sc:
        with pytest.raises(RpcError) as err:
            await sc.call("council/review", {"request": SEED_REQUEST})
        assert err.value.code == -32603
        data = err.value.data
        assert data["code"] == "internal" and data["details"]["reason"] == "roles_failed"
        assert list(data["details"]["roles"]) == ["Realism Checker"]
        assert data["message"].startswith("could not review: no verdict from Realism Checker")
        assert (await sc.call("council/personas"))["councils"]["review"]  # still serving


async def test_the_clients_model_can_serve_every_role(sidecar):
    async with sidecar(provider="client") as sc:
        purposes: list[str] = []

        async def complete(params):
            p, text = client_model_reply(params)
            purposes.append(p.purpose)
            return {"text": text, "model": "chat-model"}

        sc.serve_completions(complete)
        result = await sc.call("council/review", {"request": SEED_REQUEST,
                                                  "client": {"completion": True, "completionModel": "chat-model"}})
        assert result["decision"]["final_outcome"] == "APPROVE"
        assert sorted(purposes) == sorted(["Overfitting Auditor", "Quant Researcher", "Realism Checker",
                                           "Risk Officer", "Devil's Advocate", "Chair"])
        assert set(result["decision"]["audit"]["models"].values()) == {"client:chat-model"}


async def test_cancelling_the_request_stops_the_review(sidecar):
    async with sidecar(script={"delay": 2.0}) as sc:
        async with anyio.create_task_group() as tg:  # cancelled once the review has said something
            tg.start_soon(sc.call, "council/review", {"request": SEED_REQUEST})
            await wait_for_event(sc, lambda e: e.get("sessionId") == REVIEW_ID)
            tg.cancel_scope.cancel()
        await anyio.sleep(2.5)  # long enough for a review that was not cancelled to finish a round
        messages = [e["message"] for e in sc.session_events(REVIEW_ID)]
        assert messages and not any(m.startswith(("By the rules", "Risk Officer: APPROVE")) for m in messages)
        assert (await sc.call("council/personas"))["personas"]
