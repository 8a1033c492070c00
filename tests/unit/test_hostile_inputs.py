"""Bad input at the service boundary (issue 10): always a ``validation`` error with field details, never
``internal``, nothing left behind, and the session keeps working."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from council.errors import CouncilError, ErrorCode, from_pydantic
from council.protocol.methods import SessionOptions, TurnParams
from council.session.state.entities import SessionStatus as S

PROBLEM = "Should we split our monolith into services this quarter?"


async def ask(h, text=PROBLEM, **opts):
    return await h.service.turn(TurnParams(text=text, options=SessionOptions(**opts)))


@pytest.mark.parametrize("text", ["²", "①", "٣", "9" * 5000, "007", "-1"])
async def test_odd_digits_are_free_text_answers(make_service, text):
    h = make_service()
    res = await ask(h)
    after = await h.service.turn(TurnParams(session_id=res.session_id, text=text))
    q = h.runtime(res.session_id).session.questions[0]
    assert q.user_answer.answer == text and after.status is S.CLARIFYING


async def test_unknown_provider_is_a_validation_error_naming_the_field(make_service):
    h = make_service()
    with pytest.raises(CouncilError) as err:
        await ask(h, provider="bogus")
    assert err.value.code is ErrorCode.VALIDATION
    assert "options.provider" in err.value.details["fields"] and "openai" in err.value.details["valid"]
    assert h.events == [] and len(h.service.store) == 0


def test_user_id_longer_than_a_display_name_is_refused_by_the_schema():
    with pytest.raises(ValidationError) as exc:
        TurnParams.model_validate({"text": PROBLEM, "options": {"userId": "x" * 81}})
    err = from_pydantic(exc.value, "params")
    assert err.code is ErrorCode.VALIDATION and list(err.details["fields"]) == ["options.userId"]


async def test_user_id_at_the_limit_works(make_service):
    h = make_service()
    res = await ask(h, user_id="x" * 80, clarify=False)
    assert h.runtime(res.session_id).session.user.name == "x" * 80


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
async def test_blank_problem_gives_fields_and_no_events(make_service, text):
    h = make_service()
    with pytest.raises(CouncilError) as err:
        await ask(h, text=text)
    assert err.value.code is ErrorCode.VALIDATION and "text" in err.value.details["fields"]
    assert h.events == [] and len(h.service.store) == 0


async def test_refused_new_session_emits_nothing(make_service):
    h = make_service()
    with pytest.raises(CouncilError):
        await ask(h, personas=["Chief Vibes Officer"])
    assert h.events == [] and len(h.service.store) == 0


async def test_extend_refused_after_a_converged_debate(make_service):
    h = make_service()
    done = await ask(h, clarify=False)
    s = h.runtime(done.session_id).session
    assert s.status is S.COMPLETED and s.discussions[-1].stop_reason != "limit"
    assert not done.can_extend and not done.limit_reached
    with pytest.raises(CouncilError) as err:
        await h.service.turn(TurnParams(session_id=done.session_id, text="", command="extend"))
    assert err.value.code is ErrorCode.VALIDATION and "cycle limit" in err.value.message


async def test_provider_cache_is_bounded_whatever_models_clients_name(make_service):
    from council import provider_hub

    h = make_service()
    for i in range(provider_hub.CACHE + 10):
        await ask(h, clarify=False, provider="scripted", model=f"model-{i}")
    assert len(h.service.hub._cache) <= provider_hub.CACHE
