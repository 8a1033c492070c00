"""The debate as people read it: cycle headings, the options, cycle summaries with convergence in words, the
limit notice and the final tally.

The chat gets the compact forms (``cycle_line``, ``options_line``, ``cycle_summary`` naming who voted for what when
the persona lines did not show it); the transcript the full ones (``cycle_started``, ``options``, ``tally``)."""

from __future__ import annotations

from collections.abc import Callable

from council.personas.names import shown
from council.present.text import cell, clause, grouped, join_names, one_line, percent
from council.session.state.convergence import Convergence, comparable, quorate
from council.session.state.entities import ConversationSession
from council.session.state.outputs import Vote, VoteOption, VoteTally
from council.words import n, t

STOPS = ("converged", "impasse", "settled")  # the stops a cycle's summary words (debate.stop.<stop>)


def option_name(options: list[VoteOption], option_id: str | None) -> str:
    label = next((o.label for o in options if o.id == option_id), "")
    return f"{option_id} · {one_line(label)}" if label else str(option_id)


def cycles_run(cycles: int, *, after: bool = False, unusable: int = 0) -> str:
    """How far a council went, in the one meaning every surface uses: the first vote is cycle 1 and not a debate
    cycle; the debate cycles are the cycles after it ("the first vote and 1 debate cycle"). ``after``: the form that
    follows "after" in the footer (Russian: genitive). ``unusable``: cycles that ran (their calls spent) but were
    dropped, no reply in them usable: never "no debate cycle followed"."""
    where = "answer" if after else "consult"
    if cycles <= 0:
        return n(cycles, "cycle")
    if cycles == 1:
        return t(f"{where}.first_vote_unusable" if unusable else f"{where}.first_vote")
    done = t(f"{where}.first_vote_and", cycles=n(cycles - 1, "debate_cycle_after" if after else "debate_cycle"))
    return done + (t(f"{where}.unusable_after") if unusable else "")


def dropped_line(cycle: int, reason: str) -> str:
    """What the chat says when a cycle is taken back: a cycle none of whose replies could be used is set aside (the
    council answers from the cycles before it); a stop or a failure says so in its own events ('')."""
    return t("debate.dropped_unusable", cycle=cycle) + "\n\n" if reason == "unusable" else ""


def cycles_planned(max_cycles: int) -> str:
    """The most a plan runs, in the same meaning: "the first vote and up to 1 debate cycle" (``max_cycles`` counts
    every cycle, the first vote's included)."""
    if max_cycles <= 1:
        return t("consult.plan_first_only")
    return t("consult.plan_cycles", cycles=n(max_cycles - 1, "debate_cycle_after"))


def cycle_started(cycle: int, limit: int | None) -> str:
    """The heading of a cycle (``limit`` None: the cap at the time is unknown, as in a transcript)."""
    if cycle == 1:
        return f"{t('debate.cycle_first')}\n\n{t('debate.cycle_first_how')}\n\n"
    cap = t("debate.cycle_cap", limit=limit) if limit else ""
    return f"{t('debate.cycle_next', cycle=cycle, cap=cap)}\n\n{t('debate.cycle_next_how')}\n\n"


def cycle_line(cycle: int, limit: int | None) -> str:
    """A cycle's start in the chat: one line."""
    if cycle == 1:
        return t("debate.line_first") + "\n\n"
    cap = t("debate.cycle_cap", limit=limit) if limit else ""
    return t("debate.line_next", cycle=cycle, cap=cap) + "\n\n"


def options_line(opts: list[VoteOption]) -> str:
    """The options in the chat: their ids and labels on one line (the descriptions are in the transcript)."""
    return t("debate.options_line") + " " + " · ".join(f"**{o.id}** {one_line(o.label)}" for o in opts) + "\n\n"


def options(opts: list[VoteOption]) -> str:
    rows = "".join(f"- **{o.id} · {one_line(o.label)}** — {one_line(o.description)}\n" for o in opts)
    return f"{t('debate.options')}\n\n{rows}\n"


def convergence_words(conv: Convergence, previous: Convergence | None, opts: list[VoteOption],
                      council: int | None = None) -> str:
    """How the vote stands; ``council``: the advisors seated (an agreement of fewer is theirs, not the council's). A
    round in which no vote could be read has no standing: no tie, no agreement that fell to 0%."""
    if conv.voters == 0:
        return t("conv.no_votes")
    words = standing_words(conv, previous, opts, council)
    if not quorate(conv.voters or 0, conv.seats):
        words += t("conv.no_quorum", voters=conv.voters or 0, advisors=n(conv.seats or 0, "advisor_of"))
    return words


def standing_words(conv: Convergence, previous: Convergence | None, opts: list[VoteOption],
                   council: int | None = None) -> str:
    leader = f"**{option_name(opts, conv.leader)}**" if conv.leader else None
    share = percent(conv.agreement)
    if conv.status == "converged":
        if some_voted(conv, council):  # the advisors who spoke agree; the others' votes could not be read
            return t("conv.converged_voters", share=share, leader=leader, voters=n(conv.voters or 0, "advisor"))
        return t("conv.converged", share=share, leader=leader)
    if conv.status == "impasse":
        return t("conv.impasse")
    # a round without votes, or with too few to speak for the council, had no agreement to compare with: a first
    # vote of one advisor of three at 100% is not the council's agreement "falling" to 67% when the others vote
    if conv.status == "diverging" and comparable(previous):
        now = "conv.still_leads" if conv.leader == previous.leader else "conv.now_leads"  # not "still" when it
        return t("conv.fell", before=percent(previous.agreement), share=share) + (  # took the lead this round
            t(now, leader=leader) if leader else t("conv.no_leader"))
    lead = t("conv.leads", leader=leader, share=share) if leader else t("conv.tie")
    if previous is None:
        return t("conv.first", lead=lead)
    if not comparable(previous):  # not "Agreement 0% → 67%", nor "fell from 100%" of one vote
        return t("conv.standing", lead=lead)
    return t("conv.moved", before=percent(previous.agreement), share=share, lead=lead[0].lower() + lead[1:])


def some_voted(conv: Convergence, council: int | None) -> bool:
    """Whether fewer than the whole council (``council`` advisors) voted in the round: then an agreement, or wishes
    to stop, are those of the advisors who voted, never "the council agrees" or "most advisors"."""
    return council is not None and (conv.voters or 0) < council


def stop_words(stop: str, conv: Convergence | None, council: int) -> str:
    """The sentence that ends a cycle's summary when the debate stops there."""
    if stop in ("converged", "settled") and conv is not None and some_voted(conv, council):
        return t(f"debate.stop.{stop}_voters")
    return t(f"debate.stop.{stop}")


def cycle_lines(session: ConversationSession, cycle: int, conv: Convergence | None, stop: str | None) -> list[str]:
    """What happened in one cycle: who spoke, who moved and why, how the vote stands and whether it ends here."""
    responses = [x for x in session.responses if x.cycle == cycle]
    active = [x for x in responses if not x.abstained]
    lines = [t("cycle.spoke", active=len(active), advisors=n(len(responses), "advisor_of"))]
    abstained = [shown(x.persona) for x in responses if x.abstained]
    if abstained:
        lines.append(t("cycle.abstained", names=join_names(abstained)))
    for x in active:
        if x.changed_position:
            why = clause(x.change_reason) if x.change_reason.strip() else t("persona.no_new_argument")
            flag = t("cycle.conformity") if x.conformity_flag else ""
            lines.append(t("cycle.changed", persona=shown(x.persona), why=why, flag=flag))
    if conv is not None:
        votes = [v for v in session.votes if v.cycle == cycle]
        if votes:
            lines.append(votes_words(session, cycle, votes))
        earlier = [x.convergence for x in session.discussions if x.cycle_number < cycle and x.convergence]
        lines.append(convergence_words(conv, earlier[-1] if earlier else None, session.options,
                                       len(session.personas)))
    if stop in STOPS:
        lines.append(stop_words(stop, conv, len(session.personas)))
    return lines


def votes_words(session: ConversationSession, cycle: int, votes: list[Vote]) -> str:
    """"Votes: A 2 · B 1." — with the voters' names when their persona lines did not show their votes (the first
    vote is placed by the moderator after every advisor spoke)."""
    by_option = grouped((v.option_id, shown(v.persona)) for v in votes)
    on_lines = {(x.persona, x.option_id) for x in session.responses if x.cycle == cycle and not x.abstained}
    named = any((v.persona, v.option_id) not in on_lines for v in votes)
    parts = [f"{k} {len(who)}" + (f" ({join_names(who)})" if named else "") for k, who in sorted(by_option.items())]
    return t("cycle.votes", votes=" · ".join(parts))


def cycle_summary(session: ConversationSession, cycle: int) -> str:
    d = next(x for x in session.discussions if x.cycle_number == cycle)
    lines = cycle_lines(session, cycle, d.convergence, d.stop_reason)
    lines[0] = t("cycle.after", cycle=cycle, line=lines[0])
    return "  \n".join(lines) + "\n\n"


def limit_reached(limit: int, can_extend: bool, extended_limit: int) -> str:
    text = t("debate.limit", cycles=n(limit, "cycle"))
    if can_extend:
        text += t("debate.limit_extend", cycles=n(extended_limit, "cycle_upto"))
    return text + "\n\n"


def tally_words(vt: VoteTally) -> str:
    return vote_words(vt.consensus, vt.counts, vt.winner, lambda oid: f"**{option_name(vt.options, oid)}**")


def vote_words(consensus: str, counts: dict[str, int], winner: str | None, name: Callable[[str], str]) -> str:
    """A tally in words — unanimous or a majority for the winner, a tie (and who leads it on confidence), no
    majority and who leads — each option said by ``name``: the chat's answer and the consult text share it."""
    said = name(winner) if winner else ""
    if consensus in ("unanimous", "majority"):
        return t(f"tally.{consensus}", winner=said)
    if consensus == "tie":
        top = max(counts.values(), default=0)
        names = join_names([name(oid) for oid, c in counts.items() if c == top])
        return t("tally.tie_broken", names=names, winner=said) if winner else t("tally.tie", names=names)
    if winner:
        return t("tally.leads", winner=said)
    return t("tally.none")


def tally(vt: VoteTally) -> str:
    rows = []
    for o in vt.options:
        name = f"**{o.id} · {cell(o.label)}** ✓" if o.id == vt.winner else f"{o.id} · {cell(o.label)}"
        rows.append(f"| {name} | {vt.counts.get(o.id, 0)} | {vt.weights.get(o.id, 0.0):.2f} |")
    head = t("tally.head", voters=n(vt.voters, "voter"), words=tally_words(vt)) + "\n\n"
    table = t("tally.columns") + "\n|---|---|---|\n" + "\n".join(rows) + "\n\n"
    abst = t("tally.abstained", names=join_names([shown(x) for x in vt.abstentions])) + "\n\n" if vt.abstentions else ""
    return head + table + abst
