"""``council/reviewPlan`` over real JSON-RPC: the roles that would review a change type and the model calls they
would make, without a model call (the VS Code ``council_review`` tool's confirmation); a bad change type is refused."""

from __future__ import annotations

import pytest

from council.client.rpc import RpcError
from tests.review.review_helpers import SEED_REQUEST, seed_story_script


async def test_the_plan_names_the_panel_and_bounds_the_calls_of_the_review(sidecar):
    async with sidecar(script=seed_story_script()) as sc:
        plan = await sc.call("council/reviewPlan", {"changeType": SEED_REQUEST["change_type"]})
        roles = plan["roles"]
        assert len(roles) >= 2 and "Overfitting Auditor" in roles
        assert (plan["modelCallsMin"], plan["modelCallsMax"]) == (len(roles) + 1, 2 * len(roles) + 1)
        assert plan["markdown"].startswith(f"The review council for DECLARE_PASS: {roles[0]}")
        assert f"{plan['modelCallsMin']}–{plan['modelCallsMax']} model calls" in plan["markdown"]
        # The review it plans: its panel is the plan's roles, and the calls it makes fall within the plan.
        result = await sc.call("council/review", {"request": SEED_REQUEST})
        assert [v["role"] for v in result["decision"]["verdicts"]] == roles


async def test_an_unknown_change_type_is_a_validation_error(sidecar):
    async with sidecar() as sc:
        with pytest.raises(RpcError) as err:
            await sc.call("council/reviewPlan", {"changeType": "DEPLOY_TO_PROD"})
        assert err.value.data["code"] == "validation"
        assert "changeType" in str(err.value.data["details"])
