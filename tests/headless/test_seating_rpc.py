"""Different models at the table (issue 19), over real JSON-RPC: the test client serves ``council/complete`` for
two vendors' model ids; which persona got which model, fallback, restore, and the budget with its stated bound."""

from __future__ import annotations

import json
import re
from typing import Any

from council.client.rpc import RpcError, start_sidecar

from .conftest import PROBLEM, client_model_reply, events_of

ALPHA = {"id": "alpha/one", "vendor": "alpha-labs", "family": "alpha-1", "name": "Alpha One"}
BETA = {"id": "beta/two", "vendor": "beta-labs", "family": "beta-2", "name": "Beta Two"}
COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
CLIENT = {"completion": True, "completionModel": "Alpha One", "models": [ALPHA, BETA], "chatModelId": ALPHA["id"]}


class TwoModels:
    """The test client's two models: records who asked which model, answers like the scripted model, and can
    refuse a model (a JSON-RPC error with the reason the sidecar acts on) or garble replies (forcing repairs)."""

    def __init__(self, sc, refuse: dict[str, str] | None = None, garble: set[str] | None = None) -> None:
        self.sc = sc
        self.calls: list[tuple[str, str | None]] = []
        self.refuse = refuse or {}
        self.garble = garble or set()
        self.events_at_first_call: int | None = None

    async def complete(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.events_at_first_call is None:
            self.events_at_first_call = len(self.sc.events)
        model_id = params.get("modelId")
        self.calls.append((params["purpose"], model_id))
        if model_id in self.refuse:
            raise RpcError(-32001, "the user did not allow this model", {
                "code": "permission", "message": "no consent",
                "details": {"reason": self.refuse[model_id], "modelId": model_id}})
        p, text = client_model_reply(params)
        if p.purpose in self.garble:
            text = "not json at all"
        name = {ALPHA["id"]: ALPHA["name"], BETA["id"]: BETA["name"]}.get(model_id or "", "Alpha One")
        return {"text": text, "model": name}

    def models_of(self, purpose: str) -> set[str | None]:
        return {m for p, m in self.calls if p == purpose}


async def run_session(sc, client: dict[str, Any], **options: Any) -> dict[str, Any]:
    return await sc.call("council/turn", {"text": PROBLEM, "client": client,
                                          "options": {"personas": COUNCIL, "clarify": False, **options}})


async def test_diverse_seating_lands_on_both_models_and_the_text_names_them(sidecar):
    async with sidecar(provider="client") as sc:
        models = TwoModels(sc)
        sc.serve_completions(models.complete)
        r = await run_session(sc, CLIENT)
        assert r["status"] == "completed"
        assert models.models_of("Software Architect") == {"alpha/one"}
        assert models.models_of("Senior Developer") == {"beta/two"}
        assert models.models_of("Devil's Advocate") == {"alpha/one"}
        for chair_role in ("moderator", "synthesizer"):
            assert models.models_of(chair_role) == {"alpha/one"}
        [seated] = events_of(sc, r["sessionId"], "seating.decided")
        assert seated["seating"]["policy"] == "diverse"
        assert "Senior Developer → Beta Two" in seated["markdown"]
        text = "".join(e["markdown"] for e in sc.session_events(r["sessionId"]))
        # one compact line per persona and cycle, each naming the model the persona spoke with; a vote is on the
        # line of the persona (and model) that cast it
        heads = re.findall(r"^- \*\*(.+?)\*\*(?: · _(.+?)_)? — ", text, re.M)
        seats = {"Software Architect": "Alpha One", "Senior Developer": "Beta Two", "Devil's Advocate": "Alpha One"}
        cycles = len(events_of(sc, r["sessionId"], "cycle.started"))
        assert cycles >= 2 and sorted(heads) == sorted(list(seats.items()) * cycles), heads
        assert re.search(r"^- \*\*Senior Developer\*\* · _Beta Two_ — [^\n]* · 🗳️ \*\*[AB]\*\* \d+%", text, re.M)
        started = events_of(sc, r["sessionId"], "persona.started")
        assert {e["persona"]: e["modelId"] for e in started}["Senior Developer"] == "beta/two"
        assert set(r["usage"]["byModel"]) == {"Alpha One", "Beta Two"}
        assert r["usage"]["calls"] == len(models.calls) <= r["usage"]["maxCalls"]
        snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
        assert "#### Senior Developer · _Beta Two_" in snap["transcriptMarkdown"]
        assert "Senior Developer → Beta Two" in snap["transcriptMarkdown"]
        # the footer tells the chat's own model from the other model the user offered
        assert "Alpha One (your chat model) and Beta Two (another of your chat models)" in r["finalAnswer"]


async def test_an_explicit_map_and_the_chat_policy(sidecar):
    async with sidecar(provider="client") as sc:
        models = TwoModels(sc)
        sc.serve_completions(models.complete)
        await run_session(sc, CLIENT, seating={"devil's advocate": "beta/two"})
        assert models.models_of("Devil's Advocate") == {"beta/two"}
        assert models.models_of("Senior Developer") == models.models_of("Software Architect") == {"alpha/one"}
        models.calls.clear()
        r = await run_session(sc, CLIENT, seating="chat")
        assert {m for _, m in models.calls} == {"alpha/one"}
        text = "".join(e["markdown"] for e in sc.session_events(r["sessionId"]))
        assert "· _Alpha One_" not in text  # one model: headings stay as they were


async def test_no_model_list_keeps_everything_on_the_one_model(sidecar):
    async with sidecar(provider="client") as sc:
        models = TwoModels(sc)
        sc.serve_completions(models.complete)
        r = await run_session(sc, {"completion": True, "completionModel": "Alpha One"})
        assert r["status"] == "completed" and {m for _, m in models.calls} == {None}
        [seated] = events_of(sc, r["sessionId"], "seating.decided")
        assert seated["seating"]["policy"] == "single" and seated["markdown"] == ""


async def test_a_refused_model_falls_back_to_the_chats_model_with_one_note(sidecar):
    async with sidecar(provider="client") as sc:
        models = TwoModels(sc, refuse={"beta/two": "no_consent"})
        sc.serve_completions(models.complete)
        r = await run_session(sc, CLIENT, maxCycles=3)
        assert r["status"] == "completed"
        asked = [m for p, m in models.calls if p == "Senior Developer"]
        assert asked.count("beta/two") == 1 and asked[1:] and set(asked[1:]) == {"alpha/one"}
        [fell] = events_of(sc, r["sessionId"], "seat.fellBack")
        assert fell["personas"] == ["Senior Developer"] and fell["reason"] == "no_consent"
        assert fell["markdown"].count("\n\n") == 1 and "Beta Two cannot be used" in fell["markdown"]
        assert events_of(sc, r["sessionId"], "error") == []  # answered on the chat's model: nothing failed
        completed = [e for e in events_of(sc, r["sessionId"], "persona.completed")
                     if e["persona"] == "Senior Developer"]
        assert completed and not any(e["response"]["abstained"] for e in completed)
        assert completed[0]["response"]["model"] == "Alpha One"


async def test_seating_and_a_fallback_survive_a_restore(sidecar):
    async with sidecar(provider="client") as sc:
        models = TwoModels(sc, refuse={"beta/two": "model_unavailable"})
        sc.serve_completions(models.complete)
        three = {**CLIENT, "models": [ALPHA, BETA, {**BETA, "id": "gamma/three", "family": "gamma-3", "name": "Gamma"}]}
        r = await run_session(sc, three)
        snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"], "includeJournal": True})
        seats = {s["persona"]: s["model"]["id"] for s in snap["session"]["seating"]["seats"]}
        assert seats == {"Software Architect": "alpha/one", "Senior Developer": "alpha/one",
                         "Devil's Advocate": "gamma/three"}
    async with start_sidecar(["--provider", "client", "--no-embeddings"], stderr=None) as sc2:
        models2 = TwoModels(sc2)
        sc2.serve_completions(models2.complete)
        await sc2.call("council/restore", {"sessionId": r["sessionId"], "journal": snap["journal"]})
        again = await sc2.call("council/snapshot", {"sessionId": r["sessionId"]})
        assert again["session"]["seating"] == snap["session"]["seating"]
        r2 = await sc2.call("council/turn", {"sessionId": r["sessionId"], "command": "extend",
                                              "text": "Also weigh the hiring plan.", "client": three})
        assert r2["status"] == "completed"
        assert models2.models_of("Devil's Advocate") == {"gamma/three"}  # still offered: the journaled seat holds
        assert models2.models_of("Senior Developer") == {"alpha/one"}  # fell back before the restore: stays


async def test_the_budget_fits_the_council_and_calls_never_exceed_the_stated_maximum(sidecar):
    async with sidecar(provider="client") as sc:
        models = TwoModels(sc, garble={"Devil's Advocate"})  # every reply of it needs a repair
        sc.serve_completions(models.complete)
        r = await sc.call("council/turn", {"text": PROBLEM, "client": CLIENT, "options": {
            "personas": COUNCIL, "maxModelCalls": 7, "maxCycles": 5}})
        sid = r["sessionId"]
        assert r["status"] in ("clarifying", "completed")
        if r["status"] == "clarifying":
            r = await sc.call("council/turn", {"sessionId": sid, "text": "skip all", "client": CLIENT})
        assert r["status"] == "completed"
        [cost] = events_of(sc, sid, "cost.estimated")
        plan = cost["plan"]
        assert plan["budget"] == 7 and plan["maxCalls"] <= 7 and plan["planned"] <= 7
        assert plan["cut"]["cyclesFrom"] == 5 and plan["cycles"] == 1
        assert "at most 7 model calls" in cost["markdown"] and "to fit the budget of 7 model calls" in cost["markdown"]
        first = next(e for e in sc.session_events(sid) if e["type"] == "persona.started")
        assert cost["seq"] < first["seq"] and models.events_at_first_call is not None
        assert len(models.calls) == r["usage"]["calls"] <= plan["maxCalls"] <= 7
        assert sum(r["usage"]["byModel"].values()) == r["usage"]["calls"]


async def test_without_a_budget_repairs_stay_within_the_stated_maximum(sidecar):
    async with sidecar(provider="client") as sc:
        models = TwoModels(sc, garble={"Devil's Advocate", "Senior Developer", "moderator"})
        sc.serve_completions(models.complete)
        r = await run_session(sc, CLIENT, maxCycles=2)
        [cost] = events_of(sc, r["sessionId"], "cost.estimated")
        assert cost["plan"]["maxCalls"] == 2 * cost["plan"]["planned"]
        assert len(models.calls) == r["usage"]["calls"] <= cost["plan"]["maxCalls"]
        assert json.dumps(r["usage"]["byModel"])  # per model, on the wire


async def test_every_model_refused_is_one_line_naming_them_with_the_fix_and_no_retry(sidecar):
    """Issue 19 audit: the user declines every model's access. Not "Every advisor failed … Retry" (a retry cannot
    help) nor a garbled fallback note: one line naming the models, why (no permission) and how to allow them."""
    async with sidecar(provider="client") as sc:
        models = TwoModels(sc, refuse={"alpha/one": "no_consent", "beta/two": "no_consent"})
        sc.serve_completions(models.complete)
        r = await run_session(sc, CLIENT)
        sid = r["sessionId"]
        [fell] = events_of(sc, sid, "seat.fellBack")
        assert "(it may not be used" not in fell["markdown"] and "no permission" in fell["markdown"]
        errors = events_of(sc, sid, "error")
        [stalled] = [e for e in errors if e["details"]["kind"] != "model_failed"]
        text = stalled["markdown"]
        assert stalled["code"] == "permission" and not stalled["retryable"], stalled
        assert text.count("\n\n") == 1 and "Alpha One" in text and "Beta Two" in text
        assert "no permission" in text and "Manage Language Model Access" in text and "model picker" in text
        assert "Retry" not in text and "Every advisor failed" not in text


async def test_a_map_naming_no_persona_or_a_model_not_offered_is_said_when_the_council_is_seated(sidecar):
    """Issue 19 audit: the map (VS Code's council.models) is a preference that holds across workspaces, so what
    does not apply is not refused but said in seating.decided, naming the entry; a persona key resolves like
    ``--personas`` (an id or a unique prefix works)."""
    async with sidecar(provider="client") as sc:
        models = TwoModels(sc)
        sc.serve_completions(models.complete)
        r = await run_session(sc, CLIENT, seating={"Secruity Expert": "beta/two", "devils advocate": "beta/two",
                                                   "Senior Developer": "claude-x"})
        assert r["status"] == "completed"
        assert models.models_of("Devil's Advocate") == {"beta/two"}
        [seated] = events_of(sc, r["sessionId"], "seating.decided")
        misses = {m["persona"]: m["reason"] for m in seated["seating"]["misses"]}
        assert misses == {"Secruity Expert": "no_persona", "Senior Developer": "model_not_offered"}
        text = seated["markdown"]
        assert "“Secruity Expert” names no persona" in text and "Security Expert" in text
        assert "Senior Developer → “claude-x”: no model with that id is on offer (offered: alpha/one, beta/two)" in text


async def test_a_restored_session_whose_seat_model_is_no_longer_offered_falls_back_with_one_note(sidecar):
    """Issue 19 audit: after a restart the client no longer offers a journaled seat's model (gone, or refused):
    the seat falls back to the chat's model before the next turn's first call, with one note, as a failed model."""
    async with sidecar(provider="client") as sc:
        models = TwoModels(sc)
        sc.serve_completions(models.complete)
        r = await run_session(sc, CLIENT)
        snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"], "includeJournal": True})
        assert {s["persona"]: s["model"]["id"] for s in snap["session"]["seating"]["seats"]}["Senior Developer"] == \
            "beta/two"
    async with start_sidecar(["--provider", "client", "--no-embeddings"], stderr=None) as sc2:
        models2 = TwoModels(sc2)
        sc2.serve_completions(models2.complete)
        await sc2.call("council/restore", {"sessionId": r["sessionId"], "journal": snap["journal"]})
        only_alpha = {**CLIENT, "models": [ALPHA]}
        r2 = await sc2.call("council/turn", {"sessionId": r["sessionId"], "command": "extend",
                                              "text": "Also weigh the hiring plan.", "client": only_alpha})
        assert r2["status"] == "completed"
        assert "beta/two" not in {m for _, m in models2.calls}
        assert models2.models_of("Senior Developer") == {"alpha/one"}
        [fell] = events_of(sc2, r["sessionId"], "seat.fellBack")
        assert fell["personas"] == ["Senior Developer"] and fell["reason"] == "model_unavailable"
        assert fell["markdown"].count("\n\n") == 1 and "Beta Two cannot be used" in fell["markdown"]
        await sc2.call("council/turn", {"sessionId": r["sessionId"], "text": "Why?", "client": only_alpha})
        assert len(events_of(sc2, r["sessionId"], "seat.fellBack")) == 1  # once per model per session


async def test_the_calls_line_names_only_models_that_answered_and_the_sidecar_writes_it(sidecar):
    """Issue 19 audit: the transcript's footer named a model that never answered (one failed call on it), and the
    chat's line under the answer was worded by the extension; both are the sidecar's one line now."""
    gamma = {**BETA, "id": "gamma/three", "vendor": "gamma-labs", "family": "gamma-3", "name": "Gamma Three"}
    async with sidecar(provider="client") as sc:
        models = TwoModels(sc, refuse={"gamma/three": "model_unavailable"})
        sc.serve_completions(models.complete)
        r = await run_session(sc, {**CLIENT, "models": [ALPHA, BETA, gamma]})
        assert r["status"] == "completed" and "gamma/three" in {m for _, m in models.calls}  # asked once, failed
        line = r["usage"]["markdown"]
        assert line.startswith(f"_Model calls: {r['usage']['calls']} (it said about ") and line.endswith("._\n\n")
        assert ", at most " in line
        assert "on Alpha One" in line and "on Beta Two" in line and "1 failed" in line
        assert "Gamma" not in line
        snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
        assert line.strip() in snap["transcriptMarkdown"]


async def test_a_model_spec_without_a_model_is_a_validation_error_and_the_sidecar_serves_on(sidecar):
    """Audit (session 6): ``models: ["ollama:"]`` — a provider problem whose details carry its ``kind`` — answered
    with an internal TypeError (RpcError's own ``kind`` parameter took the detail twice)."""
    import pytest

    async with sidecar() as sc:
        with pytest.raises(RpcError) as err:
            await sc.call("council/turn", {"text": "Should we split the monolith?",
                                           "options": {"models": ["ollama:"], "clarify": False}})
        assert err.value.code == -32602 and err.value.data["code"] == "validation", err.value.data
        assert "needs a model" in err.value.message and err.value.data["details"]["kind"]
        personas = await sc.call("council/personas", {})
        assert personas["personas"]
