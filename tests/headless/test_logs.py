"""Sidecar logs at INFO carry no prompt, no model reply and no API key, also when a model fails.

A whole session runs over JSON-RPC against a real OpenAI-compatible HTTP server (a loopback fake) with a configured
key; its first persona call is answered HTTP 401 with the key quoted back, as OpenAI does.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from council.client.rpc import start_sidecar

from .conftest import events_of
from .fake_openai import FakeOpenAI, fake_openai

PROBLEM = "MARMOT-PROBLEM-5521: should we split our billing monolith into services this quarter?"
REPLY_MARK = "ZEBRA-REPLY-7431"
KEY = "sk-test-VERYSECRET-0000-1111-2222"


async def test_info_logs_hold_no_prompt_reply_or_key(tmp_path: Path):
    fake = FakeOpenAI(REPLY_MARK, failures=[("PersonaReply", 401)])
    with fake_openai(fake) as base_url:
        config = tmp_path / "council.json"
        config.write_text(json.dumps({"default": "fake", "providers": {"fake": {
            "kind": "openai", "base_url": base_url, "model": "fake-model", "api_key": "${COUNCIL_TEST_KEY}",
            "max_retries": 0, "options": {"json_mode": "json_schema"}}}}), encoding="utf-8")
        log_path = tmp_path / "stderr.log"
        with log_path.open("wb") as log, anyio.fail_after(60):
            async with start_sidecar(["--config", str(config), "--no-embeddings", "--log-level", "INFO"],
                                     env={"COUNCIL_TEST_KEY": KEY}, stderr=log.fileno()) as sc:
                r = await sc.call("council/turn", {"text": PROBLEM})
                sid = r["sessionId"]
                if r["status"] == "clarifying":
                    r = await sc.call("council/turn", {"sessionId": sid, "text": "skip all"})
    assert r["status"] == "completed"
    assert any(REPLY_MARK in json.dumps(body) for body in fake.requests)  # the replies did reach the council
    (failed,) = events_of(sc, sid, "error")
    host = base_url.split("//")[1].split("/")[0]
    assert failed["message"].endswith(f"could not answer: {host} rejected the API key (HTTP 401).")
    assert KEY not in json.dumps(sc.events) and "***" in failed["details"]["failure"]["detail"]
    logged = log_path.read_text(encoding="utf-8")
    assert "council sidecar ready" in logged and "key_rejected" in logged  # INFO and the failure were logged
    for secret in ("MARMOT", REPLY_MARK, KEY, "VERYSECRET"):
        assert secret not in logged, f"{secret} leaked into the log:\n{logged}"
