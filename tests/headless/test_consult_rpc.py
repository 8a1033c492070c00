"""The consult tools as sidecar methods, over real JSON-RPC: council/consult, council/personaConsult,
council/consultPlan and council/definePersonas (snake_case payloads, seed 000)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from council.client.rpc import RpcError

from .conftest import PROBLEM, client_model_reply, wait_for_event

BULLETS = {"brief": (2, 3), "standard": (5, 7), "deep": (10, 14)}


def bullet_count(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith("- "))


async def test_consult_runs_a_whole_session_in_one_call(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/consult", {"user_problem": PROBLEM, "depth": "brief",
                                              "constraints": ["two engineers"], "desired_outcome": "a plan"})
        lo, hi = BULLETS["brief"]
        assert r["depth"] == "brief" and r["council"]["method"] != "override" and r["council"]["reason"]
        assert [x["persona"] for x in r["responses"]] == r["council"]["personas"]
        for resp in r["responses"]:
            assert lo <= bullet_count(resp["summary"]) <= hi and lo <= bullet_count(resp["advice"]) <= hi
            assert lo <= len(resp["next_steps"]) <= hi and resp["confidence"] in ("low", "medium", "high")
        syn = r["synthesis"]
        assert syn["recommendation"] and lo <= len(syn["next_steps"]) <= hi
        da = next(x for x in r["responses"] if x["persona"] == "Devil's Advocate")
        assert da["counterpoints"] and set(da["counterpoints"]) <= set(syn["risks_tradeoffs"])
        # nobody could be asked: the scripted clarifier's two questions became assumptions and open questions
        assert [c["status"] for c in r["clarifications"]] == ["assumed", "assumed"]
        assert len(r["assumptions"]) == 2 and r["clarifications"][0]["question"] in r["open_questions"]
        assert r["model_calls"] >= 1 + len(r["responses"]) + 2 and r["cycles"] >= 1
        # the session streamed its events and can be fetched afterwards
        kinds = [e["type"] for e in sc.session_events(r["session_id"])]
        assert "personas.selected" in kinds and "final.answer" in kinds
        snap = await sc.call("council/snapshot", {"sessionId": r["session_id"]})
        assert snap["session"]["status"] == "completed" and "two engineers" in snap["session"]["requestText"]


async def test_persona_consult_and_plan(sidecar):
    async with sidecar() as sc:
        plan = await sc.call("council/consultPlan", {"user_problem": PROBLEM, "persona_name": "security"})
        assert plan["council"]["personas"] == ["Security Expert"] and plan["max_cycles"] == 1
        assert plan["model_calls_min"] == plan["model_calls_max"] == 3  # clarifier, its answer, the chair
        r = await sc.call("council/personaConsult", {"user_problem": PROBLEM, "persona_name": "security"})
        assert [x["persona"] for x in r["responses"]] == ["Security Expert"]
        assert r["cycles"] == 0 and "vote" not in r and r["responses"][0]["cycle"] == 0  # no debate with itself
        assert r["model_calls"] == plan["model_calls_min"]
        plan = await sc.call("council/consultPlan", {"user_problem": PROBLEM, "depth": "deep",
                                                     "selected_personas": ["Software Architect", "devils-advocate"]})
        assert plan["council"]["personas"] == ["Software Architect", "Devil's Advocate"]
        assert plan["council"]["user_override"] and plan["max_cycles"] == 5 and plan["model_calls_max"] == 13


@pytest.mark.parametrize("params, field", [
    ({"user_problem": "   "}, "user_problem"),
    ({}, "user_problem"),
    ({"user_problem": PROBLEM, "depth": "huge"}, "depth"),
    ({"user_problem": PROBLEM, "selected_personas": ["Security Expert", "Chef"]}, "selected_personas.1"),
    ({"user_problem": PROBLEM, "userProblem": "camel"}, "userProblem"),
])
async def test_bad_consult_input_is_a_validation_error_naming_the_field(sidecar, params, field):
    async with sidecar() as sc:
        with pytest.raises(RpcError) as err:
            await sc.call("council/consult", params)
        data = err.value.data
        assert err.value.code == -32602 and data["code"] == "validation" and data["message"]
        assert field in data["details"]["fields"], data


async def test_cancelling_a_consult_cancels_the_session_and_every_model_call(sidecar, tmp_path: Path):
    trace = tmp_path / "trace.jsonl"
    script = {"trace": str(trace), "rules": [{"when": {"schema": "PersonaReply"}, "delay": 5.0}]}
    async with sidecar(script=script) as sc:
        async with anyio.create_task_group() as tg:  # cancelled once a persona's call has started
            tg.start_soon(sc.call, "council/consult", {"user_problem": PROBLEM})
            await wait_for_event(sc, lambda e: e["type"] == "persona.started")
            tg.cancel_scope.cancel()
        sid = sc.events[0]["sessionId"]
        with anyio.fail_after(10):
            while (await sc.call("council/snapshot", {"sessionId": sid}))["session"]["status"] != "cancelled":
                await anyio.sleep(0.05)
        await anyio.sleep(0.3)
        lines = [json.loads(x) for x in trace.read_text().splitlines()]
        personas = [x for x in lines if x["purpose"] not in ("clarifier",)]
        started = [x["purpose"] for x in personas if x["event"] == "start"]
        assert started and sorted(started) == sorted(x["purpose"] for x in personas if x["event"] == "cancelled")
        assert not [x for x in personas if x["event"] == "end"]


async def test_define_personas_draft_then_confirm_then_visible(sidecar, tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    async with sidecar(args=["--workspace", str(ws)]) as sc:
        focus = ["Cost of delay for every option", "Reversibility of each step"]
        draft = await sc.call("council/definePersonas", {"overrides": {"Devil's Advocate": {"focus": focus}}})
        d = draft["draft"]
        assert not (ws / ".council").exists() and d["files"][0]["action"] == "create"
        assert d["files"][0]["path"] == ".council/personas/devils-advocate.toml" and d["id"] in d["preview"]
        merged = next(p for p in draft["personas"] if p["id"] == "devils-advocate")
        assert merged["focus"] == focus and merged["soul"]  # merged: the shipped soul, the new focus
        applied = await sc.call("council/definePersonas", {"confirm": d["id"]})
        assert applied["applied"] and applied["written"] == [d["files"][0]["path"]]
        written = (ws / d["files"][0]["path"]).read_text(encoding="utf-8")
        assert written == d["files"][0]["content"] and "soul" not in written  # only the overrides
        again = await sc.call("council/definePersonas", {"confirm": d["id"]})
        assert again["written"] == [] and again["unchanged"] == [d["files"][0]["path"]]
        assert (ws / d["files"][0]["path"]).read_text(encoding="utf-8") == written
        personas = await sc.call("council/personas")
        da = next(p for p in personas["personas"] if p["id"] == "devils-advocate")
        assert da["focus"] == focus and da["source"].endswith("devils-advocate.toml")


async def test_define_personas_refuses_bad_overrides_and_has_no_workspace_by_default(sidecar, tmp_path: Path):
    async with sidecar() as sc:
        with pytest.raises(RpcError) as err:
            await sc.call("council/definePersonas", {"overrides": {"Devil's Advocate": {"focus": ["x"]}}})
        assert err.value.data["code"] == "permission"
        listed = await sc.call("council/definePersonas", {})
        assert len(listed["personas"]) >= 11 and "draft" not in listed
    (tmp_path / "ws").mkdir()
    async with sidecar(args=["--workspace", str(tmp_path / "ws")]) as sc:
        bad = {"overrides": {"Devil's Advocate": {"constraints": ["Be nice to everyone."]}}}
        with pytest.raises(RpcError) as err:
            await sc.call("council/definePersonas", bad)
        data = err.value.data
        assert data["details"]["persona"] == "Devil's Advocate" and data["details"]["field"] == "constraints"
        assert "overrides.Devil's Advocate.constraints" in data["details"]["fields"]
        for params, field in (({"overrides": {"Chef": {"soul": "cooks"}}}, "overrides.Chef"),
                              ({"overrides": {"Security Expert": {"tone": "x"}}}, "overrides.Security Expert.tone"),
                              ({"overrides": {"Security Expert": {}}}, "overrides.Security Expert"),
                              ({"confirm": "draft-0000000000000000"}, "confirm")):
            with pytest.raises(RpcError) as err:
                await sc.call("council/definePersonas", params)
            assert err.value.data["code"] == "validation" and field in err.value.data["details"]["fields"], \
                err.value.data


async def test_a_client_can_lend_its_model_and_name_the_session(sidecar):
    async with sidecar() as sc:  # the sidecar's own provider is scripted; the client's model answers instead
        calls: list[dict] = []

        async def complete(params):
            calls.append(params)
            return {"text": client_model_reply(params)[1], "model": "editor-model"}

        sc.serve_completions(complete)
        r = await sc.call("council/personaConsult", {"user_problem": PROBLEM, "persona_name": "Security Expert",
                                                     "depth": "brief", "session_id": "consult-0001",
                                                     "client_model": "editor-model"})
        assert r["session_id"] == "consult-0001" and r["markdown"].startswith("**Recommendation:**")
        assert {c["sessionId"] for c in calls} == {"consult-0001"} and len(calls) == r["model_calls"]
        assert all(e["sessionId"] == "consult-0001" for e in sc.events)
        snap = await sc.call("council/snapshot", {"sessionId": "consult-0001"})
        assert snap["session"]["metadata"]["models"]["Security Expert"]["provider"] == "client"
        with pytest.raises(RpcError) as err:  # an id in use is refused
            await sc.call("council/consult", {"user_problem": PROBLEM, "session_id": "consult-0001"})
        assert err.value.data["code"] == "validation"


async def test_a_consult_on_a_model_the_user_did_not_allow_says_which_and_how_to_allow_it(sidecar):
    """Issue 19 audit: the VS Code consult tool on a chat model whose access the user declined answered "every
    advisor's model failed …; check the model configuration (see `council doctor`)"; it gives the chat's line: the
    model, that Council has no permission, and how to allow it."""
    async with sidecar() as sc:
        asked: list[str] = []

        async def complete(params):  # as the extension answers when VS Code's consent was declined
            asked.append(params["purpose"])
            raise RpcError(-32001, "The chat model GPT Five failed: NoPermissions", {
                "code": "permission", "message": "The chat model GPT Five failed: NoPermissions",
                "details": {"reason": "no_consent", "modelId": "gpt-5"}})

        sc.serve_completions(complete)
        with pytest.raises(RpcError) as err:
            await sc.call("council/consult", {"user_problem": PROBLEM, "depth": "brief", "client_model": "gpt-5",
                                              "client_models": [{"id": "gpt-5", "name": "GPT Five"}]})
    data = err.value.data
    assert err.value.code == -32001 and data["code"] == "permission" and data["details"]["reason"] == "no_consent"
    assert data["message"] == ("the council could not answer: Council has no permission to use GPT Five, so no "
                               "advisor could answer; allow it under Manage Language Model Access (the Accounts "
                               "menu), or pick a model Council may use in the chat's model picker, then call the "
                               "tool again")
    assert data["details"]["models"] == ["GPT Five"] and "council doctor" not in data["text"]
    assert data["text"].startswith("The council was not allowed to do this: the council could not answer: Council "
                                   "has no permission to use GPT Five")
    assert asked == ["clarifier"]  # asked once: the refusal holds for the rest of the consult


async def test_a_consult_whose_later_cycle_fails_answers_from_the_earlier_one(sidecar):
    """Issue 30: every advisor's call of the second cycle failed (the provider overloaded): a chat waits for Retry,
    but no retry follows a consult — it ended in an `internal` error with the first cycle lost. It answers from the
    first cycle, with a note that says the second cycle's calls failed."""
    script = {"rules": [{"when": {"schema": "PersonaReply", "cycle": 2}, "error": "overloaded"}]}
    async with sidecar(script=script) as sc:
        r = await sc.call("council/consult", {"user_problem": PROBLEM, "depth": "brief"})
        kinds = [e["type"] for e in sc.session_events(r["session_id"])]
    assert r["cycles"] == 1 and {x["cycle"] for x in r["responses"]} == {1} and r["synthesis"]["recommendation"]
    assert "Every advisor's model call in cycle 2 failed: this answer comes from the cycles before it." in \
        r["synthesis"]["notes"]
    assert r["vote"] and r["vote"]["counts"] and "final.answer" in kinds


async def test_a_consult_whose_every_model_call_fails_is_a_validation_error_naming_the_cause(sidecar):
    """Nothing to answer from: the models failed, not Council — `validation` (``internal`` is Council's own faults
    only), naming the cause; the sidecar keeps serving."""
    script = {"rules": [{"when": {"schema": "PersonaReply"}, "error": "overloaded"}]}
    async with sidecar(script=script) as sc:
        with pytest.raises(RpcError) as err:
            await sc.call("council/consult", {"user_problem": PROBLEM, "depth": "brief"})
        plan = await sc.call("council/consultPlan", {"user_problem": PROBLEM})
    data = err.value.data
    assert data["code"] == "validation" and data["details"]["reason"] == "models_failed"
    assert "overloaded" in data["message"] and set(data["details"]["causes"].values()) == {"overloaded"}
    assert plan["council"]["personas"]
