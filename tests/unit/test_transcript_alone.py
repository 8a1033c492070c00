"""A Russian council of one's transcript heads its answer in Russian: "## The answer of a council of one" was written
in English into every transcript, whatever the session's language."""

from __future__ import annotations

from council.present.transcript import transcript
from council.protocol.methods import SessionOptions, TurnParams

RUSSIAN = "Стоит ли нам разделить монолит на сервисы в этом квартале?"
ENGLISH = "Should we split our monolith into services this quarter?"


async def test_a_council_of_one_is_headed_in_the_session_language(make_service):
    h = make_service()
    for text, heading, other in ((RUSSIAN, "## Ответ совета из одного", "## The answer of a council of one"),
                                 (ENGLISH, "## The answer of a council of one", "## Ответ совета из одного")):
        r = await h.service.turn(TurnParams(text=text, options=SessionOptions(personas=["Security Expert"],
                                                                              clarify=False)))
        written = transcript(h.runtime(r.session_id).session)
        assert heading in written and other not in written
