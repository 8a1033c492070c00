"""Defensive parsing of model output."""

from __future__ import annotations

import json

import pytest
from pydantic import Field

from council.session.calls.parsing import ParseFailure, extract_json_object, parse_reply
from council.session.state.outputs import TEXT, ModelReply, PersonaReply, SynthesisReply, reply_schema


class VoteReply(ModelReply):
    """A small reply shape for the parsing tests."""

    option_id: str = Field(min_length=1, max_length=2)
    confidence: float
    rationale: str = Field(min_length=3, max_length=TEXT)
    continue_debate: bool = False
    conclusion: str = Field(min_length=3, max_length=TEXT)


VOTE_SCHEMA = reply_schema(VoteReply, {"confidence": {"minimum": 0, "maximum": 1}})
VOTE = {"option_id": "A", "confidence": 0.7, "rationale": "it is cheaper", "conclusion": "go with A"}


def persona(**over):
    data = {
        "position": "Go staged.",
        "summary": ["s1"],
        "advice": ["a1"],
        "risks": [],
        "next_steps": ["n1"],
        "confidence": "high",
        "confidence_rationale": "seen it before",
    }
    data.update(over)
    return data


class TestExtract:
    def test_plain(self):
        assert extract_json_object('{"a": 1}') == {"a": 1}

    def test_inside_prose(self):
        assert extract_json_object('Sure! Here it is: {"a": {"b": [1, 2]}} Hope that helps.') == {
            "a": {"b": [1, 2]}
        }

    def test_code_fence(self):
        text = 'Text {not json}\n```json\n{"a": "x"}\n```\ntrailing {"b": 2}'
        assert extract_json_object(text) == {"a": "x"}

    def test_unlabelled_fence(self):
        assert extract_json_object('```\n{"a": 2}\n```') == {"a": 2}

    def test_trailing_text_and_second_object(self):
        assert extract_json_object('{"a": 1}\n{"a": 2} and more') == {"a": 1}

    def test_braces_inside_strings(self):
        assert extract_json_object('{"a": "}{ \\" }"}') == {"a": '}{ " }'}

    def test_skips_non_json_braces(self):
        assert extract_json_object('use {braces} then {"ok": true}') == {"ok": True}

    @pytest.mark.parametrize("text", ['{"a": 1, "b": [1, 2', '```json\n{"position": "half', '{"a": {"b": 1}'])
    def test_truncated(self, text):
        with pytest.raises(ParseFailure) as info:
            extract_json_object(text)
        assert "truncated" in info.value.reason or "incomplete" in info.value.reason

    @pytest.mark.parametrize("text", ["", "I cannot answer that.", "[1, 2, 3]"])
    def test_no_json(self, text):
        with pytest.raises(ParseFailure, match="no JSON object"):
            extract_json_object(text)


class TestParseReply:
    def test_valid_reply_ignores_unknown_keys(self):
        reply = parse_reply(json.dumps({**VOTE, "mood": "great"}), VoteReply, VOTE_SCHEMA)
        assert reply.option_id == "A" and reply.confidence == 0.7

    @pytest.mark.parametrize(("given", "clamped"), [(1.7, 1), (-0.3, 0), (0.25, 0.25)])
    def test_numbers_clamped(self, given, clamped):
        assert (
            parse_reply(json.dumps({**VOTE, "confidence": given}), VoteReply, VOTE_SCHEMA).confidence
            == clamped
        )

    def test_lists_trimmed_to_max_items_and_blank_items_dropped(self):
        schema = reply_schema(PersonaReply, {"summary": {"maxItems": 3}})
        text = json.dumps(persona(summary=["1", " ", "2", "", "3", "4", "5"], advice=["  padded  "]))
        reply = parse_reply(text, PersonaReply, schema)
        assert reply.summary == ["1", "2", "3"]
        assert reply.advice == ["padded"]

    def test_strings_trimmed_to_max_length(self):
        schema = reply_schema(PersonaReply)
        reply = parse_reply(json.dumps(persona(position="  " + "x" * 700)), PersonaReply, schema)
        assert reply.position == "x" * 599 + "…"  # within the cap, marked as cut
        words = parse_reply(json.dumps(persona(position="word " * 200)), PersonaReply, schema).position
        assert len(words) <= 600 and words.endswith("word…")  # at a word boundary (issue 34)

    def test_schema_mismatch_names_the_field(self):
        data = persona(confidence="enormous")
        with pytest.raises(ParseFailure) as info:
            parse_reply(json.dumps(data), PersonaReply, reply_schema(PersonaReply))
        assert info.value.reason.startswith("the JSON did not match the schema")
        assert "confidence" in info.value.reason

    def test_missing_field_named(self):
        data = dict(VOTE)
        del data["rationale"]
        with pytest.raises(ParseFailure, match="rationale: Field required"):
            parse_reply(json.dumps(data), VoteReply, VOTE_SCHEMA)

    def test_reply_in_prose_parses(self):
        text = "Here is my vote:\n```json\n" + json.dumps(VOTE) + "\n```\nThanks."
        assert parse_reply(text, VoteReply, VOTE_SCHEMA).conclusion == "go with A"

    def test_truncated_reply_fails_with_reason(self):
        text = json.dumps(VOTE)[:-10]
        with pytest.raises(ParseFailure, match="truncated"):
            parse_reply(text, VoteReply, VOTE_SCHEMA)

    def test_blank_items_dropped_before_validation(self):
        text = json.dumps({"recommendation": "Do it", "next_steps": ["", "  "]})
        with pytest.raises(ParseFailure, match="next_steps"):
            parse_reply(text, SynthesisReply, reply_schema(SynthesisReply))


@pytest.mark.parametrize(("written", "read"), [
    ("0.7", 0.7), ("0", 0.0), ("1", 1.0), ("1.0", 1.0), ("67", 0.67), ("100", 1.0), ("30.5", 0.305),
    ("250", 1.0), ("-3", 0.0), ("1.7", 1.0), ("5", 1.0), ("10", 1.0), ("10.5", 0.105), ("NaN", 0.5)])
def test_a_share_written_as_a_percentage_is_read_as_one(written, read):
    """A number asked for as 0-1 (a vote's confidence) that a model writes as a percentage means that percentage:
    67 is 0.67, not the 1.0 a clamp made of it; from 1 to 10 (an overshoot or a score out of ten: unsure; 10 is ten
    of ten, not 10 %) and past 100 or below 0 it is clamped; NaN (Python's JSON reads it) is 0.5."""
    text = json.dumps({**VOTE, "confidence": 0}).replace('"confidence": 0', f'"confidence": {written}')
    assert parse_reply(text, VoteReply, VOTE_SCHEMA).confidence == pytest.approx(read)


@pytest.mark.parametrize(("written", "read"), [
    ('"67"', 0.67), ('"67%"', 0.67), ('"70 %"', 0.7), ('" 0.7 "', 0.7), ('"0.7"', 0.7), ('"NaN"', 0.5),
    ('"Infinity"', 1.0), ('"1000%"', 1.0), ('"5%"', 0.05), ('"-3"', 0.0)])
def test_a_share_written_as_a_string_is_read_as_the_number_it_says(written, read):
    """A model without a grammar writes a number asked as 0-1 as a string ("67", "67%"): it is read as the number
    it says, as the number itself is (67 is 0.67) — as a string it escaped the reading (a review's "30" was refused
    by its bounds: a repair, then the role's verdict lost; "67%" too)."""
    text = json.dumps({**VOTE, "confidence": 0}).replace('"confidence": 0', f'"confidence": {written}')
    assert parse_reply(text, VoteReply, VOTE_SCHEMA).confidence == pytest.approx(read)


def test_a_bounded_number_written_as_nan_is_the_middle_of_its_bounds_and_a_null_list_is_empty():
    """NaN (Python's JSON reads it) for a number with bounds is no reading: the middle of them, as a share's NaN is
    0.5 (it failed the bounds: a repair, then a review role's verdict lost); ``null`` for a list ("risks": null, no
    risks) is the empty list (it was a repair, then the persona's seat lost)."""
    class Scored(ModelReply):
        score: float = Field(ge=0, le=10)
        notes: list[str] = Field(default_factory=list)

    schema = reply_schema(Scored, {"score": {"minimum": 0, "maximum": 10}})
    assert parse_reply('{"score": NaN, "notes": null}', Scored, schema).model_dump() == {"score": 5.0, "notes": []}
    assert parse_reply('{"score": "7", "notes": []}', Scored, schema).score == 7.0
    reply = parse_reply(json.dumps(persona(risks=None)), PersonaReply, reply_schema(PersonaReply))
    assert reply.risks == []
    with pytest.raises(ParseFailure, match="score"):
        parse_reply('{"score": "high"}', Scored, schema)  # no number: one repair asks for one


def test_a_number_or_null_for_a_text_is_its_digits_or_none_written():
    """A model without a grammar writes its vote as a number (``"option_id": 2``, the second option, as ``"2"``) or
    ``null`` (no vote, as ``""``; no confidence, the default 0.5): each was a parse failure — a repair, then the
    persona's whole reply lost."""
    schema = reply_schema(PersonaReply, {"option_id": {"enum": ["A", "B"]}})
    for written, read in ((2, "2"), (2.0, "2"), (None, "")):
        assert parse_reply(json.dumps(persona(option_id=written)), PersonaReply, schema).option_id == read
    with pytest.raises(ParseFailure, match="position"):  # a text that must be there is still asked for
        parse_reply(json.dumps(persona(position=None)), PersonaReply, schema)
    schema["properties"]["vote_confidence"].update({"minimum": 0, "maximum": 1})
    assert parse_reply(json.dumps(persona(vote_confidence=None)), PersonaReply, schema).vote_confidence == 0.5
    with pytest.raises(ParseFailure, match="confidence"):  # a number that must be there is still asked for
        parse_reply(json.dumps({**VOTE, "confidence": None}), VoteReply, VOTE_SCHEMA)


def test_an_integer_of_thousands_of_digits_is_read_as_a_huge_number():
    """Python refuses to read an integer of more than 4300 digits (a ValueError, not a parse failure: it failed the
    session as an internal error); a model's is read as the huge number it is (inf), and a share of it is 1.0."""
    text = json.dumps(VOTE).replace('"confidence": 0.7', '"confidence": 1' + "0" * 5000)
    assert parse_reply(text, VoteReply, VOTE_SCHEMA).confidence == 1.0
    assert extract_json_object('{"n": -1' + "0" * 5000 + "}")["n"] == float("-inf")


@pytest.mark.parametrize("nested", ["[" * 5000, "[" * 5000 + "]" * 5000 + "}"])
def test_a_reply_nested_past_the_decoders_depth_is_a_parse_failure(nested):
    """A RecursionError from the JSON decoder (a model looping on "[[[[") is a parse failure worth the one repair,
    not an exception that fails the session."""
    with pytest.raises(ParseFailure, match="malformed"):
        extract_json_object('{"position": "x", "risks": ' + nested)


def test_an_enums_value_written_in_another_case_is_that_value():
    """A model without a grammar writes ``"confidence": "High"`` or, whom it backs, ``"b"`` / ``"Own"``: each is
    the enum's value in another case (each failed the reply's parse: a repair, then the persona's reply lost); a
    value that is none of them is still refused."""
    schema = reply_schema(PersonaReply, {"backs": {"enum": ["own", "A", "B"]}})
    for confidence, backs in (("High", "b"), (" MEDIUM ", "Own"), ("low", " B ")):
        reply = parse_reply(json.dumps(persona(confidence=confidence, backs=backs)), PersonaReply, schema)
        assert (reply.confidence, reply.backs) == (confidence.strip().lower(), backs.strip().upper()
                                                   if len(backs.strip()) == 1 else "own")
    with pytest.raises(ParseFailure, match="confidence"):
        parse_reply(json.dumps(persona(confidence="very high")), PersonaReply, schema)
