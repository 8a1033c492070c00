"""Depth is checked after parsing (one repair, then kept with a note); the council answers in the user's language."""

from __future__ import annotations

from unit_helpers import persona_reply, rule

from council.protocol.methods import SessionOptions, TurnParams
from council.session.calls.prompts import detect_language, session_language

ARCH = "Software Architect"
TRIO = ["Software Architect", "Senior Developer", "Devil's Advocate"]


async def start(h, text="Should we split our monolith into services this quarter?", **opts):
    res = await h.service.turn(TurnParams(text=text, options=SessionOptions(clarify=False, personas=TRIO, **opts)))
    return res, h.runtime(res.session_id).session


def persona_calls(h, name):
    provider = next(iter(h.service.hub._cache.values()))
    return [c for c in provider.calls if c.purpose == name and c.json_schema["title"] == "PersonaReply"]


async def test_too_few_bullets_get_one_repair_that_fixes_them(make_service):
    short = persona_reply(1, bullets=2, who=ARCH)
    h = make_service({"rules": [rule("PersonaReply", short, purpose=ARCH, cycle=1, times=1)]})
    _res, s = await start(h)
    first = next(r for r in s.responses if r.persona == ARCH and r.cycle == 1)
    assert len(first.advice) >= 5 and first.note == "repaired after one retry"
    calls = persona_calls(h, ARCH)
    repair = calls[1].messages[-1].content
    assert "at least 5 bullets" in repair and "standard depth" in repair


async def test_a_shortfall_that_survives_the_repair_is_kept_with_a_visible_note(make_service):
    short = persona_reply(1, bullets=2, who=ARCH)
    h = make_service({"rules": [rule("PersonaReply", short, purpose=ARCH, cycle=1, times=2)]})
    _res, s = await start(h)
    first = next(r for r in s.responses if r.persona == ARCH and r.cycle == 1)
    assert not first.abstained and len(first.advice) == 2
    assert first.note and first.note.startswith("kept as given: give at least 5 bullets")


async def test_brief_depth_asks_for_two_to_three_bullets(make_service):
    h = make_service()
    _res, _s = await start(h, depth="brief")
    call = persona_calls(h, ARCH)[0]
    spec = call.json_schema["properties"]["advice"]
    assert (spec["minItems"], spec["maxItems"]) == (2, 3)
    assert "2-3 short bullets" in call.messages[0].content


def test_language_detection():
    assert detect_language("Как нам ускорить релизы и не сломать прод?") == "ru"
    assert detect_language("Should we use Kafka (или RabbitMQ)?") == "en"
    assert detect_language("1234 ???") == "en"


async def test_a_russian_request_is_answered_in_russian(make_service):
    h = make_service()
    _res, s = await start(h, text="Стоит ли нам разделить монолит на сервисы в этом квартале?")
    assert s.settings.language == "ru"
    provider = next(iter(h.service.hub._cache.values()))
    prompts = [c.messages[0].content for c in provider.calls]
    assert prompts and all("Russian" in p for p in prompts)  # every role: clarifier, personas, moderator, chair


def test_the_session_language_is_the_asked_one_else_the_question_s_else_the_client_s():
    assert session_language("Should we split the monolith?", "ru") == "ru"  # asked for: always
    assert session_language("Стоит ли делить монолит?", "en") == "en"
    assert session_language("Стоит ли делить монолит?", None, "en-US") == "ru"  # the question tells
    assert session_language("Should we split the monolith?", None, "ru") == "en"
    assert session_language("k8s vs ECS?", None, "ru-RU") == "ru"  # too few words: the display language
    assert session_language("k8s?", None, "de") == "en"  # one with no catalog: English
    assert session_language("1234 ???") == "en"


async def test_an_english_question_asked_in_russian_is_answered_in_russian(make_service):
    h = make_service()
    res, s = await start(h, language="ru")
    assert s.settings.language == "ru" and res.language == "ru" and res.labels.skip == "Пропустить"
    provider = next(iter(h.service.hub._cache.values()))
    assert all("Russian" in c.messages[0].content for c in provider.calls)
    final = s.final_answer or ""
    assert final.startswith("## Ответ совета") and "_Ответ дан моделью" in final


async def test_a_question_that_does_not_tell_takes_the_client_s_display_language(make_service):
    h = make_service()
    res, s = await start(h, text="k8s vs ECS?", ui_language="ru-RU")
    assert s.settings.language == "ru" and res.labels.new_question == "Задать новый вопрос"


async def test_personas_before_any_session_are_listed_in_the_client_s_language(make_service):
    h = make_service()
    res = await h.service.turn(TurnParams(command="personas", options=SessionOptions(ui_language="ru")))
    assert res.language == "ru" and res.message.startswith("Доступные персоны: ")
    res = await h.service.turn(TurnParams(command="personas"))
    assert res.language == "en" and res.message.startswith("Available personas: ")
