"""Server → client request ``council/complete``: the client completes a prompt with its own model (how VS Code
lends the chat's model to the council); docs/protocol.md says how it streams and how it is cancelled."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from council.camel import CamelModel
from council.providers.base import ChatMessage

CompleteFailureReason = Literal["model_unavailable", "no_consent", "model_failed"]


class CompleteParams(CamelModel):
    session_id: str
    stream_id: str
    purpose: str = Field(description="Who asks: a persona name, `clarifier`, `moderator` or `synthesizer`.")
    model_id: str | None = Field(None, description="The client model to answer with: an `id` from "
                                                   "`ClientCapabilities.models` (absent: the chat's model).")
    messages: list[ChatMessage]
    json_schema: dict[str, Any] | None = Field(None, description="The reply must be JSON matching this schema.")
    max_tokens: int = 1024
    temperature: float = 0.7


class CompleteResult(CamelModel):
    text: str
    model: str | None = None


class CompleteDelta(CamelModel):
    stream_id: str
    text: str


class CompleteErrorDetails(CamelModel):
    """``data.details`` of the JSON-RPC error a client answers ``council/complete`` with when it could not use the
    model it was asked for (``data`` is the usual ``{code, message, details}``). ``model_unavailable``: no such
    model any more; ``no_consent``: the user did not allow the extension to use it (ask once per model, never per
    call); ``model_failed``: the model refused or failed. The sidecar then seats that model's personas on the chat's
    model for the rest of the session (one ``seat.fellBack`` event) and asks again there."""

    reason: CompleteFailureReason
    model_id: str | None = None
