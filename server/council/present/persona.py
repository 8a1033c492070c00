"""A persona's contribution as people read it: in the chat (and ``council ask``) one compact line per cycle,
:class:`PersonaLine` — the council's answer is what the reader is there for, so nothing long stands above it; in the
transcript and the moderator's follow-up answers the full contribution, :class:`PersonaText`. Both follow
``LiveRenderer`` (a persona's JSON reply rendered as append-only markdown while it streams).
"""

from __future__ import annotations

from council.personas.names import shown
from council.present.debate import option_name
from council.present.failures import failed
from council.present.live_render import FIELDS, Fields, Limits, LiveRenderer
from council.present.text import clause, one_line, percent
from council.session.state.outputs import CUT_OFF_NOTE, REPAIRED_NOTE, PersonaResponse, Vote, VoteOption
from council.words import t

POSITION_FIELDS: Fields = (("position", None),)
POSITION_CHARS = 160  # a compact line: the rest of a long position is in the transcript


def heading(persona: str, model: str | None = None) -> str:
    """A persona's heading; it names the model it spoke with when the council sits on more than one."""
    return f"#### {shown(persona)} · _{model}_\n\n" if model else f"#### {shown(persona)}\n\n"


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
            return self._open(f"{no_reply(response)}\n\n", force=True)
        return self.finish({k: getattr(response, k) for k, _ in FIELDS}, footer(response))

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


class PersonaLine:
    """One persona in one cycle as one list item: ``- **name** · _model_ — position · 🗳️ **A** 80% · medium
    confidence``. The position streams into the item (line breaks become spaces, so it never breaks); the vote and
    the confidence end it when the reply is complete. Each piece is appended once, and every item ends with a blank
    line, so whatever follows starts a block of its own."""

    def __init__(self, persona: str, limits: Limits | None = None, model: str | None = None) -> None:
        self.persona = persona
        self.model = model
        self.live = LiveRenderer(limits, POSITION_FIELDS)
        self.started = False
        self.closed = False
        self.shown = 0  # characters of the position shown so far
        self.space = ""  # whitespace held back from the end of what was shown

    def feed(self, chunk: str) -> str:
        return self._position(self.live.feed(chunk))

    def complete(self, response: PersonaResponse, options: list[VoteOption] | None = None) -> str:
        """The rest of the line once the reply is parsed; its vote when the reply carries one on ``options``."""
        if self.closed:
            return ""
        if response.abstained:
            return self._end(no_reply(response))
        rest = self._position(self.live.finish({"position": response.position})).rstrip()
        tail = []
        choice = next((o for o in options or [] if response.option_id and o.id == response.option_id), None)
        if choice is not None:
            tail.append(f"🗳️ **{choice.id}** {percent(response.vote_confidence)}")
        tail.append(t("persona.line_confidence", level=t(f"level.{response.confidence}")))
        return rest + self._end(" · ".join(tail))

    def close(self) -> str:
        """Ends an item whose reply never completed (the call failed or the cycle was dropped)."""
        if not self.started or self.closed:
            return ""
        self.closed = True
        return "\n\n"

    def _head(self) -> str:
        model = f" · _{self.model}_" if self.model else ""
        return f"- **{shown(self.persona)}**{model} — "

    def _position(self, text: str) -> str:
        text = self.space + text.replace("\r", " ").replace("\n", " ")
        if self.closed or not text.strip():
            self.space = " " if text and self.started else ""
            return ""
        stripped = text.rstrip()  # trailing space waits for the text after it (the item's end follows without it)
        self.space = " " if len(stripped) < len(text) else ""
        text = stripped
        if self.shown > POSITION_CHARS:  # cut already
            return ""
        room = POSITION_CHARS - self.shown
        if len(text) > room:
            text = text[:room].rstrip() + "…"
            self.shown = POSITION_CHARS + 1
        else:
            self.shown += len(text)
        if self.started:
            return text
        self.started = True
        return self._head() + text.lstrip()

    def _end(self, text: str) -> str:
        """The end of the item: after the position (`` · text``), or the whole item when nothing was shown."""
        start = " · " if self.started else self._head()
        self.started = self.closed = True
        return f"{start}{text}\n\n"


def no_reply(response: PersonaResponse) -> str:
    """Why an abstaining persona has no reply, in the reader's language: its model call's failure, or (none: its
    reply stayed unusable after its repair) that it abstains. The engine's ``note`` says so in English, with the
    parser's words, for the logs and the session's data: never shown as it is."""
    if response.failure is not None:
        return f"_{one_line(failed(shown(response.persona), response.failure).replace('**', ''))}_"
    return f"_{t('persona.abstains', persona=shown(response.persona))}_"


ENGINE_NOTES = {CUT_OFF_NOTE: "persona.cut_off", REPAIRED_NOTE: "persona.repaired"}  # the engine's fixed English notes


def note_words(note: str) -> str:
    """A response's note in the reader's language: the engine's fixed notes (a repair, a cut-off reply kept), stored
    in English for the logs and the data, are said from the catalog; the rest was written in the session's."""
    for english, key in ENGINE_NOTES.items():
        note = note.replace(english, t(key))
    return note


def footer(r: PersonaResponse) -> str:
    lines = []
    if r.changed_position:
        why = clause(r.change_reason) if r.change_reason.strip() else t("persona.no_new_argument")
        lines.append(t("persona.changed", why=why) + (t("persona.conformity") if r.conformity_flag else ""))
    if r.note:
        lines.append(t("persona.note", note=one_line(note_words(r.note))))
    lines.append(t("persona.confidence", level=t(f"level.{r.confidence}"), why=one_line(r.confidence_rationale)))
    return "\n\n".join(lines) + "\n\n"


def vote(v: Vote, options: list[VoteOption], model: str | None = None) -> str:
    choice = option_name(options, v.option_id)
    who = f"**{shown(v.persona)}** (_{model}_)" if model else f"**{shown(v.persona)}**"
    line = t("persona.votes", who=who, choice=choice, share=percent(v.confidence))
    why = one_line(v.rationale)
    if why and why != one_line(v.conclusion):
        line += f" — {why}"
    return line + "\n\n"
