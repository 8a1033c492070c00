"""Each way a seat's real CLI fails comes out classified, with its own fix in words a person reads: a silent CLI
says the silence limit it hit (the seat's ``timeout``), too much output says how much, the doctor's check says its
own short deadline — never an ``ExceptionGroup``, never another limit's advice."""

from __future__ import annotations

import time

import anyio
import pytest

from council.present.failures import all_failed
from council.providers.agent_cli import AgentCliError
from council.session.calls.failure import failure_of

from .fake_models import FakeModels
from .test_seats import chunks_of, seat


def test_a_silent_cli_says_the_silence_limit_it_hit(home, fake: FakeModels, model_url):
    fake.stall = 40  # the model never answers: Claude Code writes its init event, then nothing
    provider = seat("claude", model_url, deadline=60)
    provider.silence = 6  # the seat's timeout (ProviderConfig.timeout), shorter than the whole call's deadline
    with pytest.raises(AgentCliError) as err:
        anyio.run(chunks_of, provider)
    assert err.value.failure == "timeout"
    assert "wrote nothing for 6 s" in err.value.message and "60 s" not in err.value.message


def test_too_much_output_says_how_much_in_every_place_a_person_reads_it(home, fake: FakeModels, model_url):
    fake.text = "word " * 2000  # 10 kB of reply: over the 1024-byte cap
    provider = seat("claude", model_url, max_output_bytes=1024)
    with pytest.raises(AgentCliError) as err:
        anyio.run(chunks_of, provider)
    assert err.value.failure == "failed" and "wrote more than 1024 bytes" in err.value.message
    said = all_failed({"Skeptic": failure_of(err.value, provider)})
    assert "wrote more than 1024 bytes" in said and "server error" not in said


def test_the_doctors_check_that_times_out_gives_advice_true_for_the_check(home, fake: FakeModels, model_url):
    fake.stall = 40
    provider = seat("claude", model_url, deadline=5)
    status = anyio.run(provider.check)
    assert not status.available
    assert "did not answer a one-word check within 5 s" in status.detail
    assert "options.deadline" not in status.detail and "ExceptionGroup" not in status.detail


def test_gemini_cli_says_a_rate_limit_at_once_not_a_timeout(home, fake: FakeModels, model_url):
    fake.status, fake.error = 429, "Resource has been exhausted (e.g. check quota)."
    provider = seat("gemini", model_url, deadline=90)
    provider.silence = 25  # Gemini CLI's own retries of a 429 would outlast it
    start = time.monotonic()
    with pytest.raises(AgentCliError) as err:
        anyio.run(chunks_of, provider)
    assert err.value.failure == "quota", err.value.message
    assert "Gemini CLI hit a rate limit" in err.value.message and time.monotonic() - start < 20
    assert len(fake.model_requests()) == 1  # one attempt: the rate limit is said at once, not retried in silence


def test_gemini_cli_stopping_itself_with_no_reply_is_a_failure_with_its_reason(home, fake: FakeModels, model_url):
    fake.text = "All work and no play makes Jack a dull boy. " * 40  # Gemini CLI's loop detection stops it
    provider = seat("gemini", model_url)
    with pytest.raises(AgentCliError) as err:
        anyio.run(chunks_of, provider)
    assert err.value.failure == "failed" and "Loop detected" in err.value.message
    said = all_failed({"Skeptic": failure_of(err.value, provider)})
    assert "Gemini CLI failed" in said and "Loop detected" in said
