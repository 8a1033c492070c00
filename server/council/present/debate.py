"""The debate as people read it: cycle headings, the options, cycle summaries with convergence in words, the
limit notice and the final tally.

The chat gets the compact forms (``cycle_line``, ``options_line``, ``cycle_summary`` naming who voted for what when
the persona lines did not show it); the transcript the full ones (``cycle_started``, ``options``, ``tally``)."""

from __future__ import annotations

from council.present.text import cell, join_names, one_line, percent, plural
from council.session.convergence import Convergence
from council.session.entities import ConversationSession
from council.session.outputs import Vote, VoteOption, VoteTally

STOPS = {
    "converged": "The debate ends here: the council agrees.",
    "impasse": "The debate ends here: the same split twice in a row, so another cycle would not move anyone.",
    "settled": "The debate ends here: most advisors see no need to continue.",
}


def option_name(options: list[VoteOption], option_id: str | None) -> str:
    label = next((o.label for o in options if o.id == option_id), "")
    return f"{option_id} · {one_line(label)}" if label else str(option_id)


def cycle_started(cycle: int, limit: int | None) -> str:
    """The heading of a cycle (``limit`` None: the cap at the time is unknown, as in a transcript)."""
    if cycle == 1:
        return ("### Cycle 1 · independent positions\n\n"
                "_Each advisor answers on its own, without seeing the others._\n\n")
    cap = f" of at most {limit}" if limit else ""
    return (f"### Cycle {cycle}{cap} · debate\n\n"
            "_Each advisor sees the others' positions and votes, answers the strongest opposing argument and "
            "votes again._\n\n")


def cycle_line(cycle: int, limit: int | None) -> str:
    """A cycle's start in the chat: one line."""
    if cycle == 1:
        return "**Cycle 1** · independent positions\n\n"
    cap = f" of at most {limit}" if limit else ""
    return f"**Cycle {cycle}{cap}** · debate\n\n"


def options_line(opts: list[VoteOption]) -> str:
    """The options in the chat: their ids and labels on one line (the descriptions are in the transcript)."""
    return "**Options:** " + " · ".join(f"**{o.id}** {one_line(o.label)}" for o in opts) + "\n\n"


def options(opts: list[VoteOption]) -> str:
    rows = "".join(f"- **{o.id} · {one_line(o.label)}** — {one_line(o.description)}\n" for o in opts)
    return f"**Options on the table**\n\n{rows}\n"


def convergence_words(conv: Convergence, previous: Convergence | None, opts: list[VoteOption]) -> str:
    leader = f"**{option_name(opts, conv.leader)}**" if conv.leader else None
    share = percent(conv.agreement)
    if conv.status == "converged":
        return f"The council agrees: {share} of the weighted vote backs {leader}."
    if conv.status == "impasse":
        return "Impasse: the same split as in the last cycle; nobody moved."
    if conv.status == "diverging" and previous is not None:
        return f"Agreement fell from {percent(previous.agreement)} to {share}" + (
            f"; {leader} still leads." if leader else "; no option leads.")
    lead = f"{leader} leads with {share} of the weighted vote" if leader else "No option leads yet (a tie)"
    if previous is None:
        return f"First vote: {lead}."
    return f"Agreement {percent(previous.agreement)} → {share}: {lead[0].lower() + lead[1:]}."


def cycle_lines(session: ConversationSession, cycle: int, conv: Convergence | None, stop: str | None) -> list[str]:
    """What happened in one cycle: who spoke, who moved and why, how the vote stands and whether it ends here."""
    responses = [x for x in session.responses if x.cycle == cycle]
    active = [x for x in responses if not x.abstained]
    lines = [f"{len(active)} of {plural(len(responses), 'advisor')} gave a position."]
    abstained = [x.persona for x in responses if x.abstained]
    if abstained:
        lines.append(f"Abstained: {join_names(abstained)}.")
    for x in active:
        if x.changed_position:
            why = one_line(x.change_reason) if x.change_reason.strip() else "without naming a new argument"
            flag = " ⚠️ possible conformity" if x.conformity_flag else ""
            lines.append(f"{x.persona} changed position: {why}.{flag}")
    if conv is not None:
        votes = [v for v in session.votes if v.cycle == cycle]
        if votes:
            lines.append(votes_words(session, cycle, votes))
        earlier = [x.convergence for x in session.discussions if x.cycle_number < cycle and x.convergence]
        lines.append(convergence_words(conv, earlier[-1] if earlier else None, session.options))
    if stop in STOPS:
        lines.append(STOPS[stop])
    return lines


def votes_words(session: ConversationSession, cycle: int, votes: list[Vote]) -> str:
    """"Votes: A 2 · B 1." — with the voters' names when their persona lines did not show their votes (the first
    vote is placed by the moderator after every advisor spoke)."""
    by_option: dict[str, list[str]] = {}
    for v in votes:
        by_option.setdefault(v.option_id, []).append(v.persona)
    shown = {(x.persona, x.option_id) for x in session.responses if x.cycle == cycle and not x.abstained}
    named = any((v.persona, v.option_id) not in shown for v in votes)
    parts = [f"{k} {len(who)}" + (f" ({join_names(who)})" if named else "") for k, who in sorted(by_option.items())]
    return "Votes: " + " · ".join(parts) + "."


def cycle_summary(session: ConversationSession, cycle: int) -> str:
    d = next(x for x in session.discussions if x.cycle_number == cycle)
    lines = cycle_lines(session, cycle, d.convergence, d.stop_reason)
    lines[0] = f"**After cycle {cycle}:** {lines[0]}"
    return "  \n".join(lines) + "\n\n"


def limit_reached(cycles: int, limit: int, can_extend: bool, extended_limit: int) -> str:
    text = f"> ⏱️ The debate reached its limit of {plural(limit, 'cycle')} without full agreement."
    if can_extend:
        text += f" Extend it to up to {plural(extended_limit, 'cycle')}, or read the council's answer below."
    return text + "\n\n"


def tally_words(t: VoteTally) -> str:
    winner = f"**{option_name(t.options, t.winner)}**" if t.winner else ""
    if t.consensus == "unanimous":
        return f"unanimous for {winner}"
    if t.consensus == "majority":
        return f"a majority for {winner}"
    if t.consensus == "tie":
        tied = [oid for oid, n in t.counts.items() if n == max(t.counts.values(), default=0)]
        return "a tie between " + join_names([f"**{option_name(t.options, oid)}**" for oid in tied])
    if t.winner:
        return f"no majority; {winner} leads"
    return "no votes were cast"


def tally(t: VoteTally) -> str:
    rows = []
    for o in t.options:
        name = f"**{o.id} · {cell(o.label)}** ✓" if o.id == t.winner else f"{o.id} · {cell(o.label)}"
        rows.append(f"| {name} | {t.counts.get(o.id, 0)} | {t.weights.get(o.id, 0.0):.2f} |")
    head = f"**The vote** ({plural(t.voters, 'voter')}, final round only): {tally_words(t)}.\n\n"
    table = "| Option | Votes | Weighted by confidence |\n|---|---|---|\n" + "\n".join(rows) + "\n\n"
    abst = f"_Did not vote: {join_names(t.abstentions)}._\n\n" if t.abstentions else ""
    return head + table + abst
