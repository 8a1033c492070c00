"""The council's answer as the chair writes it: the answer's heading, then the recommendation as it streams
(``answer.delta``); once the answer is recorded, ``final.answer`` adds what the stream has not shown.

What streams is exactly how the final answer (``council.present.answer.final_answer``) begins, so the two read as
one. When they differ — the reply had to be repaired, the chair failed and the answer was consolidated from the
advisors' replies — the final answer is given whole, from its heading, after what streamed. An answer that opens
with what a revisit changed does not stream (that block comes before the recommendation).
"""

from __future__ import annotations

from council.present.live_render import Fields, LiveRenderer
from council.session.state.entities import ConversationSession
from council.words import t

FIELDS: Fields = (("recommendation", None),)  # what of the chair's SynthesisReply streams


def streams(session: ConversationSession) -> bool:
    """Whether the answer begins with its recommendation (not after a revisit's what-changed block)."""
    v = session.open_revisit
    return v is None or not v.answer


class AnswerStream:
    """The streamed head of one answer: each piece appended once."""

    def __init__(self) -> None:
        self.live = LiveRenderer(None, FIELDS)
        self.sent = ""

    def feed(self, chunk: str) -> str:
        text = self.live.feed(chunk)
        if not text.strip() and not self.sent:
            return ""
        if not self.sent:
            text = f"{t('answer.heading')}\n\n" + text
        self.sent += text
        return text

    @property
    def text(self) -> str:
        """The recommendation shown so far, as plain text."""
        return self.live.sent.strip()

    def rest(self, final_markdown: str) -> str:
        """What ``final.answer`` shows: the final answer past what streamed, or all of it when they differ."""
        if final_markdown.startswith(self.sent):
            return final_markdown[len(self.sent):]
        return ("\n\n" if self.sent and not self.sent.endswith("\n\n") else "") + final_markdown
