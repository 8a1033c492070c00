"""An advisor whose reply stays unusable after its repair abstains: what a person reads of it is in the session's
language (the engine's note, English with the parser's words, stays in the session's data and the logs)."""

from __future__ import annotations

import re

import pytest
from unit_helpers import first_vote_rules, rule

from council.present.transcript import transcript
from council.protocol.methods import SessionOptions, TurnParams
from council.session.state.entities import SessionSettings

ARCH, DEV, DEVIL = "Software Architect", "Senior Developer", "Devil's Advocate"
ENGLISH = re.compile(r"abstains|unusable|repair|JSON|reply", re.IGNORECASE)


@pytest.mark.parametrize("cycle", [1, 2])
async def test_an_abstention_in_a_russian_session_reads_in_russian(make_service, cycle):
    """The developer's reply is garbage (in the first cycle, or the next): the chat's ``persona.completed`` line and
    the transcript showed "Senior Developer abstains: unusable reply after one repair attempt: the reply contained no
    JSON object" to a Russian user."""
    h = make_service({"rules": [rule("PersonaReply", "garbage", purpose=DEV, cycle=cycle),
                                *first_vote_rules(**{ARCH: ("A", 0.9), DEV: ("A", 0.8), DEVIL: ("B", 0.7)})]},
                     SessionSettings(min_cycles=2, max_cycles=2))
    res = await h.service.turn(TurnParams(
        text="Стоит ли разделить наш монолит на сервисы в этом квартале?",
        options=SessionOptions(clarify=False, personas=[ARCH, DEV, DEVIL], speculate="never", language="ru")))
    s = h.runtime(res.session_id).session
    (abstained,) = [e for e in h.of(res.session_id, "persona.completed")
                    if e["persona"] == DEV and e["response"]["abstained"]]
    said = ("Старший разработчик воздерживается: его ответ не удалось использовать даже после одной попытки "
            "исправления")
    assert not ENGLISH.search(abstained["markdown"]), abstained["markdown"]
    assert said in abstained["markdown"]
    document = transcript(s)  # in the session's language
    assert said in document and "abstains" not in document
    assert abstained["response"]["note"].startswith(f"{DEV} abstains: unusable reply")  # the data keeps the cause


async def test_a_repaired_reply_in_a_russian_session_is_noted_in_russian(make_service):
    """The architect's first reply does not parse and its repair does: the transcript's note read "Примечание:
    repaired after one retry." to a Russian user."""
    h = make_service({"rules": [rule("PersonaReply", '{"position": "tru', purpose=ARCH, times=1)]},
                     SessionSettings(min_cycles=1, max_cycles=1))
    res = await h.service.turn(TurnParams(
        text="Стоит ли разделить наш монолит на сервисы в этом квартале?",
        options=SessionOptions(clarify=False, personas=[ARCH, DEV, DEVIL], speculate="never", language="ru")))
    s = h.runtime(res.session_id).session
    assert next(x for x in s.responses if x.persona == ARCH).note == "repaired after one retry"  # the data's
    document = transcript(s)
    assert "_Примечание: исправлен после одной повторной попытки._" in document
    assert "repaired" not in document and "retry" not in document
