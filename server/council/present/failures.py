"""Model failures in plain words: one phrase per kind of failure (``council.session.failure``), written only here.

"api.anthropic.com is overloaded (HTTP 529)", "your chat model is rate limiting requests (HTTP 429)", "could not
reach localhost:11434". The status code and the provider stay data in the event's details; the technical text
(``detail``) is shown only where nothing plainer is known (a client model's own message, a missing setting).
"""

from __future__ import annotations

from collections.abc import Callable

from council.present.answer import PROVIDERS
from council.present.text import join_names, one_line
from council.session.failure import ModelFailure

CLIENT_PREFIX = "the client's model failed: "


def where(f: ModelFailure) -> str:
    """Who failed, as a person knows it: the server's host, "your chat model", or the provider's name."""
    if f.provider == "client":
        return "your chat model"
    return f.host or PROVIDERS.get(f.provider, f.provider or "the model")


def _http(f: ModelFailure) -> str:
    return f" (HTTP {f.status})" if f.status else ""


def _said(f: ModelFailure) -> str:
    text = one_line(f.detail)
    return text[len(CLIENT_PREFIX):] if text.lower().startswith(CLIENT_PREFIX) else text


CAUSES: dict[str, Callable[[ModelFailure], str]] = {
    "key_rejected": lambda f: f"{where(f)} rejected the API key{_http(f)}",
    "model_not_found": lambda f: (f"{where(f)} has no model named “{f.model}”{_http(f)}" if f.model
                                  else f"{where(f)} did not find the model{_http(f)}"),
    "rate_limited": lambda f: f"{where(f)} is rate limiting requests{_http(f)}",
    "overloaded": lambda f: f"{where(f)} is overloaded{_http(f)}",
    "server_error": lambda f: f"{where(f)} had a server error{_http(f)}",
    "timeout": lambda f: f"{where(f)} did not answer in time",
    "unreachable": lambda f: f"could not reach {f.host or where(f)}",
    "malformed": lambda f: "the model's output was malformed",
    "refused": lambda f: f"{where(f)} refused the request{_http(f)}",
    "client_model": lambda f: f"your chat model failed: {_said(f)}" if _said(f) else "your chat model failed",
    "not_configured": lambda f: f"the model is not set up: {_said(f)}",
    "crashed": lambda f: "the council hit an internal error (details are in the log)",
    "model_unavailable": lambda f: f"{f.model or 'the model'} is not available",
    "no_consent": lambda f: f"Council has no permission to use {f.model or 'the model'}",
    "over_budget": lambda f: "the session's budget of model calls is spent",
}

# what failed, by role; a persona is named in bold
ROLES = {
    "clarifier": ("The moderator could not prepare questions", " The council goes on without them."),
    "moderator": ("The moderator could not sort the positions into options",
                  " The council votes on the positions themselves."),
    "synthesizer": ("The chair could not write the final answer",
                    " The answer is put together from the advisors' replies."),
}


def cause(f: ModelFailure) -> str:
    return CAUSES[f.kind](f)


def failed(role: str, f: ModelFailure) -> str:
    """One line: who could not answer and why."""
    head, after = ROLES.get(role, (f"**{role}** could not answer", ""))
    return f"{head}: {cause(f)}.{after}"


UNREACHABLE_FIX = ("start the model server (for Ollama: `ollama serve`), or choose a model Council can reach — "
                   "`council doctor` shows what it can use")


def unreachable(failures: dict[str, ModelFailure]) -> str | None:
    """When no advisor's model could be reached at all: where the council tried (issue 19: say so once, with the
    fix, never "every advisor failed")."""
    if not failures or any(f.kind != "unreachable" for f in failures.values()):
        return None
    return join_names(list(dict.fromkeys(f.host or where(f) for f in failures.values())))


def all_failed(failures: dict[str, ModelFailure]) -> str:
    """Every advisor failed: the common cause once, or each distinct cause with the advisors it hit."""
    hosts = unreachable(failures)
    if hosts is not None:
        return (f"**No model could be reached** (could not reach {hosts}): {UNREACHABLE_FIX}; then **Retry**.")
    groups: dict[str, list[str]] = {}
    for persona, f in failures.items():
        groups.setdefault(cause(f), []).append(persona)
    if len(groups) == 1:
        why = next(iter(groups))
    else:
        why = "; ".join(f"{join_names(names)}: {text}" for text, names in groups.items())
    return (f"**Every advisor failed:** {why}. The council stopped where it was; **Retry** when the model works "
            "again.")


ALLOW = ("allow it under **Manage Language Model Access** (the Accounts menu) and say `continue`, or pick a model "
         "Council may use in the chat's model picker and ask again")


def no_consent(models: list[str]) -> str:
    """The user did not allow any of the models the council sat on: which, and how to allow them (no retry)."""
    names = join_names([f"**{m}**" for m in models]) if models else "the chat's model"
    allow = ALLOW.replace("allow it", "allow them") if len(models) > 1 else ALLOW
    return f"Council has no permission to use {names}, so no advisor could answer: {allow}."


def turn_failed(f: ModelFailure) -> str:
    """The message of a JSON-RPC error when a whole turn failed."""
    if f.kind == "crashed":
        error = f.detail.split(":", 1)[0] or "an unexpected error"
        return f"The council hit an internal error ({error}); the details are in the sidecar log."
    return f"The council could not continue: {cause(f)}."
