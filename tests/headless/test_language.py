"""A Russian session end to end over real JSON-RPC (scripted model): every line the council writes is Russian.

The scripted model answers in English, so what the model wrote (every string of an event's data: positions,
questions, choices, options, persona names…) is cut out of the text first; what is left is the council's own
wording, and no fixed text of the English catalog may be in it. The same check on an English session finds them
(so the check can fail). The language is journaled: a restored session still writes Russian.
"""

from __future__ import annotations

import re
from typing import Any

from council import words
from council.protocol.language import ChatLabels

COUNCIL = ["Software Architect", "Senior Developer", "Devil's Advocate"]
RUSSIAN = "Стоит ли нам разделить монолит на сервисы в этом квартале?"
ENGLISH = "Should we split our monolith into services this quarter?"
COUNCIL_WRITTEN = ("markdown", "message", "labels", "finalAnswer", "resolutionSummary", "transcriptMarkdown",
                   "notes", "dissent")  # data the council writes itself: checked, never cut out


def english_texts() -> list[str]:
    """The English catalog's fixed texts that say something (four letters in a row) and that the Russian catalog
    does not share (command names such as `/retry`, product names such as Ollama)."""
    russian = " ".join(words.texts("ru"))
    found = {lit.strip() for lit in words.texts("en") if re.search(r"[A-Za-z]{4,}", lit)}
    return sorted(x for x in found if x not in russian)


def model_strings(value: Any, key: str = "") -> set[str]:
    """What the model or the user wrote in an event's (or result's) data: every text of two words or more, and
    every name (not the enum values, such as an `awaiting` of `answer`)."""
    if isinstance(value, str):
        return {value} if " " in value.strip() or key in ("persona", "name", "moderator") else set()
    if isinstance(value, dict):
        return set().union(*(model_strings(v, k) for k, v in value.items() if k not in COUNCIL_WRITTEN))
    if isinstance(value, list):
        return set().union(*(model_strings(v, key) for v in value)) if value else set()
    return set()


def leaks(texts: list[str], data: list[Any]) -> list[str]:
    """The English catalog texts found in ``texts`` once every string of ``data`` is cut out."""
    strip = sorted(set().union(*(model_strings(d) for d in data)), key=len, reverse=True)
    found = set()
    for text in texts:
        for s in strip:
            text = text.replace(s, " ")
        found.update(x for x in english_texts() if x in text)
    return sorted(found)


async def run_session(sc, question: str) -> tuple[list[str], list[Any], dict]:
    """A whole session: a clicked choice, a skip, /status, /personas, a follow-up and a bare keyword after the
    answer; what the council wrote (events, turn messages, the transcript) and the data it wrote it about."""
    results = []
    r = await sc.call("council/turn", {"text": question, "options": {"personas": COUNCIL}})
    sid = r["sessionId"]
    results.append(r)
    q = r["question"]
    results.append(await sc.call("council/answer", {"sessionId": sid, "questionId": q["questionId"],
                                                    "choice": q["choices"][1]["value"], "idempotencyKey": "k1"}))
    results.append(await sc.call("council/turn", {"sessionId": sid, "command": "status"}))
    results.append(await sc.call("council/turn", {"sessionId": sid, "text": "skip"}))
    assert results[-1]["status"] == "completed"
    for turn in ({"command": "personas"}, {"text": "Почему адвокат дьявола был против?"}, {"text": "skip"}):
        results.append(await sc.call("council/turn", {"sessionId": sid, **turn}))
    snap = await sc.call("council/snapshot", {"sessionId": sid})
    events = sc.session_events(sid)
    shown = "".join(e.get("markdown") or "" for e in sorted(events, key=lambda e: e["seq"]))  # deltas: pieces
    texts = [shown] + [e.get("message") or "" for e in events]
    texts += [x.get("message") or "" for x in results] + [snap["transcriptMarkdown"]]
    texts += [(x.get("usage") or {}).get("markdown") or "" for x in results]  # the line under the answer
    return texts, [*events, *results, snap["session"]], results[0]


async def test_a_russian_session_writes_every_line_in_russian(sidecar):
    async with sidecar(args=["--max-cycles", "2", "--min-cycles", "2"]) as sc:
        texts, data, first = await run_session(sc, RUSSIAN)
        assert first["language"] == "ru"
        assert first["labels"] == ChatLabels.of("ru").to_wire() and first["labels"]["skip"] == "Пропустить"
        assert leaks(texts, data) == []
        shown = "".join(texts)
        for part in ("**Совет:**", "**Модератор спрашивает**", "**Цикл 1** · независимые позиции", "**Кратко**",
                     "## Ответ совета", "**Голосование**", "**Состояние:**", "В совете:", "## Сходимость",
                     "Модератор читает ваш вопрос…"):
            assert part in shown, part

        english, english_data, first = await run_session(sc, ENGLISH)  # the check finds English where it is
        assert first["language"] == "en" and first["labels"]["skip"] == "Skip"
        assert {"## The council's answer", "**The moderator asks**", "Summary"} <= set(leaks(english, english_data))


async def test_the_language_is_journaled_and_restored(sidecar):
    async with sidecar() as sc:
        r = await sc.call("council/turn", {"text": RUSSIAN, "options": {"personas": COUNCIL}})
        sid = r["sessionId"]
        snap = await sc.call("council/snapshot", {"sessionId": sid, "includeJournal": True})
    assert snap["session"]["settings"]["language"] == "ru"
    async with sidecar() as new:
        await new.call("council/restore", {"sessionId": sid, "journal": snap["journal"]})
        status = await new.call("council/turn", {"sessionId": sid, "command": "status"})
        assert status["language"] == "ru" and status["message"].startswith("**Состояние:** уточняющие вопросы.")
        assert status["labels"]["skipAll"] == "Пропустить все вопросы"


PERSONA_NAMES = {"Software Architect": "Архитектор ПО", "Senior Developer": "Старший разработчик",
                 "Devil's Advocate": "Адвокат дьявола", "Moderator": "Модератор"}


async def test_a_russian_session_names_the_personas_in_russian(sidecar):
    """Issue 31: "Совет: Reliability Engineer, …" — a Russian session named its personas in English. Every name the
    council writes is the persona's Russian name (its contract's ``names``); the wire keeps the stable English
    names. What the scripted model wrote (which names the personas in English) is cut out first."""
    async with sidecar(args=["--max-cycles", "2", "--min-cycles", "2"]) as sc:
        texts, data, _first = await run_session(sc, RUSSIAN)
    said = sorted(set().union(*(model_strings(d) for d in data)) - set(PERSONA_NAMES), key=len, reverse=True)
    shown = "\n".join(texts)
    for s in said:
        shown = shown.replace(s, " ")
    assert [name for name in PERSONA_NAMES if name in shown] == []
    assert all(name in shown for name in PERSONA_NAMES.values())
    assert "**Совет:** **Архитектор ПО**, **Старший разработчик** и **Адвокат дьявола**" in shown
    session = data[-1]  # the wire keeps the stable names
    assert [p["name"] for p in session["participants"] if p["type"] == "persona"] == COUNCIL
    assert {x["persona"] for x in session["responses"]} == set(COUNCIL)
