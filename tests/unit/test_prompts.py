"""Prompt shape (issue 11): a key guide instead of the JSON schema, stable parts first, every part bounded."""

from __future__ import annotations

import json

from unit_helpers import Builder

from council.personas.loader import load_personas
from council.providers.base import ChatMessage
from council.session.calls.debate_prompts import advisor_labels, digest, persona_messages
from council.session.calls.formats import extra_block, format_block, swaps_of
from council.session.calls.prompts import DIGEST_BUDGET, REPAIR_ECHO, SOUL_BUDGET, repair_messages
from council.session.calls.structured import _compact
from council.session.state.outputs import OptionsReply, SynthesisReply, reply_schema
from council.session.steps.persona_reply import persona_schema

LIBRARY = load_personas()
NAMES = ("Software Architect", "Senior Developer", "Devil's Advocate", "Security Expert", "Product Manager",
         "Reliability Engineer")


def debating(cycle: int = 2) -> Builder:
    b = Builder(personas=NAMES)
    b.debating()
    for n in range(1, cycle):
        b.start_cycle(n)
        for name in NAMES:
            b.speak(name, n, position="x " * 299, advice=["y " * 299], risks=["z " * 299])
        b.conclude(n)
        if n == 1:
            b.options()
    return b


def messages(b: Builder, name: str, cycle: int) -> list[ChatMessage]:
    previous = [r for r in b.s.responses if r.cycle == cycle - 1]
    return persona_messages(LIBRARY.get(name), b.s, persona_schema(b.s, cycle), cycle, previous)


def test_the_client_gets_a_key_guide_not_the_json_schema():
    b = debating()
    for cycle, count in ((1, "5-7 short bullets"), (2, "up to 1 short bullet")):  # later: a new point (issue 34)
        text = "\n".join(m.content for m in messages(b, "Devil's Advocate", cycle))
        assert '"properties"' not in text and '"required"' not in text and "$defs" not in text
        assert f'"summary": {count}\n' in text and '"confidence": "low" | "medium" | "high"' in text
    assert '"option_id": "A" | "B", your vote' in messages(b, "Devil's Advocate", 2)[1].content
    assert len(format_block(persona_schema(b.s, 2))) < 700


def test_the_system_message_is_the_same_in_every_later_cycle_and_starts_with_the_format():
    """Issue 34: a later cycle's lists may be empty (the earlier ones stand), so its key guide differs from cycle 1's
    (its prompt shares the persona's cycle-1 prompt from there on); from cycle 2 on it is the same."""
    b = debating(3)
    first, later = messages(b, "Software Architect", 1), messages(b, "Software Architect", 3)
    assert messages(b, "Software Architect", 2)[0].content == later[0].content  # reusable by a prefix cache
    assert first[0].content.startswith(format_block(persona_schema(b.s, 1)))
    assert later[0].content.startswith(format_block(persona_schema(b.s, 3)))
    assert first[1].content.startswith("The user's request:") and later[1].content.startswith("The user's request:")


def test_rules_and_focus_are_joined_cleanly():
    b = debating()
    for name in NAMES:
        contract = messages(b, name, 2)[1].content.rsplit("\n\nYou are ", 1)[1]
        assert contract.startswith(name) and ".;" not in contract and ".." not in contract


def test_a_long_contract_is_clipped():
    persona = LIBRARY.get("Software Architect").model_copy(update={"soul": "word " * 800,
                                                                    "focus": ["focus item " * 20] * 12})
    b = debating()
    contract = persona_messages(persona, b.s, persona_schema(b.s, 1), 1, [])[1].content.rsplit("\n\nYou are ", 1)[1]
    assert len(contract) < SOUL_BUDGET + 450 + 600 + 300 and "…" in contract


def test_the_digest_is_bounded_whatever_the_replies():
    b = debating()
    text = digest(b.s.responses, advisor_labels(b.s))  # every advisor's line: one more than a persona's peers
    assert len(text) <= DIGEST_BUDGET + 10 and text.count("\n") == len(NAMES) - 1


def test_grammar_backends_get_the_compact_form_of_every_block():
    b = debating()
    schema = persona_schema(b.s, 2)
    text = json.dumps(schema)
    compact = _compact(messages(b, "Devil's Advocate", 2), swaps_of(text, text, True))
    text = "\n".join(m.content for m in compact)
    assert format_block(schema) not in text and extra_block(schema) not in text
    assert format_block(schema, compact=True) in text and extra_block(schema, compact=True) in text
    assert "summary (up to 1 short bullet)" in text and '"' not in format_block(schema, compact=True)


def test_every_reply_kind_has_a_guide():
    for schema in (reply_schema(OptionsReply), reply_schema(SynthesisReply)):
        (full, short), = swaps_of(json.dumps(schema), json.dumps(schema), True)
        assert full.count("\n") == len(schema["properties"]) and short
    synthesis = reply_schema(SynthesisReply)
    keys = [line.split('"')[1] for line in format_block(synthesis).splitlines()[1:]]
    assert keys == list(synthesis["properties"])  # in the schema's order
    options = format_block(reply_schema(OptionsReply))
    assert '"supporters"' in options and "the advisors who recommend it" in options
    json.dumps(options)  # plain text


def test_a_repair_repeats_only_the_start_of_the_bad_reply():
    """Issue 34: a re-ask sent the whole bad reply back (up to 4,000 characters, ~1.5k tokens of prompt on
    SmolLM2); it repeats its start, whitespace collapsed, and says what was wrong."""
    b = debating()
    asked = messages(b, "Software Architect", 2)
    bad = '{"position": "' + "word  \n " * 2000 + '"'
    repair = repair_messages(asked, bad, "the reply was cut off")
    assert repair[: len(asked)] == asked and len(repair) == len(asked) + 2
    echo = repair[-2].content
    assert len(echo) <= REPAIR_ECHO and echo.startswith('{"position": "word word') and echo.endswith("…")
    assert "the reply was cut off" in repair[-1].content
    short = '{"position": "Split"}'
    assert repair_messages(asked, short, "x")[-2].content == short  # a short reply is repeated as it is
