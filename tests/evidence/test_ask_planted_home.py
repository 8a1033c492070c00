"""End to end: ``council ask --workspace <a planted home>`` on a real OpenAI-compatible HTTP server on 127.0.0.1 whose
model asks for every planted credential file, searches for every token shape and lists the folder. With
``--evidence-any-root`` the tools run, and no prompt the server receives holds any planted secret value (the credential
files refused by location, the others read with their secrets redacted); without it the council says in one line
that it does not read a home folder and no prompt holds anything from it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from council.providers.base import ChatMessage, CompletionRequest
from council.providers.scripted import auto_reply
from tests.headless.fake_openai import FakeOpenAI, fake_openai

from .planted_home import PLAN, Planted, plant_home, secrets_of
from .test_planted_home import SEARCHES

PROBLEM = "Should we move our billing service to a managed queue this quarter?"
COUNCIL = "Software Architect,Senior Developer,Devil's Advocate"
PER_REPLY = 2  # three advisors ask for two each: the six a cycle serves


class AskingModel(FakeOpenAI):
    """Replies as the scripted model would, but the advisors never agree (so the debate runs every cycle asked for)
    and each advisor's reply asks for the next evidence on its list."""

    def __init__(self, wanted: list[tuple[str, str, bool]]) -> None:
        super().__init__("asker")
        self.wanted = list(wanted)
        self.votes: dict[int, int] = {}  # debate votes so far, by advisor

    def answer(self, body: dict[str, Any], auth: str) -> tuple[int, bytes, str]:
        form = body["response_format"]
        schema = form["json_schema"]["schema"] if "json_schema" in form else form["schema"]
        cycle = 2 if "option_id" in schema.get("properties", {}) else 1
        reply = auto_reply(CompletionRequest(purpose=self.mark, json_schema=schema, cycle=cycle, messages=[
            ChatMessage(role="user", content=body["messages"][-1]["content"])]))
        with self.lock:
            self.requests.append(body)
            if "evidence_requests" in schema.get("properties", {}):
                asks, self.wanted = self.wanted[:PER_REPLY], self.wanted[PER_REPLY:]
                reply["evidence_requests"] = [{"tool": t, "query": q, "regex": r} for t, q, r in asks]
            if schema.get("title") == "OptionsReply":  # the first vote splits two to one
                reply["options"][0]["supporters"], reply["options"][1]["supporters"] = [1, 3], [2]
            said = "\n".join(m["content"] for m in body["messages"])  # the persona's contract closes its prompt
            who = next((i for i, name in enumerate(COUNCIL.split(",")) if f"You are {name}, an advisor" in said), 0)
            if "backs" in schema.get("properties", {}):  # the first vote's split, weighed otherwise (71%, not 67%)
                reply.update(vote_confidence=0.9 if who == 0 else 0.6, continue_debate=True)
            options = schema.get("properties", {}).get("option_id", {}).get("enum")
            if options:  # then every advisor changes its vote every cycle: two to one, never the same split twice
                self.votes[who] = self.votes.get(who, 0) + 1
                reply.update(option_id=options[(who + self.votes[who]) % 2], vote_confidence=0.7,
                             continue_debate=True)
                for key in ("summary", "advice", "next_steps"):  # a changed vote writes its lists anew (issue 34)
                    reply[key] = [f"{key} {i}" for i in range(schema["properties"][key].get("maxItems", 5))]
        text = json.dumps(reply)
        events = "".join(f"data: {json.dumps({'choices': [{'delta': {'content': text[i:i + 40]}}]})}\n\n"
                         for i in range(0, len(text), 40))
        return 200, (events + "data: [DONE]\n\n").encode(), "text/event-stream"


def ask(home: Path, model: AskingModel, *flags: str, cycles: int) -> subprocess.CompletedProcess[str]:
    with fake_openai(model) as url:
        config = home.parent / f"{home.name}-council.toml"
        config.write_text(f'[providers.fake]\nkind = "openai"\nbase_url = "{url}"\n[providers.fake.options]\n'
                          'json_mode = "json_schema"\n', encoding="utf-8")
        return subprocess.run(
            [sys.executable, "-m", "council", "ask", "--no-embeddings", "--config", str(config), "--models",
             "fake:asker", "--personas", COUNCIL, "--workspace", str(home), "--max-cycles", str(cycles),
             "--min-cycles", str(cycles), "--yes", "--json", *flags, PROBLEM],
            capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
            env={**os.environ, "HOME": str(home), "NO_COLOR": "1"})


def prompts(model: AskingModel) -> str:
    return "\n".join(m["content"] for body in model.requests for m in body["messages"])


def wanted_for(planted: list[Planted]) -> list[tuple[str, str, bool]]:
    reads = [("read_file", p.path, False) for p in planted]
    return [*reads, *(("search_code", q, r) for q, r in SEARCHES), ("list_files", "**", False),
            ("list_files", ".config/**", False)]


def test_with_the_opt_in_no_prompt_holds_a_planted_secret(tmp_path: Path):
    home = tmp_path / "home"
    planted = plant_home(home)
    wanted = wanted_for(planted)
    model = AskingModel(wanted)
    done = ask(home, model, "--evidence-any-root", cycles=-(-len(wanted) // (3 * PER_REPLY)))
    assert done.returncode == 0, done.stderr[-2000:]
    sent = prompts(model)
    assert [s for s in secrets_of(planted) if s in sent] == []
    assert [s for s in secrets_of(planted) if s in done.stdout or s in done.stderr] == []
    session = json.loads(done.stdout)["session"]
    uses = {(u["tool"], u["query"]): u for u in session["evidence"]}
    assert len(uses) == len(wanted)  # every request was served
    outcomes = {p.path: "location" if uses[("read_file", p.path)].get("refusal") == "secret" else
                "content" if uses[("read_file", p.path)]["ok"] else "?" for p in planted}
    assert outcomes == {p.path: p.outcome for p in planted}
    assert PLAN in sent and "[redacted: OpenAI key]" in sent and "[redacted: private key]" in sent  # read, redacted
    assert "refused, a secrets file (never shown)" in sent


def test_without_the_opt_in_a_home_root_gives_no_evidence(tmp_path: Path):
    home = tmp_path / "home"
    planted = plant_home(home)
    model = AskingModel(wanted_for(planted))
    done = ask(home, model, cycles=2)
    assert done.returncode == 0, done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if "is a home folder" in line]
    assert len(said) == 1 and str(home) in said[0] and "--evidence-any-root" in said[0]
    session = json.loads(done.stdout)["session"]
    assert session["settings"]["evidence"] is False and session["evidence"] == [] and \
        session["workspaceOverview"] == []
    sent = prompts(model)
    assert PLAN not in sent and ".bashrc" not in sent and "notes/" not in sent
    assert [s for s in secrets_of(planted) if s in sent] == []
    assert not any("evidence_requests" in json.dumps(body["response_format"]) for body in model.requests)

