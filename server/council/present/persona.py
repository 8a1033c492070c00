"""A persona's contribution as people read it: a heading once, the streamed text, what remains at the end, and
its vote.

The live part follows ``LiveRenderer`` (a persona's JSON reply rendered as append-only markdown while it streams);
:class:`PersonaText` adds the heading the first time the persona has something to show and, when the reply is
complete, only what the stream has not shown yet.
"""

from __future__ import annotations

from council.present.failures import failed
from council.present.text import one_line, percent
from council.session.live_render import FIELDS, Fields, Limits, LiveRenderer
from council.session.outputs import PersonaResponse, Vote, VoteOption
from council.words import t

SHOWN_FIELDS = ("position", "summary", "advice", "risks", "next_steps")


def heading(persona: str, model: str | None = None) -> str:
    """A persona's heading; it names the model it spoke with when the council sits on more than one."""
    return f"#### {persona} · _{model}_\n\n" if model else f"#### {persona}\n\n"


class PersonaText:
    """The markdown of one persona in one cycle (or of the moderator's answer to a follow-up: ``fields`` says
    which reply fields to show), streamed then completed (each piece appended once)."""

    def __init__(self, persona: str, limits: Limits | None = None, fields: Fields = FIELDS,
                 model: str | None = None) -> None:
        self.persona = persona
        self.model = model
        self.live = LiveRenderer(limits, fields)
        self.started = False

    def feed(self, chunk: str) -> str:
        return self._open(self.live.feed(chunk))

    def complete(self, response: PersonaResponse) -> str:
        """Everything still to show once the reply is parsed: the rest of the text, then its footer."""
        if response.abstained:
            said = failed(response.persona, response.failure).replace("**", "") if response.failure else None
            return self._open(f"_{one_line(said or response.note or t('persona.no_reply'))}_\n\n", force=True)
        return self.finish({k: getattr(response, k) for k in SHOWN_FIELDS}, footer(response))

    def finish(self, values: dict[str, object], tail: str = "") -> str:
        """What is still to show of a complete reply whose shown fields hold ``values``, then ``tail``."""
        return self._open(self.live.finish(values) + tail, force=True)

    def _open(self, text: str, *, force: bool = False) -> str:
        if not text.strip() and not force:
            return ""
        if not self.started:
            self.started = True
            return heading(self.persona, self.model) + text
        return text


def footer(r: PersonaResponse) -> str:
    lines = []
    if r.changed_position:
        why = one_line(r.change_reason) if r.change_reason.strip() else t("persona.no_new_argument")
        lines.append(t("persona.changed", why=why) + (t("persona.conformity") if r.conformity_flag else ""))
    if r.note:
        lines.append(t("persona.note", note=one_line(r.note)))
    lines.append(t("persona.confidence", level=t(f"level.{r.confidence}"), why=one_line(r.confidence_rationale)))
    return "\n\n".join(lines) + "\n\n"


def vote(v: Vote, options: list[VoteOption], model: str | None = None) -> str:
    label = next((o.label for o in options if o.id == v.option_id), "")
    choice = f"{v.option_id} · {one_line(label)}" if label else v.option_id
    who = f"**{v.persona}** (_{model}_)" if model else f"**{v.persona}**"
    line = t("persona.votes", who=who, choice=choice, share=percent(v.confidence))
    why = one_line(v.rationale)
    if why and why != one_line(v.conclusion):
        line += f" — {why}"
    return line + "\n\n"
