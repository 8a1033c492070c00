"""Issue 30: a reply that stays unusable never sinks the council's answer, and a small model is asked only for what
it can complete (the ``small`` reply profile: fewer, shorter fields, a token budget the longest reply fits)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from unit_helpers import Builder, rule

from council.config import ProviderConfig
from council.protocol.methods import SessionOptions, TurnParams
from council.providers.base import grammar_schema
from council.providers.embedded import EmbeddedProvider
from council.providers.scripted import ScriptedProvider
from council.review.calls import RoleReply, role_schema
from council.session.calls.parsing import parse_prefix, parse_reply
from council.session.calls.profiles import (
    AT_LEAST,
    FULL,
    LEFT_OUT,
    SESSION_KINDS,
    SMALL,
    fitted,
    longest_reply,
    profile_of,
    tokens_for,
)
from council.session.state import outputs
from council.session.state.entities import Depth
from council.session.state.entities import SessionStatus as S
from council.session.steps.clarifier import clarifier_schema
from council.session.steps.persona_reply import persona_schema
from council.session.steps.synthesis import hinge_schema

PROBLEM = "Should our team rewrite the billing service in Rust?"
TRIO = ["Software Architect", "Senior Developer", "Devil's Advocate"]
# what a small model's cut-off reply looks like: a position and half a list, then nothing
CUT = '{"position": "Rewrite billing in Rust one module at a time", "summary": ["Rust is safe", "Start sm'


async def ask(h, **options):
    return await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(clarify=False, personas=TRIO,
                                                                                **options)))


async def test_every_advisor_unusable_still_ends_with_an_answer_from_what_could_be_read(make_service):
    h = make_service({"rules": [rule("PersonaReply", CUT)]})  # every persona, every attempt: cut off
    res = await ask(h)
    sid = res.session_id
    assert res.status is S.COMPLETED, res.message
    s = h.runtime(sid).session
    syn = s.synthesis
    assert syn.source == "consolidated" and syn.recommendation == "Rewrite billing in Rust one module at a time"
    assert syn.notes == ["No advisor's reply could be used (the model's output stayed malformed after its repair): "
                         "this answer is pieced together from what could be read of the replies of Software "
                         "Architect, Senior Developer, Devil's Advocate, with no vote and no chair."]
    assert "Rewrite billing in Rust one module at a time" in s.final_answer
    assert all(x.abstained and x.cycle == 1 for x in s.responses) and len(s.responses) == 3
    assert s.responses[0].summary == ["Rust is safe"]  # the readable part, kept with the abstention
    assert s.debate_cycles == 1 and s.votes == []  # the debate ended at the first cycle: no vote on nothing
    assert not h.of(sid, "error")  # not "Every advisor failed … Retry": the council answered
    notes = [e["message"] for e in h.of(sid, "progress")]
    assert any("No advisor's reply could be used" in n for n in notes), notes
    calls = next(iter(h.service.hub._cache.values())).calls
    assert [c.json_schema["title"] for c in calls].count("SynthesisReply") == 0  # no chair on a failing model
    assert sum(c.json_schema["title"] == "PersonaReply" for c in calls) == 6  # each: the call and its repair


async def test_nothing_readable_at_all_waits_for_a_retry_as_before(make_service):
    """Prose from every advisor: nothing to answer from, so the one stall says what was wrong (issue 19)."""
    h = make_service({"rules": [rule("PersonaReply", "I cannot write JSON.")]})
    res = await ask(h)
    assert res.status is S.DEBATING
    (error,) = h.of(res.session_id, "error")
    assert error["retryable"] and "the model's output was malformed" in error["message"]
    assert h.runtime(res.session_id).session.synthesis is None


async def test_a_second_cycle_without_a_usable_reply_ends_the_debate_on_the_first(make_service):
    """The cycle beside the options call: dropped, not run again, and the chair answers from the first cycle."""
    h = make_service({"rules": [rule("PersonaReply", CUT, cycle=2)]})
    res = await ask(h, max_cycles=3)
    assert res.status is S.COMPLETED, res.message
    s = h.runtime(res.session_id).session
    assert s.debate_cycles == 1 and not any(x.abstained for x in s.responses)
    assert s.synthesis.source == "model" and s.votes and s.tally.winner
    calls = next(iter(h.service.hub._cache.values())).calls
    assert sum(c.json_schema["title"] == "PersonaReply" and c.cycle == 2 for c in calls) == 6  # once, repaired once
    assert not h.of(res.session_id, "error")


async def test_a_model_that_cannot_be_reached_still_stalls_for_a_retry(make_service):
    h = make_service({"rules": [rule("PersonaReply", error="server")]})
    res = await ask(h)
    assert res.status is S.DEBATING
    (error,) = h.of(res.session_id, "error")
    assert error["retryable"] and "Every advisor failed" in error["message"]


async def test_one_unusable_advisor_abstains_and_the_others_go_on(make_service):
    h = make_service({"rules": [rule("PersonaReply", CUT, purpose="Senior Developer")]})
    res = await ask(h)
    assert res.status is S.COMPLETED
    s = h.runtime(res.session_id).session
    assert all(x.abstained == (x.persona == "Senior Developer") for x in s.responses)
    assert s.synthesis.source == "model" and s.debate_cycles == 2


# --- the small profile --------------------------------------------------------------------------------------------


def small_model_schemas():
    b = Builder(personas=tuple(TRIO))
    b.debating()
    for depth in Depth:
        b.s.settings.depth = depth
        yield f"persona-1-{depth.value}", persona_schema(b.s, 1)
        yield f"persona-backing-{depth.value}", persona_schema(b.s, 2, backing=True)
    b.s.settings.depth, b.s.settings.evidence = Depth.BRIEF, True
    yield "persona-evidence", persona_schema(b.s, 1)
    yield "clarifier", clarifier_schema()
    options = outputs.reply_schema(outputs.OptionsReply)
    options["$defs"]["OptionDraft"]["properties"]["supporters"] = {
        "type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 5}, "maxItems": 5}
    yield "options", options
    three = SimpleNamespace(assumption_log=["timeline", "team", "budget"])  # hinges: one per assumption
    yield "synthesis", hinge_schema(outputs.reply_schema(outputs.SynthesisReply), three)
    yield "follow-up", outputs.reply_schema(outputs.FollowUpReply)
    yield "review-role", role_schema(SimpleNamespace(checklist=["secrets", "auth", "input", "logs"]))  # one each


def test_the_embedded_model_is_asked_the_small_profile_and_other_models_the_full_one():
    assert profile_of(EmbeddedProvider(ProviderConfig(kind="embedded"))) is SMALL
    assert profile_of(ScriptedProvider()) is FULL


@pytest.mark.parametrize(("name", "schema"), list(small_model_schemas()))
def test_the_small_profile_schema_fits_under_its_max_tokens(name, schema):
    asked_json, max_tokens = fitted(json.dumps(schema), SMALL, 1000)  # as a call asks it (``structured``)
    asked = json.loads(asked_json)  # the small profile caps every kind
    assert max_tokens == SMALL.max_tokens or name.endswith(("standard", "deep"))  # 5–14 bullets: more room
    # the longest reply the grammar allows, each token at least one character: the object always closes
    assert longest_reply(grammar_schema(asked)) <= max_tokens
    assert longest_reply(grammar_schema(schema)) > max_tokens or name == "follow-up"  # the full one would not
    title = schema["title"]
    model = {"PersonaReply": outputs.PersonaReply, "ClarifierReply": outputs.ClarifierReply,
             "OptionsReply": outputs.OptionsReply, "SynthesisReply": outputs.SynthesisReply,
             "FollowUpReply": outputs.FollowUpReply, "RoleReply": RoleReply}[title]
    for key in LEFT_OUT.get(title, ()):
        assert key not in asked["properties"] and not model.model_fields[key].is_required()  # a default stands in
    for key, least in AT_LEAST.get(title, {}).items():  # lists a small model would leave empty are filled
        assert asked["properties"][key]["minItems"] >= least
    full_json, budget = fitted(json.dumps(schema), FULL, 1000)  # every other model: one rule, less tight (issue 34)
    if title in SESSION_KINDS:
        full = json.loads(full_json)
        assert longest_reply(asked) <= longest_reply(full) < longest_reply(grammar_schema(schema))
        assert budget == min(1000, tokens_for(full, FULL))
    else:  # a follow-up answer and a review are asked as their callers built them
        assert (full_json, budget) == (None, 1000)
    for key, spec in schema["properties"].items():  # a count the caller needs is never cut
        if key in asked["properties"] and spec.get("minItems"):
            assert asked["properties"][key]["maxItems"] >= spec["minItems"] <= asked["properties"][key]["minItems"]


def test_a_reply_at_the_longest_the_small_schema_allows_closes_and_parses():
    b = Builder(personas=tuple(TRIO))
    b.debating()
    b.s.settings.depth = Depth.BRIEF
    asked_json, max_tokens = fitted(json.dumps(persona_schema(b.s, 1)), SMALL, 1000)
    asked = json.loads(asked_json)

    def longest(spec):
        if "enum" in spec:
            return max(spec["enum"], key=lambda v: len(json.dumps(v)))
        if spec["type"] == "string":
            return "w" * spec["maxLength"]
        if spec["type"] == "array":
            return [longest(spec["items"]) for _ in range(spec["maxItems"])]
        if spec["type"] == "number":
            return 0.5
        return {k: longest(v) for k, v in spec["properties"].items()}

    text = json.dumps(longest(asked), separators=(", ", ": "))
    assert len(text) <= max_tokens
    reply = parse_reply(text, outputs.PersonaReply, asked)
    assert len(reply.summary) == 2 and reply.assumptions == []


def test_a_line_break_inside_a_string_is_read_not_refused():
    text = '{"position": "Split\nlater", "confidence": "low", "confidence_rationale": "a\tb"}'
    reply = parse_reply(text, outputs.PersonaReply, outputs.reply_schema(outputs.PersonaReply))
    assert reply.position == "Split later"
    assert parse_prefix('{"position": "Split\nla') == ({"position": "Split la"}, set())
