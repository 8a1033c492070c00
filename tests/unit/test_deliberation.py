"""Vote-first deliberation (issue 5) end to end: scripted sessions through CouncilService.

Every test asserts on the recorded session (``store.get(id).session`` / ``snapshot``) and the emitted events.
Cycle 1 is independent: each PersonaReply states a recommendation and its confidence, and the moderator's options
call places each recommendation under one option — the first votes (the scripted moderator reads "prefers option X"
in a position; the Devil's Advocate defaults to B, everyone else to A). Cycle 2 runs beside that call: a scripted
vote there backs the recommendation placed under that option (``scripted.backing``). Later cycles carry the vote
inside each PersonaReply. Scripts key rules on schema / purpose (persona name) / cycle / contains (prompt text).
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from unit_helpers import everyone_first, first_vote_rules, persona_reply, persona_rules, rule

from council.protocol.methods import SessionOptions, SnapshotParams, TurnParams
from council.session.state.entities import DiscussionStatus, MessageType, SessionSettings
from council.session.state.entities import SessionStatus as S

PROBLEM = "Should we split our monolith into services this quarter?"
ARCH, DEV, DEVIL = "Software Architect", "Senior Developer", "Devil's Advocate"
TRIO = [ARCH, DEV, DEVIL]
LATER = range(2, 11)  # every cycle after the first (the default limit is 10)


async def start(h, text: str = PROBLEM, **opts: Any):
    """Start a session without clarification; return (TurnResult, ConversationSession)."""
    res = await h.service.turn(TurnParams(text=text, options=SessionOptions(clarify=False, **opts)))
    return res, h.runtime(res.session_id).session


def provider(h):
    return next(iter(h.service.hub._cache.values()))


def calls(h, title: str, *, purpose: str | None = None, cycle: int | None = None, session_id: str | None = None):
    return [
        c
        for c in provider(h).calls
        if (c.json_schema or {}).get("title") == title
        and (purpose is None or c.purpose == purpose)
        and (cycle is None or c.cycle == cycle)
        and (session_id is None or c.session_id == session_id)
    ]


def statuses(s) -> list[str]:
    return [d.convergence.status for d in s.discussions]


def conclusions(s):
    return [t for t in s.message_turns if t.message_type is MessageType.CONCLUSION]


def votes_by_cycle(s) -> dict[int, dict[str, str]]:
    out: dict[int, dict[str, str]] = {}
    for v in s.votes:
        out.setdefault(v.cycle, {})[v.persona] = v.option_id
    return out


first_votes = first_vote_rules


def assert_completed_cleanly(res, s) -> None:
    assert res.status is S.COMPLETED and s.final_answer and res.final_answer == s.final_answer
    assert not any(x.abstained for x in s.responses), [x.note for x in s.responses if x.abstained]


# --- consensus after cycle 1 ----------------------------------------------------------------------------------
async def test_consensus_after_cycle_one_skips_further_cycles(make_service):
    h = make_service({"rules": [everyone_first("A", 0.9)]})  # everyone, the Devil's Advocate too
    res, s = await start(h)
    sid = res.session_id
    assert_completed_cleanly(res, s)
    n = len(s.personas)
    assert n >= 2 and s.settings.min_cycles == 2  # converged overrides the minimum
    assert s.debate_cycles == 1 and len(s.discussions) == 1
    # cycle 2 ran beside the options call; the first vote settled it, so nothing of cycle 2 is kept or shown
    assert len(calls(h, "PersonaReply", cycle=2)) <= n and not [x for x in s.responses if x.cycle == 2]
    assert not [e for e in h.of(sid, "persona.started") if e["cycle"] == 2]
    assert len(calls(h, "PersonaReply", cycle=1)) == n
    assert len(calls(h, "OptionsReply")) == 1 and not calls(h, "VoteReply")  # the first vote costs no extra call
    assert [v.confidence for v in s.votes] == [0.9] * n and all(v.cycle == 1 for v in s.votes)
    conv = s.discussions[0].convergence
    assert (conv.status, conv.leader, conv.agreement, conv.stability) == ("converged", "A", 1.0, None)
    assert s.discussions[0].status is DiscussionStatus.CONCLUDED
    assert s.tally.consensus == "unanimous" and s.tally.winner == "A"
    assert s.tally.counts["A"] == s.tally.voters == n and s.tally.abstentions == []
    assert [len(s.votes), {v.cycle for v in s.votes}] == [n, {1}]
    assert [t.sender.name for t in conclusions(s)] == [p.name for p in s.personas]
    assert all(t.metadata["optionId"] == "A" and "votes A" in t.content for t in conclusions(s))
    assert "**Vote:** unanimous for **A · Staged approach**." in s.final_answer
    cycle_events = h.of(sid, "cycle.completed")
    assert len(cycle_events) == 1 and cycle_events[0]["convergence"]["status"] == "converged"
    assert len(h.of(sid, "options.proposed")) == 1 and len(h.of(sid, "votes.tallied")) == 1
    assert h.of(sid, "votes.tallied")[0]["tally"]["consensus"] == "unanimous"
    assert not h.of(sid, "debate.limitReached")


async def test_a_split_first_vote_nobody_wants_to_debate_is_the_answer(make_service):
    """The default settled rule counts from the first vote (min_cycles 1, issue 34): a 2-1 split under the 75%
    weighted share is not converged, but when every advisor says another cycle would not change their vote, the
    cycle started beside the options call is cancelled and the first vote is the final one (on a850f71 a debate
    cycle always ran: bench/vote_rules.py found it turned right majorities wrong as often as wrong ones right)."""
    script = {"rules": [*first_votes(continue_debate=False, **{ARCH: ("A", 0.6), DEV: ("A", 0.6), DEVIL: ("B", 0.9)}),
                        *persona_rules(ARCH, LATER, option="B", vote_confidence=0.9),
                        *persona_rules(DEV, LATER, option="B", vote_confidence=0.9),
                        *persona_rules(DEVIL, LATER, option="B", vote_confidence=0.9)]}
    h = make_service(script, settings=SessionSettings())
    res, s = await start(h, personas=TRIO)
    assert_completed_cleanly(res, s)
    assert s.settings.min_cycles == 1
    conv = s.discussions[0].convergence
    assert conv.status == "refining" and conv.stop_requests == 1.0
    assert [d.stop_reason for d in s.discussions] == ["settled"] and s.debate_cycles == 1
    assert not [x for x in s.responses if x.cycle == 2] and all(v.cycle == 1 for v in s.votes)
    assert (s.tally.consensus, s.tally.winner) == ("majority", "A")


# --- majority after debate ------------------------------------------------------------------------------------
MAJORITY_SCRIPT = {
    "rules": [
        *first_votes(**{ARCH: ("A", 0.8), DEV: ("B", 0.8), DEVIL: ("B", 0.6)}),
        *persona_rules(ARCH, LATER, option="A", vote_confidence=0.9),
        # the developer moves to A and names the argument, without setting changed_position itself
        *persona_rules(DEV, LATER, option="A", vote_confidence=0.9, change_reason="Advisor A's rollback data"),
        *persona_rules(DEVIL, LATER, option="B", vote_confidence=0.5, risks=["Two deploy pipelines to run"]),
    ]
}


async def test_majority_after_debate_with_a_reasoned_switch(make_service):
    h = make_service(MAJORITY_SCRIPT)
    res, s = await start(h, personas=TRIO)
    sid = res.session_id
    assert_completed_cleanly(res, s)
    assert s.debate_cycles >= 2
    assert votes_by_cycle(s)[1] == {ARCH: "A", DEV: "B", DEVIL: "B"}
    assert votes_by_cycle(s)[2] == {ARCH: "A", DEV: "A", DEVIL: "B"}
    assert statuses(s)[0] == "refining" and s.discussions[0].convergence.leader == "B"
    second = s.discussions[1].convergence
    assert second.leader == "A" and second.stability == round(2 / 3, 4)
    dev2 = next(x for x in s.responses if x.persona == DEV and x.cycle == 2)
    assert dev2.changed_position and not dev2.conformity_flag
    assert dev2.change_reason == "Advisor A's rollback data"
    assert not any(x.conformity_flag for x in s.responses)
    summary = s.discussions[1].resolution_summary
    assert "Senior Developer changed position: Advisor A's rollback data." in summary
    assert "conformity" not in summary
    assert "Votes: A 2 · B 1." in summary
    dev_vote = next(v for v in s.votes if v.persona == DEV and v.cycle == 2)
    assert dev_vote.rationale == "Advisor A's rollback data" and dev_vote.confidence == 0.9
    assert s.tally.consensus == "majority" and s.tally.winner == "A"
    assert s.tally.counts == {"A": 2, "B": 1}
    assert "**Vote:** a majority for **A · Staged approach**." in s.final_answer
    completed = [e for e in h.of(sid, "persona.completed") if e["persona"] == DEV and e["cycle"] == 2]
    assert completed[0]["response"]["changedPosition"] is True
    assert completed[0]["response"]["conformityFlag"] is False


async def test_peers_are_anonymised_and_see_votes_in_later_cycles(make_service):
    neutral = [rule("PersonaReply", persona_reply(1, option=opt, vote_confidence=conf, who="someone"), purpose=name,
                    cycle=1) for name, opt, conf in ((ARCH, "A", 0.8), (DEV, "B", 0.8), (DEVIL, "B", 0.6))]
    later = [*persona_rules(ARCH, LATER, option="A", vote_confidence=0.8),
             *persona_rules(DEV, LATER, option="A", vote_confidence=0.5, change_reason="Advisor A's rollback data"),
             *persona_rules(DEVIL, LATER, option="B", vote_confidence=0.6)]
    h = make_service({"rules": neutral + later})
    _res, s = await start(h, personas=TRIO)
    assert s.debate_cycles == 3
    first = calls(h, "PersonaReply", purpose=DEV, cycle=1)[0]
    assert "Advisor" not in first.messages[-1].content  # cycle 1 is independent
    assert not {"option_id", "backs"} & set(first.json_schema["properties"])
    # cycle 2 runs beside the options call: the anonymised positions, and whose recommendation each now backs
    second = calls(h, "PersonaReply", purpose=DEV, cycle=2)[0]
    prompt = second.messages[-1].content
    assert "Advisor A" in prompt and "Advisor B" in prompt
    assert ARCH not in prompt and DEVIL not in prompt  # peers by label, not by name
    assert "votes" not in prompt and "options on the table" not in prompt and "set backs to own" in prompt
    assert "option_id" not in second.json_schema["properties"]
    assert second.json_schema["properties"]["backs"]["enum"] == ["own", "A", "B", "C"]  # one letter per advisor
    assert "You are Advisor B in the list above" in prompt  # the developer's own letter, by the session's order
    assert votes_by_cycle(s)[2] == {ARCH: "A", DEV: "A", DEVIL: "B"}  # the developer backed Advisor A: the architect
    # from cycle 3 the options are on the table and every peer's vote is shown
    prompt = calls(h, "PersonaReply", purpose=DEV, cycle=3)[0].messages[-1].content
    assert "votes A (0.8)" in prompt and "votes B (0.6)" in prompt
    assert "- Advisor B [medium, votes A (0.5)]" in prompt  # the developer's own line: its position and vote
    assert "You are Advisor B in the list above: that line is your previous position." in prompt
    assert calls(h, "PersonaReply", purpose=DEV, cycle=3)[0].json_schema["properties"]["option_id"]["enum"] == [
        "A",
        "B",
    ]


# --- tie ------------------------------------------------------------------------------------------------------
async def test_two_advisors_tied_one_one(make_service):
    pair = ["Software Architect", "Financial Officer"]
    script = {
        "rules": [
            *first_votes(**{pair[0]: ("A", 0.8), pair[1]: ("B", 0.8)}),
            *persona_rules(pair[0], LATER, option="A", vote_confidence=0.8),
            *persona_rules(pair[1], LATER, option="B", vote_confidence=0.8),
        ]
    }
    h = make_service(script, SessionSettings(min_cycles=2, max_cycles=6))
    res, s = await start(h, personas=pair)
    assert_completed_cleanly(res, s)
    assert [p.name for p in s.personas] == pair
    assert s.tally.consensus == "tie" and s.tally.winner is None
    assert s.tally.counts == {"A": 1, "B": 1} and s.tally.voters == 2
    assert all(d.convergence.leader is None and d.convergence.agreement == 0.5 for d in s.discussions)
    assert statuses(s)[-1] == "impasse" and s.debate_cycles == 2  # the same 1–1 twice: nobody moved
    assert "**Vote:** a tie between **A · Staged approach** and **B · " in s.final_answer
    assert not any(d.startswith(f"{pair[0]} voted") or d.startswith(f"{pair[1]} voted") for d in s.synthesis.dissent)


# --- impasse --------------------------------------------------------------------------------------------------
async def test_impasse_stops_before_the_cycle_limit(make_service):
    script = {
        "rules": [
            *first_votes(**{ARCH: ("A", 0.8), DEV: ("A", 0.8), DEVIL: ("B", 0.8)}),
            *persona_rules(ARCH, LATER, option="A", vote_confidence=0.8),
            *persona_rules(DEV, LATER, option="A", vote_confidence=0.8),
            *persona_rules(DEVIL, LATER, option="B", vote_confidence=0.8),
        ]
    }  # 2–1 at 66.7 % weighted, everyone wants to go on: only the impasse can stop it
    h = make_service(script, SessionSettings(min_cycles=2, max_cycles=6))
    res, s = await start(h, personas=TRIO)
    sid = res.session_id
    assert_completed_cleanly(res, s)
    assert s.cycle_limit == 6 and s.debate_cycles == 2 < s.cycle_limit
    last = s.discussions[-1]
    assert last.convergence.status == "impasse" and last.status is DiscussionStatus.CONCLUDED
    assert last.convergence.agreement == round(2 / 3, 4) <= 0.75 and last.convergence.stability == 1.0
    assert last.convergence.stop_requests == 0.0
    assert last.stop_reason == "impasse" and "Impasse:" in last.resolution_summary
    assert not h.of(sid, "debate.limitReached")
    assert [e["convergence"]["status"] for e in h.of(sid, "cycle.completed")] == ["refining", "impasse"]
    assert any("The debate ends here: the same split twice" in e["markdown"] for e in h.of(sid, "cycle.completed"))
    assert not calls(h, "PersonaReply", cycle=3)
    assert s.tally.consensus == "majority" and s.tally.counts == {"A": 2, "B": 1}


# --- early stop by continue_debate ----------------------------------------------------------------------------
def stop_script() -> dict:
    """A 1–2 split whose weights keep shifting (never converged, never an impasse); the first vote and every later
    reply of the architect and the developer say continue_debate = false."""
    rules = [
        *first_votes(continue_debate=False, **{ARCH: ("A", 0.8), DEV: ("B", 0.8), DEVIL: ("B", 0.6)}),
        *persona_rules(ARCH, LATER, option="A", vote_confidence=0.8, continue_debate=False),
        *persona_rules(DEVIL, LATER, option="B", vote_confidence=0.6, continue_debate=True),
    ]
    for c in LATER:
        rules += persona_rules(DEV, [c], option="B", vote_confidence=round(0.3 + 0.1 * c, 2), continue_debate=False)
    return {"rules": rules}


@pytest.mark.parametrize("min_cycles", [2, 3])
async def test_two_thirds_stop_only_after_min_cycles(make_service, min_cycles):
    h = make_service(stop_script(), SessionSettings(min_cycles=min_cycles, max_cycles=6))
    res, s = await start(h, personas=TRIO)
    assert_completed_cleanly(res, s)
    assert s.settings.min_cycles == min_cycles
    assert s.debate_cycles == min_cycles
    first = s.discussions[0].convergence
    assert first.stop_requests == 1.0 and first.status == "refining"  # would have stopped without the minimum
    last = s.discussions[-1].convergence
    assert last.status not in ("converged", "impasse") and last.agreement < 0.75
    assert last.stop_requests == round(2 / 3, 4)
    assert s.discussions[-1].status is DiscussionStatus.CONCLUDED
    assert not h.of(res.session_id, "debate.limitReached")
    assert s.discussions[-1].stop_reason == "settled"
    assert "most advisors see no need to continue" in h.of(res.session_id, "cycle.completed")[-1]["markdown"]
    assert s.tally.counts == {"A": 1, "B": 2} and s.tally.consensus == "majority"


async def test_one_third_stop_requests_do_not_stop(make_service):
    script = stop_script()
    # only the developer wants to stop now: 1 of 3 < 2/3, so the limit ends the debate
    script["rules"] = [
        *persona_rules(ARCH, LATER, option="A", vote_confidence=0.8, continue_debate=True),
        *script["rules"],
    ]
    h = make_service(script, SessionSettings(min_cycles=2, max_cycles=4))
    res, s = await start(h, personas=TRIO)
    assert_completed_cleanly(res, s)
    assert s.debate_cycles == 4 and s.discussions[-1].status is DiscussionStatus.LIMIT_REACHED
    assert all(d.convergence.stop_requests == round(1 / 3, 4) for d in s.discussions[1:])
    assert len(h.of(res.session_id, "debate.limitReached")) == 1


# --- conformity -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("dev_option", "dev_changed"),
    [("A", False), ("A", True), ("B", True)],
    ids=["silent-vote-switch", "declared-switch-without-reason", "declared-change-same-vote"],
)
async def test_change_without_reason_is_flagged_as_conformity(make_service, dev_option, dev_changed):
    script = {
        "rules": [
            *first_votes(**{ARCH: ("A", 0.8), DEV: ("B", 0.8), DEVIL: ("B", 0.6)}),
            *persona_rules(ARCH, LATER, option="A", vote_confidence=0.9),
            *persona_rules(DEV, LATER, option=dev_option, vote_confidence=0.9, changed=dev_changed),
            *persona_rules(DEVIL, LATER, option="B", vote_confidence=0.5),
        ]
    }
    h = make_service(script, SessionSettings(min_cycles=2, max_cycles=2))
    res, s = await start(h, personas=TRIO)
    sid = res.session_id
    assert_completed_cleanly(res, s)
    dev2 = next(x for x in s.responses if x.persona == DEV and x.cycle == 2)
    assert dev2.changed_position and dev2.change_reason == "" and dev2.conformity_flag
    assert [x.persona for x in s.responses if x.conformity_flag] == [DEV]
    summary = s.discussions[1].resolution_summary
    assert "Senior Developer changed position: without naming a new argument. ⚠️ possible conformity" in summary
    transcript = h.service.snapshot(SnapshotParams(session_id=sid)).transcript_markdown
    assert f"#### {DEV}\n" in transcript
    assert transcript.count("⚠️ _Possible conformity._") == 1
    completed = [e for e in h.of(sid, "persona.completed") if e["persona"] == DEV and e["cycle"] == 2]
    assert completed[0]["response"]["conformityFlag"] is True
    assert any("possible conformity" in e["markdown"] for e in h.of(sid, "cycle.completed"))


async def test_first_cycle_never_flags_conformity(make_service):
    _, s = await start(make_service())
    assert all(not x.conformity_flag and not x.changed_position for x in s.responses if x.cycle == 1)


# --- dissent --------------------------------------------------------------------------------------------------
async def test_devils_advocate_voting_with_the_majority_is_no_dissent_its_counterpoints_are_risks(make_service):
    devil_risks = ["Hidden coupling in the billing module", "On-call load doubles", "Data migration drift"]
    script = {
        "rules": [
            *persona_rules(DEVIL, [1], position="Splitting now trades one problem for three; prefers option A anyway.",
                           risks=devil_risks, vote_confidence=0.9),
            everyone_first("A", 0.9),
        ]
    }
    h = make_service(script)
    res, s = await start(h, personas=TRIO)
    assert_completed_cleanly(res, s)
    assert s.tally.consensus == "unanimous" and s.tally.winner == "A"
    assert next(v for v in s.votes if v.persona == DEVIL).option_id == "A"
    # issue 31: nobody voted against, so nobody dissents; the counterpoints are among the risks, each once
    assert s.synthesis.dissent == [] and "Dissent" not in s.final_answer
    assert [r for r in s.synthesis.risks_tradeoffs if r in devil_risks] == devil_risks
    risks = s.final_answer.split("### Risks and trade-offs", 1)[1].split("###", 1)[0]
    assert all(f"- {r}\n" in risks for r in devil_risks)


async def test_dissent_uses_the_final_round_only(make_service):
    """The Devil's Advocate votes B first, then joins A with a reason: no 'voted B' dissent, and no dissent at all
    (it agreed in the end); its last cycle's counterpoints are among the risks."""
    script = {
        "rules": [
            *first_votes(**{ARCH: ("A", 0.8), DEV: ("A", 0.8), DEVIL: ("B", 0.8)}),
            *persona_rules(ARCH, LATER, option="A"),
            *persona_rules(DEV, LATER, option="A"),
            *persona_rules(DEVIL, LATER, option="A", change_reason="the staged plan answers my risk",
                           position="Fine, but watch the coupling.", risks=["coupling"]),
        ]
    }
    h = make_service(script)
    res, s = await start(h, personas=TRIO)
    assert_completed_cleanly(res, s)
    assert s.debate_cycles == 2 and statuses(s) == ["refining", "converged"]
    assert s.synthesis.dissent == [] and "coupling" in s.synthesis.risks_tradeoffs


# --- only final-round votes count -----------------------------------------------------------------------------
async def test_only_final_round_votes_are_tallied(make_service):
    script = {
        "rules": [
            *first_votes(**{ARCH: ("A", 0.8), DEV: ("B", 0.8), DEVIL: ("B", 0.8)}),  # B wins round 1
            *persona_rules(ARCH, LATER, option="A", vote_confidence=0.9),
            *persona_rules(DEV, LATER, option="A", vote_confidence=0.9, change_reason="the latency numbers"),
            *persona_rules(DEVIL, LATER, option="A", vote_confidence=0.9, change_reason="risk is now bounded"),
        ]
    }
    h = make_service(script)
    res, s = await start(h, personas=TRIO)
    sid = res.session_id
    assert_completed_cleanly(res, s)
    assert len(s.votes) == 6 and votes_by_cycle(s)[1] == {ARCH: "A", DEV: "B", DEVIL: "B"}
    assert s.tally.counts == {"A": 3, "B": 0} and s.tally.voters == 3
    assert s.tally.weights == {"A": 2.7, "B": 0.0}
    assert s.tally.consensus == "unanimous"
    tallied = h.of(sid, "votes.tallied")
    assert len(tallied) == 1 and tallied[0]["tally"]["counts"] == {"A": 3, "B": 0}
    turns = conclusions(s)
    assert len(turns) == 3 and all(t.related_cycle_or_round.number == 2 for t in turns)
    assert all(t.metadata["optionId"] == "A" for t in turns)
    assert not any(" voted " in d for d in s.synthesis.dissent)


# --- persona override -----------------------------------------------------------------------------------------
async def test_persona_override_honoured_and_explained(make_service):
    chosen = ["Security Expert", "Financial Officer", "Culture Lead"]
    h = make_service()
    res, s = await start(h, personas=chosen)
    sid = res.session_id
    assert_completed_cleanly(res, s)
    assert [p.name for p in s.personas] == chosen  # exactly them: no Devil's Advocate added
    sel = s.persona_selection
    assert sel.user_override is True and sel.reason.strip() and sel.method == "override"
    assert all(name in sel.reason for name in chosen)
    assert sel.overridden_personas == chosen
    wire = h.service.snapshot(SnapshotParams(session_id=sid)).to_wire()["session"]["personaSelection"]
    assert wire["userOverride"] is True and wire["reason"] == sel.reason
    assert [p["name"] for p in wire["selectedPersonas"]] == chosen
    event = h.of(sid, "personas.selected")
    assert len(event) == 1 and event[0]["selection"]["userOverride"] is True
    persona_purposes = {c.purpose for c in provider(h).calls if c.json_schema["title"] == "PersonaReply"}
    assert persona_purposes == set(chosen)
    assert {v.persona for v in s.votes} == set(chosen)


async def test_routed_selection_is_not_an_override(make_service):
    _, s = await start(make_service())
    sel = s.persona_selection
    assert sel.user_override is False and sel.reason.strip() and sel.method != "override"


# --- state isolation ------------------------------------------------------------------------------------------
PRICING = "How do we price the enterprise plan for next year?"


async def test_two_sessions_keep_separate_deliberations(make_service):
    pair = ["Growth Strategist", "Financial Officer"]
    script = {
        "rules": [
            # the pricing session: a 1–1 split that never moves (tie, impasse at cycle 2)
            rule("PersonaReply", persona_reply(1, option="A", vote_confidence=0.7), purpose=pair[0], cycle=1,
                 contains="enterprise plan"),
            rule("PersonaReply", persona_reply(1, option="B", vote_confidence=0.7), purpose=pair[1], cycle=1,
                 contains="enterprise plan"),
            *[
                rule("PersonaReply", persona_reply(c, option="A", vote_confidence=0.7), purpose=pair[0], cycle=c,
                     contains="enterprise plan")
                for c in LATER
            ],
            *[
                rule("PersonaReply", persona_reply(c, option="B", vote_confidence=0.7), purpose=pair[1], cycle=c,
                     contains="enterprise plan")
                for c in LATER
            ],
            # the monolith session: everyone agrees at once
            rule("PersonaReply", persona_reply(1, option="A", vote_confidence=0.9), cycle=1, contains="monolith"),
        ]
    }
    h = make_service(script)
    results: dict[str, Any] = {}

    async def run(key: str, text: str, personas: list[str] | None) -> None:
        results[key] = await start(h, text, personas=personas)

    async with anyio.create_task_group() as tg:  # concurrently, in one service
        tg.start_soon(run, "mono", PROBLEM, None)
        tg.start_soon(run, "price", PRICING, pair)
    (ra, a), (rb, b) = results["mono"], results["price"]
    assert ra.session_id != rb.session_id and a is not b
    assert_completed_cleanly(ra, a)
    assert_completed_cleanly(rb, b)

    assert a.debate_cycles == 1 and statuses(a) == ["converged"] and a.tally.consensus == "unanimous"
    assert {v.persona for v in a.votes} == {p.name for p in a.personas}
    assert a.request_text == PROBLEM and b.request_text == PRICING

    assert [p.name for p in b.personas] == pair and b.persona_selection.user_override
    assert not a.persona_selection.user_override
    assert b.debate_cycles == 2 and statuses(b) == ["refining", "impasse"]
    assert b.tally.consensus == "tie" and b.tally.winner is None and b.tally.counts == {"A": 1, "B": 1}
    assert {v.persona for v in b.votes} == set(pair) and {v.cycle for v in b.votes} == {1, 2}
    assert not {v.persona for v in a.votes} & set(pair) or {v.cycle for v in a.votes} == {1}
    assert len(a.discussions) == a.debate_cycles and len(b.discussions) == b.debate_cycles
    assert all(d.session_id == a.session_id for d in a.discussions)
    assert all(d.session_id == b.session_id for d in b.discussions)
    assert {t.session_id for t in a.message_turns} == {a.session_id}
    assert {t.session_id for t in b.message_turns} == {b.session_id}
    assert a.options is not b.options and a.tally is not b.tally
    for sid, s, text in ((ra.session_id, a, PROBLEM), (rb.session_id, b, PRICING)):
        mine = [c for c in provider(h).calls if c.session_id == sid]
        assert mine and all(text in c.messages[-1].content for c in mine)
        seqs = [e["seq"] for e in h.of(sid)]
        assert seqs == list(range(1, len(seqs) + 1))
        assert [e["convergence"]["status"] for e in h.of(sid, "cycle.completed")] == statuses(s)


# --- convergence and tally must tell the same story -----------------------------------------------------------
async def test_converged_leader_is_the_tally_winner(make_service):
    # one confident vote for A against two lukewarm ones for B: 76% of the weight but a minority of heads —
    # not a consensus, so the debate goes on instead of stopping on a reason the tally would contradict
    h = make_service({"rules": first_votes(**{ARCH: ("A", 0.95), DEV: ("B", 0.15), DEVIL: ("B", 0.15)})})
    res, s = await start(h, personas=TRIO)
    assert_completed_cleanly(res, s)
    first = s.discussions[0].convergence
    assert first.status != "converged" and s.debate_cycles >= 2
    for d in s.discussions:
        if d.convergence is not None and d.convergence.status == "converged":
            assert s.tally.winner == d.convergence.leader
