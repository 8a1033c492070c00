"""OpenAI-compatible provider against a REAL llama_cpp.server running SmolLM2 on 127.0.0.1."""

from __future__ import annotations

import json
import time

import anyio
import pytest
from provider_helpers import request
from pydantic import BaseModel, ConfigDict, Field

from council.config import ProviderConfig
from council.providers.base import complete
from council.providers.openai_compat import OpenAICompatProvider

pytestmark = pytest.mark.slow


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid", title="Verdict")
    vote: str = Field(pattern="^(yes|no)$")
    score: int = Field(ge=1, le=5)


SCHEMA = {
    "title": "Verdict",
    "type": "object",
    "additionalProperties": False,
    "required": ["vote", "score"],
    "properties": {
        "vote": {"type": "string", "enum": ["yes", "no"]},
        "score": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
    },
}


@pytest.fixture
async def provider(llama_server):
    p = OpenAICompatProvider(ProviderConfig(kind="openai", model="smollm2", base_url=llama_server, timeout=60))
    yield p
    await p.aclose()


async def test_check(provider):
    assert (await provider.check()).available


async def test_streams_several_chunks(provider):
    chunks = [c async for c in provider.stream(request("Name three colours.", max_tokens=40, temperature=0.0))]
    assert len(chunks) >= 5 and "".join(chunks).strip()


async def test_schema_constrained_output_parses(provider):
    assert provider.json_mode == "json_object_schema"
    text = await complete(
        provider,
        request(
            "Is the sky blue? Answer as JSON with a vote and a score.",
            json_schema=SCHEMA,
            max_tokens=60,
            temperature=0.0,
        ),
    )
    Verdict.model_validate(json.loads(text))


async def test_cancel_mid_stream_is_prompt_and_server_stays_usable(provider):
    got: list[str] = []
    with anyio.CancelScope() as scope:
        async for chunk in provider.stream(request("Write a long story about a dragon.", max_tokens=800)):
            got.append(chunk)
            if len(got) == 3:
                cancelled_at = time.monotonic()
                scope.cancel()
    assert len(got) == 3 and time.monotonic() - cancelled_at < 2.0
    with anyio.move_on_after(0.5):  # a cancel scope deadline, the way a session timeout cancels
        await complete(provider, request("Count to one hundred.", max_tokens=800))
    start = time.monotonic()
    with anyio.fail_after(30):
        text = await complete(provider, request("Say hello.", max_tokens=10, temperature=0.0))
    assert text.strip() and time.monotonic() - start < 30
