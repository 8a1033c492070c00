"""Provider failures: unwrapped to the root cause, classified once, worded once."""

from __future__ import annotations

import anyio
import httpx
import pytest

from council.config import ProviderConfig
from council.errors import root_cause
from council.present.failures import all_failed, cause, failed, turn_failed
from council.providers.base import ProviderError
from council.providers.client import ClientProvider
from council.providers.http_common import error_from_exception, error_from_status
from council.providers.openai_compat import OpenAICompatProvider
from council.providers.scripted import ScriptedProvider
from council.session.calls.failure import failure_of
from council.session.calls.structured import known, learn
from council.session.state.outputs import ModelFailure
from council.session.state.runtime import Turn

REMOTE = OpenAICompatProvider(ProviderConfig(kind="openai", model="claude-x", base_url="https://api.example.com/v1"))
LOCAL = OpenAICompatProvider(ProviderConfig(kind="openai", model="qwen", base_url="http://localhost:8080"))


async def test_a_task_groups_wrapping_is_unwrapped_to_the_real_error():
    async def fail() -> None:
        raise error_from_status("openai server", 529, '{"error": {"message": "Overloaded"}}')

    with pytest.raises(BaseException) as caught:
        async with anyio.create_task_group() as tg:
            tg.start_soon(fail)
            tg.start_soon(anyio.sleep, 5)
    assert "TaskGroup" in str(caught.value)
    root = root_cause(caught.value)
    assert isinstance(root, ProviderError) and root.status == 529
    f = failure_of(caught.value, REMOTE)
    assert (f.kind, f.status, f.host, f.model) == ("overloaded", 529, "api.example.com", "claude-x")
    assert cause(f) == "api.example.com is overloaded (HTTP 529)"


@pytest.mark.parametrize("status, kind, words", [
    (401, "key_rejected", "api.example.com rejected the API key (HTTP 401)"),
    (403, "key_rejected", "api.example.com rejected the API key (HTTP 403)"),
    (404, "model_not_found", "api.example.com has no model named “claude-x” (HTTP 404)"),
    (429, "rate_limited", "api.example.com is rate limiting requests (HTTP 429)"),
    (503, "overloaded", "api.example.com is overloaded (HTTP 503)"),
    (529, "overloaded", "api.example.com is overloaded (HTTP 529)"),
    (500, "server_error", "api.example.com had a server error (HTTP 500)"),
    (502, "server_error", "api.example.com had a server error (HTTP 502)"),
    (400, "refused", "api.example.com refused the request (HTTP 400)"),
])
def test_http_statuses_in_plain_words(status, kind, words):
    f = failure_of(error_from_status("openai server", status, '{"error": {"message": "nope"}}'), REMOTE)
    assert f.kind == kind and f.status == status and f.provider == "openai" and cause(f) == words


def test_transport_failures_in_plain_words():
    import httpx

    timeout = failure_of(error_from_exception("openai server", LOCAL.url, httpx.ReadTimeout("slow")), LOCAL)
    assert cause(timeout) == "localhost:8080 did not answer in time" and timeout.retryable
    refused = failure_of(error_from_exception("openai server", LOCAL.url, httpx.ConnectError("refused")), LOCAL)
    assert cause(refused) == "could not reach localhost:8080"
    crash = failure_of(KeyError("choices"), LOCAL)
    assert crash.kind == "crashed" and crash.detail == "KeyError: 'choices'"
    assert turn_failed(crash) == "The council hit an internal error (KeyError); the details are in the sidecar log."


def test_the_client_models_own_words_keep_their_status():
    class Client(ScriptedProvider):
        id = "client"

    said = ProviderError("the client's model failed: The chat model Claude failed: Request Failed: 529 "
                         '{"type":"error","error":{"type":"overloaded_error"}}', kind="client")
    f = failure_of(said, Client())
    assert (f.kind, f.status, cause(f)) == ("overloaded", 529, "your chat model is overloaded (HTTP 529)")
    other = failure_of(ProviderError("the client's model failed: NoPermissions: denied", kind="client"), Client())
    assert cause(other) == "your chat model failed: NoPermissions: denied"


def test_one_line_per_failure_and_every_cause_once_when_all_failed():
    over = ModelFailure(kind="overloaded", provider="openai", status=529, host="api.example.com")
    key = ModelFailure(kind="key_rejected", provider="openai", status=401, host="api.example.com")
    assert failed("Security Expert", over) == "**Security Expert** could not answer: api.example.com is " \
                                              "overloaded (HTTP 529)."
    assert failed("synthesizer", over).startswith("The chair could not write the final answer: api.example.com")
    same = all_failed({"A": over, "B": over, "C": over})
    assert same.count("overloaded") == 1 and same.startswith("**Every advisor failed:** api.example.com is")
    mixed = all_failed({"A": over, "B": key, "C": over})
    assert "A and C: api.example.com is overloaded (HTTP 529); B: api.example.com rejected the API key" in mixed


def test_no_model_reachable_is_said_once_with_the_fix_never_every_advisor_failed():
    """Issue 19: "where no model at all is reachable, say so once, clearly, with the fix — never 'every advisor
    failed'" (the audit saw it for a configured Ollama that was not running, in chat/CLI and over MCP)."""
    from council.present.consult import could_not_answer

    down = ModelFailure(kind="unreachable", provider="ollama", host="127.0.0.1:11434", detail="connection refused")
    failures = {"Software Architect": down, "Senior Developer": down}
    for text in (all_failed(failures), could_not_answer(failures, None)):
        assert "could not reach 127.0.0.1:11434" in text and "ollama serve" in text and "council doctor" in text
        assert "very advisor" not in text
    mixed = {**failures, "Devil's Advocate": ModelFailure(kind="overloaded", provider="openai", host="api.x.com")}
    assert all_failed(mixed).startswith("**Every advisor failed:**")  # one model answered something: not "none"


def test_only_a_model_that_cannot_be_used_at_all_is_left_out_for_the_turn():
    """Issue 19 audit: refused connections (and a client's model that is gone or not allowed) are not tried again in
    the turn; transient failures (429, 503, a timeout, a dropped connection) are retried as before."""
    rt = Turn("s", observer=None)  # type: ignore[arg-type]
    other_model_same_host = OpenAICompatProvider(ProviderConfig(kind="openai", model="llama",
                                                                base_url="http://localhost:8080"))
    transient = [error_from_status("openai server", 429, "slow down"), error_from_status("openai server", 503, "busy"),
                 ProviderError("timed out", kind="timeout", retryable=True),
                 ProviderError("Server disconnected", kind="connection", retryable=True)]
    for err in transient:
        learn(rt, LOCAL, err, failure_of(err, LOCAL))
    assert known(rt, LOCAL) is None and rt.gone == {}
    refused = error_from_exception("openai server", "http://localhost:8080", httpx.ConnectError("refused"))
    assert refused.kind == "unreachable"
    learn(rt, LOCAL, refused, failure_of(refused, LOCAL))
    assert known(rt, LOCAL).kind == "unreachable" and known(rt, other_model_same_host) is not None
    assert known(rt, REMOTE) is None
    one = ClientProvider(None, model="One", model_id="one")  # type: ignore[arg-type]
    two = ClientProvider(None, model="Two", model_id="two")  # type: ignore[arg-type]
    gone = ProviderError("the client's model failed: not found", kind="model_unavailable")
    learn(rt, one, gone, failure_of(gone, one))
    assert known(rt, one).kind == "model_unavailable" and known(rt, two) is None
