"""The narrator, the session's observer: journal records, notes, problems and streaming text come in; numbered
``council/event`` notifications go out to the sink, each carrying the markdown ``council.present`` wrote for it in
the session's language. Each persona's reply per cycle is one live line (``PersonaLine``): streamed, then completed
with its vote, or closed if it never completes; a note arriving meanwhile waits for its end.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from council.errors import ErrorCode
from council.present import clarify, cost, debate, evidence, follow_up, status
from council.present.answer import AnswerStream, streams, withdrawn
from council.present.live_render import Limits, limits_of
from council.present.persona import PersonaLine, PersonaText
from council.present.review_words import progress_line
from council.protocol import events as ev
from council.protocol.language import ChatLabels
from council.session.state import records as r
from council.session.state.entities import TERMINAL, ClarificationQuestion, DiscussionStatus, SessionStatus, utcnow
from council.session.state.runtime import SessionRuntime, can_extend
from council.session.steps.persona_reply import persona_schema
from council.words import speaking

EventSink = Callable[[dict[str, Any]], None]


class Narrator:
    def __init__(self, sink: EventSink) -> None:
        self.sink = sink
        self._texts: dict[tuple[str, str, int], PersonaLine] = {}  # (session, persona, cycle) → live line
        self._follow_ups: dict[str, tuple[str, PersonaText]] = {}  # session → (follow-up id, its live text)
        self._reused: set[tuple[str, str]] = set()  # (session, question) answered with a reply from before a reload
        self._answers: dict[str, tuple[str, AnswerStream]] = {}  # session → (synthesis call, its streamed head)
        self._limits: dict[str, tuple[tuple[int, int], Limits]] = {}  # session → ((cycle, records), reply limits)
        # events that wait for the persona block on screen to end (a seat's fallback note): session → (class, fields)
        self._held: dict[str, list[tuple[type[ev.EventBase], dict[str, Any]]]] = {}
        self._on: dict[type, Callable[[SessionRuntime, Any], None]] = {
            r.PersonasSelected: lambda rt, rec: self.emit(
                rt, ev.PersonasSelected, selection=rec.selection, markdown=clarify.selection(rec.selection),
                labels=ChatLabels.of(language_of(rt))),
            r.QuestionAsked: self._question_asked,
            r.QuestionsDropped: lambda rt, rec: self.emit(
                rt, ev.QuestionsDropped, questions=rec.questions, reason=rec.reason, asked=rec.asked,
                markdown=clarify.dropped(rec.questions, rec.reason, rec.asked)),
            r.QuestionAnswered: lambda rt, rec: self._resolved(rt, rec.answer.question_id),
            r.QuestionDeferred: lambda rt, rec: self._resolved(rt, rec.question_id),
            r.QuestionSkipped: self._question_skipped,
            r.CycleStarted: lambda rt, rec: self.emit(
                rt, ev.CycleStarted, cycle=rec.discussion.cycle_number, limit=rt.session.cycle_limit,
                markdown=debate.cycle_line(rec.discussion.cycle_number, rt.session.cycle_limit)),
            r.PersonaSpoke: self._persona_spoke,
            r.VoteCast: lambda rt, rec: self.emit(rt, ev.VoteCast, vote=rec.vote),  # its line or summary shows it
            r.SeatingDecided: lambda rt, rec: self.emit(rt, ev.SeatingDecided, seating=rec.seating,
                                                        markdown=cost.seating(rec.seating)),
            r.CallsPlanned: lambda rt, rec: self.emit(rt, ev.CostEstimated, plan=rec.plan,
                                                      markdown=cost.cost_line(rec.plan)),
            r.SeatFellBack: self._seat_fell_back,
            r.CycleConcluded: self._cycle_concluded,
            r.OptionsSet: lambda rt, rec: self.emit(rt, ev.OptionsProposed, options=rec.options,
                                                    markdown=debate.options_line(rec.options)),
            r.TallySet: lambda rt, rec: self.emit(rt, ev.VotesTallied, tally=rec.tally),  # the answer says it
            r.SynthesisSet: self._synthesis_set,
            r.FollowUpAnswered: self._follow_up_answered,
            r.DebateReopened: lambda rt, rec: self.emit(
                rt, ev.DebateReopened, input=rec.input, limit=rt.session.cycle_limit,
                markdown=follow_up.reopened(rec.input, rt.session.cycle_limit)),
            r.CycleDropped: self._cycle_dropped,
            r.SessionStopped: lambda rt, rec: self.emit(
                rt, ev.SessionStopped, status=rt.session.status, completed_cycles=rt.session.debate_cycles,
                markdown=self._close_lines(rt) + status.stopped(rt.session)),
            r.SessionResumed: lambda rt, rec: self.emit(rt, ev.SessionResumed, status=rt.session.status,
                                                        markdown=status.resumed()),
            r.EvidenceGathered: self._evidence_gathered,
            r.PrecedentsRecalled: lambda rt, rec: self.emit(
                rt, ev.MemoryRecalled, precedents=rec.precedents, method=rec.method,
                markdown=evidence.recalled(rec.precedents)),
        }

    def emit(self, rt: SessionRuntime, event_cls: type[ev.EventBase], **fields: Any) -> None:
        if event_cls not in (ev.PersonaDelta, ev.PersonaCompleted) and rt.session_id in self._held:
            self._release(rt)  # anything else ends the wait (a block left open by a dropped cycle, say)
        rt.seq += 1
        event = event_cls(session_id=rt.session_id, seq=rt.seq, at=rt.clock(), **fields)
        self.sink(event.to_wire())

    def review_progress(self, review_id: str) -> Callable[[str, dict[str, Any]], None]:
        """A review's progress callback: each report it words becomes a ``progress`` event for ``review_id``."""
        seq = 0

        def report(kind: str, data: dict[str, Any]) -> None:
            nonlocal seq
            message = progress_line(kind, data)
            if message:
                seq += 1
                self.sink(ev.Progress(session_id=review_id, seq=seq, at=utcnow(), message=message).to_wire())
        return report

    # --- the observer contract -------------------------------------------------------------------------------
    def recorded(self, rt: SessionRuntime, rec: r.RecordBase, previous: SessionStatus | None) -> None:
        if isinstance(rec, r.StatusSet) and previous is not None:
            with speaking(language_of(rt)):
                self._status_set(rt, rec, previous)
        elif (handle := self._on.get(type(rec))) is not None:  # most records say something; a model's use does not
            with speaking(language_of(rt)):
                handle(rt, rec)

    def _status_set(self, rt: SessionRuntime, rec: r.StatusSet, previous: SessionStatus) -> None:
        text = status.cancelled() if rec.status is SessionStatus.CANCELLED else ""
        if rec.status in TERMINAL:
            text = self._close_lines(rt) + text
        self.emit(rt, ev.StatusChanged, previous=previous, status=rec.status, reason=rec.reason, markdown=text)
        if rec.status in TERMINAL:
            self._forget(rt.session_id)

    def note(self, rt: SessionRuntime, kind: str, data: dict[str, Any]) -> None:
        with speaking(language_of(rt)):
            self.emit(rt, ev.Progress, message=status.note(kind, data))

    def problem(self, rt: SessionRuntime, kind: str, data: dict[str, Any], *, code: ErrorCode,
                persona: str | None, retryable: bool) -> None:
        with speaking(language_of(rt)):
            text = status.problem(kind, data)
        plain = text.removeprefix("> ⚠️ ").replace("**", "").strip()
        self.emit(rt, ev.ErrorEvent, code=code, message=plain, persona=persona, retryable=retryable,
                  details={"kind": kind, **data}, markdown=text)

    def question_again(self, rt: SessionRuntime) -> None:
        """Show the open question again (a resume while it waits for an answer): the same ``question.asked``."""
        if rt.session.active_question is not None:
            with speaking(language_of(rt)):
                self._ask(rt, rt.session.active_question, rt.session.open_revisit is not None)

    def persona_started(self, rt: SessionRuntime, persona: str, cycle: int, provider: str, model: str) -> None:
        state = (cycle, len(rt.journal))  # the session changes only by a record: the same state, the same limits
        known = self._limits.get(rt.session_id)
        if known is None or known[0] != state:  # the cycle's first persona (every persona starts at once)
            known = self._limits[rt.session_id] = (state, limits_of(persona_schema(rt.session, cycle)))
        limits = known[1]
        self._texts[(rt.session_id, persona, cycle)] = PersonaLine(persona, limits, model=_shown_model(rt, persona))
        seating = rt.session.seating
        self.emit(rt, ev.PersonaStarted, persona=persona, cycle=cycle, provider=provider, model=model,
                  model_id=seating.model_of(persona).id if seating else "")

    def persona_text(self, rt: SessionRuntime, persona: str, cycle: int, chunk: str) -> None:
        key = (rt.session_id, persona, cycle)
        text = self._texts.get(key)
        if text is None:  # built once, not per delta (setdefault would build one for every chunk)
            text = self._texts[key] = PersonaLine(persona, model=_shown_model(rt, persona))
        with speaking(language_of(rt)):
            markdown = text.feed(chunk)
        if markdown:
            self.emit(rt, ev.PersonaDelta, persona=persona, cycle=cycle, markdown=markdown)

    def follow_up_text(self, rt: SessionRuntime, follow_up_id: str, chunk: str) -> None:
        current = self._follow_ups.get(rt.session_id)
        if current is None or current[0] != follow_up_id:  # one follow-up runs at a time: a new one replaces
            current = self._follow_ups[rt.session_id] = (follow_up_id, follow_up.live(rt.session.moderator.name))
        with speaking(language_of(rt)):
            markdown = current[1].feed(chunk)
        if markdown:
            self.emit(rt, ev.FollowUpDelta, follow_up_id=follow_up_id, markdown=markdown)

    def answer_text(self, rt: SessionRuntime, stream_id: str, chunk: str) -> None:
        if not streams(rt.session):
            return
        current = self._answers.get(rt.session_id)
        if current is None or current[0] != stream_id:  # a new synthesis call (a retry after a stop, say)
            current = self._answers[rt.session_id] = (stream_id, AnswerStream())
        with speaking(language_of(rt)):
            markdown = current[1].feed(chunk)
        if markdown:
            self.emit(rt, ev.AnswerDelta, text=current[1].text, markdown=markdown)

    def _synthesis_set(self, rt: SessionRuntime, rec: r.SynthesisSet) -> None:
        current = self._answers.pop(rt.session_id, None)
        if current is not None and current[1].withdrawn(rec.final_answer):  # the draft is not this answer
            with speaking(language_of(rt)):
                self.emit(rt, ev.AnswerWithdrawn, text=current[1].text, markdown=withdrawn())
        markdown = current[1].rest(rec.final_answer) if current is not None else rec.final_answer
        self.emit(rt, ev.FinalAnswer, synthesis=rec.synthesis, markdown=markdown)

    # --- what the service asks the user directly ----------------------------------------------------------------
    def replaced(self, rt: SessionRuntime, reason: str) -> None:
        """The session starts in place of one the sidecar no longer has (a reload lost it, or it expired): the
        first thing it says, in one line."""
        with speaking(language_of(rt)):
            self.emit(rt, ev.SessionReplaced, reason=reason, markdown=status.replaced(reason))

    def confirm_new(self, rt: SessionRuntime, question: ClarificationQuestion, text: str) -> None:
        """Text that reads like a new problem arrived while ``question`` is open: ask the user which it is."""
        with speaking(language_of(rt)):
            self.emit(rt, ev.QuestionConfirmNew, question_id=question.question_id, text=text,
                      markdown=clarify.confirm_new(question, text))

    # --- records ---------------------------------------------------------------------------------------------
    def _follow_up_answered(self, rt: SessionRuntime, rec: r.FollowUpAnswered) -> None:
        f = rec.follow_up
        current = self._follow_ups.pop(rt.session_id, None)
        text = current[1] if current is not None and current[0] == f.follow_up_id else \
            follow_up.live(rt.session.moderator.name)
        self.emit(rt, ev.FollowUpAnswered, follow_up=f, markdown=follow_up.answered(text, f))

    def _question_asked(self, rt: SessionRuntime, rec: r.QuestionAsked) -> None:
        if rec.reused:  # the user's reply from before a reload answers it at once: it is not asked, only resolved
            self._reused.add((rt.session_id, rec.question_id))
            return
        self._ask(rt, rt.session.question(rec.question_id), rec.revisit)

    def _ask(self, rt: SessionRuntime, q: ClarificationQuestion, revisit: bool) -> None:
        remaining = len(rt.session.planned_questions)
        self.emit(rt, ev.QuestionAsked, question=q, remaining_in_round=remaining, revisit=revisit,
                  markdown=clarify.question(q, remaining, revisit))

    def _resolved(self, rt: SessionRuntime, question_id: str) -> None:
        q, key = rt.session.question(question_id), (rt.session_id, question_id)
        reused = key in self._reused
        self._reused.discard(key)
        self.emit(rt, ev.QuestionResolved, question=q, reused=reused,
                  markdown=clarify.reused(q) if reused else clarify.resolved(q))

    def _question_skipped(self, rt: SessionRuntime, rec: r.QuestionSkipped) -> None:
        self._resolved(rt, rec.answer.question_id)
        self.emit(rt, ev.AssumptionRecorded, assumption=rec.assumption, markdown=clarify.assumption(rec.assumption))

    def _persona_spoke(self, rt: SessionRuntime, rec: r.PersonaSpoke) -> None:
        resp = rec.response
        text = self._texts.pop((rt.session_id, resp.persona, resp.cycle), None) or \
            PersonaLine(resp.persona, model=_shown_model(rt, resp.persona))
        # a failed model call only ends its line: the cycle reports it once, with its cause, when it ends
        self.emit(rt, ev.PersonaCompleted, persona=resp.persona, cycle=resp.cycle, response=resp,
                  markdown=text.close() if resp.failure is not None else text.complete(resp, rt.session.options))
        if not self._block_open(rt.session_id):
            self._release(rt)  # a note held back while this block streamed stands between it and the next one

    def _block_open(self, session_id: str) -> bool:
        """Whether a persona's reply is on screen and not complete (its block must not be cut by a note)."""
        return any(key[0] == session_id and text.started for key, text in self._texts.items())

    def _release(self, rt: SessionRuntime) -> None:
        for event_cls, fields in self._held.pop(rt.session_id, []):
            self.emit(rt, event_cls, **fields)

    def _seat_fell_back(self, rt: SessionRuntime, rec: r.SeatFellBack) -> None:
        seating = rt.session.seating
        assert seating is not None  # the reducer refuses a fallback before the seating
        moved = [x for x in seating.seats if x.fallback is not None and x.fallback.from_model.id == rec.model_id]
        if not moved:
            return
        names, old = [x.persona for x in moved], moved[0].fallback.from_model  # type: ignore[union-attr]
        fields = {"personas": names, "from_model": old, "to_model": seating.chair, "reason": rec.reason,
                  "markdown": cost.fell_back(names, old, seating.chair, rec.reason, rec.detail)}
        if self._block_open(rt.session_id):  # another persona's reply is streaming: the note waits for its end
            self._held.setdefault(rt.session_id, []).append((ev.SeatFellBack, fields))
        else:
            self.emit(rt, ev.SeatFellBack, **fields)
        for (session_id, persona, _), text in self._texts.items():  # their calls are asked again on the chat's model
            if session_id == rt.session_id and persona in names and not text.started and text.model is not None:
                text.model = seating.chair.label  # the heading names the model the persona speaks with

    def _evidence_gathered(self, rt: SessionRuntime, rec: r.EvidenceGathered) -> None:
        if not rec.uses:  # every request had been answered before: nothing new to show
            return
        uris = list(dict.fromkeys(uri for u in rec.uses if u.ok for uri in u.uris))
        self.emit(rt, ev.EvidenceGathered, cycle=rec.cycle, uses=rec.uses, references=uris,
                  markdown=evidence.gathered(rec.uses, rec.cycle))

    def _close_lines(self, rt: SessionRuntime, cycle: int | None = None) -> str:
        """End the persona lines of the session (of ``cycle``) whose replies will not complete, and forget them."""
        keys = [k for k in self._texts if k[0] == rt.session_id and (cycle is None or k[2] == cycle)]
        return "".join(self._texts.pop(k).close() for k in keys)

    def _cycle_concluded(self, rt: SessionRuntime, rec: r.CycleConcluded) -> None:
        s = rt.session
        self.emit(rt, ev.CycleCompleted, cycle=rec.cycle, resolution_summary=rec.resolution_summary,
                  convergence=rec.convergence, markdown=debate.cycle_summary(s, rec.cycle))
        if rec.status is DiscussionStatus.LIMIT_REACHED:
            extended, more = s.settings.cycle_cap(True), can_extend(s)
            self.emit(rt, ev.DebateLimitReached, cycles=rec.cycle, limit=s.cycle_limit, can_extend=more,
                      extended_limit=extended, markdown=debate.limit_reached(s.cycle_limit, more, extended))

    def _cycle_dropped(self, rt: SessionRuntime, rec: r.CycleDropped) -> None:
        """End the cycle's open persona lines, and say why the cycle was set aside when the event alone tells it."""
        self.emit(rt, ev.CycleDropped, cycle=rec.cycle, reason=rec.reason,  # in the session's language (recorded)
                  markdown=self._close_lines(rt, rec.cycle) + debate.dropped_line(rec.cycle, rec.reason))

    def _forget(self, session_id: str) -> None:
        self._texts = {key: text for key, text in self._texts.items() if key[0] != session_id}
        self._follow_ups.pop(session_id, None)
        self._answers.pop(session_id, None)
        self._limits.pop(session_id, None)
        self._held.pop(session_id, None)
        self._reused = {key for key in self._reused if key[0] != session_id}


def language_of(rt: SessionRuntime) -> str | None:
    """The language the session's texts are written in (before the session exists: the one it will have)."""
    return rt.session.settings.language if rt.created else rt.language


def _shown_model(rt: SessionRuntime, persona: str) -> str | None:
    """The model a persona's heading and vote name: only once the seats are on more than one model."""
    seating = rt.session.seating if rt.created else None
    return seating.model_of(persona).label if seating is not None and seating.differs else None
