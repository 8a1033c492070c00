"""Every bad input is a JSON-RPC error with {code, message, details}; the sidecar keeps serving."""

from __future__ import annotations

import pytest

from council.client.rpc import RpcError

from .conftest import PROBLEM


async def expect_error(sc, method, params, code="validation"):
    with pytest.raises(RpcError) as err:
        await sc.call(method, params)
    data = err.value.data
    assert set(data) >= {"code", "message"} and data["code"] == code, data
    assert err.value.code == {"validation": -32602, "permission": -32001, "internal": -32603}[code]
    return data


async def test_malformed_params_give_field_details_and_the_server_stays_up(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        data = await expect_error(sc, "council/turn", {"text": 42, "options": {"maxCycles": 99, "depth": "huge"},
                                                       "bogus": True})
        fields = data["details"]["fields"]
        assert "text" in fields and "options.maxCycles" in fields and "options.depth" in fields
        assert "bogus" in fields
        data = await expect_error(sc, "council/answer", {"sessionId": sid})
        assert {"questionId", "idempotencyKey"} <= set(data["details"]["fields"])
        await expect_error(sc, "council/turn", {"text": "x" * 20_001})
        await expect_error(sc, "council/turn", {"sessionId": sid, "command": "dance"})
        # the first session is untouched and the server still serves it
        r2 = await sc.call("council/turn", {"sessionId": sid, "text": "skip all"})
        assert r2["status"] == "completed"


async def test_unknown_session_and_wrong_state(sidecar):
    async with sidecar() as sc:
        data = await expect_error(sc, "council/snapshot", {"sessionId": "nope"})
        assert data["details"]["sessionId"] == "nope"
        await expect_error(sc, "council/turn", {"sessionId": "nope", "text": "hello"})
        await expect_error(sc, "council/cancel", {"sessionId": "nope"})
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {"clarify": False}})
        sid = r["sessionId"]
        assert r["status"] == "completed"
        data = await expect_error(sc, "council/answer", {"sessionId": sid, "questionId": "q", "text": "hi",
                                                         "idempotencyKey": "k"})
        assert "no question" in data["message"]
        await expect_error(sc, "council/cancel", {"sessionId": sid})
        await expect_error(sc, "council/turn", {"text": "   "})
        await expect_error(sc, "council/turn", {"command": "status"})


async def test_answering_a_question_that_is_not_active(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        data = await expect_error(sc, "council/answer", {"sessionId": r["sessionId"], "questionId": "other",
                                                         "text": "x", "idempotencyKey": "k1"})
        assert data["details"]["activeQuestionId"] == r["question"]["questionId"]
        data = await expect_error(sc, "council/answer", {"sessionId": r["sessionId"],
                                                         "questionId": r["question"]["questionId"],
                                                         "choice": "not a choice", "idempotencyKey": "k2"})
        assert "choices" in data["details"]


async def test_unknown_persona_override_is_a_validation_error(sidecar):
    async with sidecar() as sc:
        data = await expect_error(sc, "council/turn", {"text": PROBLEM, "options": {"personas": ["Wizard"]}})
        assert "Wizard" in data["message"]
        r = await sc.call("council/turn", {"text": PROBLEM, "options": {
            "personas": ["security expert", "Devil's Advocate"], "clarify": False}})
        selected = next(e for e in sc.session_events(r["sessionId"]) if e["type"] == "personas.selected")
        sel = selected["selection"]
        assert sel["userOverride"] is True
        assert [p["name"] for p in sel["selectedPersonas"]] == ["Security Expert", "Devil's Advocate"]


async def test_personas_and_providers(sidecar):
    async with sidecar() as sc:
        p = await sc.call("council/personas")
        names = {x["name"] for x in p["personas"]}
        assert {"Growth Strategist", "Financial Officer", "Devil's Advocate", "Ops Architect", "Customer Advocate",
                "Culture Lead", "Senior Developer", "Security Expert", "Software Architect"} <= names
        assert {"business", "engineering"} <= set(p["councils"])
        prov = await sc.call("council/providers")
        assert any(x["kind"] == "scripted" and x["available"] for x in prov["providers"])
