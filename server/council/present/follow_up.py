"""After the answer: the moderator's replies to follow-up questions, re-opened debates, and how both read in the
transcript. The moderator's reply streams like a persona's (``PersonaText``) under the moderator's heading."""

from __future__ import annotations

from council.present.live_render import Fields
from council.present.persona import PersonaText
from council.present.text import one_line
from council.session.state.entities import ConversationSession, FollowUp, UserInput
from council.words import t

FIELDS: Fields = (("answer", None),)  # what the moderator's FollowUpReply shows, in order


def live(moderator: str) -> PersonaText:
    """The streaming markdown of one follow-up answer."""
    return PersonaText(moderator, fields=FIELDS)


def answered(text: PersonaText, f: FollowUp) -> str:
    """What is left to show once the answer is recorded (all of it if nothing streamed), then the closing line."""
    return text.finish({"answer": f.answer}, closing())


def closing() -> str:
    """The line under the moderator's answer: how to have it debated, or start anew."""
    return t("follow_up.closing") + "\n\n"


def reopened(i: UserInput, limit: int) -> str:
    return f"{t('follow_up.reopened', text=one_line(i.text))}\n\n{t('follow_up.reopened_how', limit=limit)}\n\n"


def transcript_inputs(s: ConversationSession, after_cycle: int) -> str:
    """The inputs that re-opened the debate after ``after_cycle``, as a transcript section."""
    return "".join(f"{t('follow_up.reopened_heading')}\n\n> {one_line(i.text)}\n\n"
                   for i in s.user_inputs if i.after_cycle == after_cycle)


def transcript_follow_ups(s: ConversationSession) -> str:
    if not s.follow_ups:
        return ""
    out = [t("follow_up.heading") + "\n\n"]
    for f in s.follow_ups:
        out.append(t("follow_up.you_asked", question=one_line(f.question)) + "\n\n")
        out.append(PersonaText(s.moderator.name, fields=FIELDS).finish({"answer": f.answer}))
    return "".join(out)
