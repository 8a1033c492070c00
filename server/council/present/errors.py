"""A refused or failed request as a person or an agent reads it: what failed, why, and what to do next — one or
two sentences, composed here for every error the sidecar sends (``ErrorData.text``). The agent tools of VS Code
hand it to the agent instead of the raw error object."""

from __future__ import annotations

from typing import Any

from council.present.text import one_line

WHAT = {
    "validation": "The council refused the request",
    "permission": "The council was not allowed to do this",
    "internal": "The council failed",
}
TODO = {
    "validation": "Correct the request and call again.",
    "permission": "Do not retry as is: ask the user to allow it (a setting, a trusted workspace) or do without it.",
    "internal": "Calling again may work; if it fails again, the user finds the details in “Council: Show Logs”.",
}
BY_REASON = {
    "cancelled": "It was cancelled; call again only if the result is still needed.",
    "expired": "The session is gone; start a new one with the question.",
    "no_consent": "Do not call again until the user has allowed the model (or picked another one).",
    "shutdown": "The council is shutting down; call again once it has restarted.",
    "too_large": "Send less and call again.",
    "too_long": "Send less and call again.",
}
MAX_FIELDS = 3
MAX_VALID = 20


def _sentence(text: str) -> str:
    text = one_line(text).strip()
    return text if not text or text[-1] in ".!?" else text + "."


def _fields(details: dict[str, Any]) -> str:
    fields = details.get("fields")
    if not isinstance(fields, dict) or not fields:
        return ""
    named = [f"`{k}`" for k in list(fields)[:MAX_FIELDS]]  # the message says what is wrong with them
    more = f" and {len(fields) - MAX_FIELDS} more" if len(fields) > MAX_FIELDS else ""
    return "Fix " + ", ".join(named) + more + " and call again."


def _valid(details: dict[str, Any]) -> str:
    valid = details.get("valid")
    if not isinstance(valid, list) or not valid:
        return ""
    more = f" and {len(valid) - MAX_VALID} more" if len(valid) > MAX_VALID else ""
    return f"Valid: {', '.join(str(v) for v in valid[:MAX_VALID])}{more}."


def error_text(code: str, message: str, details: dict[str, Any] | None = None) -> str:
    """``"The council refused the request: <why>. <what to do>"``, from the error's code, message and details."""
    details = details or {}
    why = _sentence(message) or "no reason was given."
    reason = details.get("reason")
    todo = (BY_REASON.get(reason) if isinstance(reason, str) else None) or _fields(details) or TODO.get(code, "")
    return " ".join(part for part in (f"{WHAT.get(code, 'The council failed')}: {why}", todo, _valid(details))
                    if part)
