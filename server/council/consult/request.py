"""From a consult tool's input to a session request, and what that session would cost (no model call).

The problem, the desired outcome and the constraints become the request text (what routing and every prompt
read, never truncated); ``context`` is attached like a chat reference. A consult's debate is capped by depth so
one call stays within an MCP client's patience; a single persona has nobody to debate: it answers once.
"""

from __future__ import annotations

from council.errors import validation_error
from council.personas.loader import PersonaLibrary
from council.present.cost import cut_words
from council.protocol.consult import ConsultParams, ConsultPlan, CouncilChoice, PersonaConsultParams
from council.session.state.budget import expected, max_calls
from council.session.state.entities import Depth
from council.session.state.language import session_language
from council.session.steps.engine import Engine, NewSession, Plan
from council.words import t

#: Debate cycles a consult may run at each depth (the sidecar's own cap still applies when lower).
CONSULT_CYCLES: dict[Depth, int] = {Depth.BRIEF: 2, Depth.STANDARD: 3, Depth.DEEP: 5}


def request_text(params: ConsultParams | PersonaConsultParams) -> str:
    text = params.user_problem
    if params.desired_outcome and params.desired_outcome.strip():
        text += f"\n\nDesired outcome: {params.desired_outcome.strip()}"
    if params.constraints:
        text += "\n\nConstraints:\n" + "\n".join(f"- {c}" for c in params.constraints)
    return text


def consult_language(params: ConsultParams | PersonaConsultParams) -> str:
    """The language a consult writes in: its question's (as a chat session's without a language option)."""
    return session_language(request_text(params))


def _checked(library: PersonaLibrary, names: list[str], field: str) -> list[str]:
    """The personas' canonical names; an unknown one is a validation error naming the field and the choices."""
    out = []
    for i, name in enumerate(names):
        persona = library.get(name)
        if persona is None:
            where = field if len(names) == 1 and field == "persona_name" else f"{field}.{i}"
            said = t("error.unknown_persona", name=repr(name))
            raise validation_error(said, fields={where: said}, valid=library.names)
        out.append(persona.name)
    return out


def session_request(engine: Engine, params: ConsultParams | PersonaConsultParams) -> Plan:
    if isinstance(params, PersonaConsultParams):
        personas: list[str] | None = _checked(engine.library, [params.persona_name], "persona_name")
        cycles = 1
    else:
        personas = _checked(engine.library, params.selected_personas, "selected_personas") \
            if params.selected_personas else None
        cycles = min(engine.settings.max_cycles, CONSULT_CYCLES[params.depth])
    context = [("Context", params.context)] if params.context and params.context.strip() else []
    req = NewSession(text=request_text(params), personas=personas, depth=params.depth, max_cycles=cycles,
                     max_personas=len(personas) if personas else None, clarify=True, context=context,
                     max_model_calls=params.max_model_calls, speculate=params.speculate)
    return engine.plan(req)


def council_of(plan: Plan) -> CouncilChoice:
    sel = plan.selection
    return CouncilChoice(personas=sel.names, reason=sel.reason, method=sel.method, user_override=sel.user_override)


def estimate(plan: Plan, speculating: bool) -> ConsultPlan:
    """The model calls a consult makes: from the likely path's low end (settled by the first vote; with
    ``speculating``, the second cycle's calls started beside the options call count too) to one call per persona
    and cycle; the hard bound counts a retry per call, within the budget (which the plan was fitted into)."""
    cycles = plan.settings.max_cycles
    shape = plan.shape
    return ConsultPlan(council=council_of(plan), depth=plan.settings.depth, max_cycles=cycles,
                       model_calls_min=expected(shape, False, speculating)[0],
                       model_calls_max=shape.planned,
                       max_model_calls=max_calls(shape.planned, plan.settings.max_model_calls),
                       budget_cut=cut_words(plan.cut, plan.settings.max_model_calls, shape.seats) if plan.cut
                       else None)
