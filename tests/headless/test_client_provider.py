"""The client-backed provider: the sidecar asks this test client to complete prompts with "its" model."""

from __future__ import annotations

import contextlib
import json

import anyio

from council.client.rpc import start_sidecar

from .conftest import PROBLEM, client_model_reply, wait_for_event


async def test_client_model_serves_the_whole_session(sidecar):
    async with sidecar(provider="client") as sc:
        calls: list[dict] = []

        async def complete(params):
            p, text = client_model_reply(params)
            calls.append(params)
            half = len(text) // 2  # stream the first half as deltas, return the whole text
            await sc.rpc.notify("council/completeDelta", {"streamId": p.stream_id, "text": text[:half]})
            return {"text": text, "model": "test-model-1"}

        sc.serve_completions(complete)
        r = await sc.call("council/turn", {"text": PROBLEM, "client": {"completion": True,
                                                                        "completionModel": "test-model-1"}})
        r = await sc.call("council/turn", {"sessionId": r["sessionId"], "text": "skip all"})
        assert r["status"] == "completed"
        purposes = {c["purpose"] for c in calls}
        assert {"clarifier", "moderator", "synthesizer"} <= purposes
        assert all(c["jsonSchema"]["title"] for c in calls)
        snap = await sc.call("council/snapshot", {"sessionId": r["sessionId"]})
        models = snap["session"]["metadata"]["models"]
        assert models["synthesizer"] == {"provider": "client", "model": "test-model-1", "calls": 1, "failures": 0}
        assert "_Answered with test-model-1 (your chat model) after" in r["finalAnswer"]


async def test_cancel_sends_cancel_request_for_pending_completions(sidecar):
    async with sidecar(provider="client") as sc:
        pending: set = set()
        cancelled: list = []
        sc.rpc.listen(lambda method, params: cancelled.append(params["id"]) if method == "$/cancelRequest" else None)

        async def complete(params):
            if params["purpose"] == "clarifier":
                return {"text": json.dumps({"needs_clarification": False, "reason": "clear", "questions": []})}
            pending.add(params["streamId"])
            await anyio.sleep(60)  # a slow model: the session is cancelled meanwhile
            return {"text": "{}"}

        sc.serve_completions(complete)
        async with anyio.create_task_group() as tg:
            async def turn():
                await sc.call("council/turn", {"text": PROBLEM, "client": {"completion": True}})
            tg.start_soon(turn)
            started = await wait_for_event(sc, lambda e: e["type"] == "persona.started")
            with anyio.fail_after(10):
                while len(pending) < 3:
                    await anyio.sleep(0.02)
            await sc.call("council/cancel", {"sessionId": started["sessionId"]})
            with anyio.fail_after(10):
                while len(cancelled) < len(pending):
                    await anyio.sleep(0.02)
            tg.cancel_scope.cancel()
        assert len(cancelled) == len(pending) >= 3
        snap = await sc.call("council/snapshot", {"sessionId": started["sessionId"]})
        assert snap["session"]["status"] == "cancelled"


async def test_client_errors_make_a_persona_abstain_not_the_session_fail(sidecar):
    async with sidecar(provider="client") as sc:
        async def complete(params):
            if params["purpose"] == "Devil's Advocate":
                raise RuntimeError("model exploded")
            return {"text": client_model_reply(params)[1]}
        sc.serve_completions(complete)
        r = await sc.call("council/turn", {"text": PROBLEM, "client": {"completion": True},
                                           "options": {"clarify": False}})
        assert r["status"] == "completed"
        errors = [e for e in sc.session_events(r["sessionId"]) if e["type"] == "error"]
        assert errors and all(e["persona"] == "Devil's Advocate" for e in errors)
        done = [e for e in sc.session_events(r["sessionId"]) if e["type"] == "persona.completed"
                and e["persona"] == "Devil's Advocate"]
        assert done and all(e["response"]["abstained"] for e in done)


async def test_a_late_answer_to_a_stopped_completion_is_dropped_quietly(tmp_path):
    """Stop cancels the sidecar's pending council/complete requests; the client then answers them anyway (as
    vscode-jsonrpc does after $/cancelRequest). Those answers are dropped without an error in the log, and the
    sidecar keeps serving (seen in the e2e: "pygls failed on a response", InvalidStateError on a cancelled future)."""
    err_path = tmp_path / "stderr.log"
    argv = ["--provider", "client", "--no-embeddings", "--log-level", "INFO"]
    release = anyio.Event()
    pending: list[str] = []

    async def complete(params):
        if params["purpose"] == "clarifier":
            return {"text": json.dumps({"needs_clarification": False, "reason": "clear", "questions": []})}
        pending.append(params["streamId"])
        await release.wait()  # answer only after the stop: a late answer
        raise RuntimeError("the chat model request was cancelled")

    with err_path.open("wb") as err, anyio.fail_after(60):
        async with start_sidecar(argv, stderr=err) as sc:  # type: ignore[arg-type]
            sc.serve_completions(complete)
            async with anyio.create_task_group() as tg:
                async def turn():
                    with contextlib.suppress(Exception):
                        await sc.call("council/turn", {"text": PROBLEM, "client": {"completion": True}})
                tg.start_soon(turn)
                started = await wait_for_event(sc, lambda e: e["type"] == "persona.started")
                while len(pending) < 3:
                    await anyio.sleep(0.02)
                stopped = await sc.call("council/stop", {"sessionId": started["sessionId"]})
                assert stopped["stopped"] is True
                release.set()
                await anyio.sleep(0.5)  # the late answers arrive and are handled
            personas = await sc.call("council/personas", {})  # still serving
            assert personas
    log_text = err_path.read_text(encoding="utf-8")
    assert "pygls failed" not in log_text and "InvalidStateError" not in log_text, log_text[-2000:]
