"""Runs a consult in one call: one council session (``council.sessions``, as a chat's) from start to synthesis.

Each clarifying question goes to the caller's ``ask`` callback (MCP elicitation): an answer is used, a declined
question becomes a logged assumption, a dismissed one (or one nobody answered in time) skips the rest. Without a
callback every question is skipped at once and listed in the result as an open question. Cancelling the call
cancels the session and every model call in flight. No retry follows a consult: a later cycle whose every model call
failed is dropped and the council answers from the cycles before it (noted); when no cycle could be kept, the error
is ``validation`` naming the models' failures (``internal`` only when Council itself crashed).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from council.consult.request import consult_language, estimate, session_request
from council.consult.results import consult_result
from council.errors import CouncilError, internal_error, permission_error, validation_error
from council.present import consult as words
from council.present.clarify import deciding_words, why_chosen
from council.present.cost import spent_words
from council.present.text import join_names
from council.protocol.consult import ConsultParams, ConsultPlan, ConsultResult, PersonaConsultParams
from council.protocol.methods import ClientCapabilities, SessionOptions, TurnParams
from council.protocol.seating import ClientModel
from council.providers.base import ProviderError
from council.session.state.entities import ClarificationQuestion, SessionStatus
from council.session.state.store import Live
from council.session.steps.costing import speculating
from council.session.steps.debate import refused_models
from council.session.steps.engine import Plan
from council.session.steps.intents import Intent
from council.sessions import Sessions
from council.words import speaking, t


@dataclass(frozen=True)
class Reply:
    """What the caller made of one clarifying question; ``unanswered``: nobody answered it in time (it is then
    listed as assumed, not declined)."""

    action: Literal["answer", "skip", "skip_all"]
    text: str = ""
    choice: str | None = None
    unanswered: bool = False


Asker = Callable[[ClarificationQuestion], Awaitable[Reply]]


class Consultant:
    """The consult tools' entry points, on the sessions (store, engine and providers) the service runs."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

    async def plan(self, params: ConsultParams | PersonaConsultParams, client_model: str | None = None) -> ConsultPlan:
        """The consult's plan and its cost, counted on the models it would run on (``client_model``: the client's,
        as the consult's own): whether the second cycle starts beside the options call follows from them."""
        with speaking(consult_language(params)):
            chosen = session_request(self.sessions.engine, params)
            plan = estimate(chosen, await self._speculates(chosen, params, client_model))
            plan.markdown = words.plan_text(plan.to_wire(), caller_chose(chosen.selection))
        return plan

    async def _speculates(self, chosen: Plan, params: ConsultParams | PersonaConsultParams,
                          client_model: str | None) -> bool:
        """As the session decides it (``costing.speculates``): ``always``/``never``, or under ``auto`` only when no
        seat's model is metered and the seats' calls can run beside the options call — judged on the providers the
        consult would pick."""
        mode = chosen.settings.speculate
        if mode != "auto":  # the seats' models do not matter: no provider is picked
            return await speculating(mode, [], None)
        turn = _turn(params, client_model, None)
        try:
            pick, _ = await self.sessions.hub.picker(turn.options, turn.client)
            return await speculating(mode, [pick(name) for name in chosen.selection.names], pick("moderator"))
        except (CouncilError, ProviderError):  # no model to run on: the consult will say so; count no speculation
            return False

    async def consult(self, params: ConsultParams | PersonaConsultParams, ask: Asker | None = None,
                      session_id: str | None = None, client_model: str | None = None,
                      client_models: list[ClientModel] | None = None) -> ConsultResult:
        """Run the council on ``params`` to the end; ``session_id`` lets a caller route the session's events,
        ``client_model`` has the client's own model answer (``council/complete``), as in a chat turn. Everything it
        writes — progress, questions, refusals, the result's text — is in the consult's language."""
        with speaking(consult_language(params)):
            plan = session_request(self.sessions.engine, params)
            declined: set[str] = set()
            turn = _turn(params, client_model, client_models)
            sessions = self.sessions

            async def clarify(live: Live) -> None:
                while (s := live.rt.session).status is SessionStatus.CLARIFYING and s.active_question is not None:
                    question = s.active_question
                    reply = await ask(question) if ask is not None else Reply("skip_all")
                    if ask is not None and reply.action != "answer" and not reply.unanswered:
                        declined.add(question.question_id)  # the user saw it and said no
                    await sessions.run_turn(live, Intent(reply.action), _move(sessions, question, reply, live.pick))

            live, _ = await sessions.start(turn, plan, session_id, then=clarify, one_shot=True,
                                           cancelled="the caller cancelled the consult")
            s, stalled_by = live.rt.session, live.turn.stalled_by
            if s.status is SessionStatus.CANCELLED:
                raise validation_error(t("error.consult_cancelled"), sessionId=s.session_id, reason="cancelled")
            if s.status is not SessionStatus.COMPLETED:  # every advisor failed before any cycle could be kept
                failures = {role: use.failures for role, use in s.metadata.models.items() if use.failures}
                causes = {p: f.kind for p, f in stalled_by.items()}
                if causes and set(causes.values()) == {"no_consent"}:  # the user did not allow the models: as the chat
                    models = refused_models(s, stalled_by)  # says it, with how to allow them
                    raise permission_error(words.not_allowed(models), sessionId=s.session_id, reason="no_consent",
                                           models=models, failures=failures, causes=causes)
                fault = internal_error if "crashed" in causes.values() else validation_error  # internal: ours only
                raise fault(words.could_not_answer(stalled_by, client_model), sessionId=s.session_id,
                            reason="models_failed", failures=failures, causes=causes)
            result = consult_result(s, plan, declined)
            result.markdown = words.consult_text(result.to_wire(), spent_words(s.metadata.spent_by_model))
            return result


def _turn(params: ConsultParams | PersonaConsultParams, client_model: str | None,
          client_models: list[ClientModel] | None) -> TurnParams:
    """The turn a consult runs as: on the client's model when it lends one, else on the sidecar's providers."""
    seating = getattr(params, "seating", None)
    if not client_model:
        return TurnParams(options=SessionOptions(seating=seating))
    return TurnParams(options=SessionOptions(provider="client", model=client_model, seating=seating),
                      client=ClientCapabilities(completion=True, completion_model=client_model,
                                                models=client_models or [], chat_model_id=client_model))


def caller_chose(sel) -> str:
    """Why these personas sit, for a consult's confirmation: personas named in a consult's input were named by its
    caller (an agent, whose tool input the user did not write), not by the user — so it says the agent chose them."""
    decided = deciding_words(sel.names, sel.chosen_for)
    if sel.user_override and sel.method == "override":
        return t("consult.chosen_by_caller")
    if sel.user_override:  # named in the input: added to the routed council
        about = t("clarify.why.for", words=", ".join(decided)) if decided else ""
        return t("consult.added_by_caller", about=about, names=join_names(sel.overridden))
    return why_chosen(sel.user_override, sel.method, sel.overridden, decided)


def _move(sessions: Sessions, question: ClarificationQuestion, reply: Reply, pick):
    engine = sessions.engine
    if reply.action == "answer":
        return lambda turn: engine.answer(turn, question.question_id, "answer", reply.text, reply.choice, pick)
    if reply.action == "skip":
        return lambda turn: engine.answer(turn, question.question_id, "skip", "", None, pick)
    return lambda turn: engine.reply(turn, "skip_all", "", pick)
