"""What a person reads of a consult (issue 31, the custom agent): the confirmation says who chose the personas — the
agent, whose tool input the user did not write — and the answer's text does not end with an internal session id
(it stays in the structured result)."""

from __future__ import annotations

from council.protocol.consult import ConsultParams

PROBLEM = "Should we split our monolith into services this quarter?"
RU_PROBLEM = "Стоит ли нам разделить монолит на сервисы в этом квартале?"
COUNCIL = ["Software Architect", "Devil's Advocate"]


async def test_the_confirmation_says_the_agent_chose_the_personas_it_named(make_service):
    h = make_service()
    named = await h.service.consultant.plan(ConsultParams(user_problem=PROBLEM, selected_personas=COUNCIL))
    assert "The agent chose them" in named.markdown and "You chose" not in named.markdown, named.markdown
    ru = await h.service.consultant.plan(ConsultParams(user_problem=RU_PROBLEM, selected_personas=COUNCIL))
    assert "Их выбрал агент" in ru.markdown and "Вы выбрали" not in ru.markdown, ru.markdown
    routed = await h.service.consultant.plan(ConsultParams(user_problem=PROBLEM))
    assert "agent" not in routed.markdown and "You chose" not in routed.markdown  # routing chose: it says why


async def test_the_answer_text_carries_no_session_id(make_service):
    h = make_service()
    r = await h.service.consult(ConsultParams(user_problem=PROBLEM, selected_personas=COUNCIL, depth="brief"),
                                session_id="tool-2df4725a-0000-4000-8000-000000000000")
    assert r.session_id == "tool-2df4725a-0000-4000-8000-000000000000"  # kept in the structured result
    assert r.session_id not in r.markdown and "tool-" not in r.markdown, r.markdown[-300:]
    assert r.markdown.rstrip().endswith("depth._"), r.markdown[-200:]
