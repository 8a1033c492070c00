"""The re-vote after /revisit finishes on the options it has (issue 31): "every advisor rejected (option_id must be
one of A, B)" and "Every advisor failed: the model's output was malformed" — the models wrote "Option B" (cut to
"Op"), a lowercase letter or the option's label. What a model writes is mapped to the options; a vote that names
none is kept without a vote, never rejected for the council."""

from __future__ import annotations

from unit_helpers import first_vote_rules, persona_reply

from council.protocol.methods import SessionOptions, TurnCommand, TurnParams
from council.session.state.entities import SessionStatus as S
from council.session.state.outputs import VoteOption

PROBLEM = "Should we split our monolith into services this quarter?"
ARCH, DEV, DEVIL = "Software Architect", "Senior Developer", "Devil's Advocate"
COUNCIL = [ARCH, DEV, DEVIL]
ANSWER = "This year"
OPTIONS = [VoteOption(id="A", label="Staged approach", description="Proceed in small, measured steps."),
           VoteOption(id="B", label="Wait", description="Postpone until more information is available.")]


def revote(**written: str) -> dict:
    """Cycle 1: everyone recommends A. The round that sees the revisited answer votes as each model wrote it."""
    later = [{"when": {"schema": "PersonaReply", "purpose": name, "anywhere": ANSWER},  # its repair too
              "reply": {**persona_reply(2, option="B", changed=True, change_reason="the answer changes it", who=name),
                        "option_id": said}}
             for name, said in written.items()]
    return {"rules": [*first_vote_rules(**{name: ("A", 0.9) for name in COUNCIL}), *later]}


async def revisited(h):
    res = await h.service.turn(TurnParams(text=PROBLEM, options=SessionOptions(personas=COUNCIL)))
    sid = res.session_id
    assert (await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.SKIP_ALL))).status is S.COMPLETED
    s = h.runtime(sid).session
    timeline = next(q for q in s.questions if "timeline" in q.question)
    before = timeline.times_asked  # 0: skipped with "skip all" before it was asked
    await h.service.turn(TurnParams(session_id=sid, command=TurnCommand.REVISIT, question_id=timeline.question_id))
    asked = h.of(sid, "question.asked")[-1]  # a new asking: the client's buttons for it are new ones
    assert asked["revisit"] and asked["question"]["timesAsked"] == before + 1
    done = await h.service.turn(TurnParams(session_id=sid, text=ANSWER))
    return done, s


async def test_the_revote_maps_what_the_models_wrote_to_the_options(make_service):
    h = make_service(revote(**{ARCH: "Option B", DEV: "b", DEVIL: "Wait"}))
    done, s = await revisited(h)
    assert done.status is S.COMPLETED, done.message
    last = {v.persona: v.option_id for v in s.votes_in(s.final_round)}
    assert last == {ARCH: "B", DEV: "B", DEVIL: "B"} and s.tally.winner == "B"
    assert not [p for p in h.of(s.session_id, "error")], h.of(s.session_id, "error")


async def test_a_vote_naming_no_option_is_kept_without_a_vote_and_the_council_answers(make_service):
    h = make_service(revote(**{ARCH: "Option B", DEV: "the cloud one", DEVIL: "Option Z"}))
    done, s = await revisited(h)
    assert done.status is S.COMPLETED and s.synthesis is not None, done.message
    last = {v.persona: v.option_id for v in s.votes_in(s.final_round)}
    assert last == {ARCH: "B"}  # the others gave positions but named no option on the table: no guessed vote
    kept = {x.persona for x in s.responses if x.cycle == s.final_round and not x.abstained}
    assert kept == set(COUNCIL)


def test_option_of_reads_ids_letters_numbers_and_labels():
    from council.session.steps.persona_reply import option_of

    for said, expected in (("A", "A"), ("b", "B"), (" Option A ", "A"), ("option b.", "B"), ("(B)", "B"),
                           ("B: Wait", "B"), ("2", "B"), ("Option 1", "A"), ("Staged approach", "A"),
                           ("wait", "B"), ("Postpone until more information is available.", "B"),
                           ("Вариант B", "B"), ("the Wait option", "B")):
        assert option_of(said, OPTIONS) == expected, said
    for said in ("", "C", "Option Z", "3", "something else", "ai"):
        assert option_of(said, OPTIONS) is None, said


PHASED = [VoteOption(id="A", label="Staged approach", description="Proceed in small, measured steps."),
          VoteOption(id="B", label="a pilot team first", description="One team tries it before the rest."),
          VoteOption(id="C", label="A small team does it in phases", description="Few people, one part at a time."),
          VoteOption(id="D", label="Wait", description="Postpone until more information is available.")]


def test_an_article_is_no_letter_and_a_vote_written_as_a_label_is_that_label():
    """Issue 34: a model without a grammar writes its vote as prose; "a small team does it in phases" was read as
    option A (the article), whichever option it named or none, and "i would wait" named no option at all."""
    from council.session.steps.persona_reply import option_of

    for said, expected in (("a small team does it in phases", "C"), ("A small team does it in phases", "C"),
                           ("A small team does it in phases.", "C"), ("a small team", "C"),
                           ("a pilot team first", "B"), ("A pilot team first", "B"), ("i would wait", "D"),
                           ("a pilot team first, since it is cheap", "B"), ("I would wait", "D")):
        assert option_of(said, PHASED) == expected, said
    for said in ("a phased migration", "a big bang rewrite", "i am not sure"):
        assert option_of(said, PHASED) is None, said  # the soft-vote repair asks once rather than a vote guessed


def test_a_letter_marked_or_written_before_words_is_still_that_letter():
    """A letter with a mark, a word or brackets around it is a letter in any case; a capital letter written before
    words is a letter when the words are not an option's label ("B because it is safer")."""
    from council.session.steps.persona_reply import option_of

    for said, expected in (("A", "A"), ("a", "A"), ("Option B", "B"), ("option b", "B"), ("(B)", "B"), ("[C]", "C"),
                           ("(c) it is the smallest step", "C"), ("B: Wait", "B"), ("b: a pilot", "B"),
                           ("B - Wait", "B"), ("B) wait", "B"), ("b) wait", "B"), ("B. Wait", "B"), ("a.", "A"),
                           ("2", "B"), ("Вариант B", "B"), ("B wait", "B"), ("B Wait until after the audit", "B"),
                           ("B because it is safer", "B"), ("C because a small team is enough", "C"),
                           ("D because the Staged approach is too early", "D"), ("Staged approach", "A"),
                           ("Wait", "D")):
        assert option_of(said, PHASED) == expected, said
    for said in ("E because it is safer", "Option E", "(e)", "5"):
        assert option_of(said, PHASED) is None, said


def test_a_letter_that_is_no_english_word_is_a_letter_in_either_case_and_never_a_guess_from_its_words():
    """Only "a" and "i" are one-letter English words: "b because it is safer", "d because the staged approach is too
    early" and "b wait" are votes for B, D and B in lowercase as in capitals (read as prose they cost a repair and
    the vote, or became a wrong one: "d because the Staged approach …" was A, "b wait" was D, Wait's label); a
    letter or number that names no option on the table names none, whatever words follow it."""
    from council.session.steps.persona_reply import option_of

    for said, expected in (("b because it is safer", "B"), ("c because a small team is enough", "C"),
                           ("d because the staged approach is too early", "D"), ("b wait", "B"), ("b\nwait", "B"),
                           ("B\nwait", "B"), ("a small team does it in phases", "C"), ("i would wait", "D")):
        assert option_of(said, PHASED) == expected, said
    for said in ("E because the Staged approach is too early", "e because the staged approach is too early",
                 "5 because the staged approach is too early", "h wait"):
        assert option_of(said, PHASED) is None, said


def test_a_vote_dressed_in_markdown_or_quotes_is_that_letter_and_a_cyrillic_letter_names_none():
    """A model without a grammar writes "**B**", "`B`", "\\"B\\"", "Option: B", "#2": each is that option (each named
    none: a repair, then no vote). A Cyrillic letter names none: "В" may be a look-alike of B or the third letter of a
    Russian А, Б, В list, so the soft-vote repair asks for the letter rather than guess; Russian prose stays prose."""
    from council.session.steps.persona_reply import option_of

    for said, expected in (("**B**", "B"), ("**Option B**", "B"), ("`B`", "B"), ('"B"', "B"), ("Option: B", "B"),
                           ("#2", "B"), ("Option #2", "B"), ("Вариант B", "B")):
        assert option_of(said, PHASED) == expected, said
    for said in ("\u0412", "\u0432", "\u0421", "Вариант \u0412", "(\u0412)", "\u0410.", "Б", "в ближайший квартал",
                 "с осторожностью", "Вариант с пилотной командой", "**E**", "#7"):
        assert option_of(said, PHASED) is None, said


def test_a_capital_article_before_an_options_label_is_that_label():
    """"A phased migration" is B's label with its article at the start of a sentence, as "a phased migration" is:
    B, not A (only a label written whole was read so; with the label after the article it was option A)."""
    from council.session.steps.persona_reply import option_of

    options = [VoteOption(id="A", label="Full rewrite", description="Rewrite it at once."),
               VoteOption(id="B", label="Phased migration", description="Move one part at a time."),
               VoteOption(id="C", label="Wait", description="Postpone until more is known.")]
    for said, expected in (("A phased migration", "B"), ("a phased migration", "B"), ("A full rewrite", "A"),
                           ("A phased migration, since it is cheaper", "B"), ("A", "A"),
                           ("A because a phased migration is too slow", "A"), ("I would wait", "C")):
        assert option_of(said, options) == expected, said
    assert option_of("A phased migration or a full rewrite", options) is None  # two labels: the repair asks
