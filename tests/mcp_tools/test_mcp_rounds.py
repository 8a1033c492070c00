"""``council mcp`` for an MCP 2026-07-28 client (the official Python SDK 2.x ``Client`` pinned to that version, over
stdio, against a real ``council mcp`` subprocess): no handshake, no server→client requests. Clarifying questions come
as elicitation input requests and the client's model as ``CreateMessage`` input requests of an
``InputRequiredResult``; the client's SDK answers them and retries with the sealed ``requestState``. A state that is
altered, replayed or for another call is refused with ``validation``, and the server keeps serving."""

from __future__ import annotations

import json

import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from .conftest import PROBLEM
from .test_mcp_sampling import ScriptedClientModel

CONSULT = {"user_problem": PROBLEM, "depth": "brief"}


async def test_clarifying_questions_are_elicitation_input_requests(modern_client):
    asked: list[types.ElicitRequestParams] = []

    async def elicit(_ctx, params):
        asked.append(params)
        return types.ElicitResult(action="accept", content={"choice": "Cut costs"} if len(asked) == 1 else
                                  {"answer": "By the end of next month"})

    progress: list[str] = []

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with modern_client(["--provider", "scripted"], elicitation_callback=elicit) as c:
        r = await c.call_tool("council_consult", CONSULT, progress_callback=on_progress)
    assert not r.is_error, r.content[0].text
    assert len(asked) == 2 and "choice" in asked[0].requested_schema["properties"]
    clar = r.structured_content["clarifications"]
    assert [(x["status"], x["answer"]) for x in clar] == [("answered", "Cut costs"),
                                                         ("answered", "By the end of next month")]
    assert r.structured_content["assumptions"] == [] and any("answered" in m for m in progress)


async def test_a_consult_runs_on_the_clients_model_through_create_message_input_requests(modern_client):
    model = ScriptedClientModel()
    async with modern_client([], sampling_callback=model, input_required_max_rounds=100) as c:
        r = await c.call_tool("council_consult", CONSULT)
    assert not r.is_error, r.content[0].text
    data = r.structured_content
    assert data["model_calls"] == len(model.requests) >= 2 + len(data["responses"])
    assert data["synthesis"]["recommendation"] == "Take the staged approach and measure each step."
    assert {"moderator", "synthesizer"} <= {p.metadata["purpose"] for p in model.requests}


async def test_a_tampered_replayed_or_foreign_request_state_is_refused(modern_client):
    async def elicit(_ctx, _params):
        return types.ElicitResult(action="accept", content={"answer": "Soon"})

    async with modern_client(["--provider", "scripted"], elicitation_callback=elicit) as c:
        first = await c.session.call_tool("council_consult", CONSULT, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult) and first.request_state
        [(key, request)] = first.input_requests.items()
        assert request.method == "elicitation/create"
        answer = {key: types.ElicitResult(action="accept", content={"answer": "Soon"})}
        state = first.request_state
        forged = state[:-4] + ("AAAA" if not state.endswith("AAAA") else "BBBB")
        cases = {"forged": (CONSULT, forged), "not ours": (CONSULT, "v1.bm90IG91cnM"),
                 "other arguments": ({**CONSULT, "depth": "standard"}, state)}
        for label, (arguments, bad) in cases.items():
            with pytest.raises(MCPError) as refused:
                await c.session.call_tool("council_consult", arguments, input_responses=answer, request_state=bad)
            error = refused.value.error
            assert error.code == types.INVALID_PARAMS, label
            assert error.data["code"] == "validation" and error.data["details"]["reason"] == "invalid_request_state"
            assert "requestState" in error.data["message"] and error.data["details"]["fields"]["requestState"]
        second = await c.session.call_tool("council_consult", CONSULT, input_responses=answer, request_state=state,
                                           allow_input_required=True)  # the genuine state still works, once
        with pytest.raises(MCPError) as replayed:
            await c.session.call_tool("council_consult", CONSULT, input_responses=answer, request_state=state)
        assert replayed.value.error.data["details"]["reason"] == "invalid_request_state"
        assert "replayed" in replayed.value.error.data["message"]
        done = await c.call_tool("council_consult", CONSULT,  # the rest through the SDK's own loop
                                 request_state=second.request_state,
                                 input_responses={k: answer[key] for k in second.input_requests})
        assert not done.is_error, done.content[0].text
        with pytest.raises(MCPError) as fetched:  # the result was fetched: the call is gone
            await c.session.call_tool("council_consult", CONSULT, request_state=second.request_state)
        assert fetched.value.error.data["details"]["reason"] == "invalid_request_state"
        listed = await c.list_tools()  # still serving
    assert {t.name for t in listed.tools} >= {"council_consult", "council_review"}


async def test_tools_list_and_errors_keep_their_shape_at_2026_07_28(modern_client):
    async with modern_client(["--provider", "scripted"]) as c:
        r = await c.call_tool("council_consult", {"user_problem": ""})
        with pytest.raises(MCPError) as unknown:
            await c.call_tool("no_such_tool", {})
        no_questions = await c.call_tool("council_consult", CONSULT)  # no elicitation offered: assumptions
    error = json.loads(r.content[1].text)["error"]
    assert r.is_error and error["code"] == "validation" and "user_problem" in error["details"]["fields"]
    assert unknown.value.error.data["details"]["reason"] == "unknown_tool"
    assert not no_questions.is_error and no_questions.structured_content["assumptions"]
