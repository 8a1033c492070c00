"""The language wire: which language a session writes in, and the words of the buttons a chat client shows.

How a session's language is chosen is README's (*Your language*); it is journaled with the session's settings. Every
turn result carries it with :class:`ChatLabels`, so a client composes no text of its own.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from council.camel import CamelModel
from council.words import speaking, t

Language = Literal["en", "ru"]
LANGUAGE_DOC = ("The language the council writes in (`en`, `ru`); unset: the question's language, or `uiLanguage` "
                "when the question does not tell.")
UI_LANGUAGE_DOC = ("The client's display language (a BCP 47 tag such as `ru` or `en-US`), used when neither "
                   "`language` nor the question tells; an unsupported one means English.")


class ChatLabels(CamelModel):
    """The words of the chat's buttons and followups, in the session's language (print them as they are)."""

    skip: str = Field(description="The Skip button under a question.")
    skip_tooltip: str
    answer_tooltip: str = Field(description="The tooltip of a choice's button.")
    skip_question: str = Field(description="Followup: skip the open question.")
    skip_all: str = Field(description="Followup: skip every remaining question.")
    skip_all_button: str = Field(description="The Skip all button under a question.")
    skip_all_tooltip: str
    extend_button: str = Field(description="The button under a debate that reached its cycle limit.")
    extend: str = Field(description="Followup: extend the debate.")
    retry: str = Field(description="The button when every advisor failed.")
    retry_tooltip: str
    resume: str = Field(description="The button under a stopped session.")
    resume_tooltip: str
    cancel: str = Field(description="The button that cancels a stopped session.")
    cancel_tooltip: str
    resume_stopped: str = Field(description="Followup: resume the stopped session.")
    cancel_session: str = Field(description="Followup: cancel the session.")
    transcript: str = Field(description="Followup: show the transcript.")
    transcript_button: str = Field(description="The button under the answer that opens the full positions.")
    transcript_tooltip: str
    new_question: str = Field(description="Followup: ask a new question.")
    use_as_answer: str = Field(description="Button: the typed text answers the open question.")
    use_as_answer_tooltip: str
    start_new: str = Field(description="Button: the typed text starts a new session.")
    start_new_tooltip: str

    @classmethod
    def of(cls, language: str | None) -> ChatLabels:
        """The labels in ``language`` (English when it has no catalog)."""
        with speaking(language):
            return cls(**{name: t(f"label.{name}") for name in cls.model_fields})
