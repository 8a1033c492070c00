"""The seating wire: the chat models a client can serve (``ClientCapabilities.models``), the seating policy
(``SessionOptions.seating``) and the model calls a session used. How seats are chosen, journaled and fall back is
in docs/protocol.md (``seating.decided``, ``seat.fellBack``, ``CompleteErrorDetails``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from council.camel import CamelModel
from council.session.state.entities import ConversationSession

ModelId = Annotated[str, StringConstraints(min_length=1, max_length=300)]
PersonaKey = Annotated[str, StringConstraints(min_length=1, max_length=80)]
SeatingPolicy = Literal["diverse", "chat"] | dict[PersonaKey, ModelId]
SEATING_DOC = ("How personas are seated on the offered models: `diverse` (the default when the models span two or "
               "more model families: seats spread across them, the chat's model included), `chat` (every seat on the "
               "chat's model), or a map persona name (or id) → model id (others on the chat's model). A map's model "
               "may also be an agent CLI's, in `council ask --models` syntax `<cli>:<model>` (`claude:sonnet`, "
               "`codex:gpt-5.1-codex`; `claude:` for the CLI's default model): that persona's calls run the CLI in the "
               "sidecar, headless, on the user's sign-in. The map is a preference: an entry naming no persona, a "
               "model that is not offered, or a CLI that is not on PATH, is not refused but listed in "
               "`seating.decided` (`seating.misses`, and a line saying so); one naming a persona who is not on this "
               "council does not apply. A CLI seat that cannot answer (not signed in, out of quota) falls back to the "
               "chat's model at its first call (`seat.fellBack`, its line naming the fix). The moderator, the "
               "clarifier and the chair always use the chat's model.")


class ClientModel(CamelModel):
    """A chat model the client can serve ``council/complete`` with (VS Code: a ``LanguageModelChat``)."""

    id: str = Field(min_length=1, max_length=300)
    vendor: str = Field("", max_length=100)
    family: str = Field("", max_length=100)
    name: str = Field("", max_length=300, description="What people read (defaults to the id).")


class CallUsage(CamelModel):
    """Model calls a session made, per model (its label: a client model's name, else `provider:model`)."""

    calls: int = Field(ge=0, description="Every call made, retries included.")
    by_model: dict[str, int] = Field(default_factory=dict)
    cancelled: int = Field(0, ge=0, description="Of `calls`, those sent and then cancelled (not needed any more, or "
                                                "stopped): counted on the model that received them, not failed.")
    failed: int = Field(0, ge=0, description="Of `calls`, those that failed (the model gave no reply).")
    max_calls: int | None = Field(None, description="The most the session said it would spend (all phases).")
    budget: int | None = Field(None, description="The session's `maxModelCalls`, if any.")
    markdown: str = Field("", description="The line to show under the council's answer: the calls against what it "
                                          "said, per model that answered (empty: no calls).")

    @classmethod
    def of(cls, s: ConversationSession) -> CallUsage:
        plans = s.call_plans
        m = s.metadata
        return cls(calls=m.calls, by_model=dict(m.calls_by_model), cancelled=sum(m.cancelled_by_model.values()),
                   failed=sum(m.failed_by_model.values()),
                   max_calls=plans[-1].call_limit if plans else None, budget=s.settings.max_model_calls)
