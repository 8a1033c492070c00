"""What people read when ``council mcp`` has no model to run a tool call on: the one error, with its fix.

Two cases: the MCP client offers no sampling and the server has no model of its own (no provider configured, no
local Ollama, the embedded model not installed), or the client refused its sampling requests. Each is said once,
instead of every advisor failing one by one, in the words of the catalogs (``sampling.*``): a consult's language
(its question's), English for a review.
"""

from __future__ import annotations

from council.words import t

CHAT_MODEL_NAME = "the MCP client's model"  # the seat of "whatever model the client picks" (no hint)


def no_model(ollama_url: str, embedded: str) -> str:
    """No sampling, no configured provider, no Ollama, no embedded model."""
    return t("sampling.no_model", url=ollama_url, embedded=embedded, fix=t("sampling.fix"))


def sampling_refused(said: str) -> str:
    """The client answered the council's sampling requests with an error."""
    return t("sampling.refused", said=said, fix=t("sampling.fix"))


def no_sampling_required() -> str:
    """``--provider client`` (the client's model only) and a client that offers no sampling."""
    return t("sampling.required", fix=t("sampling.fix"))
