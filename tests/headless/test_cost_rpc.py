"""No speculative calls on metered models by default (issue 31), over real JSON-RPC: the test client serves
``council/complete`` as VS Code's chat models do (premium requests); a call it receives is a call the user pays for."""

from __future__ import annotations

from typing import Any

import anyio

from .conftest import PROBLEM, client_model_reply, events_of

ALPHA = {"id": "alpha/one", "vendor": "alpha-labs", "family": "alpha-1", "name": "Alpha One"}
BETA = {"id": "beta/two", "vendor": "beta-labs", "family": "beta-2", "name": "Beta Two"}
CLIENT = {"completion": True, "completionModel": "Alpha One", "models": [ALPHA, BETA], "chatModelId": ALPHA["id"]}
COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]


class PaidModels:
    """The client's models: counts the persona calls that arrive while the moderator's options call is open."""

    def __init__(self) -> None:
        self.options_open = False
        self.during_options: list[str] = []
        self.calls: list[str] = []

    async def complete(self, params: dict[str, Any]) -> dict[str, Any]:
        p, text = client_model_reply(params)
        self.calls.append(p.purpose)
        if self.options_open and p.purpose in COUNCIL:
            self.during_options.append(p.purpose)
        if p.purpose == "moderator" and (p.json_schema or {}).get("title") == "OptionsReply":
            self.options_open = True
            await anyio.sleep(0.5)  # long enough for a speculative cycle to start its calls
            self.options_open = False
        return {"text": text, "model": "Alpha One" if params.get("modelId") != BETA["id"] else "Beta Two"}


async def run(sc, **options: Any) -> tuple[dict[str, Any], PaidModels]:
    models = PaidModels()
    sc.serve_completions(models.complete)
    r = await sc.call("council/turn", {"text": PROBLEM, "client": CLIENT, "options": {
        "personas": COUNCIL, "clarify": False, "maxCycles": 3, **options}})
    assert r["status"] == "completed"
    return r, models


async def test_no_persona_call_is_sent_beside_the_options_call_on_a_clients_models(sidecar):
    """The cycle-2 calls started beside the options call are sent and billed even when the first vote settles it:
    on VS Code's chat models (premium requests) the council waits for the options instead, and says so in the
    cost line (no speculative calls counted); asked to speculate, it does."""
    async with sidecar(provider="client") as sc:
        r, models = await run(sc)
        assert models.during_options == [], models.calls
        [cost] = events_of(sc, r["sessionId"], "cost.estimated")
        assert cost["plan"]["speculates"] is False and "beside the options call" not in cost["markdown"]
        assert cost["plan"]["expectedLow"] == 3 + 2
        assert cost["plan"]["expectedHigh"] == 3 + 3 + 3 + 2  # asking each advisor its option, a debate cycle
        r, models = await run(sc, speculate="always")
        assert sorted(models.during_options) == sorted(COUNCIL), models.calls
        [cost] = events_of(sc, r["sessionId"], "cost.estimated")
        assert cost["plan"]["speculates"] is True and cost["plan"]["expectedLow"] == 3 + 3 + 2
