"""A consult's text says what its calls used where the models reported it (tokens, cost, premium requests), in the
chat's words under the answer (README: "said under the answer"), beside the calls it counts."""

from __future__ import annotations

from council.protocol.consult import ConsultParams

PROBLEM = "Should we split our monolith into services this quarter?"
COUNCIL = ["Software Architect", "Devil's Advocate"]
USED = {"input_tokens": 30, "output_tokens": 10, "cost_usd": 0.01, "premium_requests": 1}


async def test_the_consult_text_says_what_the_calls_used(make_service):
    h = make_service({"usage": USED})
    r = await h.service.consult(ConsultParams(user_problem=PROBLEM, selected_personas=COUNCIL))
    calls = r.calls_by_model["scripted:scripted"]
    assert (f"Reported by the models: scripted:scripted {30 * calls} tokens in, {10 * calls} out, "
            f"${0.01 * calls:.4f}, premium requests: {calls}") in r.markdown, r.markdown


async def test_a_consult_whose_models_report_nothing_says_no_spend(make_service):
    r = await make_service().service.consult(ConsultParams(user_problem=PROBLEM, selected_personas=COUNCIL))
    assert r.model_calls and "Reported by the models" not in r.markdown
