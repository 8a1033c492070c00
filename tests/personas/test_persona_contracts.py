"""The shipped persona contracts: every file loads, the three councils are staffed, the contract rules hold."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from council.personas.contract import DOMAINS, PersonaContract
from council.personas.loader import default_personas_dir
from council.protocol.methods import PersonaInfo

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from persona_helpers import VALID

PERSONA_FILES = sorted(default_personas_dir().glob("*.toml"))
BUSINESS = {"Growth Strategist", "Financial Officer", "Devil's Advocate", "Ops Architect",
            "Customer Advocate", "Culture Lead"}
ENGINEERING = {"Senior Developer", "Security Expert", "Software Architect", "Reliability Engineer",
               "Product Manager", "Devil's Advocate"}
REVIEW = {"Risk Officer", "Quant Researcher", "Realism Checker", "Code Reviewer", "Overfitting Auditor",
          "Devil's Advocate"}


def test_the_repo_ships_sixteen_persona_files():
    assert default_personas_dir() == Path(__file__).resolve().parents[2] / "personas"
    assert len(PERSONA_FILES) == 16


@pytest.mark.parametrize("path", PERSONA_FILES, ids=lambda p: p.stem)
def test_each_shipped_file_is_a_valid_complete_contract(path: Path):
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    persona = PersonaContract.model_validate(raw)
    assert persona.id == path.stem
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", persona.soul)
    assert 2 <= len(sentences) <= 4, persona.soul
    assert 3 <= len(persona.focus) <= 6
    assert 3 <= len(persona.constraints) <= 6
    assert any(c.lower().startswith(("refuses", "never", "won't", "declines")) for c in persona.constraints)
    assert any("challenge" in c.lower() for c in persona.constraints)
    assert set(persona.domains) <= set(DOMAINS)
    assert persona.always_include is (persona.id == "devils-advocate")
    assert persona.tone and persona.description
    assert ("council.consult" in persona.allowed_tools) is persona.chats
    assert ("council.review" in persona.allowed_tools) is (persona.review is not None)


def test_the_three_councils_are_staffed(library):
    assert set(library.councils) == {"business", "engineering", "review"}
    assert set(library.councils["business"]) == BUSINESS
    assert set(library.councils["engineering"]) == ENGINEERING
    assert set(library.councils["review"]) == REVIEW
    assert {p.name for p in library.council("Engineering")} == ENGINEERING
    assert {p.name for p in library.all if not p.chats} == REVIEW - {"Devil's Advocate"}


def test_devils_advocate_sits_on_every_council_and_brings_counterpoints_and_risks(library):
    da = library.get("devils-advocate")
    assert da is not None and da.always_include
    assert da.councils == ["business", "engineering", "review"]
    rules = " ".join(da.constraints).lower()
    assert "counterpoint" in rules and "risk" in rules and "trade-off" in rules
    assert [p.name for p in library.all if p.always_include] == ["Devil's Advocate"]


def test_to_info_is_the_wire_view(library):
    info = library.get("devils-advocate").to_info("personas/devils-advocate.toml")
    assert isinstance(info, PersonaInfo)
    assert info.council == "business, engineering, review"
    assert info.source == "personas/devils-advocate.toml"
    wire = info.to_wire()
    assert wire["allowedTools"] == ["council.consult", "persona.consult", "council.review"]
    assert [i.name for i in library.infos()] == library.names


def test_system_prompt_carries_soul_focus_and_rules(library):
    prompt = library.get("security-expert").system_prompt()
    assert prompt.startswith("You are the Security Expert")
    assert "Refuses to help weaken security controls" in prompt


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"soul": "   "}, "soul", "at least 1 character"),
        ({"focus": []}, "focus", "at least 1 item"),
        ({"constraints": ["Challenges everything by asking why."]}, "constraints", "refusal pattern"),
        ({"constraints": ["Refuses to merge red builds."]}, "constraints", "challenge mechanism"),
        ({"domains": ["astrology"]}, "domains", "Input should be"),
        ({"id": "Not A Slug"}, "id", "pattern"),
        ({"colour": "red"}, "colour", "Extra inputs"),
    ],
)
def test_contract_rules_reject_bad_fields(change, field, message):
    with pytest.raises(ValidationError) as err:
        PersonaContract.model_validate({**VALID, **change})
    errors = err.value.errors()
    assert errors[0]["loc"][0] == field
    assert message in errors[0]["msg"]


def test_refusal_and_challenge_accept_the_documented_markers():
    for refusal in ("Never merges red builds.", "Declines to merge red builds.", "Won't merge red builds."):
        for challenge in ("Questions every estimate.", "Pushes back on scope creep.", "Demands evidence."):
            PersonaContract.model_validate({**VALID, "constraints": [refusal, challenge]})
