"""Seating personas on models (issue 19): the pure seat() and fall_back(), and fitting a council into a budget."""

from __future__ import annotations

from council.session.state.budget import MIN_CALLS, CallPlan, Shape, allows, fit, max_calls
from council.session.state.seating import ModelChoice, fall_back, seat

GPT = ModelChoice(id="copilot/gpt-4o", provider="client", model="GPT-4o", vendor="copilot", family="gpt-4o")
GPT_MINI = ModelChoice(id="copilot/gpt-4o-mini", provider="client", model="GPT-4o mini", vendor="copilot",
                       family="gpt-4o-mini")
O3 = ModelChoice(id="copilot/o3", provider="client", model="o3", vendor="copilot", family="o3")
CLAUDE = ModelChoice(id="copilot/claude", provider="client", model="Claude Sonnet 4", vendor="copilot",
                     family="claude-sonnet-4")
GEMINI = ModelChoice(id="copilot/gemini", provider="client", model="Gemini 2.5 Pro", vendor="copilot",
                     family="gemini-2.5-pro")
COUNCIL = ["Software Architect", "Security Expert", "Devil's Advocate", "Senior Developer"]


def models_of(seating):
    return {s.persona: s.model.id for s in seating.seats}


def test_diverse_deals_seats_over_model_families_starting_with_the_chats():
    seating = seat(COUNCIL, [GPT, GPT_MINI, O3, CLAUDE, GEMINI], GPT)
    assert seating.policy == "diverse" and seating.differs
    assert models_of(seating) == {"Software Architect": GPT.id, "Security Expert": CLAUDE.id,
                                  "Devil's Advocate": GEMINI.id, "Senior Developer": GPT.id}
    assert seating.chair == GPT and seating.model_of("moderator") == GPT and seating.model_of("synthesizer") == GPT
    assert {s.why for s in seating.seats} == {"diverse"}


def test_one_family_is_the_chat_policy_and_one_model_is_single():
    assert seat(COUNCIL, [GPT, GPT_MINI, O3], GPT).policy == "chat"  # gpt and o-series: one lineage
    single = seat(COUNCIL, [], GPT)
    assert single.policy == "single" and not single.differs
    assert set(models_of(single).values()) == {GPT.id}


def test_chat_policy_puts_every_seat_on_the_chats_model():
    seating = seat(COUNCIL, [GPT, CLAUDE], CLAUDE, "chat")
    assert set(models_of(seating).values()) == {CLAUDE.id} and not seating.differs


def test_an_explicit_map_seats_the_personas_it_names_case_insensitively():
    seating = seat(COUNCIL, [GPT, CLAUDE, GEMINI], GPT,
                   {"security expert": CLAUDE.id, "Devil's Advocate": "no-such-model"})
    assert models_of(seating) == {"Software Architect": GPT.id, "Security Expert": CLAUDE.id,
                                  "Devil's Advocate": GPT.id, "Senior Developer": GPT.id}
    assert [s.why for s in seating.seats] == ["chat", "map", "map_unknown", "chat"]


def test_a_map_entry_whose_model_is_not_on_offer_is_said_even_with_one_model():
    """Issue 19 audit: a map naming a model nobody offered was silent (and ignored whole with one model)."""
    from council.present.cost import seating as seating_line

    for offered in ([GPT, CLAUDE], []):
        seating = seat(COUNCIL, offered, GPT, {"Security Expert": "claude-sonet-4", "Chef": CLAUDE.id})
        [miss] = seating.misses  # Chef is not on this council: a preference that does not apply here, not a miss
        assert (miss.persona, miss.model_id, miss.reason) == ("Security Expert", "claude-sonet-4", "model_not_offered")
        assert GPT.id in miss.valid
        line = seating_line(seating)
        assert "“claude-sonet-4”: no model with that id is on offer" in line and "speaks with GPT-4o" in line


def test_configured_persona_providers_win_over_the_spread():
    local = ModelChoice(id="local:qwen2.5:7b", provider="openai", model="qwen2.5:7b")
    seating = seat(COUNCIL, [GPT, CLAUDE], GPT, fixed={"devil's advocate": local})
    assert seating.model_of("Devil's Advocate") == local
    assert next(s for s in seating.seats if s.persona == "Devil's Advocate").why == "config"
    assert seat(COUNCIL, [], GPT, fixed={"Security Expert": local}).differs  # one model offered, one configured


def test_fall_back_moves_every_seat_on_the_model_once():
    seating = seat(COUNCIL, [GPT, CLAUDE], GPT)
    assert fall_back(seating, CLAUDE.id, "no_consent") == ["Security Expert", "Senior Developer"]
    assert seating.model_of("Security Expert") == GPT and seating.model_of("Senior Developer") == GPT
    seat_ = next(s for s in seating.seats if s.persona == "Security Expert")
    assert seat_.fallback is not None and seat_.fallback.from_model == CLAUDE and seat_.fallback.reason == "no_consent"
    assert fall_back(seating, CLAUDE.id, "no_consent") == []  # once per model
    assert fall_back(seating, GPT.id, "model_failed") == []  # the chat's model has nowhere to go


def test_fit_cuts_cycles_then_seats_then_the_clarifier_down_to_the_minimum():
    shape = Shape(seats=5, cycles=10, clarifier=True)
    assert shape.planned == 53 and fit(shape, None) == (shape, None) and fit(shape, 60)[1] is None
    fitted, cut = fit(shape, 20)
    assert fitted == Shape(5, 3, True) and fitted.planned <= 20 and cut.cycles_from == 10
    fitted, cut = fit(shape, 6)
    assert fitted == Shape(3, 1, True) and fitted.planned == 6 and cut.seats_from == 5
    fitted, cut = fit(shape, 4)
    assert fitted == Shape(2, 1, False) and cut.clarifier
    fitted, _ = fit(shape, MIN_CALLS)
    assert fitted == Shape(1, 1, False) and fitted.planned == 2 <= MIN_CALLS  # a council of one: answer, chair


def test_the_bound_counts_one_retry_per_call_within_the_budget_and_retries_use_only_the_slack():
    assert max_calls(9, None) == 18 and max_calls(9, 12) == 12 and max_calls(9, 30) == 18
    plans = [CallPlan(planned=3, max_calls=4, first_limit=3, call_limit=4)]
    assert allows(plans, 0, 0, 0, 0, retry=False)
    assert allows(plans, 1, 1, 0, 0, retry=True)  # 1 made + 2 still planned + this one = 4
    assert not allows(plans, 2, 1, 0, 0, retry=True)  # a second retry would leave no room for the plan
    assert not allows(plans, 3, 3, 0, 0, retry=False)  # no first call beyond the plan
    assert not allows(plans, 1, 1, 1, 0, retry=True)  # a retry in flight counts
    assert allows([], 100, 100, 0, 0, retry=True)  # a session without a plan has no bound


def test_seats_on_agent_cli_found_on_path_are_said_so_with_how_each_bills_in_both_languages():
    """Issue 32: the CLIs found on PATH spread one per CLI (their family is the CLI); the seating line says they were
    found, not configured, and how each bills a headless call; an explicit CLI seat still says how it bills."""
    from council.present.cost import seating as seating_words
    from council.words import speaking

    clis = [ModelChoice(id=f"{kind}:", provider=kind, model="default", vendor=kind, family=kind)
            for kind in ("claude", "codex", "gemini", "copilot")]
    found = seat(COUNCIL, clis, clis[0])
    found.found = True
    assert found.policy == "diverse" and [s.model.provider for s in found.seats] == ["claude", "codex", "gemini",
                                                                                      "copilot"]
    en = seating_words(found)
    assert en.index("No model is configured, so the council sits on the agent CLIs found on PATH that are signed in "
                    "(their own checks, no model call): Claude Code, Codex, Gemini CLI and GitHub Copilot CLI; the "
                    "moderator and the chair on Claude Code.") < en.index("Seats: ") \
        < en.index("Codex uses your ChatGPT plan's usage limits")
    with speaking("ru"):
        ru = seating_words(found)
    assert "агентских CLI из PATH" in ru and "премиум-запросы вашего плана Copilot" in ru and "ChatGPT" in ru
    alone = seat(COUNCIL[:1], clis[:1], clis[0])  # one CLI, chosen: no seats line, no found line, its bill
    assert seating_words(alone) == ("_💳 Each call runs the CLI headless and is billed as your sign-in bills it: "
                                    "Claude Code uses your Claude plan's usage limits (API cost when signed in with "
                                    "an API key)._\n\n")
    assert seating_words(seat(COUNCIL, [GPT, CLAUDE], GPT)).count("💳") == 0  # no CLI seated: no bill line


def test_a_russian_session_names_its_seats_and_fallbacks_in_russian():
    """Issue 31: a Russian session named its personas in English; the seating line, a fallback and a budget cut name
    them in the session's language too (the contracts' ``names``), while a map entry's names stay the ones to type."""
    from council.personas.loader import load_personas
    from council.present.cost import cut_words, fell_back
    from council.present.cost import seating as seating_words
    from council.session.state.budget import BudgetCut
    from council.words import speaking

    load_personas()  # the built-in contracts tell the names module their Russian names
    seating = seat(COUNCIL, [GPT, CLAUDE], GPT)
    with speaking("ru"):
        line = seating_words(seating)
        back = fell_back(["Security Expert"], CLAUDE, GPT, "no_consent")
        cut = cut_words(BudgetCut(seats_from=5, dropped_seats=["Devil's Advocate"]), 6, 2)
    assert "Архитектор ПО → " in line and "Software Architect" not in line, line
    assert "Security Expert" not in back and "Devil's Advocate" not in cut, (back, cut)
