"""The vote's rules against seats of known skill (issue 34): a simulation, since no model can measure this here.

Seats are scripted oracles answering thousands of generated questions, each with one right option among ``K``. Each
seat has a set accuracy, a confidence (calibrated or over-confident) and errors correlated through shared latents
(one per question, one per question and vendor): copies of one model are highly correlated, different vendors less.
Debate cycles move votes by a stated conformity model. The vote is decided by **Council's own rule functions** —
``assess`` and ``should_stop`` (convergence, impasse, settled; the cycle cap as ``Engine._conclude_cycle`` applies
it) and ``tally_votes`` (the final tally) from ``council.session.state.convergence`` — called on the engine's
``Vote`` objects in the order ``Engine.debate`` calls them. ``--crosscheck N`` replays N questions' scripted votes
through the real ``CouncilService`` on a scripted provider and checks that it reaches the same stop and winner.
The placement rows (``vote_rules_placement``) let the moderator miss recommendations and run three rules on the same
sessions: asking the unplaced seats (the engine's), the quorum alone, and neither.

Run: ``.venv/bin/python bench/vote_rules.py`` (about two CPU-minutes; ``--questions``, ``--seed``, ``--crosscheck``).
Method and parameters: bench/README.md, "The vote's rules against seats of known skill".
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
import zlib
from dataclasses import dataclass, replace
from functools import cache
from string import ascii_uppercase

import numpy as np
from scipy.stats import norm

from council.session.state.convergence import assess, quorate, should_stop, tally_votes
from council.session.state.entities import SessionSettings
from council.session.state.outputs import Vote, VoteOption

K = 4  # options per question; one is right
SETTINGS = SessionSettings()  # the engine's defaults: max_cycles, min_cycles
LATENT_SAME = 0.75  # latent correlation of two seats on one vendor's model (copies of one model)
LATENT_ACROSS = 0.30  # latent correlation across vendors (questions hard for every model)
SAME_WRONG = 0.8  # a wrong seat picks its vendor's wrong option for the question with this probability
DISTRACTOR = 0.5  # a vendor's wrong option is the question's one distractor with this probability
SIGNAL_NOISE = 1.0  # sd of the noise on the margin a seat's confidence is computed from (calibrated seats)
OVER = (1.5, 1.4)  # over-confidence: logit(c') = 1.5 · logit(c) + 1.4
BLIND = (0.75, 0.95)  # blind confidence: uniform in this range, unrelated to being right
STOP_AT = 0.7  # a seat says continue_debate = false at this confidence or more
CONFORMITY = {"low": 0.3, "high": 0.9}  # κ: pull of the peers' confidence-weighted share per cycle
TRUTH = 0.0  # λ: arguments for the right option pull (1 + λ)×, for a wrong one (1 − λ)× (0: no truth pull)
TRUTH_PULL = 0.25  # the second grid's λ
STRENGTH = {"strong": 0.75, "weak": 0.50}  # mean seat accuracy (chance is 1/K = 0.25)
SPREAD = 0.07  # seat accuracies run evenly from mean + SPREAD (the best seat) to mean − SPREAD
VENDORS_MIXED = 3


@dataclass(frozen=True)
class Regime:
    seats: int
    vendors: str  # same | mixed
    calibration: str  # calibrated | over | blind | weak-over (only the weaker half over-confident)
    strength: str  # strong | weak
    conformity: str  # low | high
    truth: float = TRUTH
    max_cycles: int = SETTINGS.max_cycles
    placement: float = 1.0  # chance the moderator places a seat's first recommendation under its option

    @property
    def name(self) -> str:
        extra = "" if self.truth == TRUTH else f" λ={self.truth:g}"
        extra += "" if self.max_cycles == SETTINGS.max_cycles else f" cap={self.max_cycles}"
        extra += "" if self.placement == 1.0 else f" placed={self.placement:.2f}"
        return f"{self.seats} {self.vendors:5} {self.calibration:10} {self.strength:6} {self.conformity:4}{extra}"


def accuracies(r: Regime) -> np.ndarray:
    mean = STRENGTH[r.strength]
    return np.linspace(mean + SPREAD, mean - SPREAD, r.seats) if r.seats > 1 else np.array([mean])


def vendor_of(r: Regime) -> np.ndarray:
    return np.zeros(r.seats, dtype=int) if r.vendors == "same" else np.arange(r.seats) % VENDORS_MIXED


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


@dataclass
class Drawn:
    """One regime's questions: each seat's first answer and confidence, and the draws the debate uses."""

    right: np.ndarray  # (Q,) index of the right option
    first: np.ndarray  # (Q, n) option each seat recommends in the independent cycle
    confidence: np.ndarray  # (Q, n) its vote_confidence
    moves: np.ndarray  # (Q, cycles, n, 2) uniforms: switch or not, which option
    placed: np.ndarray  # (Q, n) whether the moderator placed the seat's first recommendation (its first vote)


def draw(r: Regime, questions: int, rng: np.random.Generator) -> Drawn:
    n, acc, vendor = r.seats, accuracies(r), vendor_of(r)
    vendors = int(vendor.max()) + 1
    g = rng.standard_normal((questions, 1))
    u = rng.standard_normal((questions, vendors))[:, vendor]
    e = rng.standard_normal((questions, n))
    z = math.sqrt(LATENT_ACROSS) * g + math.sqrt(LATENT_SAME - LATENT_ACROSS) * u + math.sqrt(1 - LATENT_SAME) * e
    threshold = norm.ppf(acc)
    correct = z < threshold  # P = acc for each seat
    # confidence: the posterior of being right given a noisy look at its own margin m = threshold − z ~ N(t, 1)
    observed = (threshold - z) + SIGNAL_NOISE * rng.standard_normal((questions, n))
    precision = 1 + 1 / SIGNAL_NOISE**2
    mean = (threshold + observed / SIGNAL_NOISE**2) / precision
    confidence = norm.cdf(mean * math.sqrt(precision))
    over = np.ones(n, dtype=bool) if r.calibration == "over" else (
        np.arange(n) >= n // 2 if r.calibration == "weak-over" else np.zeros(n, dtype=bool))
    stretched = 1 / (1 + np.exp(-(OVER[0] * logit(confidence) + OVER[1])))
    confidence = np.where(over, stretched, confidence)
    if r.calibration == "blind":
        confidence = rng.uniform(*BLIND, (questions, n))
    right = rng.integers(0, K, questions)
    distractor = (right + rng.integers(1, K, questions)) % K
    own_wrong = np.where(rng.random((questions, vendors)) < DISTRACTOR, distractor[:, None],
                         (right[:, None] + rng.integers(1, K, (questions, vendors))) % K)[:, vendor]
    any_wrong = (right[:, None] + rng.integers(1, K, (questions, n))) % K
    wrong = np.where(rng.random((questions, n)) < SAME_WRONG, own_wrong, any_wrong)
    first = np.where(correct, right[:, None], wrong)
    moves = rng.random((questions, max(1, r.max_cycles - 1), n, 2))
    # drawn last, and only when some go unplaced: the regimes that place every seat keep their draws
    placed = rng.random((questions, n)) < r.placement if r.placement < 1 else np.ones((questions, n), dtype=bool)
    return Drawn(right, first, np.round(confidence, 4), moves, placed)


OPTIONS = [VoteOption(id=ascii_uppercase[i], label=f"option {i}", description=f"option {i}") for i in range(K)]
SEATS = [f"seat{i}" for i in range(12)]


def votes_of(cycle: int, options: list[int], confidence: list[float], placed: list[bool] | None = None) -> list[Vote]:
    """The seats' votes of a cycle; ``placed``: which seats have one (a first vote reads only the recommendations the
    moderator placed under an option: the others abstain, as ``vote_round.propose_options`` records them)."""
    return [Vote(persona=SEATS[i], option_id=OPTIONS[o].id, confidence=c, rationale="", continue_debate=c < STOP_AT,
                 cycle=cycle) for i, (o, c) in enumerate(zip(options, confidence, strict=True))
            if placed is None or placed[i]]


def debate_step(options: list[int], confidence: list[float], right: int, kappa: float, truth: float,
                draws: np.ndarray) -> tuple[list[int], list[float]]:
    """One debate cycle of the conformity model: each seat sees its peers' votes and confidences (as the digest
    shows them) and moves to a peer's option with probability κ × that option's confidence-weighted share among its
    peers × (1 − its own confidence) × (1 ± λ, as the option is right or wrong); it never moves to an option no peer
    holds. A seat that moves takes the mean of its old confidence and its new side's; one that stays gains
    0.2 κ × (its side's share − the strongest other side's share)."""
    n = len(options)
    total = sum(confidence)
    out_o, out_c = [], []
    for i in range(n):
        rest = total - confidence[i]
        share: dict[int, float] = {}
        for j in range(n):
            if j != i:
                share[options[j]] = share.get(options[j], 0.0) + confidence[j] / rest if rest > 0 else 0.0
        mine = options[i]
        pulls = {x: kappa * w * (1 - confidence[i]) * (1 + truth if x == right else 1 - truth)
                 for x, w in share.items() if x != mine}
        moved = sum(pulls.values())
        if pulls and draws[i, 0] < min(1.0, moved):
            pick, acc = None, draws[i, 1] * moved
            for x, p in sorted(pulls.items()):
                pick = x
                acc -= p
                if acc < 0:
                    break
            side = [confidence[j] for j in range(n) if j != i and options[j] == pick]
            out_o.append(pick)
            out_c.append(round((confidence[i] + sum(side) / len(side)) / 2, 4))
        else:
            other = max((w for x, w in share.items() if x != mine), default=0.0)
            gain = 0.2 * kappa * (share.get(mine, 0.0) - other)
            out_o.append(mine)
            out_c.append(round(min(0.99, max(0.01, confidence[i] + gain)), 4))
    return out_o, out_c


@dataclass
class Session:
    rounds: list[list[Vote]]  # votes per cycle, from the first vote
    stop: str
    winner: str | None  # the final tally's winner (None on a tie)
    asked: int = 0  # unplaced seats asked for their vote after the options call


def run_engine_rules(first: list[int], confidence: list[float], right: int, r: Regime, moves: np.ndarray,
                     min_rounds: int = SETTINGS.min_cycles, placed: list[bool] | None = None,
                     quorum: bool = True, ask: bool = False) -> Session:
    """The engine's deliberation loop on scripted votes (``Engine.debate``, ``options_beside_next_cycle``,
    ``Engine._conclude_cycle``, ``vote_round.conclude``): assess and should_stop after every cycle's votes (with
    the seats who spoke, as ``_conclude_cycle`` counts them), the cycle cap, then the tally of the final round with
    its abstentions. ``min_rounds``: the engine's ``min_cycles`` (the bench runs it with 2 for the rule before issue
    34's change). ``placed``: the seats whose first recommendation the moderator placed (None: all); every seat
    votes in later cycles (on the options, as when cycle 2 waits for them). ``quorum=False``: the rule before the
    quorum (9a4d94c): a round's votes decided whatever share of the seats cast them. ``ask``: each unplaced seat is
    asked which option is its own (``Session.asked`` counts them) before the first vote is assessed, and answers its
    own first recommendation."""
    kappa = CONFORMITY[r.conformity]
    seats = len(first) if quorum else None
    votes = votes_of(1, first, confidence, placed)
    asked = 0
    if ask and len(votes) < len(first):
        asked = len(first) - len(votes)
        votes = votes_of(1, first, confidence)
    rounds = [votes]
    conv = assess(1, votes, [], None, seats=seats)
    stop = should_stop(conv, round_no=1, min_rounds=min_rounds)
    options, conf, cycle = first, confidence, 1
    while stop is None and cycle < r.max_cycles:
        cycle += 1
        options, conf = debate_step(options, conf, right, kappa, r.truth, moves[cycle - 2])
        votes = votes_of(cycle, options, conf)
        conv = assess(cycle, votes, rounds[-1], conv, seats=seats)
        stop = should_stop(conv, round_no=cycle, min_rounds=min_rounds)
        rounds.append(votes)
    voted = {v.persona for v in rounds[-1]}
    tally = tally_votes(OPTIONS, rounds[-1], [x for x in SEATS[: len(first)] if x not in voted])
    return Session(rounds, stop or "limit", tally.winner, asked)


def credit(scores: dict[int, float], right: int) -> float:
    """1 if the right option alone leads, 1/k when it ties k ways for the lead (the tie broken at random), else 0."""
    if not scores:  # no vote at all: the chair's answer is a guess among the K options
        return 1 / K
    best = max(scores.values())
    lead = [x for x, s in scores.items() if s >= best - 1e-12]
    return 1 / len(lead) if right in lead else 0.0


def plurality(options: list[int], weights: list[float] | None = None) -> dict[int, float]:
    out: dict[int, float] = {}
    for i, o in enumerate(options):
        out[o] = out.get(o, 0.0) + (1.0 if weights is None else weights[i])
    return out


def council_credit(s: Session, right: int) -> float:
    """The final answer: the tally's winner (a head-count tie goes to the side of more confidence); on an even tie
    ``tally_votes`` names no winner and the chair writes the answer from the tied sides — counted as a random pick
    among them."""
    if s.winner is not None:
        return float(ascii_uppercase.index(s.winner) == right)
    final = [ascii_uppercase.index(v.option_id) for v in s.rounds[-1]]
    return credit(plurality(final), right)


@cache
def iid_plurality(m: int, p: float) -> float:
    """Accuracy of plurality (random tie break) over m independent seats of accuracy p, wrong votes uniform over
    the K − 1 wrong options."""
    total = 0.0
    for c in range(m + 1):
        pc = math.comb(m, c) * p**c * (1 - p) ** (m - c)
        w = m - c
        for split in itertools.product(range(w + 1), repeat=K - 2):
            last = w - sum(split)
            if last < 0:
                continue
            counts = [*split, last]
            pw = math.factorial(w) / math.prod(math.factorial(x) for x in counts) / (K - 1) ** w
            top = max(counts) if counts else 0
            win = 1.0 if c > top else (1 / (1 + counts.count(top)) if c == top else 0.0)
            total += pc * pw * win
    return total


def equivalent_seats(accuracy: float, p: float, most: int = 25) -> str:
    """How many independent seats of accuracy p a plurality needs to reach ``accuracy`` (interpolated)."""
    if accuracy <= p:
        return "≤1"
    last = p
    for m in range(2, most + 1):
        here = iid_plurality(m, round(p, 3))
        if here >= accuracy:
            return f"{m - 1 + (accuracy - last) / max(here - last, 1e-9):.1f}"
        last = max(last, here)
    return f">{most}"


def correlation(correct: np.ndarray) -> float:
    """Mean pairwise correlation of the seats' being right (first answers)."""
    n = correct.shape[1]
    if n < 2:
        return 0.0
    c = np.corrcoef(correct.T.astype(float))
    return float(np.nanmean(c[np.triu_indices(n, 1)]))


@dataclass
class Row:
    regime: Regime
    figures: dict[str, float]
    diffs: dict[str, tuple[float, float]]  # rule − plain majority: mean, standard error
    stops: dict[str, int]
    rho: float
    n_eff: float
    eq_majority: str
    eq_council: str
    confidence_gap: float  # mean confidence − accuracy of the first answers


RULES = ("best_seat", "majority_first", "weighted_first", "council_final", "was", "final_weighted")
WAS_MIN_CYCLES = 2  # the rule before issue 34's change (a850f71): a debate cycle always ran, a head-count tie open


def run_regime(r: Regime, questions: int, seed: int) -> tuple[Row, Drawn, list[Session]]:
    rng = np.random.default_rng([seed, zlib.crc32(r.name.encode())])
    d = draw(r, questions, rng)
    correct = d.first == d.right[:, None]
    best = int(np.argmax(correct.mean(axis=0)))
    per: dict[str, list[float]] = {k: [] for k in RULES}
    stops: dict[str, int] = {}
    sessions = []
    for q in range(questions):
        first, conf, right = d.first[q].tolist(), d.confidence[q].tolist(), int(d.right[q])
        s = run_engine_rules(first, conf, right, r, d.moves[q])
        sessions.append(s)
        stops[s.stop] = stops.get(s.stop, 0) + 1
        final = [ascii_uppercase.index(v.option_id) for v in s.rounds[-1]]
        final_conf = [v.confidence for v in s.rounds[-1]]
        per["best_seat"].append(float(correct[q, best]))
        per["majority_first"].append(credit(plurality(first), right))
        per["weighted_first"].append(credit(plurality(first, [max(c, 0.05) for c in conf]), right))
        per["council_final"].append(council_credit(s, right))
        per["final_weighted"].append(credit(plurality(final, [max(c, 0.05) for c in final_conf]), right))
        was = run_engine_rules(first, conf, right, r, d.moves[q], min_rounds=WAS_MIN_CYCLES)
        per["was"].append(credit(plurality([ascii_uppercase.index(v.option_id) for v in was.rounds[-1]]), right))
    base = np.array(per["majority_first"])
    figures = {k: float(np.mean(v)) for k, v in per.items()}
    diffs = {k: (float(np.mean(np.array(v) - base)), float(np.std(np.array(v) - base) / math.sqrt(questions)))
             for k, v in per.items()}
    rho = correlation(correct)
    n = r.seats
    mean_acc = float(correct.mean())
    figures["cycles"] = float(np.mean([len(s.rounds) for s in sessions]))
    figures["moved"] = float(np.mean([v.option_id != w.option_id for s in sessions
                                      for v, w in zip(s.rounds[0], s.rounds[-1], strict=True)]))
    return Row(r, figures, diffs, stops, rho, n / (1 + (n - 1) * rho), equivalent_seats(figures["majority_first"],
               mean_acc), equivalent_seats(figures["council_final"], mean_acc),
               float(d.confidence.mean() - mean_acc)), d, sessions


PLACEMENTS = (2 / 3, 1 / 3)  # the placement rows' chance that the moderator places a seat's first recommendation
VARIANTS = ("ask", "quorum", "before")  # the placement rows' rules, newest first
ENGINE = "ask"  # the variant the engine runs (what vote_rules_crosscheck replays through CouncilService)


@dataclass
class PlacementRow:
    regime: Regime
    figures: dict[str, float]
    diffs: dict[str, tuple[float, float]]  # "ask": ask − quorum, "quorum": quorum − before (mean, standard error)


def run_placement(r: Regime, questions: int, seed: int) -> tuple[PlacementRow, Drawn, list[Session]]:
    """One placement regime: each question's session under three rules, on the same questions, placements and moves
    — ``ask`` (the unplaced seats are asked for their vote before the first vote is assessed), ``quorum`` (a
    round converges or settles only with two thirds of the seats who spoke voting; 9a4d94c) and ``before`` (neither).
    Calls per session: cycle 1, the options call, each later cycle, the asked seats and the chair."""
    rng = np.random.default_rng([seed, zlib.crc32(r.name.encode())])
    d = draw(r, questions, rng)
    per: dict[str, list[float]] = {k: [] for k in ("maj_all", "maj_read", *VARIANTS)}
    cycles: dict[str, list[int]] = {k: [] for k in VARIANTS}
    calls: dict[str, list[int]] = {k: [] for k in VARIANTS}
    thin = 0
    sessions = []
    n = r.seats
    for q in range(questions):
        first, conf, right = d.first[q].tolist(), d.confidence[q].tolist(), int(d.right[q])
        placed = d.placed[q].tolist()
        runs = {"ask": run_engine_rules(first, conf, right, r, d.moves[q], placed=placed, ask=True),
                "quorum": run_engine_rules(first, conf, right, r, d.moves[q], placed=placed),
                "before": run_engine_rules(first, conf, right, r, d.moves[q], placed=placed, quorum=False)}
        sessions.append(runs[ENGINE])
        per["maj_all"].append(credit(plurality(first), right))
        per["maj_read"].append(credit(plurality([o for o, p in zip(first, placed, strict=True) if p]), right))
        for k, run in runs.items():
            per[k].append(council_credit(run, right))
            cycles[k].append(len(run.rounds))
            calls[k].append(n * len(run.rounds) + 2 + run.asked)
        was = runs["before"]
        thin += len(was.rounds) == 1 and not quorate(len(was.rounds[0]), n)
    figures = {k: float(np.mean(v)) for k, v in per.items()}
    figures |= {f"cycles_{k}": float(np.mean(v)) for k, v in cycles.items()}
    figures |= {f"calls_{k}": float(np.mean(v)) for k, v in calls.items()}
    figures["thin"] = thin / questions
    figures["placed"] = float(d.placed.mean())
    diffs = {}
    for new, old in (("ask", "quorum"), ("quorum", "before")):
        gap = np.array(per[new]) - np.array(per[old])
        diffs[new] = (float(gap.mean()), float(gap.std() / math.sqrt(questions)))
    return PlacementRow(r, figures, diffs), d, sessions


def placement_grid() -> list[Regime]:
    return [Regime(n, "mixed", c, s, k, placement=p) for n in (3, 5, 9) for c in ("calibrated", "over", "blind")
            for s in ("strong", "weak") for k in ("low", "high") for p in PLACEMENTS]


def print_placement(rows: list[PlacementRow], questions: int) -> None:
    print(f"# the moderator's placement (issue 34): each seat's first recommendation is placed under its option with "
          f"the chance `placed` (independently of being right; an unplaced seat abstains in the first vote), three "
          f"vendors, {questions} questions each; columns:")
    print("#   maj(all) = plurality of every seat's first recommendation (a moderator placing all); maj(read) = of the "
          "placed ones (the first vote's tally); then Council's final answer under three rules: ask = each unplaced "
          "seat is asked for its vote on the options before the first vote is assessed (each answers its own first "
          "recommendation); quorum = no asking, a round converges or settles only with two thirds of the "
          "seats who spoke voting, the unplaced vote on the options from cycle 2 (9a4d94c); before = neither; "
          "Δ ask − quorum and Δ quorum − before (± 1 se, paired; wins/LOSES beyond 2 se); cycles and model calls "
          "a session (n a cycle, the options call, the asked seats, the chair) of each rule; minority stop = share "
          "of sessions the rule before ended on a first vote of fewer than two thirds of the seats")
    for row in rows:
        f, d = row.figures, row.diffs
        print(f"vote_rules_placement[{row.regime.name}]: placed {f['placed']:.2f} | maj(all) {f['maj_all']:.3f} "
              f"maj(read) {f['maj_read']:.3f} ask {f['ask']:.3f} quorum {f['quorum']:.3f} before {f['before']:.3f} "
              f"| Δ ask {d['ask'][0]:+.3f}±{d['ask'][1]:.3f} {verdict_of(d['ask'])} quorum "
              f"{d['quorum'][0]:+.3f}±{d['quorum'][1]:.3f} {verdict_of(d['quorum'])} | cycles "
              f"{f['cycles_ask']:.2f} / {f['cycles_quorum']:.2f} / {f['cycles_before']:.2f} calls {f['calls_ask']:.1f} "
              f"/ {f['calls_quorum']:.1f} / {f['calls_before']:.1f} | minority stop {f['thin']:.0%}")
    for key, label in (("ask", "asking the unplaced, against the quorum alone"), ("quorum", "the quorum, against "
                                                                                          "the rule before")):
        gaps = [row.diffs[key][0] for row in rows]
        wins, losses = (sum(verdict_of(x.diffs[key]) == v for x in rows) for v in ("wins", "LOSES"))
        print(f"vote_rules_placement_{key}: {label}: wins in {wins} of {len(rows)}, loses in {losses}; Δ mean "
              f"{np.mean(gaps):+.3f}, from {min(gaps):+.3f} to {max(gaps):+.3f}")
    mean = {f"{m}_{k}": np.mean([x.figures[f"{m}_{k}"] for x in rows]) for k in VARIANTS for m in ("cycles", "calls")}
    below = {k: sum(x.figures[k] < x.figures["maj_all"] - 0.01 for x in rows) for k in VARIANTS}
    print(f"vote_rules_placement_cost: mean cycles ask {mean['cycles_ask']:.2f} / quorum {mean['cycles_quorum']:.2f}"
          f" / before {mean['cycles_before']:.2f}; model calls {mean['calls_ask']:.1f} / {mean['calls_quorum']:.1f} / "
          f"{mean['calls_before']:.1f}; the rule before ended {np.mean([x.figures['thin'] for x in rows]):.0%} of "
          f"sessions on a minority's first vote; more than 0.01 below maj(all) in: ask {below['ask']}, quorum "
          f"{below['quorum']}, before {below['before']} of {len(rows)}")


def grid() -> list[Regime]:
    main = [Regime(n, v, c, s, k) for n in (3, 5, 9) for v in ("same", "mixed")
            for c in ("calibrated", "over", "blind") for s in ("strong", "weak") for k in ("low", "high")]
    extra = [Regime(5, "mixed", "weak-over", s, k) for s in ("strong", "weak") for k in ("low", "high")]
    extra += [Regime(n, v, c, s, "high", max_cycles=3) for n in (5, 9) for v in ("same", "mixed")
              for c in ("calibrated", "blind") for s in ("strong", "weak")]
    pulled = [replace(r, truth=TRUTH_PULL) for r in main if r.seats in (5, 9)]
    return main + extra + pulled


def verdict(row: Row, rule: str = "council_final") -> str:
    """Where a rule loses to plain majority of the first vote by more than two standard errors."""
    return verdict_of(row.diffs[rule])


def verdict_of(diff: tuple[float, float]) -> str:
    """A paired difference (mean, standard error): LOSES or wins beyond two standard errors, else =."""
    mean, se = diff
    if mean < -2 * se and se > 0:
        return "LOSES"
    if mean > 2 * se and se > 0:
        return "wins"
    return "="


COLUMNS = (
    "seats, vendors, calibration, strength, conformity (then λ or a cycle cap when not the default)",
    "rho: mean pairwise correlation of the seats' being right; n_eff = n/(1+(n-1)rho); eq: independent seats of the "
    "mean accuracy whose plurality is as accurate (majority of the first vote / Council's final answer)",
    "accuracy: best = the best single seat; maj = plain majority of the first vote (= Council's first-vote tally); "
    "wfirst = the first vote weighted by confidence (the leader Council's convergence rule weighs); council = "
    "Council's final answer (a head-count tie goes to the side of more confidence; an even tie has no winner: "
    "counted as the chair's random pick among the tied)",
    "was = the rule before issue 34's change (a850f71: min_cycles 2, a head-count tie has no winner); fw = Council's "
    "final round weighted by confidence (the proposal left)",
    "Δ = council − maj (± 1 se, paired; LOSES/wins: beyond 2 se), then wfirst − maj, was − maj and fw − maj",
    "cycles: mean cycles run; moved: share of seats whose final vote is not their first; stop reasons; conf−acc: "
    "mean confidence minus accuracy of the first answers",
)


def print_rows(rows: list[Row], questions: int) -> None:
    print(f"# one line per regime, {questions} questions each; columns:")
    for line in COLUMNS:
        print(f"#   {line}")
    for row in rows:
        f, d = row.figures, row.diffs
        mean, se = d["council_final"]
        stops = " ".join(f"{k}:{v}" for k, v in sorted(row.stops.items()))
        accuracy = " ".join(f"{label} {f[key]:.3f}" for label, key in (
            ("best", "best_seat"), ("maj", "majority_first"), ("wfirst", "weighted_first"),
            ("council", "council_final"), ("was", "was"), ("fw", "final_weighted")))
        deltas = (f"Δ {mean:+.3f}±{se:.3f} {verdict(row)} wfirst {d['weighted_first'][0]:+.3f} "
                  f"{verdict(row, 'weighted_first')} was {d['was'][0]:+.3f} {verdict(row, 'was')} "
                  f"fw {d['final_weighted'][0]:+.3f} {verdict(row, 'final_weighted')}")
        print(f"vote_rules[{row.regime.name}]: rho {row.rho:.2f} n_eff {row.n_eff:.1f} eq {row.eq_majority}/"
              f"{row.eq_council} | {accuracy} | {deltas} | cycles {f['cycles']:.2f} moved {f['moved']:.2f} "
              f"{stops} | conf−acc {row.confidence_gap:+.2f}")


# --- the cross-check through the real service --------------------------------------------------------------------

def crosscheck(r: Regime, drawn: Drawn, sessions: list[Session], count: int) -> tuple[int, int, list[str]]:
    """Replays ``count`` questions' votes, cycle by cycle, through ``CouncilService`` on a scripted provider (each
    seat a persona whose replies carry that cycle's vote and confidence) and compares the real engine's stop reason,
    number of cycles, tally winner and every cycle's votes with the rule driver's."""
    import anyio

    from council.config import CouncilConfig, ProviderConfig
    from council.personas.loader import load_personas
    from council.protocol.methods import SessionOptions, TurnParams
    from council.providers.scripted import ScriptedProvider, auto_reply, backing
    from council.service import CouncilService

    library = load_personas()
    names = library.names[: r.seats]

    class SeatScript(ScriptedProvider):
        plan: dict[tuple[str, int], Vote] = {}
        placed: list[bool] | None = None  # the placement rows: the moderator lists only these under their options

        async def stream(self, request):
            schema = request.json_schema or {}
            if schema.get("title") == "OptionsReply" and self.placed is not None:
                firsts = [self.plan[(name, 1)].option_id for name in names]
                yield json.dumps({"options": [{"label": o.label, "description": o.description, "supporters": [
                    k + 1 for k, (oid, p) in enumerate(zip(firsts, self.placed, strict=True)) if p and oid == o.id]}
                    for o in OPTIONS]})
                return
            if schema.get("title") != "PersonaReply":
                async for chunk in super().stream(request):
                    yield chunk
                return
            vote = self.plan.get((request.purpose, request.cycle))
            if vote is None:  # the cycle beside the options call after a first vote that settles it (cancelled)
                vote = self.plan[(request.purpose, 1)]
            reply = auto_reply(request)
            reply.update(position=f"{request.purpose} prefers option {vote.option_id}.",
                         vote_confidence=vote.confidence, continue_debate=vote.continue_debate)
            props = schema.get("properties", {})
            if "backs" in props:
                reply.pop("backs", None)  # auto_reply backs its own; backing() names whom this vote backs
                reply = backing({**reply, "option_id": vote.option_id}, request)
            elif "option_id" in props:
                reply["option_id"] = vote.option_id
                before = self.plan.get((request.purpose, request.cycle - 1))
                if before is not None and before.option_id != vote.option_id:  # a changed vote brings new lists
                    for key in ("summary", "advice", "next_steps"):  # (a kept one leaves them empty: they stand)
                        reply[key] = [f"{request.purpose} {key} {i}." for i in range(props[key].get("maxItems", 5))]
            yield json.dumps(reply)

    provider = SeatScript(script={"chunk": 1_000_000})
    settings = SessionSettings(max_cycles=r.max_cycles, min_cycles=SETTINGS.min_cycles,
                               extended_max_cycles=max(r.max_cycles, SETTINGS.extended_max_cycles))
    config = CouncilConfig(default="sim", providers={"sim": ProviderConfig(kind="scripted")})
    same, differ = 0, []

    async def main() -> None:
        nonlocal same
        service = CouncilService(library, config, lambda e: None, settings=settings)
        service.hub._get = lambda cfg: provider  # inject the scripted seats (bench only, as bench.py does)
        for q in range(count):
            s = sessions[q]
            # every seat's first recommendation (a placement row's unplaced ones too: they speak, unread), then votes
            firsts = votes_of(1, drawn.first[q].tolist(), drawn.confidence[q].tolist())
            provider.plan = {(names[int(v.persona[4:])], v.cycle): v for row in [firsts, *s.rounds[1:]] for v in row}
            provider.placed = drawn.placed[q].tolist() if r.placement < 1 else None
            result = await service.turn(TurnParams(text=f"Question {q}: which option is right?", options=SessionOptions(
                personas=names, clarify=False, max_cycles=r.max_cycles,
                speculate="never" if r.placement < 1 else None)))  # cycle 2 votes on the options, as simulated
            real = service.store.get(result.session_id).rt.session
            votes = [{v.persona: v.option_id for v in real.votes_in(c)} for c in range(1, real.final_round + 1)]
            got = (real.discussions[-1].stop_reason, real.final_round, real.tally.winner if real.tally else None,
                   [[row.get(name) for name in names] for row in votes])
            simulated = [{names[int(v.persona[4:])]: v.option_id for v in row} for row in s.rounds]
            want = (s.stop, len(s.rounds), s.winner, [[row.get(name) for name in names] for row in simulated])
            if got == want:
                same += 1
            else:
                differ.append(f"q{q}: engine {got} vs rules {want}")
        await service.aclose()

    anyio.run(main)
    return same, count, differ


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--crosscheck", type=int, default=40, help="questions per cross-checked regime (0: none)")
    args = ap.parse_args(argv)
    started = time.process_time()
    print(f"# seed {args.seed}; K={K} options; engine defaults max_cycles={SETTINGS.max_cycles} "
          f"min_cycles={SETTINGS.min_cycles}; latent correlation same vendor {LATENT_SAME}, across {LATENT_ACROSS}; "
          f"conformity κ {CONFORMITY}; truth pull λ {TRUTH}; continue_debate=false at confidence ≥ {STOP_AT}; "
          f"seat accuracy mean ± {SPREAD} (strong {STRENGTH['strong']}, weak {STRENGTH['weak']})")
    rows, kept = [], {}
    for r in grid():
        row, d, sessions = run_regime(r, args.questions, args.seed)
        rows.append(row)
        kept[r] = (d, sessions)
    print_rows(rows, args.questions)
    placing = []
    for r in placement_grid():
        prow, d, sessions = run_placement(r, args.questions, args.seed)
        placing.append(prow)
        kept[r] = (d, sessions)
    print_placement(placing, args.questions)
    losses = [row for row in rows if verdict(row) == "LOSES"]
    print(f"vote_rules_regimes: {len(rows)}; Council's final answer loses to plain majority of the first vote in "
          f"{len(losses)}, wins in {sum(verdict(x) == 'wins' for x in rows)}; the rule before (was) lost in "
          f"{sum(verdict(x, 'was') == 'LOSES' for x in rows)}, won in {sum(verdict(x, 'was') == 'wins' for x in rows)}"
          f"; the final round weighted by confidence (fw) loses in "
          f"{sum(verdict(x, 'final_weighted') == 'LOSES' for x in rows)}, wins in "
          f"{sum(verdict(x, 'final_weighted') == 'wins' for x in rows)}")
    for row in losses:
        print(f"vote_rules_loses[{row.regime.name}]: Council {row.figures['council_final']:.3f} < majority "
              f"{row.figures['majority_first']:.3f}")
    for label, key in (("was", "was"), ("fw", "final_weighted")):
        gap = [(row.figures["council_final"] - row.figures[key], row.regime.name) for row in rows]
        print(f"vote_rules_council_vs_{label}: mean {np.mean([g for g, _ in gap]):+.3f}, worst {min(gap)[0]:+.3f} "
              f"({min(gap)[1].strip()}), best {max(gap)[0]:+.3f} ({max(gap)[1].strip()})")
    if args.crosscheck:
        checked = [Regime(5, "mixed", "calibrated", "weak", "high"), Regime(3, "same", "over", "strong", "low"),
                   Regime(9, "mixed", "over", "weak", "high"),
                   Regime(5, "mixed", "calibrated", "weak", "high", placement=PLACEMENTS[1])]
        for r in checked:
            same, count, differ = crosscheck(r, *kept[r], args.crosscheck)
            print(f"vote_rules_crosscheck[{r.name}]: CouncilService agreed on every vote, the stop, the cycles "
                  f"and the winner in {same}/{count}"
                  + ("" if not differ else f" (first differences: {'; '.join(differ[:3])})"))
    print(f"vote_rules_cpu_s: {time.process_time() - started:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
