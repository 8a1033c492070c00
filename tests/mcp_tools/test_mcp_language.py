"""A consult in Russian over MCP (issue 21, audit): its progress, the clarifying questions it asks through the
client, the result's text and its refusals are in the question's language — no text of the English catalog."""

from __future__ import annotations

import json
import re

import mcp.types as types

from council import words

RUSSIAN = "Стоит ли нам разделить монолит на сервисы в этом квартале?"
COUNCIL = ["Software Architect", "Devil's Advocate"]
PERSONA = {"position": "Делить поэтапно.", "summary": ["а", "б"], "advice": ["в", "г"], "risks": ["Срыв сроков."],
           "assumptions": [], "questions": [], "next_steps": ["шаг 1", "шаг 2"], "confidence": "high",
           "confidence_rationale": "опыт", "vote_confidence": 0.9, "continue_debate": False}
SCRIPT = {"rules": [
    {"when": {"schema": "ClarifierReply"}, "reply": {
        "needs_clarification": True, "reason": "цель меняет совет", "candidates": ["Делить", "Подождать"],
        "questions": [{"question": "Какова главная цель?", "target_ambiguity": "goal",
                       "choices": [{"answer": "Снизить затраты", "favours": "Подождать"},
                                   {"answer": "Ускорить выпуск", "favours": "Делить"}],
                       "default_assumption": "Главная цель — ускорить выпуск."}]}},
    {"when": {"schema": "PersonaReply"}, "reply": PERSONA},
    {"when": {"schema": "SynthesisReply"}, "reply": {
        "recommendation": "Делите монолит поэтапно.", "agreements": ["Начать с малого."], "conflicts": [],
        "risks_tradeoffs": ["Срыв сроков."], "next_steps": ["Выбрать первый сервис.", "Измерить результат."],
        "notes": []}},
]}


def english(text: str) -> list[str]:
    """The English catalog's texts (not shared with the Russian one) in ``text``, persona names cut out."""
    for name in COUNCIL:
        text = text.replace(name, " ")
    russian = " ".join(words.texts("ru"))
    found = {lit.strip() for lit in words.texts("en") if re.search(r"[A-Za-z]{4,}", lit)}
    return sorted(x for x in found if x not in russian and x in text)


async def test_a_russian_consult_speaks_russian_from_progress_to_refusal(mcp_client):
    progress: list[str] = []
    asked: list[types.ElicitRequestParams] = []

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async def elicit(_ctx, params):
        asked.append(params)
        return types.ElicitResult(action="decline")

    async with mcp_client(script=SCRIPT, elicit=elicit) as s:
        r = await s.call_tool("council_consult", {"user_problem": RUSSIAN, "selected_personas": COUNCIL,
                                                  "depth": "brief"}, progress_callback=on_progress)
        bad = await s.call_tool("council_consult", {"user_problem": RUSSIAN, "selected_personas": ["Шеф"]})
    assert not r.is_error
    text = r.content[0].text
    assert text.startswith("**Рекомендация:** Делите монолит поэтапно.") and "Допущено:" in text
    assert "Совет: Архитектор ПО и Адвокат дьявола." in progress and "Голоса подсчитаны." in progress  # issue 31
    assert "Уточнение: Какова главная цель?" in progress and "Председатель написал итог." in progress
    [question] = asked
    assert question.message.startswith("Совет спрашивает: Какова главная цель?")
    schema = question.requested_schema["properties"]
    assert (schema["choice"]["title"], schema["answer"]["title"]) == ("Вариант", "Ваш ответ")
    first, data = bad.content
    error = json.loads(data.text)["error"]
    assert bad.is_error and first.text == "Ошибка Council (validation): неизвестная персона 'Шеф'"
    assert error["message"] == "неизвестная персона 'Шеф'"
    assert english("\n".join([text, *progress, question.message, first.text])) == []


async def test_a_russian_consult_with_no_answer_says_why_in_russian(mcp_client):
    script = {"rules": [{"when": {"schema": "PersonaReply"}, "error": "overloaded"}]}
    async with mcp_client(script=script) as s:
        r = await s.call_tool("council_consult", {"user_problem": RUSSIAN, "depth": "brief"})
    assert r.is_error
    first = r.content[0].text
    assert first.startswith("Ошибка Council (validation): совет не смог ответить: модель каждого советника дала сбой (")
    assert english(first) == [], first
