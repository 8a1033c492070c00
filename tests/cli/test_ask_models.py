"""``council ask --models a,b`` seats the council over several real HTTP endpoints; ``--max-calls`` bounds it."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess

from tests.headless.fake_openai import FakeOpenAI, fake_openai

from .conftest import COUNCIL as COUNCIL_CMD
from .conftest import PROBLEM, run_council

COUNCIL = "Software Architect,Senior Developer,Devil's Advocate"


def config(tmp_path, alpha: str, beta: str):
    path = tmp_path / "council.toml"
    path.write_text("".join(f'[providers.{name}]\nkind = "openai"\nbase_url = "{url}"\n'
                            f'[providers.{name}.options]\njson_mode = "json_schema"\n'
                            for name, url in (("alpha", alpha), ("beta", beta))), encoding="utf-8")
    return str(path)


def personas_of(server: FakeOpenAI) -> set[str]:
    """Which personas' prompts reached a server (the persona's contract closes its prompt)."""
    names = COUNCIL.split(",")
    return {n for body in server.requests for n in names
            if body["response_format"]["json_schema"]["schema"].get("title") == "PersonaReply"
            and f"You are {n}, an advisor" in body["messages"][-1]["content"]}


def test_models_spreads_the_seats_over_two_endpoints_and_counts_calls_per_model(tmp_path):
    alpha, beta = FakeOpenAI("alpha"), FakeOpenAI("beta")
    with fake_openai(alpha) as a_url, fake_openai(beta) as b_url:
        done = run_council("ask", "--no-embeddings", "--config", config(tmp_path, a_url, b_url),
                           "--models", "alpha:alpha-1:latest,beta:beta-2", "--personas", COUNCIL, "--max-cycles",
                           "2", "--yes", "--json", PROBLEM)
    assert done.returncode == 0, done.stderr
    session = json.loads(done.stdout)["session"]
    seats = {s["persona"]: s["model"]["id"] for s in session["seating"]["seats"]}
    assert seats == {"Software Architect": "alpha:alpha-1:latest", "Senior Developer": "beta:beta-2",
                     "Devil's Advocate": "alpha:alpha-1:latest"}
    assert personas_of(alpha) == {"Software Architect", "Devil's Advocate"}
    assert personas_of(beta) == {"Senior Developer"}
    assert {b["model"] for b in alpha.requests} == {"alpha-1:latest"} and {b["model"] for b in beta.requests} == \
        {"beta-2"}
    by_model = session["metadata"]["callsByModel"]
    assert by_model == {"openai:alpha-1:latest": len(alpha.requests), "openai:beta-2": len(beta.requests)}
    assert sum(by_model.values()) <= session["callPlans"][-1]["callLimit"]
    assert "Senior Developer → openai:beta-2" in done.stderr  # the seats, before the first call


def test_max_calls_bounds_a_cli_session(tmp_path):
    alpha, beta = FakeOpenAI("alpha"), FakeOpenAI("beta")
    with fake_openai(alpha) as a_url, fake_openai(beta) as b_url:
        done = run_council("ask", "--no-embeddings", "--config", config(tmp_path, a_url, b_url),
                           "--models", "alpha:alpha-1,beta:beta-2", "--personas", COUNCIL, "--max-calls", "4",
                           "--yes", "--json", PROBLEM)
    assert done.returncode == 0, done.stderr
    session = json.loads(done.stdout)["session"]
    assert len(alpha.requests) + len(beta.requests) == session["metadata"]["calls"] <= 4
    assert "to fit the budget of 4 model calls" in done.stderr
    assert run_council("ask", "--max-calls", "2", "--yes", PROBLEM).returncode == 2
    assert run_council("ask", "--models", "gpt-4o", "--yes", PROBLEM).returncode == 2
    many = run_council("ask", "--models", ",".join(f"scripted:m{i}" for i in range(13)), "--yes", PROBLEM)
    assert many.returncode == 2 and "--models takes at most 12 specs" in many.stderr  # the cap, said (audit)


def stated_maximum(stderr: str) -> int:
    """The most the session said it would spend, from its cost line (``…; at most N model calls``)."""
    return int(re.search(r"at most (\d+) model calls?", stderr).group(1))


def test_a_failing_endpoint_never_gets_more_requests_than_the_stated_maximum(tmp_path):
    """Issue 19 audit: an HTTP provider retries a failed request itself (up to 4 attempts); each attempt reaches the
    endpoint and is paid for, so each counts against the stated bound and the budget (it made 12 for a stated 5)."""
    for budget in ("5", None):
        down = FakeOpenAI("down", always=503)
        with fake_openai(down) as url:
            path = tmp_path / "down.toml"
            path.write_text(f'[providers.down]\nkind = "openai"\nbase_url = "{url}"\n[providers.down.options]\n'
                            'json_mode = "json_schema"\n', encoding="utf-8")
            done = run_council("ask", "--no-embeddings", "--config", str(path), "--models", "down:m", "--personas",
                               "Software Architect,Senior Developer", "--max-cycles", "2", "--yes",
                               *(["--max-calls", budget] if budget else []), PROBLEM, timeout=180)
        assert done.returncode == 4, done.stderr
        stated = stated_maximum(done.stdout + done.stderr)
        assert 0 < len(down.requests) <= stated, (budget, len(down.requests), stated)
        if budget:
            assert stated == 5


def test_every_attempt_that_reaches_the_model_is_counted(tmp_path):
    """Requests the endpoint fails at first and then answers: each attempt is a call in the session's count."""
    flaky = FakeOpenAI("flaky", failures=[("PersonaReply", 503)] * 3)
    with fake_openai(flaky) as url:
        path = tmp_path / "flaky.toml"
        path.write_text(f'[providers.flaky]\nkind = "openai"\nbase_url = "{url}"\n[providers.flaky.options]\n'
                        'json_mode = "json_schema"\n', encoding="utf-8")
        done = run_council("ask", "--no-embeddings", "--config", str(path), "--models", "flaky:m", "--personas",
                           COUNCIL, "--max-cycles", "2", "--max-calls", "12", "--yes", "--json", PROBLEM, timeout=180)
    session = json.loads(done.stdout)["session"] if done.returncode == 0 else None
    assert session is not None, done.stderr
    assert len(flaky.requests) == session["metadata"]["calls"] <= session["callPlans"][-1]["callLimit"] <= 12


def test_a_config_persona_map_naming_no_persona_or_no_provider_is_refused(tmp_path):
    """Issue 19 audit: ``[persona_providers]`` (the config file's seating map) naming a provider that is not
    configured, or no persona, was dropped with a log line; it is the user's explicit instruction: refused, named."""
    for entry, named in (('"Devil\'s Advocate" = "claude"', "“claude”, which is no configured provider"),
                         ('"Devils Advocat" = "local"', "“Devils Advocat”, which is no persona")):
        path = tmp_path / "council.toml"
        path.write_text(f'[providers.local]\nkind = "scripted"\n[persona_providers]\n{entry}\n', encoding="utf-8")
        done = run_council("ask", "--no-embeddings", "--config", str(path), "--provider", "scripted", "--yes",
                           PROBLEM)
        assert done.returncode == 2, done.stderr
        assert named in done.stderr and "persona_providers" in done.stderr


def test_an_openai_spec_takes_its_key_and_server_from_the_openai_variables(tmp_path):
    """Issue 19 audit: ``--models openai:gpt-4o,…`` (the README's example) had no key and no base URL; it takes them
    from OPENAI_API_KEY / OPENAI_BASE_URL, and without a key for OpenAI's API the error says what to set."""
    bare = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    done = subprocess.run([*COUNCIL_CMD, "ask", "--no-embeddings", "--models", "openai:gpt-4o", "--yes", PROBLEM],
                          capture_output=True, text=True, timeout=90, env={**bare, "NO_COLOR": "1"})
    assert done.returncode == 2, done.stderr
    assert "openai:gpt-4o has no API key: export OPENAI_API_KEY=" in done.stderr and "OPENAI_BASE_URL" in done.stderr
    server = FakeOpenAI("openai")
    with fake_openai(server) as url:
        done = run_council("ask", "--no-embeddings", "--models", "openai:gpt-4o", "--personas", COUNCIL,
                           "--max-cycles", "1", "--yes", "--json", PROBLEM,
                           env={"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "sk-test-key"})
    assert done.returncode == 0, done.stderr
    assert server.requests and set(server.keys) == {"sk-test-key"} and {b["model"] for b in server.requests} == \
        {"gpt-4o"}


def test_a_budget_that_drops_advisors_keeps_the_devils_advocate():
    """Audit (session 6): seed 000 seats the Devil's Advocate always; a budget that cut the council left it out first
    ("fewer advisors (from 4: Devil's Advocate left out)") while the reason still said it always sits."""
    done = run_council("ask", "--no-embeddings", "--provider", "scripted", "--max-calls", "6", "--personas",
                       "Software Architect,Senior Developer,Security Expert,Devil's Advocate", "--yes", "--json",
                       PROBLEM)
    assert done.returncode == 0, done.stderr
    seated = [p["name"] for p in json.loads(done.stdout)["session"]["personaSelection"]["selectedPersonas"]]
    assert "Devil's Advocate" in seated and len(seated) < 4, seated
    assert "Devil's Advocate left out" not in done.stderr


def test_two_models_of_one_provider_kind_are_seated_apart():
    """Audit (session 6): ``--models ollama:llama3.1:8b,ollama:qwen2.5:7b`` put every seat on the first: a spec's
    family was ``provider:model``, and diversity spreads over its first word — the provider's name."""
    done = run_council("ask", "--no-embeddings", "--provider", "scripted", "--models", "scripted:alpha,scripted:beta",
                       "--personas", "Software Architect,Senior Developer,Devil's Advocate", "--yes", "--json", PROBLEM)
    assert done.returncode == 0, done.stderr
    seats = json.loads(done.stdout)["session"]["seating"]["seats"]
    assert {s["model"]["id"] for s in seats} == {"scripted:alpha", "scripted:beta"}, seats


def closed_url() -> str:
    """A loopback URL nothing listens on: a connection there is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def endpoints(tmp_path, **urls: str) -> str:
    """A config with one OpenAI-compatible provider per name, each trying a failed request 3 times more."""
    path = tmp_path / "endpoints.toml"
    path.write_text("".join(f'[providers.{name}]\nkind = "openai"\nbase_url = "{url}"\nmax_retries = 3\n'
                            f'[providers.{name}.options]\njson_mode = "json_schema"\n' for name, url in urls.items()),
                    encoding="utf-8")
    return str(path)


def test_an_unreachable_model_is_one_line_with_the_fix_and_no_advisor_tries_it(tmp_path):
    """Issue 19 audit: every seat on a model nobody answers at: the terminal showed "The moderator could not prepare
    questions: could not reach …" and then "No model could be reached …", after every role had retried it. Now the
    clarifier's attempts are the only ones, and one line says why, with the fix."""
    url = closed_url()
    done = run_council("ask", "--no-embeddings", "--config", endpoints(tmp_path, down=url), "--models", "down:m",
                       "--personas", COUNCIL, "--yes", "--json", PROBLEM, timeout=180)
    assert done.returncode == 4, done.stderr
    host = url.removeprefix("http://").removesuffix("/v1")
    shown = [line for line in done.stderr.splitlines() if line.startswith("!")]
    assert shown == [f"! No model could be reached (could not reach {host}): start the model server (for Ollama: "
                     "`ollama serve`), or choose a model Council can reach — `council doctor` shows what it can use; "
                     "then Retry."], done.stderr
    session = json.loads(done.stdout)["session"]
    assert session["metadata"]["callsByModel"] == {"openai:m": 4}  # the clarifier's request, sent 4 times
    assert session["status"] == "created" and session["responses"] == []


def test_a_model_found_unreachable_is_not_tried_again_in_the_turn(tmp_path):
    """Issue 19 audit: each role retried an endpoint that refused the connection (4 attempts each, one role after
    another). The clarifier finds the chat's model unreachable; the seats on it, the moderator and the chair then
    fail at once, while the seat on the other model answers."""
    url = closed_url()
    up = FakeOpenAI("up")
    with fake_openai(up) as up_url:
        done = run_council("ask", "--no-embeddings", "--config", endpoints(tmp_path, down=url, up=up_url), "--models",
                           "down:m,up:n", "--personas", COUNCIL, "--max-cycles", "2", "--yes", "--json", PROBLEM,
                           timeout=180)
    assert done.returncode == 0, done.stderr
    session = json.loads(done.stdout)["session"]
    seats = {s["persona"]: s["model"]["id"] for s in session["seating"]["seats"]}
    assert seats == {"Software Architect": "down:m", "Senior Developer": "up:n", "Devil's Advocate": "down:m"}
    by_model = session["metadata"]["callsByModel"]
    assert by_model["openai:m"] == 4  # the clarifier's attempts; no later call tried the closed port
    assert by_model["openai:n"] == len(up.requests) > 0
    answered = {x["persona"] for x in session["responses"] if not x["abstained"]}
    assert answered == {"Senior Developer"}

