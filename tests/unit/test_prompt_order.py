"""The persona prompts of one cycle share one long prefix (issue 34, real generation): llama.cpp's server (and
llama-cpp-python's, Ollama, cloud prompt caches) reuse the KV of the longest prefix a request shares with the one
before, so everything persona-specific comes last — the system message is the reply format and one shared role,
the user message the brief, then (debate cycles) the digest of every advisor under a letter that is the same for
every reader, the options or the backing rule, the debate rules and the debate keys, and only then the persona's
contract and its letter (its line in the digest is its previous position). A persona backs another by that letter.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from typing import Any

import pytest
from unit_helpers import Builder, first_vote_rules, persona_reply, rule

from council.config import CouncilConfig, ProviderConfig
from council.personas.loader import PersonaLibrary, load_personas
from council.protocol.methods import SessionOptions, TurnParams
from council.providers.base import ChatMessage, CompletionRequest
from council.providers.scripted import auto_reply
from council.service import CouncilService
from council.session.calls.debate_prompts import BACKING_RULE, DEBATE_RULES, cycle_messages, digest
from council.session.calls.formats import extra_block
from council.session.calls.prompts import DIGEST_BUDGET, problem_brief
from council.session.state import records as r
from council.session.state.entities import SessionSettings
from council.session.state.outputs import VoteOption
from council.session.steps.persona_reply import persona_schema
from tests.headless.fake_openai import FakeOpenAI, fake_openai

LIBRARY = load_personas()
SIX = ("Software Architect", "Senior Developer", "Devil's Advocate", "Security Expert", "Product Manager",
       "Reliability Engineer")
THREE = SIX[:3]
OPTIONS = [VoteOption(id="A", label="Split the billing module first", description="extract it behind a facade"),
           VoteOption(id="B", label="Keep the monolith this quarter", description="harden it for the audit")]


def chat(messages: list[ChatMessage] | list[dict[str, Any]]) -> str:
    """The prompt as a chat template lays it out (ChatML, SmolLM2's): what a server's prefix cache compares."""
    pairs = [(m.role, m.content) if isinstance(m, ChatMessage) else (m["role"], m["content"]) for m in messages]
    return "".join(f"<|im_start|>{role}\n{content}<|im_end|>\n" for role, content in pairs) + "<|im_start|>assistant\n"


def common(texts: list[str]) -> str:
    """The paragraphs every text starts with (their common prefix, cut at its last paragraph break)."""
    same = os.path.commonprefix(texts)  # noqa: RUF071 (characters, not paths: what a prefix cache compares)
    return same[: same.rindex("\n\n") + 2]


def session_at(names: tuple[str, ...], kind: str) -> Builder:
    """A session about to run its first cycle, its cycle beside the options call (``backing``: no options yet), or
    a later voting cycle (``voting``: options on the table, the cycle before's votes)."""
    b = Builder(personas=names)
    b.debating()
    last = {"first": 0, "backing": 1, "voting": 2}[kind]
    for n in range(1, last + 1):
        b.start_cycle(n)
        for i, name in enumerate(names):
            b.speak(name, n, position=f"plan number {i} in cycle {n}, " + "because of the audit " * 12,
                    advice=[f"argument {i} " * 30], risks=[f"risk {i} " * 30])
        b.conclude(n)
        if n == 1 and kind == "voting":
            b.apply(r.OptionsSet(at=b.at(), options=OPTIONS))
        if n == 2:
            for i, name in enumerate(names):
                b.vote(name, "AB"[i % 2], 2)
    return b


@pytest.mark.parametrize("names", [THREE, SIX], ids=["3 personas", "6 personas"])
@pytest.mark.parametrize("kind", ["first", "backing", "voting"])
def test_every_persona_of_a_cycle_reads_one_shared_prefix_then_its_own_part(names: tuple[str, ...], kind: str):
    b = session_at(names, kind)
    s = b.s
    cycle = {"first": 1, "backing": 2, "voting": 3}[kind]
    schema = persona_schema(s, cycle, backing=kind == "backing")
    previous = s.latest_responses(cycle - 1) if cycle > 1 else []
    votes = {v.persona: v for v in s.votes_in(cycle - 1)}
    contracts = [LIBRARY.get(name) for name in names]
    built = cycle_messages(contracts, s, schema, cycle, previous, votes)
    rendered = {name: chat(m) for name, m in built.items()}
    shared = common(list(rendered.values()))
    assert all(shared.startswith(f"<|im_start|>system\n{m[0].content}<|im_end|>\n") for m in built.values())
    assert problem_brief(s) in shared
    assert not any(name in shared for name in names)  # nobody's contract or name is in the shared part
    if kind != "first":
        listed = digest(previous, {name: f"Advisor {'ABCDEF'[i]}" for i, name in enumerate(names)}, votes)
        assert listed in shared and listed.count("\n") == len(names) - 1  # every advisor, its own line included
        assert len(listed) <= DIGEST_BUDGET + 10
        assert DEBATE_RULES in shared and extra_block(schema) in shared
        assert (BACKING_RULE in shared) == (kind == "backing")
        assert ("The options on the table:\n- A: Split the billing module first\n- B: Keep the monolith this quarter"
                in shared) == (kind == "voting")
    for i, c in enumerate(contracts):
        text = rendered[c.name]
        assert text.index(f"You are {c.name}, an advisor on a council.") >= len(shared)  # after it all
        if kind != "first":
            letter = "ABCDEF"[i]  # by the session's order, the same for every reader
            assert f"- Advisor {letter} [" in shared and f"plan number {i} in cycle {cycle - 1}" in \
                shared.split(f"- Advisor {letter} [", 1)[1].split("\n", 1)[0]
            assert text.index(f"You are Advisor {letter} in the list above: that line is your previous") > len(shared)
        else:
            assert text.endswith("Give your independent assessment.<|im_end|>\n<|im_start|>assistant\n")


@pytest.mark.parametrize("count", [3, 6])
def test_the_backing_vote_names_one_letter_per_advisor(count: int):
    b = session_at(SIX[:count], "backing")
    assert persona_schema(b.s, 2, backing=True)["properties"]["backs"]["enum"] == ["own", *"ABCDEF"[:count]]


ARCH, DEV, DEVIL = THREE


async def test_backing_a_letter_votes_for_that_advisor_s_option_and_one_s_own_letter_is_one_s_own(make_service):
    """First votes A (architect, Advisor A), B (developer, Advisor B), C (Devil's Advocate, Advisor C). Beside the
    options call the architect backs C, the developer its own letter B, the Devil's Advocate A."""
    backs = {ARCH: "C", DEV: "B", DEVIL: "A"}
    second = [rule("PersonaReply", {**{k: v for k, v in persona_reply(2, who=name).items() if k != "option_id"},
                                    "backs": letter, "change_reason": f"Advisor {letter}'s argument"},
                   purpose=name, cycle=2) for name, letter in backs.items()]
    h = make_service({"rules": [*first_vote_rules(**{ARCH: ("A", 0.8), DEV: ("B", 0.8), DEVIL: ("C", 0.8)}),
                                *second]}, SessionSettings(min_cycles=2, max_cycles=2))
    res = await h.service.turn(TurnParams(text="Should we split our monolith into services this quarter?",
                                          options=SessionOptions(clarify=False, personas=list(THREE))))
    s = h.runtime(res.session_id).session
    assert [o.id for o in s.options] == ["A", "B", "C"]
    assert {v.persona: v.option_id for v in s.votes if v.cycle == 1} == {ARCH: "A", DEV: "B", DEVIL: "C"}
    assert {v.persona: v.option_id for v in s.votes if v.cycle == 2} == {ARCH: "C", DEV: "B", DEVIL: "A"}
    moved = {x.persona: x.changed_position for x in s.responses if x.cycle == 2}
    assert moved == {ARCH: True, DEV: False, DEVIL: True}


PERSONA = re.compile(r"You are (.+?), an advisor on a council\.")


class Seats(FakeOpenAI):
    """Answers each persona as the scripted model would, for the persona its prompt names: the architect prefers
    A, the others B (the first vote splits, so a debate cycle runs)."""

    def answer(self, body: dict[str, Any], auth: str) -> tuple[int, bytes, str]:
        schema = body["response_format"]["json_schema"]["schema"] if "json_schema" in body["response_format"] \
            else body["response_format"]["schema"]
        text = "\n".join(m["content"] for m in body["messages"])
        found = PERSONA.search(text)
        with self.lock:
            self.requests.append(body)
        who = found.group(1) if found else "moderator"
        cycle = 2 if "option_id" in schema.get("properties", {}) else 1
        reply = auto_reply(CompletionRequest(purpose=who, json_schema=schema, cycle=cycle, messages=[
            ChatMessage(role="user", content=body["messages"][-1]["content"])]))
        if found and "position" in reply:
            reply["position"] = f"{who} prefers option {'A' if who == ARCH else 'B'}."
        data = json.dumps({"choices": [{"delta": {"content": json.dumps(reply)}}]})
        return 200, f"data: {data}\n\ndata: [DONE]\n\n".encode(), "text/event-stream"


async def test_on_a_one_slot_server_each_persona_request_repeats_the_one_before_up_to_its_own_part(
        persona_library: PersonaLibrary):
    """A real HTTP server that runs one request at a time (no /props): every persona request that follows another
    of its cycle shares with it everything before the persona's contract — what the server's slot keeps cached."""
    fake = Seats("m")
    with fake_openai(fake) as url:
        cfg = CouncilConfig(default="local", providers={"local": ProviderConfig(kind="openai", model="m",
                                                                                base_url=url)})
        svc = CouncilService(persona_library, cfg, lambda event: None,
                             settings=SessionSettings(min_cycles=2, max_cycles=2))
        res = await svc.turn(TurnParams(text="Should we split our billing monolith into services this quarter?",
                                        options=SessionOptions(clarify=False, personas=list(THREE))))
    assert res.status.value == "completed" and svc.store.get(res.session_id).rt.session.debate_cycles == 2
    sent = [chat(b["messages"]) for b in fake.requests if len(b["messages"]) == 2]  # first asks, not repairs
    followed = 0
    for old, new in itertools.pairwise(sent):
        persona = PERSONA.search(new)
        if persona is None or PERSONA.search(old) is None or ("Debate cycle 2." in old) != ("Debate cycle 2." in new):
            continue
        followed += 1
        own = new.index(f"You are {persona.group(1)}, an advisor")
        assert len(common([old, new])) == own, persona.group(1)  # all of it but the persona's part
        assert "The user's request:" in new[:own] and (("Debate cycle 2." not in new) or "- Advisor C [" in new[:own])
    assert followed == 4  # two followers in each cycle
