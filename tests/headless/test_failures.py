"""A failing model is reported once, with its real cause in plain words, over real JSON-RPC.

The scripted provider injects the faults the HTTP providers report (HTTP 529, 429, timeouts), wrapped in an
``ExceptionGroup`` as a task group on the way would wrap them.
"""

from __future__ import annotations

import textwrap

import pytest

from council.client.rpc import RpcError

from .conftest import FLIP_FLOP_COUNCIL, PROBLEM, events_of
from .raw import SERVE, RawSidecar, assert_error, notification, request

DEBATE = {"text": PROBLEM, "options": {"clarify": False, "personas": FLIP_FLOP_COUNCIL}}


async def test_one_failing_persona_is_one_plain_line_per_cycle(sidecar):
    who = "Software Architect"
    script = {"rules": [{"when": {"schema": "PersonaReply", "purpose": who}, "error": "overloaded", "wrap": True}]}
    async with sidecar(script=script) as sc:
        r = await sc.call("council/turn", DEBATE)
        sid = r["sessionId"]
        assert r["status"] == "completed"
        cycles = len(events_of(sc, sid, "cycle.completed"))
        errors = events_of(sc, sid, "error")
        assert len(errors) == cycles >= 1  # one line per cycle, for the one persona that failed in it
        line = "could not answer: the scripted test model is overloaded (HTTP 529)."
        for e in errors:
            assert e["persona"] == who and e["retryable"] is False
            assert e["markdown"] == f"> ⚠️ **{who}** {line}\n\n" and e["message"] == f"{who} {line}"
            failure = e["details"]["failure"]
            assert failure["kind"] == "overloaded" and failure["status"] == 529 and failure["provider"] == "scripted"
            assert "Overloaded" in failure["detail"]
        shown = "".join(e["markdown"] for e in sc.session_events(sid))
        assert "TaskGroup" not in shown and "sub-exception" not in shown
        mine = [e for e in events_of(sc, sid, "persona.completed") if e["persona"] == who]
        assert mine and all(e["markdown"] == "" and e["response"]["abstained"] for e in mine)
        assert all(e["vote"]["persona"] != who for e in events_of(sc, sid, "vote.cast"))
        assert not [e for e in events_of(sc, sid, "persona.delta") if e["persona"] == who]
        snap = await sc.call("council/snapshot", {"sessionId": sid})
        assert who in snap["session"]["tally"]["abstentions"]
        assert f"_{who} could not answer: the scripted test model is overloaded (HTTP 529)._" in snap[
            "transcriptMarkdown"]


@pytest.mark.parametrize("nested", ["[" * 5000, "[" * 5000 + "]" * 5000 + "}"])
async def test_a_reply_nested_past_the_decoders_depth_is_an_unusable_reply_not_an_internal_error(sidecar, nested):
    """A small model looping on "[[[[" (cut off, or closed) nests its reply past the JSON decoder's depth: a
    RecursionError that failed the whole turn as Council's own fault (``internal``). It is an unusable reply: one
    repair, then that persona abstains, and the council goes on."""
    who = "Software Architect"
    text = '{"position": "It depends.", "risks": ' + nested
    script = {"rules": [{"when": {"schema": "PersonaReply", "purpose": who}, "reply": text}]}
    async with sidecar(script=script, args=["--max-cycles", "1"]) as sc:
        r = await sc.call("council/turn", DEBATE)
        assert r["status"] == "completed"
        snap = (await sc.call("council/snapshot", {"sessionId": r["sessionId"]}))["session"]
    mine = next(x for x in snap["responses"] if x["persona"] == who)
    assert mine["abstained"] and "malformed" in mine["note"]
    assert snap["metadata"]["models"][who]["calls"] == 2
    assert not any(x["abstained"] for x in snap["responses"] if x["persona"] != who)


@pytest.mark.parametrize("fault, cause", [
    ("overloaded", "the scripted test model is overloaded (HTTP 529)"),
    ("rate_limit", "the scripted test model is rate limiting requests (HTTP 429)"),
    ("timeout", "the scripted test model did not answer in time"),
])
async def test_every_persona_failing_is_one_retryable_problem_and_retry_recovers(sidecar, fault, cause):
    script = {"rules": [{"when": {"schema": "PersonaReply"}, "error": fault, "wrap": True, "times": 3}]}
    async with sidecar(script=script) as sc:
        r = await sc.call("council/turn", DEBATE)
        sid = r["sessionId"]
        assert r["status"] == "debating" and r["awaiting"] == "nothing" and "message" not in r
        (problem,) = events_of(sc, sid, "error")
        assert problem["retryable"] is True and "persona" not in problem
        assert problem["markdown"] == (f"> ⚠️ **Every advisor failed:** {cause}. The council stopped where it was; "
                                       "**Retry** when the model works again.\n\n")
        assert set(problem["details"]["failed"]) == set(FLIP_FLOP_COUNCIL)
        shown = "".join(e["markdown"] for e in sc.session_events(sid))
        assert shown.count(cause) == 1 and "Confidence" not in shown and "(abstained)" not in shown
        assert events_of(sc, sid, "vote.cast") == [] and events_of(sc, sid, "cycle.completed") == []
        snap = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        assert snap["debateCycles"] == 0 and snap["responses"] == []
        done = await sc.call("council/turn", {"sessionId": sid, "command": "retry"})  # the model works again
        assert done["status"] == "completed"
        assert len(events_of(sc, sid, "error")) == 1


async def test_differing_causes_are_each_named_once(sidecar):
    rules = [{"when": {"schema": "PersonaReply", "purpose": name}, "error": fault, "times": 1}
             for name, fault in zip(FLIP_FLOP_COUNCIL, ["overloaded", "overloaded", "unauthorized"], strict=True)]
    async with sidecar(script={"rules": rules}) as sc:
        r = await sc.call("council/turn", DEBATE)
        (problem,) = events_of(sc, r["sessionId"], "error")
        assert problem["message"] == (
            "Every advisor failed: Software Architect and Security Expert: the scripted test model is overloaded "
            "(HTTP 529); Devil's Advocate: the scripted test model rejected the API key (HTTP 401). The council "
            "stopped where it was; Retry when the model works again.")


async def test_a_failing_clarifier_is_one_line_and_the_council_goes_on(sidecar):
    script = {"rules": [{"when": {"schema": "ClarifierReply"}, "error": "connection", "wrap": True}]}
    async with sidecar(script=script) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        assert r["status"] == "completed"
        (problem,) = events_of(sc, r["sessionId"], "error")
        assert problem["message"] == ("The moderator could not prepare questions: could not reach the scripted "
                                      "test model. The council goes on without them.")
        assert not [e for e in events_of(sc, r["sessionId"], "progress") if "prepare questions" in e["message"]]


FAILING_SYNTHESIS = textwrap.dedent("""
    import sys
    import council.session.steps.engine as engine
    from council.providers.base import ProviderError
    real, calls = engine.synthesize, []
    async def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:  # as a task group would raise it: the real error inside an ExceptionGroup
            raise ExceptionGroup("unhandled errors in a TaskGroup", [
                ProviderError("openai server had a server error (HTTP 529): Overloaded", kind="server",
                              status=529, retryable=True)])
        return await real(*args, **kwargs)
    engine.synthesize = flaky
    from council.cli.main import main
    sys.exit(main(["serve", "--provider", "scripted", "--no-embeddings"]))
""")


def test_a_turn_that_fails_as_a_whole_says_the_cause_and_can_be_retried() -> None:
    with RawSidecar(argv=[SERVE[0], "-c", FAILING_SYNTHESIS]) as sc:
        sc.initialize()
        sc.send(request(1, "council/turn", {"text": PROBLEM, "options": {"clarify": False}}))
        data = assert_error(sc.until(1)[0], -32603, 1, kind="internal")
        assert data["message"] == "The council could not continue: the model is overloaded (HTTP 529)."
        details = data["details"]
        assert details["cause"] == "overloaded" and details["status"] == 529 and details["retryable"] is True
        assert details["technical"] == "openai server had a server error (HTTP 529): Overloaded"
        sc.send(request(2, "council/turn", {"sessionId": details["sessionId"], "command": "retry"}))
        assert sc.until(2)[0]["result"]["status"] == "completed"
        sc.send(request(3, "shutdown"), notification("exit"))
        sc.until(3)
    assert "TaskGroup" not in data["message"]


async def test_retry_on_a_completed_session_is_refused_with_a_clear_message(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", DEBATE)
        with pytest.raises(RpcError) as err:
            await sc.call("council/turn", {"sessionId": r["sessionId"], "command": "retry"})
        assert err.value.data["code"] == "validation"
        assert err.value.data["message"].startswith("the session is completed, so there is nothing to resume")


NO_MODEL = ("> ⚠️ **No model could be reached** (could not reach {where}): start the model server (for Ollama: "
            "`ollama serve`), or choose a model Council can reach — `council doctor` shows what it can use; then "
            "**Retry**.\n\n")


async def test_no_reachable_model_is_one_line_at_the_clarifier_and_retry_starts_again(sidecar):
    """Issue 19 audit: with the one model unreachable, the chat said "The moderator could not prepare questions"
    and then "No model could be reached"; now the clarifier's failure is the one line, and nothing else runs."""
    script = {"rules": [{"when": {}, "error": "unreachable", "wrap": True, "times": 1}]}  # the server is down once
    async with sidecar(script=script) as sc:
        r = await sc.call("council/turn", {"text": PROBLEM})
        sid = r["sessionId"]
        assert r["status"] == "created" and r["awaiting"] == "nothing" and "message" not in r
        (problem,) = events_of(sc, sid, "error")
        assert problem["markdown"] == NO_MODEL.format(where="the scripted test model")
        assert problem["retryable"] is True and problem["details"]["kind"] == "all_failed"
        assert events_of(sc, sid, "persona.started") == [] and events_of(sc, sid, "questions.dropped") == []
        snap = (await sc.call("council/snapshot", {"sessionId": sid}))["session"]
        assert snap["metadata"]["calls"] == 1  # the clarifier's call; no advisor was asked
        r = await sc.call("council/turn", {"sessionId": sid, "command": "retry"})  # the server is up again
        assert r["status"] == "clarifying" and r["question"]  # from the questions, as a new session would
        r = await sc.call("council/turn", {"sessionId": sid, "text": "skip all"})
        assert r["status"] == "completed" and len(events_of(sc, sid, "error")) == 1


def refusing_client(sc, reason: str) -> list[str]:
    """The test client's chat model refuses every call with ``reason`` (as VS Code's extension does); the purposes
    it was asked for."""
    asked: list[str] = []

    async def complete(params):
        asked.append(params["purpose"])
        raise RpcError(-32001, f"the chat model failed: {reason}", {
            "code": "permission", "message": reason, "details": {"reason": reason, "modelId": "one"}})

    sc.serve_completions(complete)
    return asked


async def turn_on_a_refusing_model(sidecar, reason: str) -> tuple[dict, dict, list[str]]:
    """A turn on the client's "Model One", which refuses every call with ``reason``: the turn's result, its one
    error event and the purposes the model was asked for."""
    async with sidecar(provider="client") as sc:
        asked = refusing_client(sc, reason)
        r = await sc.call("council/turn", {"text": PROBLEM, "client": {"completion": True,
                                                                        "completionModel": "Model One"}})
        (problem,) = events_of(sc, r["sessionId"], "error")
    return r, problem, asked


async def test_a_client_model_that_is_gone_is_one_line_and_no_advisor_is_asked(sidecar):
    r, problem, asked = await turn_on_a_refusing_model(sidecar, "model_unavailable")
    assert problem["markdown"] == NO_MODEL.format(where="Model One")
    assert asked == ["clarifier"] and r["status"] == "created"


async def test_a_chat_model_the_user_did_not_allow_is_one_line_and_no_advisor_is_asked(sidecar):
    _, problem, asked = await turn_on_a_refusing_model(sidecar, "no_consent")
    assert problem["code"] == "permission" and problem["retryable"] is False
    assert problem["message"].startswith("Council has no permission to use Model One, so no advisor could answer: "
                                         "allow it under Manage Language Model Access")
    assert asked == ["clarifier"]
