"""A consult's result names the calls it sent and then cancelled (issue 31: cycle 2's calls, started beside the
options call on free models, are cancelled once the first vote settles it; a metered model bills them). The chat
and ``council ask`` said "N cancelled (sent, then not needed)"; the consult tools' text said only "13 model calls"."""

from __future__ import annotations

from council.protocol.consult import ConsultParams

SETTLED = "Should our team rewrite the billing service in Rust?"  # five seats; the first vote settles it (A 4 · B 1)


async def test_a_consult_settled_by_the_first_vote_names_its_cancelled_calls(make_service):
    h = make_service()
    r = await h.service.consult(ConsultParams(user_problem=SETTLED, depth="brief"))
    assert r.cycles == 1 and r.debate is not None and r.debate.verdict == "no_debate"
    cancelled = sum(r.cancelled_by_model.values())
    assert cancelled == 5 and sum(r.calls_by_model.values()) == r.model_calls  # counted on their model too
    footer = r.markdown.strip().splitlines()[-1]
    assert f"{r.model_calls} model calls (" in footer and "; 5 cancelled (sent, then not needed))" in footer, footer
