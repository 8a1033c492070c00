"""The consult tools in process: depth enforcement without padding, the Devil's Advocate's counterpoints, the
answer callback (answered, declined, dismissed), draft-gated persona overrides and the TOML they write."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from council.consult.overrides import toml_text
from council.consult.runner import Reply
from council.errors import CouncilError
from council.personas.loader import load_personas
from council.protocol.consult import ConsultParams, DefinePersonasParams, PersonaConsultParams

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PROBLEM = "Should we split our monolith into services this quarter?"
COUNCIL = ["Software Architect", "Devil's Advocate"]


def first_reply(**fields):
    reply = {"position": "Split the billing module first.", "summary": ["s1", "s2"], "advice": ["a1", "a2"],
             "risks": ["r1"], "assumptions": [], "questions": ["Which team owns billing?"],
             "next_steps": ["n1", "n2"], "confidence": "high", "confidence_rationale": "scripted",
             "vote_confidence": 0.9, "continue_debate": False}
    reply.update(fields)
    return reply


async def test_depth_cuts_long_lists_and_reports_short_ones_without_padding(make_service):
    long = [f"item {i}" for i in range(9)]
    script = {"rules": [
        {"when": {"schema": "PersonaReply", "purpose": "Software Architect"},
         "reply": first_reply(summary=long, advice=long, next_steps=long)},
        {"when": {"schema": "PersonaReply", "purpose": "Devil's Advocate"},
         "reply": first_reply(summary=["only one"])}]}
    h = make_service(script)
    r = await h.service.consult(ConsultParams(user_problem=PROBLEM, selected_personas=COUNCIL, depth="brief"))
    arch, da = r.responses
    assert arch.summary.count("\n- ") == 2 and len(arch.next_steps) == 3  # 9 items cut to brief's 3
    assert da.summary == "- only one"  # one item stays one item: nothing invented
    notes = " ".join(r.synthesis.notes)
    assert "Devil's Advocate gave 1 item in summary" in notes
    assert r.open_questions[-1] == "Which team owns billing?"


async def test_devils_advocate_counterpoints_feed_risks(make_service):
    script = {"rules": [{"when": {"schema": "PersonaReply", "purpose": "Devil's Advocate"},
                         "reply": first_reply(risks=["The split doubles on-call load.", "Data drifts."])}]}
    h = make_service(script)
    r = await h.service.consult(ConsultParams(user_problem=PROBLEM, selected_personas=COUNCIL, depth="brief"))
    assert {"The split doubles on-call load.", "Data drifts."} <= set(r.synthesis.risks_tradeoffs)
    assert r.responses[1].counterpoints == ["The split doubles on-call load.", "Data drifts."]
    # seed 000: its advice carries its counterpoints as the engine composed them, one bullet each after its own
    assert r.responses[1].advice == ("- a1\n- a2\n- Counterpoint: The split doubles on-call load.\n"
                                     "- Counterpoint: Data drifts.")
    assert "Counterpoint" not in r.responses[0].advice  # only the Devil's Advocate's
    assert not any("advice" in n for n in r.synthesis.notes)  # the depth counts its own advice: 2, brief asks 2–3


async def test_answer_callback_answers_and_declines(make_service):
    h = make_service()
    seen = []

    async def ask(question):
        seen.append(question.question)
        return Reply("answer", choice=question.choices[1].value) if len(seen) == 1 else Reply("skip")

    r = await h.service.consult(PersonaConsultParams(user_problem=PROBLEM, persona_name="Software Architect"),
                                ask=ask)
    assert len(seen) == 2
    assert [c.status for c in r.clarifications] == ["answered", "declined"]
    assert r.clarifications[0].answer == "Ship faster" and r.clarifications[1].assumption
    assert r.assumptions == [r.clarifications[1].assumption] and r.open_questions[0] == seen[1]
    brief = h.runtime(r.session_id).session
    assert brief.questions[0].user_answer.answer == "Ship faster"


async def test_dismissing_skips_the_rest_as_assumptions(make_service):
    h = make_service()
    asked = []

    async def ask(question):
        asked.append(question.question)
        return Reply("skip_all")

    r = await h.service.consult(ConsultParams(user_problem=PROBLEM, selected_personas=COUNCIL), ask=ask)
    assert len(asked) == 1 and [c.status for c in r.clarifications] == ["declined", "assumed"]


def test_toml_writer_round_trips_what_persona_files_hold():
    data = {"id": "x", "soul": 'a "quoted" \\ back\nslash\ttab \x01 \x7f ünï 😀', "always_include": True,
            "focus": ["one", "two"], "empty": [], "weight": 1.5, "n": 3, "odd key": "v"}
    assert tomllib.loads(toml_text(data)) == data
    with pytest.raises(ValueError):
        toml_text({"table": {"a": 1}})


def overrides_service(make_service, tmp_path: Path):
    ws = tmp_path / "ws"
    h = make_service(workspace=ws, personas_dirs=[ws / ".council" / "personas"])
    return h, ws


def test_an_existing_workspace_file_keeps_its_other_fields(make_service, tmp_path: Path):
    h, ws = overrides_service(make_service, tmp_path)
    folder = ws / ".council" / "personas"
    folder.mkdir(parents=True)
    (folder / "sec.toml").write_text('id = "security-expert"\ntone = "calm"\n', encoding="utf-8")
    h.service.use_library(load_personas([folder]))
    params = DefinePersonasParams(overrides={"security-expert": {"soul": "A careful reviewer of auth code."}})
    draft = h.service.define_personas(params).draft
    assert draft.files[0].action == "update" and draft.files[0].path == ".council/personas/sec.toml"
    h.service.define_personas(DefinePersonasParams(confirm=draft.id))
    raw = tomllib.loads((folder / "sec.toml").read_text(encoding="utf-8"))
    assert raw == {"id": "security-expert", "tone": "calm", "soul": "A careful reviewer of auth code."}
    assert h.service.library.get("Security Expert").soul == "A careful reviewer of auth code."


def test_a_draft_no_longer_matching_the_workspace_is_refused(make_service, tmp_path: Path):
    h, ws = overrides_service(make_service, tmp_path)
    params = DefinePersonasParams(overrides={"Devil's Advocate": {"focus": ["Cost of delay"]}})
    draft = h.service.define_personas(params).draft
    folder = ws / ".council" / "personas"
    folder.mkdir(parents=True)
    (folder / "devils-advocate.toml").write_text('id = "devils-advocate"\ntone = "blunt"\n', encoding="utf-8")
    with pytest.raises(CouncilError) as err:
        h.service.define_personas(DefinePersonasParams(confirm=draft.id))
    assert err.value.details["fields"] == {"confirm": "does not match the overrides"}
    assert err.value.details["draft"]["files"][0]["action"] == "update"
    assert (folder / "devils-advocate.toml").read_text(encoding="utf-8").endswith('"blunt"\n')


def test_a_council_folder_linked_out_of_the_workspace_is_refused(make_service, tmp_path: Path):
    """A ``.council`` symlink would carry the draft's writes outside the workspace the draft names: refused."""
    h, ws = overrides_service(make_service, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ws.mkdir(parents=True, exist_ok=True)
    (ws / ".council").symlink_to(elsewhere, target_is_directory=True)
    params = DefinePersonasParams(overrides={"Devil's Advocate": {"focus": ["Cost of delay"]}})
    with pytest.raises(CouncilError) as err:
        h.service.define_personas(params)
    assert err.value.code.value == "permission"
    assert err.value.details["reason"] == "overrides_outside_workspace"
    assert list(elsewhere.iterdir()) == []


def test_the_same_persona_twice_is_refused(make_service, tmp_path: Path):
    h, _ = overrides_service(make_service, tmp_path)
    params = DefinePersonasParams(overrides={"Devil's Advocate": {"focus": ["a"]}, "devils-advocate": {"focus": ["b"]}})
    with pytest.raises(CouncilError) as err:
        h.service.define_personas(params)
    assert err.value.details["fields"] == {"overrides.devils-advocate": "names a persona already overridden"}


def test_tool_response_cuts_to_the_depth_and_says_so():
    from council.consult.results import tool_response
    from council.session.state.entities import ConversationSession, SessionSettings
    from council.session.state.outputs import PersonaResponse

    long = [f"item {i}" for i in range(12)]
    resp = PersonaResponse(persona="Ops Architect", cycle=2, position="Stage it.", summary=long, advice=long[:4],
                           next_steps=long, risks=long[:8], confidence="low", confidence_rationale="scripted")
    s = ConversationSession.model_construct(settings=SessionSettings(depth="standard"))
    notes: list[str] = []
    tr = tool_response(resp, None, s, notes)
    assert tr.summary.count("- ") == 7 and len(tr.next_steps) == 7 and len(tr.counterpoints) == 7
    assert tr.advice.count("- ") == 4 and tr.vote is None and tr.cycle == 2
    assert notes == ["Ops Architect gave 4 items in advice; standard depth asks for 5–7. Nothing was added to make "
                     "up the number.", "Ops Architect: summary, next_steps cut to 7 items (standard depth)."]
