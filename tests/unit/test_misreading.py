"""The new-problem detector: realistic answers and fresh questions typed while a clarifying question is open.

The questions are the kind the moderator asks for the shipped councils (engineering and business): goal, timeline,
team, budget, audience, risk, scope, policy, security, and one in Russian. Each case is a turn a user might type.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from council.session.state.entities import Choice, ClarificationQuestion, Participant, ParticipantType
from council.session.steps.intents import content_stems, looks_like_new_problem, overlap

MODERATOR = Participant(type=ParticipantType.SYSTEM, name="Moderator")


def question(text: str, choices: list[str], default: str) -> ClarificationQuestion:
    return ClarificationQuestion(
        session_id="s", round_number=1, sequence_in_round=1, question=text, target_ambiguity="goal",
        asked_by=MODERATOR, choices=[Choice(label=c, value=c) for c in choices], default_assumption=default,
        created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))


GOAL = question("What is the main goal behind splitting the monolith?", ["Cut costs", "Ship faster", "Reduce risk"],
                "The main goal is to ship faster without raising risk.")
TIMELINE = question("What timeline are you working with?", ["This quarter", "This year"],
                    "The timeline is this quarter.")
TEAM = question("How large is the engineering team that would own the new services?",
                ["Under 10", "10-50", "Over 50"], "A team of 10 to 50 engineers.")
BUDGET = question("What budget do you have for the migration, roughly?",
                  ["Under 50k", "50k-250k", "More than 250k"], "A moderate budget of 50k-250k.")
AUDIENCE = question("Who is the pricing change aimed at: new customers or existing ones?",
                    ["New customers", "Existing customers", "Both"], "Both new and existing customers.")
DOWNTIME = question("How much downtime can the business tolerate during the cut-over?",
                    ["None", "A few minutes", "An hour or more"], "A few minutes of downtime is acceptable.")
SCOPE = question("Which part of the product is in scope for the redesign?", ["Onboarding", "Billing", "The whole app"],
                 "The redesign covers onboarding only.")
POLICY = question("Is the return-to-office policy meant for all teams or only some?",
                  ["All teams", "Engineering only", "Customer-facing teams"], "The policy applies to all teams.")
TOKENS = question("Where will the tokens be stored on the client?",
                  ["Browser local storage", "HttpOnly cookies", "Mobile keychain"], "Tokens live in HttpOnly cookies.")
SROK = question("Какой срок у проекта?", ["Этот квартал", "Этот год"], "Срок — этот квартал.")

ANSWERS = [  # typed answers: recorded as the answer, never questioned
    (GOAL, "Cut costs"),
    (GOAL, "2"),
    (GOAL, "ship faster, mostly"),
    (GOAL, "Mostly we want to reduce risk after last month's outages in checkout."),
    (GOAL, "Honestly I am not sure, maybe reduce risk since we had outages?"),
    (GOAL, "skip the migration if it's risky, reduce risk first"),
    (GOAL, "yes"),
    (TIMELINE, "This quarter?"),
    (TIMELINE, "By the end of next quarter"),
    (TIMELINE, "Is end of year too late for that?"),
    (TIMELINE, "extend"),
    (TIMELINE, "retry"),
    (TIMELINE, "Does 'this quarter' mean calendar or fiscal quarter for you?"),
    (TEAM, "About 25 engineers across three squads"),
    (TEAM, "Does it matter? We have 12 engineers, half of them junior."),
    (TEAM, "Why does team size matter for the split?"),
    (TEAM, "Should we count contractors? We have 8 staff and 4 contractors."),
    (BUDGET, "We can spend around 100k this year, more next year if it works."),
    (BUDGET, "Should we even spend money on this? Our budget is basically zero."),
    (BUDGET, "Can we keep it under 50k?"),
    (AUDIENCE, "Existing customers on the legacy annual plans, around 400 accounts."),
    (AUDIENCE, "Both, but existing customers matter more to us"),
    (DOWNTIME, "None, it's a payments system."),
    (DOWNTIME, "No downtime at all, can we do a blue-green cutover?"),
    (SCOPE, "Onboarding first, then billing if it goes well"),
    (SCOPE, "What do you mean by redesign — visual refresh or new flows?"),
    (SCOPE, "The whole app? That sounds like too much for one quarter."),
    (POLICY, "Only engineering for now, sales stays remote"),
    (TOKENS, "HttpOnly cookies, we already use them for the session"),
    (TOKENS, "Why not both cookies and keychain, depending on the client?"),
    (SROK, "Этот квартал"),
    (SROK, "До конца года, но лучше раньше"),
    (SROK, "Скорее этот год, если успеем"),
]

NEW_PROBLEMS = [  # fresh problems typed while a question is open: confirmed before anything is recorded
    (TIMELINE, "Should we use Kafka or RabbitMQ for our event bus?"),
    (TIMELINE, "Our CI pipeline takes forty minutes; any ideas how to make it faster?"),
    (GOAL, "How do we hire senior engineers faster in a tight market?"),
    (GOAL, "We're thinking about moving from Heroku to AWS, what do you think?"),
    (BUDGET, "What's the best way to onboard enterprise customers without a sales team?"),
    (DOWNTIME, "new question: should we adopt Rust?"),
    (DOWNTIME, "Another question: how do we price the API for partners?"),
    (TEAM, "Is it worth moving our CI from Jenkins to GitHub Actions this year?"),
    (SCOPE, "Should we raise prices for the pro plan before the holiday season?"),
    (SCOPE, "Which database should we pick for analytics, ClickHouse or BigQuery?"),
    (POLICY, "What's the fairest way to run performance reviews for remote staff?"),
    (TOKENS, "Can we drop support for Internet Explorer 11 in the admin console"),
    (AUDIENCE, "How do we reduce churn among small business customers?"),
    (SROK, "Стоит ли переписывать наш бэкенд на Go?"),
    (SROK, "Как лучше организовать дежурства в маленькой команде?"),
    (SROK, "новый вопрос: как нам нанять дизайнера?"),
]


@pytest.mark.parametrize(("q", "text"), ANSWERS, ids=[t for _, t in ANSWERS])
def test_answers_are_answers(q, text):
    assert looks_like_new_problem(text, q) is False


@pytest.mark.parametrize(("q", "text"), NEW_PROBLEMS, ids=[t for _, t in NEW_PROBLEMS])
def test_new_problems_are_noticed(q, text):
    assert looks_like_new_problem(text, q) is True


def test_the_same_question_is_an_answer_to_one_and_new_to_another():
    text = "How do we cut our cloud costs without slowing down delivery?"
    assert looks_like_new_problem(text, TIMELINE) is True
    assert looks_like_new_problem(text, GOAL) is False  # it talks about what was asked (costs, delivery speed)


def test_overlap_counts_content_words_by_stem():
    assert content_stems("The teams and the team") == {"team"}
    assert overlap("existing customers in Europe", AUDIENCE) == pytest.approx(2 / 3)
    assert overlap("the and of", AUDIENCE) == 1.0  # nothing to compare: never a new problem on that ground
