"""A seat whose client model fails falls back to the chat's model; its persona's heading names the model it spoke with
(the chat's), not the one that failed (found by the VS Code e2e: the heading was made when the seat's call started)."""

from __future__ import annotations

import re

from council.client.rpc import RpcError

from .conftest import PROBLEM, client_model_reply, events_of

MODELS = [{"id": "model-a", "vendor": "vendor-a", "family": "gpt-x", "name": "Model A"},
          {"id": "model-b", "vendor": "vendor-b", "family": "claude-x", "name": "Model B"}]
COUNCIL = ["Software Architect", "Security Expert", "Devil's Advocate"]


async def test_a_persona_whose_model_failed_is_headed_with_the_chat_model(sidecar):
    async with sidecar(provider="client") as sc:
        asked: list[str | None] = []

        async def complete(params):
            asked.append(params.get("modelId"))
            if params.get("modelId") == "model-b":
                data = {"code": "internal", "message": "model B is down",
                        "details": {"reason": "model_failed", "modelId": "model-b"}}
                raise RpcError(-32603, "model B is down", data)
            return {"text": client_model_reply(params)[1]}

        sc.serve_completions(complete)
        client = {"completion": True, "completionModel": "Model A", "chatModelId": "model-a", "models": MODELS}
        options = {"clarify": False, "personas": COUNCIL, "maxCycles": 1, "provider": "client", "model": "Model A"}
        r = await sc.call("council/turn", {"text": PROBLEM, "client": client, "options": options})
        sid = r["sessionId"]
        assert "model-b" in asked, "a seat was on model B"
        fell = events_of(sc, sid, "seat.fellBack")
        assert len(fell) == 1
        moved = fell[0]["personas"]
        assert moved
        text = "".join(e.get("markdown", "") for e in sc.session_events(sid)
                       if e["type"] in ("persona.delta", "persona.completed"))
        headings = re.findall(r"^- \*\*(.+?) — ", text, re.M)  # a persona's compact line: "- **name** · _model_ — "
        headings = [h.replace("**", "") for h in headings]
        assert not [h for h in headings if "Model B" in h], headings
        for persona in moved:
            assert f"{persona} · _Model A_" in headings, headings


async def test_a_fallback_note_is_never_printed_inside_another_personas_block(sidecar):
    """Issue 19 audit: the note of a seat that fell back arrived while another persona's reply was streaming, so it
    was printed in the middle of that persona's block; it waits for the block to end and stands between blocks."""
    import anyio

    async with sidecar(provider="client") as sc:
        streaming, failed = anyio.Event(), anyio.Event()

        async def complete(params):
            p, text = client_model_reply(params)
            if params.get("modelId") == "model-b" and p.purpose == "Security Expert":
                await streaming.wait()  # fail while the Software Architect's reply is on screen
                failed.set()
                data = {"code": "internal", "message": "model B is down",
                        "details": {"reason": "model_failed", "modelId": "model-b"}}
                raise RpcError(-32603, "model B is down", data)
            if p.purpose == "Software Architect" and not streaming.is_set():
                await sc.rpc.notify("council/completeDelta", {"streamId": p.stream_id, "text": text[:60]})
                streaming.set()
                await failed.wait()
                await anyio.sleep(0.3)  # the sidecar records the fallback meanwhile
                return {"text": text}
            return {"text": text}

        sc.serve_completions(complete)
        client = {"completion": True, "completionModel": "Model A", "chatModelId": "model-a", "models": MODELS}
        options = {"clarify": False, "personas": COUNCIL, "maxCycles": 1, "provider": "client", "model": "Model A"}
        r = await sc.call("council/turn", {"text": PROBLEM, "client": client, "options": options})
        kinds = [(e["type"], e.get("persona")) for e in sc.session_events(r["sessionId"])
                 if e["type"] in ("persona.delta", "persona.completed", "seat.fellBack")]
        first = kinds.index(("persona.delta", "Software Architect"))
        done = kinds.index(("persona.completed", "Software Architect"))
        fell = kinds.index(("seat.fellBack", None))
        assert fell > done > first, kinds
        assert ("persona.delta", "Security Expert") in kinds[fell:], kinds  # the note comes before its own block
