"""``council ask`` with a Russian question on a real pseudo-terminal: every line it prints is Russian.

The scripted model answers in Russian here, so apart from the persona names (English contract names) and the
commands one types (`skip`, `more`), nothing English may be printed: no text of the English catalog, markdown
markers aside, in the events, the prompts, the answer or the transcript file.
"""

from __future__ import annotations

import json
import re

from council import words

from .conftest import run_council

QUESTION = "Стоит ли нам разделить монолит на сервисы в этом квартале?"
COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
BULLETS = ["первый пункт", "второй пункт", "третий пункт"]
PERSONA = {"position": "Советую двигаться поэтапно.", "summary": BULLETS, "advice": BULLETS, "risks": ["Риск срыва."],
           "assumptions": ["У команды есть время."], "questions": [], "next_steps": BULLETS,
           "confidence": "medium", "confidence_rationale": "Так подсказывает опыт.", "continue_debate": False}
SCRIPT = {"rules": [
    {"when": {"schema": "ClarifierReply"}, "reply": {
        "needs_clarification": True, "reason": "цель меняет совет", "candidates": ["Делить сейчас", "Подождать"],
        "questions": [
            {"question": "Какова главная цель?", "target_ambiguity": "goal",
             "choices": [{"answer": "Снизить затраты", "favours": "B"}, {"answer": "Ускорить выпуск", "favours": "A"}],
             "default_assumption": "Главная цель — ускорить выпуск."},
            {"question": "Какой у вас срок?", "target_ambiguity": "timeline",
             "choices": [{"answer": "Квартал", "favours": "A"}, {"answer": "Год", "favours": "B"}],
             "default_assumption": "Срок — квартал."}]}},
    {"when": {"schema": "PersonaReply", "cycle": 1}, "reply": PERSONA},
    {"when": {"schema": "PersonaReply"}, "reply": {**PERSONA, "option_id": "A", "vote_confidence": 0.8,
                                                   "changed_position": False, "change_reason": ""}},
    {"when": {"schema": "OptionsReply"}, "reply": {"options": [
        {"label": "Поэтапно", "description": "Выделять сервисы по одному.", "supporters": [1, 2, 3]},
        {"label": "Подождать", "description": "Отложить на год.", "supporters": []}]}},
    {"when": {"schema": "SynthesisReply"}, "reply": {
        "recommendation": "Делите монолит поэтапно.", "agreements": ["Начать с малого."],
        "conflicts": ["Когда начинать."], "risks_tradeoffs": ["Срыв сроков."],
        "next_steps": ["Выбрать первый сервис.", "Измерить результат."], "notes": []}},
]}


def english_texts() -> list[str]:
    """The English catalog's fixed texts as a terminal shows them (markdown markers dropped) that say something
    and that the Russian catalog does not share."""
    def plain(text: str) -> str:
        return re.sub(r"[*_#`>]", "", text).strip()
    russian = plain(" ".join(words.texts("ru")))
    found = {plain(lit) for lit in words.texts("en") if re.search(r"[A-Za-z]{4,}", lit)}
    return sorted(x for x in found if re.search(r"[A-Za-z]{4,}", x) and x not in russian)


def test_a_russian_session_in_the_terminal_prints_only_russian(pty_session, script_file, tmp_path):
    s = pty_session("ask", "--provider", "scripted", "--script", script_file(SCRIPT), "--no-embeddings",
                    "--max-cycles", "2", "--depth", "brief", "--personas", ",".join(COUNCIL),
                    "--transcript", str(tmp_path), QUESTION, env={"NO_COLOR": "1", "LANG": "en_US.UTF-8"})
    s.expect(r"\*\*Модератор спрашивает\*\*|Модератор спрашивает")
    s.expect(r"Ускорить выпуск — в пользу: Делить сейчас")  # a choice's lean, in the session's language
    s.expect(r"ответьте номером, своими словами, 'skip', 'skip all' или 'more'")
    s.expect(r"> ")
    s.send("2\r")
    s.expect(r"Какой у вас срок")
    s.expect(r"> ")
    s.send("skip\r")
    s.expect(r"Допущение: Срок — квартал\.")
    s.expect(r"ОТВЕТ СОВЕТА|Ответ совета")
    s.send("\r")
    assert s.wait() == 0
    [transcript] = list(tmp_path.glob("*.md"))
    printed = s.text + transcript.read_text(encoding="utf-8")
    assert "Стенограмма записана" in printed and "Сессия совета" in printed
    for name in COUNCIL:
        printed = printed.replace(name, "")
    assert [x for x in english_texts() if x in printed] == []
    assert "Traceback" not in printed and json.dumps(QUESTION)  # the question itself went through whole


def test_usage_errors_are_in_the_language_the_session_would_have():
    """council ask's own argument errors speak the session's language where it is known: ``--language``, else the
    question's (issue 21, audit); an English question stays English."""
    env = {"LANG": "en_US.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
    r = run_council("ask", "--language", "ru", "--max-cycles", "99", "k8s?", env=env)
    assert r.returncode == 2 and r.stderr == "council ask: ошибка: --max-cycles должен быть от 1 до 50\n"
    r = run_council("ask", "--seating", "chat", QUESTION, env=env)
    assert r.returncode == 2 and r.stderr == "council ask: ошибка: --seating требует --models\n"
    r = run_council("ask", "--max-cycles", "99", "Should we split our monolith into services?", env=env)
    assert r.returncode == 2 and r.stderr == "council ask: error: --max-cycles must be between 1 and 50\n"
