"""What a persona is asked in a debate cycle and what the session keeps of its reply.

The reply schema at the session's depth (:func:`persona_schema`: cycle 1 independent, later cycles a vote or whom it
backs, their lists optional), the problems worth one repair (:func:`check_reply` makes a reply unusable,
:func:`soft_checks` and :func:`soft_vote` are kept with a note), the option a model's vote names
(:func:`option_of`), and the response kept (:func:`response_of`): a later cycle's empty lists are the persona's earlier
ones, the Devil's Advocate's counterpoints are folded into its advice once, an unusable reply is an abstention with
what could be read of it (:func:`readable`). :mod:`~council.session.steps.debate` runs the cycles.
"""

from __future__ import annotations

import re
from string import ascii_uppercase

from council.personas.contract import PersonaContract
from council.session.calls.parsing import ParseFailure
from council.session.calls.prompts import DEPTH_BULLETS, clip
from council.session.state.entities import ConversationSession
from council.session.state.grounds import EVIDENCE_TOOLS
from council.session.state.outputs import (
    REPAIRED_NOTE,
    TEXT,
    PersonaReply,
    PersonaResponse,
    Vote,
    VoteOption,
    reply_schema,
)
from council.word_match import item_key
from council.words import speaking, t

INDEPENDENT_OMIT = ("changed_position", "change_reason", "option_id", "backs")
LISTS = ("summary", "advice", "next_steps")  # a persona's lists at the depth's count (seed 000)
CARRIED = (*LISTS, "risks")  # lists a later cycle's reply may add one point to: the persona's earlier ones follow
STANDING = ("assumptions", "questions")  # lists a later cycle does not ask for: the persona's earlier ones stand
NEW_POINTS = 1  # the most new items a later cycle's reply may add to each list (its earlier ones stand after them)
RISKS_KEPT = 8  # the most risks a response keeps (``PersonaReply.risks``)
OWN = "own"  # ``backs``: the persona's own recommendation
EVIDENCE_PER_REPLY = 3  # evidence requests one reply may make (more are cut by the parser)


def persona_schema(session: ConversationSession, cycle: int = 2, *, backing: bool = False) -> dict:
    """The PersonaReply schema at the session's depth. Cycle 1 is independent: no options to vote on and no
    position to change, but the position is the persona's recommendation and ``vote_confidence`` how sure it is
    (the moderator turns these into the first votes), and it names at least one risk; later cycles carry the vote
    on the fixed option list, or, ``backing`` (the cycle beside the options call), whose recommendation the persona
    backs. In later cycles the summary, advice, next steps and risks take at most :data:`NEW_POINTS` new item each,
    or none: the persona's earlier ones stand after them (:func:`response_of`), and its assumptions and questions
    are not asked (its earlier ones stand), so a later reply is its vote, its position, its answer to the strongest
    opposing argument and what changed — a grammar backend holds even a model that would rewrite everything to
    that."""
    lo, hi = DEPTH_BULLETS[session.settings.depth]
    bullets: dict = {"minItems": lo, "maxItems": hi}
    risks: dict = {"minItems": 1, "maxItems": hi}  # a first answer names what could go wrong (the Devil's
    # Advocate's counterpoints are its risks: a grammar held to none let it write none, a repair, then its seat lost)
    omit: tuple[str, ...] = () if session.settings.evidence else ("evidence_requests",)
    if cycle >= 2:  # the earlier lists stand after what is new (:func:`response_of`)
        bullets = {"minItems": 0, "maxItems": NEW_POINTS}
        risks = {"maxItems": NEW_POINTS}
        omit += STANDING
    overrides: dict = {"summary": bullets, "advice": bullets, "next_steps": bullets, "risks": risks,
                       "assumptions": {"maxItems": min(hi, 4)}, "questions": {"maxItems": min(hi, 3)},
                       "vote_confidence": {"minimum": 0, "maximum": 1}}
    for key in set(omit) & set(overrides):
        del overrides[key]
    if session.settings.evidence:
        overrides["evidence_requests"] = {"maxItems": EVIDENCE_PER_REPLY}
    if backing:
        overrides["backs"] = {"enum": [OWN, *ascii_uppercase[: min(26, len(session.personas))]]}  # every letter
        omit += ("option_id",)
    elif cycle <= 1 or not session.options:
        omit += INDEPENDENT_OMIT
    else:
        overrides["option_id"] = {"enum": [o.id for o in session.options]}
        omit += ("backs",)
    return _evidence_tools(reply_schema(PersonaReply, overrides, omit=omit))


def _evidence_tools(schema: dict) -> dict:
    """The schema with the evidence request inlined (its tool an enum), or without its definition when the
    session has no evidence tools."""
    defs = schema.pop("$defs", {})
    request = defs.get("EvidenceRequest")
    spec = schema["properties"].get("evidence_requests")
    if spec is not None and request is not None:
        request.pop("title", None)
        request.pop("description", None)
        request["properties"]["tool"] = {"type": "string", "enum": list(EVIDENCE_TOOLS)}
        request["properties"]["query"].pop("minLength", None)  # an empty query is refused, not a repair
        spec["items"] = request
    return schema


def soft_checks(session: ConversationSession, cycle: int = 1):
    """A shortfall worth one repair, then kept with a visible note: too few bullets for the depth in the first cycle.
    A later cycle's reply adds at most one point to lists that already stand — its schema cannot hold the depth's
    count, so no repair could mend it (a persona that abstained before and answers now keeps what it wrote; the
    consult's result notes the shortfall)."""
    lo, _ = DEPTH_BULLETS[session.settings.depth]

    def check(reply: PersonaReply) -> str | None:
        short = [f for f in LISTS if len(getattr(reply, f)) < lo]
        if cycle >= 2 or not short:
            return None
        return f"give at least {lo} bullets in {', '.join(short)} ({session.settings.depth.value} depth)"
    return check


def soft_vote(options: list[VoteOption]):
    """A vote that names no option on the table (:func:`option_of`) is worth one repair; then the reply is kept
    without a vote (nothing is guessed, and the council is not rejected for it)."""
    def check(reply: PersonaReply) -> str | None:
        if options and option_of(reply.option_id, options) is None:
            return f"option_id must be one of {', '.join(o.id for o in options)} (the option's letter)"
        return None
    return check


def both_checks(*checks):
    """Soft checks together: every shortfall, in one repair."""
    def check(reply: PersonaReply) -> str | None:
        return "; ".join(said for said in (c(reply) for c in checks) if said) or None
    return check


_WORD = re.compile(r"[^\w]+")
# a letter or number at the start, with what marks it as one: a word before it, a bracket, a mark after it (Latin
# letters only: a Cyrillic "В" may be a look-alike of B or the third letter of a Russian А, Б, В list — no sure reading,
# so it names none and the soft-vote repair asks for the option's letter)
_LETTER = re.compile(r"^(option\s*[:#]?\s*|вариант\s*[:#№]?\s*)?([(\[#№]\s*)?([a-z]|\d{1,2})\s*"
                     r"([)\].:,\-–—])?(?:\s|$)", re.IGNORECASE)
ARTICLES = ("a", "i")  # English one-letter words: before words, prose ("a small team …", "i would wait")
_DRESS = "*_`'\"«»“”"  # markdown and quotes a model puts around its vote ("**B**", "`B`")


def _plain(text: str) -> str:
    return " ".join(_WORD.sub(" ", text.casefold()).split())


def option_of(said: str, options: list[VoteOption]) -> str | None:
    """The option a model's ``option_id`` names: its id in any case (``a``), with a word or brackets around it
    (``Option A``, ``(B)``, ``b: …``), its number in the list (``2``), its label (or description) as written, or
    a letter or number before words (``B because it is safer``, ``b wait``) when the words are not an option's label
    — that option or none, never one guessed from the words; a one-letter English word (``a``, ``i``) before words is
    prose ("a small team …" is the option so labelled, or none), and so is a capital ``A`` or ``I`` that names no
    option ("I would wait") or comes before an option's label ("A phased migration"). Markdown or quotes around it
    (``**B**``) are dress. None when it names none, or more than one."""
    text = said.strip().strip(_DRESS).strip()
    if not text or not options:
        return None
    ids = {o.id.upper(): o.id for o in options}
    if text.upper() in ids:
        return ids[text.upper()]
    m = _LETTER.match(text)
    token = m.group(3) if m is not None else ""
    if m is not None and (any(m.group(i) for i in (1, 2, 4)) or m.end() == len(text)):  # "Option B", "(b)", "b: …"
        return _numbered(token, options) if token.isdigit() else ids.get(token.upper())
    plain = _plain(text)
    exact = [o.id for o in options if plain in (_plain(o.label), _plain(o.description))]
    part = [o.id for o in options if f" {plain} " in f" {_plain(o.label)} "]  # words of an option's label
    if token.isascii() and token and not exact + part:  # a letter or number before words that are no label
        if token.isdigit() or token.lower() not in ARTICLES:  # "B because …", "b wait", "2 …": that one, or none
            return _numbered(token, options) if token.isdigit() else ids.get(token.upper())
        rest = f"{plain.partition(' ')[2]} "  # the words after it: an option's label there makes "A" an article
        if token in ids and not any(rest.startswith(f"{_plain(o.label)} ") for o in options):
            return ids[token]  # "A …" (a capital) is option A; "a …", "I would …", "A phased migration" are words
    if len(plain) < 3:
        return None
    if len(exact) == 1:
        return exact[0]
    within = [o.id for o in options if f" {plain} " in f" {_plain(o.label)} " or f" {_plain(o.label)} " in f" {plain} "]
    return within[0] if len(within) == 1 else None


def _numbered(token: str, options: list[VoteOption]) -> str | None:
    """The option at a 1-based place in the list, or None past its end."""
    return options[int(token) - 1].id if 1 <= int(token) <= len(options) else None


def check_reply(persona: PersonaContract, backs_ids: list[str] | None = None,
                 earlier: PersonaResponse | None = None):
    """Problems that make a reply unusable (one repair, then the persona abstains): empty lists with nothing to carry
    (``earlier``: the persona's previous usable response, whose lists a later cycle's empty ones keep), backing
    nobody on the list, and a Devil's Advocate without counterpoints (seed 000: it always gives them). A vote off the
    list, and too few bullets in the first cycle, are soft problems (:func:`soft_vote`, :func:`soft_checks`)."""
    def check(reply: PersonaReply) -> None:
        missing = [f for f in LISTS if not getattr(reply, f) and not (earlier and getattr(earlier, f))]
        if missing:
            raise ParseFailure(f"these lists must not be empty: {', '.join(missing)}")
        if persona.always_include and not any(x.strip() for x in [*reply.risks, *(earlier.risks if earlier else [])]):
            raise ParseFailure("as the Devil's Advocate, list your counterpoints in risks (what speaks against the "
                               "course the others favour)")
        if backs_ids and reply.backs.strip() not in backs_ids:
            raise ParseFailure(f"backs must be one of {', '.join(backs_ids)}")
    return check


def vote_of(response: PersonaResponse, option: str) -> Vote:
    return Vote(persona=response.persona, option_id=option, confidence=response.vote_confidence,
                rationale=response.change_reason.strip() or response.position,
                continue_debate=response.continue_debate, conclusion=response.position, cycle=response.cycle)


def usable_before(previous: list[PersonaResponse], name: str) -> PersonaResponse | None:
    """The persona's response of the cycle before (``previous``), if it was usable: the lists a later cycle's reply
    may leave empty (None: it abstained, or this is the first cycle — nothing to carry)."""
    return next((x for x in previous if x.persona == name and not x.abstained), None)


def response_of(s: ConversationSession, contract: PersonaContract, cycle: int, outcome, options: list[VoteOption],
                before: Vote | None, earlier: PersonaResponse | None = None) -> tuple[PersonaResponse, Vote | None]:
    """What the session keeps of one persona's reply: its response (the Devil's Advocate's advice with its
    counterpoints) and, in a voting cycle, its vote on the option it names (:func:`option_of`); an unusable reply
    is an abstention, a vote that names no option is kept without a vote — never a guessed one.

    In a later cycle each list is what the reply added (at most :data:`NEW_POINTS`) and then the persona's earlier
    items (``earlier``, its previous usable response: its own advice, without the counterpoints folded into it, and
    its risks), once each, up to the depth's most — so every reader (the digest, the options call, the chair, the
    consult results, the transcript) gets its whole stand at the depth's count, new points first. A changed
    position's note says which items came before the change. The cycle beside the options call learns that a vote
    moved only after the fact (:func:`~council.session.steps.debate.backed_vote`): there a reply that did not say it
    changed gets no note."""
    name = contract.name
    if outcome.reply is None:
        return PersonaResponse(**readable(outcome.readable), persona=name, cycle=cycle, confidence="low",
                               confidence_rationale="no usable reply", continue_debate=False, abstained=True,
                               note=f"{name} abstains: {outcome.note}", failure=outcome.failure), None
    reply = outcome.reply.model_dump()
    reply["vote_confidence"] = min(1.0, max(0.0, reply["vote_confidence"]))  # cycle 1's becomes the first vote's
    # (a percentage was read as one by the parser: ``parsing.share_of`` under the schema's 0-1 bounds)
    if options:
        reply["option_id"] = option_of(reply["option_id"], options) or ""
        moved = before is not None and bool(reply["option_id"]) and before.option_id != reply["option_id"]
        reply["changed_position"] = reply["changed_position"] or moved
    flag = reply["changed_position"] and not reply["change_reason"].strip()
    note = outcome.note or (REPAIRED_NOTE if outcome.repaired else None)
    carried = _carry(reply, earlier, DEPTH_BULLETS[s.settings.depth][1])
    if reply["changed_position"] and any(f in carried for f in LISTS) and earlier is not None:
        with speaking(s.settings.language):
            kept = t("persona.lists_kept", lists=", ".join(t(f"field.{f}").lower() for f in LISTS if f in carried),
                     cycle=earlier.cycle)
        note = "; ".join(x for x in (kept, note) if x)
    response = PersonaResponse(**reply, persona=name, cycle=cycle, conformity_flag=flag, note=note)
    vote = vote_of(response, response.option_id) if options and response.option_id else None
    return (with_counterpoints(response, s.settings.language) if contract.always_include else response), vote


def _carry(reply: dict, earlier: PersonaResponse | None, most: int) -> list[str]:
    """Each list of a later cycle's ``reply``: its new items, then the persona's ``earlier`` ones (its own advice,
    without the counterpoints: :func:`with_counterpoints` folds its risks again, once), each once, at most ``most``
    (risks :data:`RISKS_KEPT`); the lists that kept earlier items."""
    if earlier is None:
        return []
    stand = {"summary": earlier.summary, "advice": earlier.own_advice, "next_steps": earlier.next_steps,
             "risks": earlier.risks}
    for f in STANDING:  # not asked in a later cycle: its earlier ones
        reply[f] = reply[f] or list(getattr(earlier, f))
    carried = []
    for f in CARRIED:
        seen = {item_key(x) for x in reply[f]}
        more = []
        for x in stand[f]:
            key = item_key(x)
            if key not in seen:
                seen.add(key)
                more.append(x)
        if more:
            reply[f] = [*reply[f], *more][: RISKS_KEPT if f == "risks" else most]
            carried.append(f)
    return carried


ABSTAINED = "(abstained)"  # an abstention's position when nothing of its reply could be read
READABLE_LISTS = ("summary", "advice", "risks", "next_steps")
READABLE_ITEMS = 8  # items kept of each list (the smallest bound of a PersonaResponse's lists)


def readable(parts: dict | None) -> dict:
    """An abstention's position and lists: what could be read of its unusable reply (texts only, bounded), else the
    :data:`ABSTAINED` placeholder — kept for an answer when no advisor's reply could be used."""
    parts = parts or {}
    position = parts.get("position")
    out: dict = {"position": clip(position, TEXT) if isinstance(position, str) and len(position.strip()) >= 3
                 else ABSTAINED}
    for key in READABLE_LISTS:
        items = parts.get(key)
        out[key] = [clip(x, TEXT) for x in items if isinstance(x, str) and x.strip()][:READABLE_ITEMS] \
            if isinstance(items, list) else []
    return out


def with_counterpoints(response: PersonaResponse, language: str | None) -> PersonaResponse:
    """Seed 000: the Devil's Advocate's advice carries its counterpoints — its own advice, then one item per
    counterpoint (its risks, each once), worded in the session's ``language``. Composed here, once, when the reply
    is kept: the journal, the events, the snapshot (``council ask --json``), the transcript and the consult results
    all read the advice from the response; the risks reach the synthesis's risks (``synthesis.with_counterpoints``)."""
    points: list[str] = []
    seen: set[str] = set()
    for risk in (" ".join(x.split()) for x in response.risks):  # one line each: an item of a list
        key = item_key(risk)
        if risk and key not in seen:
            seen.add(key)
            points.append(risk)
    with speaking(language):
        folded = [t("persona.counterpoint", point=p) for p in points]
    return response.model_copy(update={"advice": [*response.advice, *folded], "counterpoints": points})
