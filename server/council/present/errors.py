"""A refused or failed request as a person or an agent reads it (``ErrorData.text``): what failed, why, and what to
do next, in the language of the session the request was about (:attr:`council.errors.CouncilError.language`). Also
the one error ``council mcp`` gives when it has no model for a tool call (``sampling.*``), said once with its fix.
"""

from __future__ import annotations

from typing import Any

from council.present.text import one_line
from council.words import known, speaking, t

MAX_FIELDS = 3
MAX_VALID = 20
CODES = ("validation", "permission", "internal")


def _sentence(text: str) -> str:
    text = one_line(text).strip()
    return text if not text or text[-1] in ".!?" else text + "."


def _more(total: int, shown: int) -> str:
    return t("error.more", count=total - shown) if total > shown else ""


def _fields(details: dict[str, Any]) -> str:
    fields = details.get("fields")
    if not isinstance(fields, dict) or not fields:
        return ""
    named = [f"`{k}`" for k in list(fields)[:MAX_FIELDS]]  # the message says what is wrong with them
    return t("error.fix", fields=", ".join(named), more=_more(len(fields), MAX_FIELDS))


def _valid(details: dict[str, Any]) -> str:
    valid = details.get("valid")
    if not isinstance(valid, list) or not valid:
        return ""
    return t("error.valid", values=", ".join(str(v) for v in valid[:MAX_VALID]), more=_more(len(valid), MAX_VALID))


def error_text(code: str, message: str, details: dict[str, Any] | None = None, language: str | None = None) -> str:
    """``"The council refused the request: <why>. <what to do>"``, from the error's code, message and details, in
    ``language`` (English when it has no catalog)."""
    with speaking(language):
        details = details or {}
        kind = code if code in CODES else "internal"
        why = _sentence(message) or t("error.no_reason")
        reason = details.get("reason")
        by_reason = t(f"error.reason.{reason}") if isinstance(reason, str) and known(f"error.reason.{reason}") else ""
        todo = by_reason or _fields(details) or (t(f"error.todo.{code}") if code in CODES else "")
        head = t("error.head", what=t(f"error.what.{kind}"), why=why)
        return " ".join(part for part in (head, todo, _valid(details)) if part)


def tool_error_text(code: str, message: str, language: str | None = None) -> str:
    """The first line of a failed MCP tool call: ``"Council validation error: <why>"``."""
    with speaking(language):
        return t("error.tool", code=code, message=message)


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
