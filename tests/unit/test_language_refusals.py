"""A Russian session or consult is refused in Russian (issue 21, audit): the reason (``ErrorData.message``) and the
sentence around it (``ErrorData.text``) come from the catalogs in the language of the session the request is about
(a new one's: its question's); the consult tools' texts — the result's compact text, its notes, its plan — too. The
same requests in English stay English (the check can fail)."""

from __future__ import annotations

import re

import pytest

from council import words
from council.errors import CouncilError
from council.protocol.consult import ConsultParams, ConsultPlanParams
from council.protocol.methods import AnswerParams, SessionOptions, TurnParams
from council.transport.jsonrpc import RpcError

RUSSIAN = "Стоит ли нам разделить монолит на сервисы в этом квартале?"
ENGLISH = "Should we split our monolith into services this quarter?"
COUNCIL = ["Software Architect", "Devil's Advocate"]


def english_texts() -> list[str]:
    """The English catalog's fixed texts that say something and that the Russian catalog does not share."""
    russian = " ".join(words.texts("ru"))
    found = {lit.strip() for lit in words.texts("en") if re.search(r"[A-Za-z]{4,}", lit)}
    return sorted(x for x in found if x not in russian)


def leaked(text: str, *data: str) -> list[str]:
    """The English catalog texts in ``text`` once ``data`` (what the user or the model wrote) is cut out."""
    for s in sorted(data, key=len, reverse=True):
        text = text.replace(s, " ")
    return [x for x in english_texts() if x in text]


async def refused(call) -> tuple[str, str]:
    """The message and the wire text of the refusal ``call`` raises."""
    with pytest.raises(CouncilError) as caught:
        await call
    data = RpcError.from_council(caught.value).to_wire()["data"]
    return data["message"], data["text"]


async def test_a_russian_session_is_refused_in_russian(make_service):
    h = make_service()
    r = await h.service.turn(TurnParams(text=RUSSIAN, options=SessionOptions(personas=COUNCIL)))
    sid, q = r.session_id, r.question
    answers = [
        AnswerParams(session_id=sid, question_id="nope", action="answer", text="x", idempotency_key="k1"),
        AnswerParams(session_id=sid, question_id=q.question_id, action="answer", choice="nope", idempotency_key="k2"),
    ]
    said = [await refused(h.service.answer(a)) for a in answers]
    said.append(await refused(h.service.turn(TurnParams(session_id="gone-0001", text="продолжай обсуждение"))))
    said.append(await refused(h.service.turn(TurnParams(text=RUSSIAN, options=SessionOptions(personas=["Шеф"])))))
    assert [m for m, _ in said] == ["этот вопрос сейчас не задан", "неизвестный вариант",
                                    "неизвестная сессия (возможно, её срок истёк)",
                                    "неизвестные персоны: 'Шеф'; доступные персоны: " + ", ".join(
                                        h.service.library.names)]
    for message, text in said:
        assert text.startswith(f"Совет отклонил запрос: {message}") and text.endswith(".")
        assert leaked(text, *h.service.library.names, "Шеф", "`options.personas`") == [], text
    assert said[0][1] == "Совет отклонил запрос: этот вопрос сейчас не задан. Исправьте запрос и вызовите снова."
    english = await refused(h.service.turn(TurnParams(session_id="gone-0002", text=ENGLISH)))
    assert english == ("unknown session (it may have expired)", "The council refused the request: unknown session "
                       "(it may have expired). Correct the request and call again.")
    assert leaked(english[1])  # the check finds English


async def test_a_russian_consult_writes_and_refuses_in_russian(make_service):
    script = {"rules": [
        {"when": {"schema": "PersonaReply", "purpose": "Software Architect"},
         "reply": {"position": "Делить поэтапно.", "summary": ["один"], "advice": ["в", "г"], "risks": ["риск"],
                   "assumptions": [], "questions": [], "next_steps": ["шаг 1", "шаг 2"], "confidence": "high",
                   "confidence_rationale": "опыт", "vote_confidence": 0.9, "continue_debate": False}},
        {"when": {"schema": "PersonaReply", "purpose": "Devil's Advocate"},
         "reply": {"position": "Подождать.", "summary": ["а", "б"], "advice": ["в", "г"], "risks": ["Срыв сроков."],
                   "assumptions": [], "questions": [], "next_steps": ["шаг 1", "шаг 2"], "confidence": "medium",
                   "confidence_rationale": "опыт", "vote_confidence": 0.6, "continue_debate": False}}]}
    h = make_service(script)
    params = {"user_problem": RUSSIAN, "selected_personas": COUNCIL, "depth": "brief"}
    r = await h.service.consult(ConsultParams(**params))
    notes = " ".join(r.synthesis.notes)
    assert "Архитектор ПО: в summary 1 пункт; глубина brief требует 2–3." in notes  # issue 31: names in Russian
    assert "- Контрдовод: Срыв сроков." in r.responses[1].advice
    footer = "_2 персоны, первое голосование (цикла дебатов после него не было), "  # cycle 1: the first vote
    assert r.markdown.startswith("**Рекомендация:** ") and footer in r.markdown
    plan = await h.service.consult_plan(ConsultPlanParams(**params))
    assert plan.markdown.startswith("Архитектор ПО и Адвокат дьявола (глубина brief, первое голосование и до 1 "
                                    "цикла дебатов): ")
    assert "- **Архитектор ПО** (высокая): Делить поэтапно." in r.markdown
    assert not any(name in r.markdown + notes + plan.markdown for name in COUNCIL)
    assert plan.markdown.endswith("Их выбрал агент (входные данные инструмента).")
    model = [x for resp in r.responses for x in (resp.position, resp.summary, resp.advice, *resp.next_steps)]
    model += [r.synthesis.recommendation, *r.synthesis.next_steps, *r.synthesis.risks_tradeoffs, *r.open_questions,
              *r.assumptions, *COUNCIL, r.session_id]
    assert leaked(r.markdown + notes + plan.markdown, *model) == []
    message, text = await refused(h.service.consult(ConsultParams(user_problem=RUSSIAN, selected_personas=["Шеф"])))
    assert message == "неизвестная персона 'Шеф'" and text.startswith("Совет отклонил запрос: неизвестная персона")
    assert "Исправьте `selected_personas.0` и вызовите снова. Допустимо: " in text
    english = await h.service.consult(ConsultParams(user_problem=ENGLISH, selected_personas=COUNCIL, depth="brief"))
    assert english.markdown.startswith("**Recommendation:** ") and leaked(english.markdown)
