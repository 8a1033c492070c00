"""Debate cycles: every persona answers concurrently, seeing a digest of every advisor's previous position.

Cycle 2 may run :class:`Beside` the moderator's options call (each vote is then the option of the recommendation it
backs: :func:`backed_vote`). The personas run at once but the user reads one at a time (:class:`OrderedStream`):
the head of the order streams live, the others are buffered until they reach it, and completions are committed in
that order, so turn numbers and events are the same whatever the timing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import anyio

from council.errors import ErrorCode
from council.personas.contract import PersonaContract
from council.session.calls.debate_prompts import advisor_labels, cycle_messages
from council.session.calls.failure import malformed
from council.session.calls.prompts import DEPTH_TOKENS
from council.session.calls.structured import CallSpec, ProviderPicker, call_structured, schema_text
from council.session.state import records as r
from council.session.state.entities import ConversationSession, CouncilDiscussion, CycleRef, MessageType
from council.session.state.outputs import (
    ModelFailure,
    PersonaReply,
    PersonaResponse,
    Vote,
)
from council.session.state.runtime import Turn
from council.session.state.seating import model_label
from council.session.steps.persona_reply import (
    ABSTAINED,
    OWN,
    both_checks,
    check_reply,
    persona_schema,
    response_of,
    soft_checks,
    soft_vote,
    usable_before,
    vote_of,
)


class OrderedStream:
    def __init__(self, rt: Turn, order: list[str], cycle: int, *, held: bool = False) -> None:
        self.rt = rt
        self.order = order
        self.cycle = cycle
        self.held = held
        self.head = 0
        self.buffers: dict[str, list[str]] = {name: [] for name in order}
        self.commits: dict[str, Callable[[], None]] = {}

    def delta(self, name: str, text: str) -> None:
        if not text:
            return
        if not self.held and self.head < len(self.order) and self.order[self.head] == name:
            self.rt.persona_text(name, self.cycle, text)
        else:
            self.buffers[name].append(text)

    def finish(self, name: str, commit: Callable[[], None]) -> None:
        """``commit`` records the persona's result; it runs when the persona reaches the head."""
        self.commits[name] = commit
        if not self.held:
            self._advance()

    def release(self) -> None:
        """Pass on what a held stream kept, commit the personas that finished, and go on live from there."""
        self.held = False
        self._advance()

    def _advance(self) -> None:
        while self.head < len(self.order):
            name = self.order[self.head]
            pending = self.buffers[name]
            if pending:
                self.rt.persona_text(name, self.cycle, "".join(pending))
                pending.clear()
            commit = self.commits.pop(name, None)
            if commit is None:
                return
            commit()
            self.head += 1

@dataclass
class Beside:
    """Runs a cycle beside the moderator's options call: the caller sets ``opened`` once the previous cycle is
    concluded (its options and first votes recorded); until then the cycle's calls run but nothing is recorded or
    shown."""

    opened: anyio.Event = field(default_factory=anyio.Event)


async def run_cycle(rt: Turn, pick: ProviderPicker, contracts: dict[str, PersonaContract],
                    cycle: int, beside: Beside | None = None) -> list[PersonaResponse]:
    """One debate cycle; cycle 0: a council of one answers alone (no discussion, no vote; an unusable reply is
    returned, not kept, and the session waits for a retry). ``beside``: the cycle after the independent one, run
    beside the options call (see :class:`Beside`)."""
    s = rt.session
    previous = s.latest_responses(cycle - 1) if cycle > 1 else []
    previous_votes = {v.persona: v for v in s.votes_in(cycle - 1)} if cycle else {}
    order = [p.name for p in s.personas]
    stream = OrderedStream(rt, order, cycle, held=beside is not None)
    schema = persona_schema(s, cycle, backing=beside is not None)
    schema_json = schema_text(schema)  # written once for the cycle's calls, not once a call
    option_ids = list(schema["properties"].get("option_id", {}).get("enum", []))
    options = [o for o in s.options if o.id in option_ids]
    backs_ids = list(schema["properties"].get("backs", {}).get("enum", []))
    kept: list[PersonaResponse] = []  # a council of one's unusable answer (returned, not recorded)
    where = CycleRef(cycle_type="debate", number=cycle) if cycle else None  # one for all the cycle's turns
    messages = cycle_messages(  # built now: a cycle beside the options call must not see them
        [contracts[p.name] for p in s.personas], s, schema, cycle, previous, previous_votes)
    if beside is None:
        _begin(rt, pick, cycle)

    async def one(name: str) -> None:
        async def on_delta(chunk: str) -> None:
            stream.delta(name, chunk)

        earlier = usable_before(previous, name)
        before = previous_votes.get(name)
        spec = CallSpec(role=name, messages=messages[name], reply_model=PersonaReply, schema=schema,
                        schema_json=schema_json, max_tokens=DEPTH_TOKENS[s.settings.depth], cycle=cycle,
                        check=check_reply(contracts[name], backs_ids, earlier),
                        soft_check=both_checks(soft_vote(options), soft_checks(s, cycle)),
                        report=False)  # the engine reports the cycle's failures once it has them all
        outcome = await call_structured(rt, pick, spec, on_delta)
        response, vote = response_of(s, contracts[name], cycle, outcome, options, before, earlier)
        answered = pick(name)  # after a fallback: the chat's model
        response.model = model_label(answered.id, answered.model)
        stream.finish(name, lambda: _commit(rt, response, vote, kept, where, backing=beside is not None))

    async with anyio.create_task_group() as tg:
        for name in order:
            tg.start_soon(one, name)
        if beside is not None:
            await beside.opened.wait()
            _begin(rt, pick, cycle)
            stream.release()
    return kept or rt.session.latest_responses(cycle)


def _begin(rt: Turn, pick: ProviderPicker, cycle: int) -> None:
    """What a cycle records and says as it starts (a cycle beside the options call: once they are in)."""
    s = rt.session
    if cycle:
        rt.record(r.CycleStarted(at=rt.clock(), discussion=CouncilDiscussion(
            session_id=s.session_id, cycle_number=cycle, participating_personas=s.personas,
            exchange_starts=rt.clock(), topic=s.request_text[:200])))
        rt.note("thinking", cycle=cycle, count=len(s.personas))
    else:
        rt.note("alone", persona=s.personas[0].name)
    for p in s.personas:
        provider = pick(p.name)
        rt.persona_started(p.name, cycle, provider.id, provider.model)


def _commit(rt: Turn, response: PersonaResponse, vote: Vote | None, kept: list[PersonaResponse],
            where: CycleRef | None, *, backing: bool) -> None:
    """Record one persona's contribution (and vote); ``backing``: the options are in now, so its vote is the option
    of the recommendation it backs."""
    s = rt.session
    if backing:
        response, vote = backed_vote(s, response)
    alone = response.cycle == 0
    if alone and response.abstained:
        kept.append(response)
        return
    participant = s.participant(response.persona)
    assert participant is not None
    content = response.note if response.abstained else response.position
    kind = MessageType.CONCLUSION if alone else MessageType.DISCUSSION
    turn = rt.turn(participant, kind, content, cycle=where, metadata={"abstained": response.abstained})
    rt.record(r.PersonaSpoke(at=rt.clock(), response=response.model_copy(update={"turn_id": turn.turn_id}),
                             turn=turn))
    if vote is not None:
        rt.record(r.VoteCast(at=rt.clock(), vote=vote))


def backed_vote(s: ConversationSession, response: PersonaResponse) -> tuple[PersonaResponse, Vote | None]:
    """A reply of the cycle beside the options call, once the first votes are in: its vote is the option the
    recommendation it backs (its own, or the advisor's its letter names: :func:`advisor_labels`, its own letter
    meaning its own) was placed under; a recommendation placed under none gives no vote (nothing is guessed).
    Backing another option than its first vote is a change."""
    if response.abstained:
        return response, None
    first = {v.persona: v.option_id for v in s.votes_in(response.cycle - 1)}
    letters = {label.removeprefix("Advisor "): name for name, label in advisor_labels(s).items()}
    backed = response.persona if response.backs.strip().lower() in (OWN, "") else letters.get(response.backs.strip())
    option = first.get(backed or "")
    if option is None:
        return response, None
    before = first.get(response.persona)
    changed = response.changed_position or (before is not None and before != option)
    response = response.model_copy(update={
        "option_id": option, "changed_position": changed,
        "conformity_flag": changed and not response.change_reason.strip()})
    return response, vote_of(response, option)


def refused_models(s: ConversationSession, causes: dict[str, ModelFailure]) -> list[str]:
    """The models the user did not allow: the ones that refused the last calls, and the seats' that fell back."""
    fallen = [seat.fallback.from_model.label for seat in (s.seating.seats if s.seating else [])
              if seat.fallback is not None and seat.fallback.reason == "no_consent"]
    return list(dict.fromkeys([*(f.model for f in causes.values() if f.model), *fallen]))


def report_failures(rt: Turn, responses: list[PersonaResponse]) -> Literal["stalled", "unusable"] | None:
    """Report a finished cycle's failures once: one problem per persona whose model call failed. When every advisor
    abstained: ``"unusable"`` if the models answered but no reply could be used (each malformed after its repair)
    and the council has something to answer from — the earlier cycle's replies (this one is dropped), or in the
    first cycle what could be read of these (kept); in a one-shot session (a consult: no retry will come) also when
    the calls of a later cycle failed — it is dropped, the answer comes from the cycles before it and says so
    (``rt.dropped``); else ``"stalled"``, one stall with every cause (nothing readable: what was wrong, and whose),
    the cycle dropped (it runs again on retry). A council of one's unusable answer stalls."""
    if responses and all(x.abstained for x in responses):
        causes = {x.persona: x.failure or malformed(None, (x.note or "").removeprefix(f"{x.persona} abstains: "))
                  for x in responses}
        cycle = responses[0].cycle
        earlier = any(not x.abstained and x.cycle < cycle for x in rt.session.responses)
        if cycle and all(x.failure is None for x in responses) and (
                earlier or any(x.position != ABSTAINED for x in responses)):
            if earlier:  # dropped, and remembered: it ran, and the answer says so
                rt.live.drop_open_cycle("unusable")
            rt.note("unusable")
            return "unusable"
        if cycle and earlier and rt.live.one_shot:  # the calls failed, and nobody will retry: answer from before
            rt.live.drop_open_cycle("all_failed")
            rt.dropped = (cycle, causes)
            rt.note("later_failed", cycle=cycle, failed=causes)
            return "unusable"
        rt.live.drop_open_cycle("all_failed")
        report_stall(rt, causes)
        return "stalled"
    for x in responses:
        if x.failure is not None:
            rt.problem("model_failed", persona=x.persona, role=x.persona, failure=x.failure)
    return None


def report_stall(rt: Turn, causes: dict[str, ModelFailure]) -> None:
    """No advisor can give a position (persona → why): one problem, kept for the caller (``rt.stalled_by``) — that
    the user must allow the models, or every cause once (no model could be reached, said with the fix)."""
    rt.stalled_by = causes
    if all(f.kind == "no_consent" for f in causes.values()):  # asking again cannot help: the user must allow
        rt.problem("no_consent", code=ErrorCode.PERMISSION, models=refused_models(rt.session, causes))
    else:
        rt.problem("all_failed", retryable=True, failed=causes)
